"""``python -m bdpsim``: the ``bdpsim`` command (:func:`bdpsim.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":  # importing the module (e.g. the API docs) runs nothing
    sys.exit(main())
