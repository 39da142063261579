"""Importing a bridge without its optional libraries names the extra to install, not the module
that happens to be imported first (``No module named 'numpy'``)."""
import subprocess
import sys

import pytest

from tests.support import ROOT

# bridge module, the modules taken away, the extra its message must name
CASES = [
    ("openspiel", ["numpy"], "openspiel"),
    ("openspiel", ["pyspiel"], "openspiel"),
    ("pettingzoo", ["numpy"], "pettingzoo"),
    ("pettingzoo", ["pettingzoo"], "pettingzoo"),
    ("pettingzoo", ["gymnasium"], "pettingzoo"),
    ("gym", ["numpy"], "gym"),
    ("gym", ["gymnasium"], "gym"),
]


def _import_without(module: str, missing: list[str]) -> subprocess.CompletedProcess:
    """Import ``rulesrun.interpreter.bridges.<module>`` in a fresh interpreter where each of
    ``missing`` cannot be imported (None in sys.modules: as on an install without it)."""
    code = (f"import sys\nfor m in {missing!r}:\n    sys.modules[m] = None\n"
            f"import rulesrun.interpreter.bridges.{module}\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("module,missing,extra", CASES)
def test_a_bridge_imported_without_its_extra_names_the_extra(module, missing, extra):
    run = _import_without(module, missing)
    assert run.returncode != 0
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: the ") and f"pip install 'rulesrun[{extra}]'" in last, run.stderr
    assert "No module named" not in run.stderr and "halted" not in run.stderr, run.stderr


def test_the_shared_core_imports_without_numpy():
    """The action ids need no optional library: only the bridges and the encoder do."""
    code = ("import sys\nsys.modules['numpy'] = None\n"
            "from rulesrun.interpreter.bridges import ActionSpace, BridgeError, Table\n"
            "try:\n    from rulesrun.interpreter.bridges import Encoder\n"
            "except ImportError as e:\n    print(e)\n")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "needs numpy, which is not installed: pip install 'rulesrun[openspiel]'" in run.stdout
