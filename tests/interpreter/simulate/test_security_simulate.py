"""``rulesrun simulate`` when games break: a game that raises a rules error
or runs past ``--max-steps`` is named (index, seed, a replay command that reproduces it), not a
traceback; ``--keep-going`` keeps the finished games and writes partial JSON; a dead worker is
reported with the games it lost, without a hang; Ctrl-C ends the run and its workers cleanly."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulesrun.interpreter.simulate import pool as simpool
from rulesrun.interpreter.simulate.pool import SimulationIncomplete, run_games

from tests.support import ROOT  # noqa: E402
EXE = Path(sys.executable).parent / "rulesrun"
MAGIC = ROOT / "games" / "magic_shop.rules"

BREAKS = """
game "Breaks"
players 2
cards:
    rank: number
    for rank in 1 to 4
zone deck: facedown
zone hand per player: owner
flow:
    shuffle deck
    for p in players:
        p chooses n from [1, 1, 9] as "draw"
        deal n from deck to hand
"""

LONG = """
game "Long"
players 2
state x: number = 0
cards:
    rank: number
    for rank in 1 to 2
zone deck: facedown
flow:
    repeat 500 times:
        for p in players:
            p chooses n from [1, 2] as "add"
            x += n
"""


def rulesrun(*args, **kw):
    return subprocess.run([str(EXE), *map(str, args)], capture_output=True, text=True, timeout=180, **kw)


@pytest.fixture
def breaks(tmp_path):
    path = tmp_path / "breaks.rules"
    path.write_text(BREAKS)
    return path


def test_a_broken_game_is_named_with_its_seed_and_a_replay_command_that_reproduces_it(breaks, tmp_path):
    r = rulesrun("simulate", breaks, "--games", "20", "--jobs", "1", "--quiet")
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert "failed after" in r.stderr and "cannot deal 9 cards" in r.stderr
    assert "stopped (" in r.stderr and "--keep-going" in r.stderr
    cmd = r.stderr.split("replay it: ", 1)[1].splitlines()[0]
    words = shlex.split(cmd)
    assert words[0] == "rulesrun" and "--seed" in words and "--moves" in words
    moves = Path(words[words.index("--moves") + 1])
    assert moves.is_file() and oct(moves.parent.stat().st_mode & 0o777) == "0o700"
    again = rulesrun(*words[1:])
    assert again.returncode == 1 and "cannot deal 9 cards" in again.stdout + again.stderr
    assert "Traceback" not in again.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_keep_going_reports_the_finished_games_and_writes_partial_json(breaks, tmp_path, jobs):
    out = tmp_path / "out.json"
    r = rulesrun("simulate", breaks, "--games", "12", "--jobs", jobs, "--quiet", "--keep-going", "--json", out)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr
    data = json.loads(out.read_text())
    assert data["complete"] is False
    failed = {f["index"] for f in data["failed"]}
    finished = {rec["index"] for rec in data["records"]}
    assert failed and finished and failed | finished == set(range(12)) and not failed & finished
    assert data["summary"]["games"] == len(finished)
    assert all("replay" in f and f["moves"] for f in data["failed"])
    assert "Wins per seat" in r.stdout
    assert f"{len(finished)} of 12 games finished" in r.stderr


def test_a_game_past_max_steps_fails_with_a_message(tmp_path):
    path = tmp_path / "long.rules"
    path.write_text(LONG)
    r = rulesrun("simulate", path, "--games", "2", "--jobs", "1", "--quiet", "--max-steps", "50")
    assert r.returncode == 1
    assert "has not ended after 50 decisions" in r.stderr and "game 0" in r.stderr
    assert rulesrun("simulate", path, "--games", "1", "--jobs", "1", "--quiet").returncode == 0


def dies_on_game_3(task):
    """A worker that dies (as one killed by the OOM killer would) while playing game 3."""
    _, index = task
    if index == 3:
        os._exit(9)
    time.sleep(0.05)
    return {"index": index, "stub": True}


@pytest.mark.parametrize("games", [8, 40])     # a game a task, and runs of two games a task
def test_a_dead_worker_loses_its_games_with_a_message_not_a_hang(games):
    spec = {"path": "x", "text": "", "players": 2, "variants": [], "seats": ["random"] * 2, "seed": 0,
            "rotate": False}
    t0 = time.perf_counter()
    with pytest.raises(SimulationIncomplete) as e:
        run_games(spec, games, jobs=2, task=dies_on_game_3)
    assert time.perf_counter() - t0 < 60
    assert 3 in e.value.lost
    assert not set(e.value.lost) & {r["index"] for r in e.value.records}
    assert set(e.value.lost) | {r["index"] for r in e.value.records} == set(range(games))


def test_the_lost_games_are_named_on_the_command_line(capsys):
    import argparse
    err = SimulationIncomplete([{"index": 0}], [], [1, 2, 3, 7], 8)
    simpool.report_incomplete(err, argparse.Namespace(seed=5, keep_going=False, file="g.rules"), None, [])
    text = capsys.readouterr().err
    assert "a worker process died" in text and "4 games lost: 1-3, 7" in text


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc to see the workers")
def test_ctrl_c_ends_the_run_and_every_worker_cleanly():
    p = subprocess.Popen([str(EXE), "simulate", str(MAGIC), "--games", "500", "--players", "3", "--jobs", "2",
                          "--seats", "ismcts:200", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, start_new_session=True)
    time.sleep(6)                       # the workers are up and playing
    os.killpg(p.pid, signal.SIGINT)     # what Ctrl-C does: the whole foreground group
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:   # (a shell that started pytest in the background ignores
        os.killpg(p.pid, signal.SIGKILL)    # SIGINT, and so would the run): end it, then fail
        p.communicate()
        ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        pytest.fail("the run did not end within 60 s of Ctrl-C"
                    + (" (SIGINT is ignored in this test process, and so in the run it started)" if ignored else ""))
    assert p.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err and "KeyboardInterrupt" not in err
    deadline = time.time() + 15
    while living_in_group(p.pid) and time.time() < deadline:
        time.sleep(0.05)
    assert living_in_group(p.pid) == []  # no worker is left behind (a zombie waiting for init is dead)


def living_in_group(pgid: int) -> list[int]:
    """The processes of a process group that are still running (not zombies)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if int(fields[2]) == pgid and fields[0] != "Z":
                out.append(int(entry))
    return out
