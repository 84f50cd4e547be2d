"""``python -m kcheck.bench PATH``: the bench command on its own."""

from __future__ import annotations

import sys

from ._cli import main

sys.exit(main())
