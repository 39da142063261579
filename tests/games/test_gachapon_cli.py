"""Gachapon Trick on the command line: all-bot games for 2, 3 and 4 players, and bad input (a player
count the game is not for, an unknown variant) answered with a clear message and no traceback."""
from __future__ import annotations

import subprocess

import pytest

from tests.support import ROOT  # noqa: E402
RULESRUN = ROOT / ".venv" / "bin" / "rulesrun"
GACHAPON = "games/gachapon.rules"


def run(*args, stdin: str = ""):
    return subprocess.run([str(RULESRUN), *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=120)


def assert_clean_error(r, *fragments):
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert "Traceback" not in out
    for f in fragments:
        assert f in r.stderr, f"{f!r} not in {r.stderr!r}"


@pytest.mark.parametrize("n", [2, 3, 4])
def test_all_bot_game_plays_to_the_end(n):
    r = run(GACHAPON, "--players", str(n), "--seats", ",".join(["random"] * n), "--seed", str(10 + n))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Traceback" not in out + r.stderr
    for k in (1, 2, 3):
        assert f"Round {k} begins; Player {(k - 1) % n + 1} leads." in out
    assert "Round 4 begins" not in out
    assert "Final scores:" in out
    assert out.count("← winner") >= 1
    tail = out[out.index("Final scores:"):].splitlines()
    assert [line.split(":")[0].strip() for line in tail[1:n + 1]] == [f"Player {p}" for p in range(1, n + 1)]
    if n == 2:
        assert "(Player 1: random, Player 2: random)" in out


@pytest.mark.slow
def test_two_players_select_the_variant_by_themselves_and_by_name():
    auto = run(GACHAPON, "--players", "2", "--seats", "random,random", "--seed", "4")
    named = run(GACHAPON, "--players", "2", "--variant", "two_player", "--seats", "random,random", "--seed", "4")
    assert auto.returncode == 0 and named.returncode == 0, auto.stderr + named.stderr
    assert auto.stdout == named.stdout
    compiled = run("compile", GACHAPON, "--players", "2")
    assert compiled.returncode == 0 and "variants: two_player" in compiled.stdout


@pytest.mark.parametrize("n", ["5", "1"])
def test_a_player_count_the_game_is_not_for(n):
    r = run(GACHAPON, "--players", n, "--seats", "random")
    assert_clean_error(r, f"Gachapon Trick is for 2 to 4 players, not {n}", "choose --players between 2 and 4")
    c = run("compile", GACHAPON, "--players", n)
    assert_clean_error(c, f"Gachapon Trick is for 2 to 4 players, not {n}")


def test_an_unknown_variant():
    r = run(GACHAPON, "--players", "3", "--variant", "two_playr", "--seats", "random,random,random")
    assert_clean_error(r, "unknown variant 'two_playr'", "did you mean 'two_player'?")
    r = run(GACHAPON, "--players", "4", "--variant", "solo")
    assert_clean_error(r, "unknown variant 'solo'", "two_player")


def test_the_two_player_variant_with_more_players():
    r = run(GACHAPON, "--players", "3", "--variant", "two_player", "--seats", "random,random,random")
    assert_clean_error(r, "Gachapon Trick with the variant 'two_player' is for 2 players, not 3",
                       "use --players 2")


def test_zero_or_no_number_of_players():
    for bad in ("0", "three"):
        r = run(GACHAPON, "--players", bad)
        assert r.returncode == 2
        assert "Traceback" not in r.stdout + r.stderr
        assert "--players" in r.stderr


@pytest.mark.slow
def test_a_human_seat_with_piped_input_sees_the_toys_and_plays_to_the_end():
    r = run(GACHAPON, "--players", "3", "--seed", "2", stdin="1\n" * 600)
    assert r.returncode == 0, r.stderr
    assert "you are Player 1" in r.stdout
    assert "Final scores:" in r.stdout
    assert "(Robot)" in r.stdout or "(Cat)" in r.stdout
