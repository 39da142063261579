"""The benchmarks (see docs/performance.md). Run them with the Python that has rulesrun's
dependencies, such as the one ``make test`` sets up: ``.venv/bin/python benchmarks/run.py``."""
from __future__ import annotations

import importlib.util
import sys


def require_dependencies(script: str) -> None:
    """Leave with a message, not a traceback, when this Python lacks rulesrun's dependencies."""
    missing = [m for m in ("lark", "attr", "yaml") if importlib.util.find_spec(m) is None]
    if missing:
        sys.exit(f"{script}: this Python ({sys.executable}) lacks rulesrun's dependencies "
                 f"({', '.join(missing)}). Run 'make test' once (it makes .venv), then "
                 f".venv/bin/python benchmarks/{script}; or pip install -e . first.")
