"""Odd input at the edges: odd digits, odd numbers, odd file names and odd files get
messages, never tracebacks; a BOM is accepted; leaving a game unfinished exits non-zero."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.interpreter import load_game
from rulesrun.interpreter.cli.main import main
from rulesrun.interpreter.records.record import make_record, save_record
from rulesrun.interpreter.terminal.repl import Repl
from rulesrun.interpreter.terminal.replay import ReplayViewer

from tests.support import ROOT, feed  # noqa: E402
MAGIC = ROOT / "games" / "magic_shop.rules"
EXE = Path(sys.executable).parent / "rulesrun"



def repl_with(lines, end=EOFError):
    game = load_game(MAGIC, players=3)
    out = io.StringIO()
    repl = Repl(game, game.new_initial_state(seed=1), ["human", "random", "random"], 1, out=out,
                readline=feed(lines, end))
    return repl, out


@pytest.mark.parametrize("line", ["²", "log ²", "١", "log ٣", "1²"])
def test_non_ascii_digits_at_the_prompt_are_a_message(line):
    repl, out = repl_with([line, "quit"])
    repl.run()
    assert "is not a legal option" in out.getvalue()
    assert repl.state.history() == []


def test_non_ascii_digits_in_the_replay_viewer_and_seat(tmp_path, capsys):
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=6)
    state.apply_action(state.legal_actions()[0])
    target = tmp_path / "r.yaml"
    save_record(target, make_record(game, state, ["random"] * 3))
    from rulesrun.interpreter.records.record import open_record
    _, _, record = open_record(target)
    out = io.StringIO()
    assert ReplayViewer(game, record, None, out=out, readline=feed(["j ²", "q"])).run() == 0
    assert "jump to a step from 0 to 1" in out.getvalue()
    assert main(["replay", str(target), "--seat", "²"]) == 1
    assert "--seat takes a player from 1 to 3" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "-1", "1e9"])
def test_delay_must_be_a_finite_number_of_seconds(value, capsys):
    with pytest.raises(SystemExit) as e:
        main([str(MAGIC), "--seats", "random,random,random", "--delay", value])
    assert e.value.code == 2
    assert "--delay" in capsys.readouterr().err


def test_a_nul_in_a_save_name_at_the_prompt_is_a_message():
    repl, out = repl_with(["save a\x00b.yaml", "quit"])
    repl.run()
    assert "NUL" in out.getvalue() and "Saved to" not in out.getvalue()


def test_a_moves_file_that_is_not_utf8_is_a_message(tmp_path):
    moves = tmp_path / "m.txt"
    moves.write_bytes(b"bid with \xff\xfe\n")
    r = subprocess.run([str(EXE), str(MAGIC), "--seats", "random,random,random", "--moves", str(moves)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "not UTF-8" in r.stderr and "Traceback" not in r.stderr


def test_a_fifo_or_a_device_as_the_rules_file_is_a_message_not_a_hang(tmp_path, capsys):
    fifo = tmp_path / "game.rules"
    os.mkfifo(fifo)
    assert main(["compile", str(fifo)]) == 1
    assert "FIFO" in capsys.readouterr().err
    assert main([str(fifo), "--seats", "random,random,random"]) == 1
    assert "FIFO" in capsys.readouterr().err
    assert main(["compile", "/dev/null"]) == 1
    assert "a device" in capsys.readouterr().err


def test_a_utf8_bom_is_accepted_in_rules_and_moves_files(tmp_path):
    rules = tmp_path / "bom.rules"
    rules.write_bytes(b"\xef\xbb\xbf" + MAGIC.read_bytes())
    r = subprocess.run([str(EXE), "compile", str(rules)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    game = load_game(rules, players=3)
    first = str(game.new_initial_state(seed=2).legal_actions()[0])
    moves = tmp_path / "m.txt"
    moves.write_bytes(b"\xef\xbb\xbf" + first.encode() + b"\n")
    r = subprocess.run([str(EXE), str(rules), "--players", "3", "--seed", "2", "--seats", "human,random,random",
                        "--moves", str(moves)], input="quit\n", capture_output=True, text=True, timeout=60)
    assert f"step 1: Player 1: {first}" in r.stdout, r.stdout + r.stderr


@pytest.mark.parametrize("lines, end", [(["quit"], EOFError), ([], EOFError), ([], KeyboardInterrupt)],
                         ids=["quit", "eof", "ctrl-c"])
def test_leaving_a_game_unfinished_exits_non_zero(lines, end):
    repl, out = repl_with(lines, end)
    assert repl.run() == 1
    assert "Game left unfinished." in out.getvalue()
