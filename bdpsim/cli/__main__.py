"""``python -m bdpsim.cli``: the ``bdpsim`` command."""

import sys

from . import main

sys.exit(main())
