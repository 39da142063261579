"""A game that never ends, played by bots alone: play stops at --max-steps (by default the bound
`rulesrun check` uses) with the message `check` gives; `simulate` says how many games hit it. And
`simulate` says which seats it used, with a note when every seat is random."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rulesrun.interpreter.cli.parsers import build_parsers, simulate_parser
from rulesrun.interpreter.runtime.engine import DECISION_BOUND, never_ended
from tests.support import small_game

EXE = Path(sys.executable).parent / "rulesrun"
FOREVER = small_game("Forever", 2, """\
    state x: number = 0
    flow:
        while x >= 0:
            for p in players:
                p chooses n from [1, 2] as "add"
                x += n
""")
SHORT = FOREVER.replace("while x >= 0:", "repeat 3 times:")


def rulesrun(*args):
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=120)


def rules(tmp_path, text=FOREVER) -> Path:
    path = tmp_path / "forever.rules"
    path.write_text(text)
    return path


def test_all_bot_play_of_a_game_that_never_ends_stops_with_checks_message(tmp_path):
    path = rules(tmp_path)
    r = rulesrun(path, "--seats", "random,random", "--seed", "1", "--max-steps", "40")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.rstrip().endswith(f"Stopped: {never_ended(40)}.")
    assert r.stdout.count("Player 1: add") == 20
    check = rulesrun("check", path, "--players", "2", "--games", "2", "--max-steps", "40", "--jobs", "1")
    assert never_ended(40) in check.stdout + check.stderr


def test_play_and_check_bound_the_steps_alike_by_default():
    main, _, check, _ = build_parsers()
    assert main.parse_args(["x.rules"]).max_steps == check.parse_args(["x.rules"]).max_steps == DECISION_BOUND
    assert simulate_parser().parse_args(["x.rules", "--games", "1"]).max_steps == DECISION_BOUND


def test_a_human_at_the_table_is_not_stopped_by_the_bound(tmp_path):
    r = subprocess.run([str(EXE), str(rules(tmp_path)), "--seats", "human,random", "--max-steps", "2"],
                       input="add 1\n" * 5 + "quit\n", capture_output=True, text=True, timeout=120)
    assert "Stopped:" not in r.stdout and "Game left unfinished." in r.stdout


def test_simulate_says_how_many_games_hit_the_bound(tmp_path):
    r = rulesrun("simulate", rules(tmp_path), "--games", "3", "--jobs", "1", "--quiet", "--max-steps", "30",
                 "--keep-going")
    assert r.returncode == 1
    assert never_ended(30) in r.stderr
    assert "3 of 3 games hit the step bound (30 decisions, --max-steps)" in r.stderr


def test_simulate_names_its_seats_and_asks_for_bots_when_every_seat_is_random(tmp_path):
    path = rules(tmp_path, SHORT)
    r = rulesrun("simulate", path, "--games", "4", "--jobs", "1", "--quiet")
    assert r.returncode == 0, r.stderr
    assert "seats random,random (the default)" in r.stdout
    assert "for balance questions, seat bots: --seats ismcts" in " ".join(r.stdout.split())
    r = rulesrun("simulate", path, "--games", "4", "--jobs", "1", "--quiet", "--markdown")
    assert "--seats ismcts" in r.stdout
    r = rulesrun("simulate", path, "--games", "4", "--jobs", "1", "--quiet", "--seats", "ismcts:5,random")
    assert "seats ismcts:5,random;" in r.stdout and "(the default)" not in r.stdout
    assert "--seats ismcts" not in r.stdout
