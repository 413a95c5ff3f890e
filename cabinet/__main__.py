"""``python -m cabinet``: the ``cabinet`` command line (``cabinet.tools.cli``)."""

import sys

from cabinet.tools.cli import main

sys.exit(main())
