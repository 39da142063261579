"""Magi from the command line, as a user runs it: real `rulesrun` processes, piped stdin.

Bad input (a player count outside 4–8, an unknown variant) gets a clear message and a non-zero
exit, never a traceback; all-bot games play to the end for every player count, with Catastrophe;
`make play`'s command line starts a Magi game for four, you against three bots.
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.interpreter.cli.main import DEFAULT_BOT

from tests.support import ROOT  # noqa: E402
MAGI = "games/magi.rules"


def rulesrun() -> list[str]:
    exe = ROOT / ".venv" / "bin" / "rulesrun"
    if not exe.exists():
        exe = Path(sys.executable).parent / "rulesrun"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "rulesrun.interpreter.cli.main"]


def run(*args, stdin: str = ""):
    return subprocess.run(rulesrun() + list(args), input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def play_command() -> list[str]:
    """The command of the Makefile's `play` target as make would run it (`make -n play`), with
    the venv's rulesrun made concrete."""
    if shutil.which("make") is None:
        pytest.skip("needs make")
    r = subprocess.run(["make", "-n", "--no-print-directory", "play"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    words = shlex.split(r.stdout.strip().splitlines()[-1])
    if "||" in words:       # `|| [ $? -eq 1 ]`: leaving the game unfinished is not make's error
        words = words[:words.index("||")]
    assert words[0] == ".venv/bin/rulesrun", r.stdout
    return rulesrun() + words[1:]


@pytest.mark.parametrize("players", ["3", "9", "1"])
def test_player_count_outside_4_to_8_is_refused(players):
    r = run(MAGI, "--players", players, "--seats", "random")
    assert r.returncode != 0
    assert f"Magi is for 4 to 8 players, not {players}" in r.stderr
    assert "choose --players between 4 and 8" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_compile_with_a_bad_player_count_is_refused():
    r = run("compile", MAGI, "--players", "9")
    assert r.returncode != 0
    assert "Magi is for 4 to 8 players, not 9" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_unknown_variant_is_refused_with_a_suggestion():
    r = run(MAGI, "--players", "4", "--variant", "catastrophy")
    assert r.returncode != 0
    assert "unknown variant 'catastrophy'" in r.stderr
    assert "did you mean 'catastrophe'?" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    r = run(MAGI, "--players", "4", "--variant", "chaos")
    assert r.returncode != 0 and "unknown variant 'chaos'" in r.stderr and "catastrophe" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_non_numbers_and_wrong_seats_are_refused():
    r = run(MAGI, "--players", "four")
    assert r.returncode != 0 and "expected a whole number" in r.stderr and "Traceback" not in r.stderr
    r = run(MAGI, "--players", "5", "--seats", "random,random,random,random")
    assert r.returncode != 0 and "--seats names 4 seats but the game has 5 players" in r.stderr
    assert "Traceback" not in r.stdout + r.stderr


def test_compile_summary():
    r = run("compile", MAGI)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("ok: Magi — 4–8 players, 99 cards")
    assert "variants: catastrophe" in r.stdout


# seeds whose random games are short, to keep this file quick (random Magi games vary a lot in length)
SEEDS = {4: 3, 5: 5, 6: 3, 7: 8, 8: 8}


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
@pytest.mark.slow
def test_all_bot_catastrophe_game_plays_to_the_end(n):
    r = run(MAGI, "--players", str(n), "--variant", "catastrophe", "--seats", ",".join(["random"] * n),
            "--seed", str(SEEDS[n]))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith(f"Magi — {n} players")
    assert "is the first start player." in out
    assert "Hand 1: " in out
    assert "Final scores:" in out
    assert out.count("← winner") >= 1
    scores = re.findall(r"^  Player (\d+): (\d+)", out.split("Final scores:")[1], re.M)
    assert len(scores) == n and max(int(s) for _, s in scores) >= 50
    assert "Traceback" not in out + r.stderr


@pytest.mark.slow
def test_all_bot_game_without_the_variant_plays_to_the_end():
    r = run(MAGI, "--players", "6", "--seats", "random,random,random,random,random,random", "--seed", "11")
    assert r.returncode == 0, r.stderr
    assert "Final scores:" in r.stdout


def test_make_play_command_starts_a_magi_game_for_four():
    cmd = play_command()
    assert cmd[-3:] == ["magi", "--players", "4"]
    r = subprocess.run(cmd + ["--seed", "1"], input="quit\n", capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 1, r.stderr        # quitting leaves the game unfinished: not a success
    out = r.stdout
    bot = DEFAULT_BOT
    assert f"Magi — 4 players (Player 1: human, Player 2: {bot}, Player 3: {bot}, Player 4: {bot})" in out
    assert "Magi — you are Player 1" in out                 # the human seat's view of the table
    assert "Player 1, discard face down" in out             # the first question of the setup
    assert "Game left unfinished." in out
    assert "Traceback" not in out + r.stderr


@pytest.mark.slow
def test_make_play_with_piped_moves_plays_on():
    """Always choosing the first option, a human seat plays a whole game from piped input."""
    r = subprocess.run(play_command() + ["--seed", "3"], input="1\n" * 3000, capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "discard face down" in r.stdout
    assert "Final scores:" in r.stdout
    assert "Traceback" not in r.stdout + r.stderr
