"""The command line and the REPL, driven as a user would: real processes, piped stdin."""
from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from rulesrun.interpreter import load_game
from rulesrun.interpreter.cli.main import main
from rulesrun.interpreter.terminal.repl import Repl, resolve_input

from tests.support import ROOT  # noqa: E402
MAGIC = str(ROOT / "games" / "magic_shop.rules")


def run_cli(*args, stdin: str = "", cwd=None):
    exe = Path(sys.executable).parent / "rulesrun"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "rulesrun.interpreter.cli.main"]
    return subprocess.run(cmd + list(args), input=stdin, capture_output=True, text=True,
                          cwd=cwd or ROOT, timeout=120)


def test_all_bot_game_plays_three_rounds_and_prints_scores(tmp_path):
    r = run_cli(MAGIC, "--players", "4", "--seats", "random,random,random,random", "--seed", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for n in (1, 2, 3):
        assert f"Round {n} begins" in out
    assert "Round 4 begins" not in out
    assert "Final scores:" in out
    assert out.count("← winner") >= 1
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_same_seed_same_transcript():
    a = run_cli(MAGIC, "--players", "3", "--seats", "random,random,random", "--seed", "5")
    b = run_cli(MAGIC, "--players", "3", "--seats", "random,random,random", "--seed", "5")
    assert a.returncode == 0 and a.stdout == b.stdout


@pytest.mark.slow
def test_human_seat_with_piped_input_plays_to_the_end():
    r = run_cli(MAGIC, "--players", "3", "--seed", "2", stdin="1\n" * 400)
    assert r.returncode == 0, r.stderr
    assert "Final scores:" in r.stdout
    assert "you are Player 1" in r.stdout


def test_repl_junk_keeps_the_game_and_quit_leaves():
    r = run_cli(MAGIC, "--players", "4", "--seed", "3", stdin="banana\n0\n99\nbid with\nhelp\nstate\nquit\n")
    assert r.returncode == 1          # a game left unfinished is not a success
    assert "'banana' is not a legal option" in r.stdout
    assert "there is no option 0" in r.stdout
    assert "there is no option 99" in r.stdout
    assert "could mean" in r.stdout          # 'bid with' is an ambiguous prefix
    assert "Commands:" in r.stdout
    assert "Game left unfinished." in r.stdout
    assert "Traceback" not in r.stdout + r.stderr


def test_repl_end_of_input_leaves_cleanly():
    r = run_cli(MAGIC, "--players", "4", "--seed", "3", stdin="1\n")
    assert r.returncode == 1          # unfinished
    assert "Game left unfinished." in r.stdout


def test_human_view_never_shows_other_hands():
    game = load_game(MAGIC, players=4)
    state = game.new_initial_state(seed=11)
    out = io.StringIO()
    lines = iter(["quit"])
    Repl(game, state, ["human", "random", "random", "random"], 11, out=out, readline=lambda: next(lines)).run()
    text = out.getvalue()
    for seat in (1, 2, 3):
        for card in state.cards("hand", seat):
            # every card name is unique in The Magic Shop, so any other seat's card must not appear
            assert card not in text.split("Player 1, bid with:")[0].split("Player 1 (you)")[1].split("\n")[0]
    for card in state.cards("hand", 0):
        assert card in text


@pytest.mark.parametrize("args, message", [
    (["--players", "7"], "is for 3 to 5 players, not 7"),
    (["--players", "4", "--variant", "nope"], "unknown variant 'nope'"),
    (["--players", "4", "--seats", "human,robot,random,random"], "unknown seat kind 'robot'"),
    (["--players", "4", "--seats", "human,random"], "--seats names 2 seats but the game has 4 players"),
    (["--players", "zero"], "expected a whole number"),
    (["--players", "0"], "at least 1"),
    (["--seed", "x"], "expected a whole number"),
])
def test_bad_arguments_get_a_clear_message(args, message):
    r = run_cli(MAGIC, *args)
    assert r.returncode != 0
    assert message in r.stderr
    assert "Traceback" not in r.stderr


def test_missing_file():
    r = run_cli("no/such/game.rules")
    assert r.returncode == 1
    assert "no such rules file: no/such/game.rules" in r.stderr


def test_a_file_name_that_cannot_name_a_file_gets_a_message(capsys, tmp_path):
    # a NUL cannot be in a path (found by the random command lines of test_check.py)
    assert main(["\x00", "--seats", "random,random,random"]) == 1
    assert "cannot read '\\x00'" in capsys.readouterr().err
    assert main(["compile", str(tmp_path)]) == 1          # a folder
    assert "cannot read" in capsys.readouterr().err


def test_compile_summary_and_errors(tmp_path):
    r = run_cli("compile", MAGIC)
    assert r.returncode == 0
    assert r.stdout.startswith("ok: The Magic Shop — 3–5 players, 35/45 cards")
    bad = tmp_path / "bad.rules"
    bad.write_text(Path(MAGIC).read_text().replace("move trick to accumulated", "move trik to accumulated"))
    r = run_cli("compile", str(bad))
    assert r.returncode == 1
    line = next(i for i, t in enumerate(bad.read_text().splitlines(), 1) if "move trik" in t)
    assert f"bad.rules:{line}:14: error: unknown name 'trik'" in r.stderr
    assert "hint: did you mean 'trick'?" in r.stderr
    assert "^" in r.stderr


def test_help_lists_commands_and_options():
    r = run_cli("--help")
    assert r.returncode == 0
    for word in ("--players", "--variant", "--seed", "--seats", "compile"):
        assert word in r.stdout


def test_main_returns_codes_in_process(capsys):
    assert main([MAGIC, "--players", "3", "--seats", "random,random,random", "--seed", "9"]) == 0
    assert "Final scores" in capsys.readouterr().out
    assert main(["compile", MAGIC, "--players", "5"]) == 0


def test_resolve_input():
    acts = ["play Wine 5", "play Wine 6", "play Door 1"]
    assert resolve_input("2", acts) == ("play Wine 6", None)
    assert resolve_input("PLAY door 1", acts) == ("play Door 1", None)
    assert resolve_input("play D", acts) == ("play Door 1", None)
    assert resolve_input("play Wine", acts)[0] is None
    assert resolve_input("4", acts)[0] is None


@pytest.mark.slow
def test_wheel_ships_the_grammar(tmp_path):
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0 and ("No matching distribution" in r.stderr or "Could not find" in r.stderr):
        pytest.skip("cannot reach the package index to build a wheel")
    assert r.returncode == 0, r.stderr
    wheel = next(tmp_path.glob("rulesrun-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    assert "rulesrun/grammar/rules.lark" in names
    assert any(n.endswith("entry_points.txt") for n in names)
    assert "rulesrun/dsl/compiler.py" in names and "rulesrun/dsl/passes/resume.py" in names
    assert "rulesrun/interpreter/cli/main.py" in names and "rulesrun/__init__.py" in names
