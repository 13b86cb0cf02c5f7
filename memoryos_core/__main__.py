"""`python -m memoryos_core` runs the `memoryos` command."""

import sys

from .hosts.cli import main

sys.exit(main())
