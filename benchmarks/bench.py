#!/usr/bin/env python3
"""Kept for ``make bench`` and old habits: the same as ``python benchmarks/run.py`` (see its --help)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.run import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
