"""``python -m pl_metrics``: the same as the ``pl-metrics`` command."""

import sys

from pl_metrics.cli import main

sys.exit(main())
