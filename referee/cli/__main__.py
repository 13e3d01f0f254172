"""``python -m referee.cli`` is the ``referee`` command."""

import sys

from referee.cli.commands import main

sys.exit(main())
