"""`python -m agent`: the `phone-agent` command, for when the console script is not on the path."""

import sys

from agent.cli import main

sys.exit(main())
