import sys
from pathlib import Path

import pytest

# tests/ is a package tree (tests/dsl/check/..., tests/interpreter/bots/...): the repository's root
# goes on sys.path so that `from tests.support import ...` works from any of its folders.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support import ROOT  # noqa: E402,F811  the one ROOT the tests share


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT
