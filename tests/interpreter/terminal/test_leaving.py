"""Leaving a game in a real terminal: `quit` and Ctrl-D both ask "Save before you go? [y/N]", then a
file name with a default (the game's name and the date); a yes or no is never taken as a file name,
and Ctrl-D at the question leaves without saving."""
from __future__ import annotations

import datetime
import os
import sys
from pathlib import Path

import pytest

from rulesrun.interpreter.records.record import open_record

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

EXE = Path(sys.executable).parent / "rulesrun"
RULES = ('game "Leaving"\nplayers 2\nkind Suit: Red\ncards:\n    suit: Suit\n    for suit in Suit\n'
         'zone deck: public\nflow:\n    for p in players:\n        p chooses y from [1, 2] as "keep"\n')
SAVE = "Save before you go? [y/N]"
EOT = "\x04"      # Ctrl-D


def table(folder: Path):
    """rulesrun in a pseudo-terminal, in ``folder``, at its first prompt."""
    pexpect = pytest.importorskip("pexpect", reason="the terminal tests need pexpect (the dev extra)")
    (folder / "leaving.rules").write_text(RULES)
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", NO_COLOR="1")
    child = pexpect.spawn(str(EXE), ["leaving.rules", "--seats", "human,random", "--seed", "1"],
                          encoding="utf-8", timeout=60, dimensions=(24, 80), env=env, cwd=str(folder))
    child.expect("Player 1>")
    return child


def ends(child) -> str:
    pexpect = pytest.importorskip("pexpect")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1, child.before       # the game left unfinished
    return child.before


def saved(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.suffix == ".yaml")


def test_quit_asks_yes_or_no_then_saves_under_a_default_name(tmp_path):
    child = table(tmp_path)
    child.sendline("quit")
    child.expect_exact(SAVE)
    child.sendline("y")
    default = f"leaving-{datetime.date.today().isoformat()}.yaml"
    child.expect_exact(f"File name [{default}]:")
    child.sendline("")
    out = ends(child)
    assert f"Saved to {default}." in out and "Game left unfinished." in out
    assert saved(tmp_path) == [default]
    _, state, _ = open_record(tmp_path / default)
    assert state.decision_label() == "keep" and state.history() == []


def test_a_yes_is_never_taken_as_a_file_name(tmp_path):
    child = table(tmp_path)
    child.sendline("quit")
    child.expect_exact(SAVE)
    child.sendline("yes")
    child.expect_exact("File name [")
    child.sendline("y")
    child.expect_exact("'y' is an answer, not a file name")
    child.sendline("mine.yaml")
    out = ends(child)
    assert "Saved to mine.yaml." in out
    assert saved(tmp_path) == ["mine.yaml"] and not (tmp_path / "y").exists()


def test_quit_and_no_leaves_without_saving(tmp_path):
    child = table(tmp_path)
    child.sendline("quit")
    child.expect_exact(SAVE)
    child.sendline("n")
    assert "Game left unfinished." in ends(child)
    assert saved(tmp_path) == []


def test_ctrl_d_offers_to_save_and_ctrl_d_again_leaves(tmp_path):
    child = table(tmp_path)
    child.send(EOT)
    child.expect_exact(SAVE)
    child.send(EOT)
    assert "Game left unfinished." in ends(child)
    assert saved(tmp_path) == []


def test_ctrl_d_at_the_file_name_leaves_without_saving(tmp_path):
    child = table(tmp_path)
    child.send(EOT)
    child.expect_exact(SAVE)
    child.sendline("y")
    child.expect_exact("File name [")
    child.send(EOT)
    out = ends(child)
    assert "Not saved." in out and "Game left unfinished." in out
    assert saved(tmp_path) == []


def test_the_default_name_does_not_overwrite_an_earlier_save(tmp_path):
    today = datetime.date.today().isoformat()
    (tmp_path / f"leaving-{today}.yaml").write_text("an earlier save\n")
    child = table(tmp_path)
    child.sendline("quit")
    child.expect_exact(SAVE)
    child.sendline("y")
    child.expect_exact(f"File name [leaving-{today}-2.yaml]:")
    child.sendline("")
    ends(child)
    assert (tmp_path / f"leaving-{today}.yaml").read_text() == "an earlier save\n"
    open_record(tmp_path / f"leaving-{today}-2.yaml")
