"""``python -m bdpsim.cli``: the ``bdpsim`` command."""

import sys

from . import main

if __name__ == "__main__":  # importing the module (e.g. the API docs) runs nothing
    sys.exit(main())
