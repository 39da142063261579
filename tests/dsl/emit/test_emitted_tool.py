"""The tool that writes every game's generated code for a before/after comparison (tests/emitted.py,
docs/architecture.md "Compiling fast"): two runs of the same code write the same files, and the
files hold what a change could alter (the Python, its bytecode and line tables)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import ROOT  # noqa: E402


def run(folder: Path, *files: str) -> str:
    out = subprocess.run([sys.executable, "-m", "tests.emitted", str(folder), *files], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_two_runs_write_the_same_files_with_code_bytecode_and_lines(tmp_path):
    assert "wrote 3 programs" in run(tmp_path / "a", "examples/big_two.rules", "games/magic_shop.rules")
    run(tmp_path / "b", "examples/big_two.rules", "games/magic_shop.rules")
    a = sorted((tmp_path / "a").iterdir())
    assert [p.name for p in a] == ["big_two---4.txt", "magic_shop---3.txt", "magic_shop---5.txt"]
    for p in a:
        assert p.read_text() == (tmp_path / "b" / p.name).read_text()
    text = (tmp_path / "a" / "big_two---4.txt").read_text()
    assert "def _R0_0(S, F):" in text                      # the Python
    assert "|[(" in text and "examples/big_two.rules" in text   # line tables, rules positions
    assert "/" + str(ROOT.name) + "/" not in text          # paths as the rules name them


def test_a_wrong_call_says_how_to_call_it():
    out = subprocess.run([sys.executable, "-m", "tests.emitted"], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode != 0 and "usage: python -m tests.emitted FOLDER" in out.stderr
