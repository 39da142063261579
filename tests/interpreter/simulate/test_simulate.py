"""``rulesrun simulate``: the same results whatever --jobs (and on Ray when it is installed), the table,
the JSON, the plot, and clear messages for bad input or a missing optional extra."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.interpreter.simulate import runner as sim
from rulesrun.interpreter.cli.main import main

from tests.support import ROOT  # noqa: E402
MAGIC = str(ROOT / "games" / "magic_shop.rules")


def run_cli(*args, cwd=None):
    exe = Path(sys.executable).parent / "rulesrun"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "rulesrun.interpreter.cli.main"]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, cwd=cwd or ROOT, timeout=300)


def without_times(data: dict) -> dict:
    """The JSON of a run less what depends on the clock or on how it was run."""
    out = {k: v for k, v in data.items() if k not in ("wall_seconds", "jobs", "backend", "command")}
    out["records"] = [{k: v for k, v in r.items() if k != "time"} for r in data["records"]]
    out["summary"] = dict(data["summary"])
    out["summary"].pop("time")
    out["summary"]["agents"] = {k: {kk: vv for kk, vv in a.items() if kk != "seconds_per_move"}
                                for k, a in data["summary"]["agents"].items()}
    return out


SEATS = "ismcts:3,greedy,random"


@pytest.mark.slow
def test_the_same_results_with_one_job_or_two(tmp_path):
    outs = []
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.json"
        r = run_cli("simulate", MAGIC, "--games", "6", "--players", "3", "--seats", SEATS, "--rotate",
                    "--seed", "7", "--jobs", jobs, "--json", str(out))
        assert r.returncode == 0, r.stderr
        assert "Traceback" not in r.stderr
        outs.append(json.loads(out.read_text()))
    a, b = outs
    assert a["jobs"] == 1 and b["jobs"] == 2
    assert without_times(a) == without_times(b)
    assert [r["index"] for r in a["records"]] == list(range(6))
    # the seeds come from (seed, game index) alone; a different --seed gives different games
    assert len({r["seed"] for r in a["records"]}) == 6
    assert sim.game_seeds(7, 3, 3) == (a["records"][3]["seed"], a["records"][3]["agent_seeds"])
    assert sim.game_seeds(8, 3, 3) != sim.game_seeds(7, 3, 3)


def test_ray_backend_gives_the_same_results():
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'rulesrun[ray]'); the local backend is tested")
    spec = _spec(seats=["greedy", "random", "random"], rotate=True)
    local = sim.run_games(spec, 4, jobs=1)
    ray_run = sim.run_games(spec, 4, jobs=2, backend="ray")
    strip = lambda rs: [{k: v for k, v in r.items() if k != "time"} for r in rs]  # noqa: E731
    assert strip(local) == strip(ray_run)


def _spec(seats, rotate=False, seed=1):
    return {"path": MAGIC, "text": Path(MAGIC).read_text(encoding="utf-8"), "players": len(seats), "variants": [],
            "seats": seats, "seed": seed, "rotate": rotate}


def test_table_and_json_report_everything(tmp_path, capsys):
    out = tmp_path / "run.json"
    code = main(["simulate", MAGIC, "--games", "8", "--players", "4", "--seats", "greedy,random,random,random",
                 "--seed", "3", "--json", str(out), "--quiet"])
    text = capsys.readouterr()
    assert code == 0, text.err
    assert text.err == ""                                    # --quiet: no progress
    for words in ("The Magic Shop: 8 games, 4 players; seats greedy,random,random,random; seed 3",
                  "Wins per seat", "95% interval", "Player 4", "fair share", "1/4 = 25.0%", "Wins per agent",
                  "decisions", "round (at the end)", "vp of a player (at the end)", "size of a hand",
                  "Options chosen", "use", "Invisible", "place it", "face up"):
        assert words in text.out, words
    raw = out.read_text()
    data = json.loads(raw)
    assert data["format"] == "rulesrun-simulate/1"
    lines = raw.splitlines()                  # each game's record on a line of its own, after the summary
    first = lines.index(' "records": [')
    assert [json.loads(line.rstrip(",")) for line in lines[first + 1:first + 9]] == data["records"]
    assert lines[first + 9:] == [" ]", "}"] and '"summary": {' in raw
    assert data["players"] == 4 and data["games"] == 8 and data["seats"] == ["greedy", "random", "random", "random"]
    s = data["summary"]
    assert set(s) >= {"games", "fair_share", "shared_wins", "seats", "agents", "length", "state", "player_state",
                      "zones", "choices", "time"}
    seat = s["seats"][0]
    assert set(seat) >= {"seat", "wins", "games", "rate", "low", "high", "agents", "score"}
    assert seat["low"] <= seat["rate"] <= seat["high"]
    assert s["fair_share"] == pytest.approx(sum(x["wins"] for x in s["seats"]) / 32)
    assert seat["vs_fair"] in ("above", "within", "below")
    assert set(seat["score"]) == {"n", "mean", "sd", "min", "q1", "median", "q3", "max"}
    assert s["agents"]["random"]["seats"] == 24 and s["agents"]["greedy"]["seats"] == 8
    assert s["state"]["round"]["final"]["mean"] == 3
    assert s["length"]["decisions"]["min"] > 100
    use = s["choices"]["use"]
    assert abs(sum(o["share"] for o in use["options"].values()) - 1) < 1e-9
    assert set(use["options"]) <= {"Eye", "Invisible", "Door", "Wine", "Machine"}
    assert set(use["by_agent"]) == {"greedy", "random"}
    rec = data["records"][0]
    assert set(rec) >= {"index", "seed", "agents", "agent_seeds", "returns", "winners", "standings", "decisions",
                        "moves", "state", "state_mean", "state_max", "player_state", "zone_mean", "zone_max",
                        "choices", "time"}
    assert sum(rec["moves"]) == rec["decisions"]
    wins = sum(1 for r in data["records"] if 0 in r["winners"])
    assert seat["wins"] == wins


def test_progress_is_plain_lines_without_a_terminal(tmp_path):
    r = run_cli("simulate", MAGIC, "--games", "3", "--players", "3", "--jobs", "1")
    assert r.returncode == 0, r.stderr
    assert "simulating: 3/3 games" in r.stderr
    assert "\x1b[" not in r.stderr and "\x1b[" not in r.stdout
    assert "3 games in" in r.stdout


def test_rotation_puts_every_agent_in_every_seat():
    kinds = [sim.seat_kinds(["a", "b", "c"], i, True) for i in range(3)]
    assert kinds == [["a", "b", "c"], ["c", "a", "b"], ["b", "c", "a"]]
    assert sim.seat_kinds(["a", "b"], 5, False) == ["a", "b"]


def test_one_kind_fills_every_seat():
    assert sim.resolve_seats("ismcts:5", 3) == ["ismcts:5"] * 3
    assert sim.resolve_seats(None, 2) == ["random", "random"]


def test_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (pip install 'rulesrun[plot]')")
    out = tmp_path / "run.png"
    assert main(["simulate", MAGIC, "--games", "4", "--players", "3", "--jobs", "1", "--quiet",
                 "--plot", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_statistics():
    lo, hi = sim.wilson(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = sim.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    d = sim.describe([1, 2, 3, 4, 5])
    assert (d["mean"], d["min"], d["q1"], d["median"], d["q3"], d["max"]) == (3, 1, 2, 3, 4, 5)
    assert d["sd"] == pytest.approx(1.5811, abs=1e-4)
    assert sim.describe([7])["sd"] == 0.0


@pytest.mark.parametrize("args, message", [
    (["--games", "0"], "expected a number of at least 1, not 0"),
    (["--games", "ten"], "expected a whole number, not 'ten'"),
    ([], "the following arguments are required: --games"),
    (["--games", "2", "--seats", "random,robot,random"], "unknown seat kind 'robot'"),
    (["--games", "2", "--seats", "random,ismcts:lots,random"], "bad budget in 'ismcts:lots'"),
    (["--games", "2", "--seats", "human,random,random"], "simulate plays bots only, but seat 1 is 'human'"),
    (["--games", "2", "--seats", "random,random"], "--seats names 2 seats but the game has 3 players"),
    (["--games", "2", "--seats", "random,,random"], "--seats has an empty entry for seat 2"),
    (["--games", "2", "--jobs", "0"], "expected a number of at least 1, not 0"),
    (["--games", "2", "--backend", "spark"], "invalid choice: 'spark'"),
    (["--games", "2", "--json", "/no/such/folder/out.json"], "the folder /no/such/folder does not exist"),
    (["--games", "2", "--players", "9"], "The Magic Shop is for 3 to 5 players, not 9"),
    (["--games", "2", "--variant", "nope"], "unknown variant 'nope'"),
])
def test_bad_input_gets_a_clear_message(args, message):
    r = run_cli("simulate", MAGIC, *args)
    assert r.returncode != 0
    assert message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_missing_file_is_a_clear_message():
    r = run_cli("simulate", "no/such.rules", "--games", "2")
    assert r.returncode != 0 and "no such rules file" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("module, args, message", [
    ("ray", ["--backend", "ray"], "pip install 'rulesrun[ray]'"),
    ("matplotlib", ["--plot", "out.png"], "pip install 'rulesrun[plot]'"),
])
def test_a_missing_extra_names_what_to_install(module, args, message, monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, module, None)     # import fails as if it were not installed
    monkeypatch.chdir(tmp_path)
    code = main(["simulate", MAGIC, "--games", "2", "--players", "3", "--quiet"] + args)
    err = capsys.readouterr().err
    assert code != 0
    assert message in err and "not installed" in err
    assert not (tmp_path / "out.png").exists()


def test_help_lists_the_options():
    r = run_cli("simulate", "--help")
    assert r.returncode == 0
    for word in ("--games", "--players", "--variant", "--seats", "--rotate", "--jobs", "--backend", "--seed",
                 "--json", "--plot", "ismcts:N"):
        assert word in r.stdout, word
    r = run_cli("--help")
    assert "simulate" in r.stdout


def test_markdown_tables(capsys):
    assert main(["simulate", MAGIC, "--games", "3", "--players", "3", "--jobs", "1", "--quiet", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("The Magic Shop: 3 games, 3 players; seats random,random,random (the default); seed 0\n")
    assert "**Wins per seat (95% Wilson interval; a shared win counts for every winner)**" in out
    assert "| seat | agent | wins | win rate | 95% interval | mean | sd | min | q1 | median | q3 | max |" in out
    assert "| --- | --- | ---: |" in out
    assert "| decisions |" in out and "┃" not in out


def test_the_pool_plays_runs_of_games_and_gives_every_game_once_in_order():
    from rulesrun.interpreter.simulate import pool as simpool
    for games, jobs in ((1, 2), (7, 2), (40, 2), (1500, 2), (1000, 8)):
        chunks = simpool._chunks(games, jobs)
        assert [i for c in chunks for i in c] == list(range(games))
        assert max(map(len, chunks)) <= 50
    assert len(simpool._chunks(1500, 2)) == 30          # a few runs per worker, not one task a game
    spec = _spec(seats=["random", "random", "random"], seed=3)
    strip = lambda rs: [{k: v for k, v in r.items() if k != "time"} for r in rs]  # noqa: E731
    pooled = sim.run_games(spec, 40, jobs=2)            # runs of 2 games each
    assert [r["index"] for r in pooled] == list(range(40))
    assert strip(pooled) == strip(sim.run_games(spec, 40, jobs=1))


def test_a_broken_game_inside_a_run_of_games_is_reported_and_the_rest_kept():
    from rulesrun.interpreter.simulate import pool as simpool
    spec = _spec(seats=["random", "random", "random"], seed=3)
    with pytest.raises(simpool.SimulationIncomplete) as e:
        sim.run_games(spec, 40, jobs=2, keep_going=True, task=_breaks_on_game_5)
    assert [f["index"] for f in e.value.failed] == [5]
    assert [r["index"] for r in e.value.records] == [i for i in range(40) if i != 5]
    assert e.value.lost == []


def _breaks_on_game_5(task):
    from rulesrun.interpreter.simulate.pool import play_task
    _, index = task
    if index == 5:
        return {"index": 5, "failed": {"index": 5, "seed": 0, "error": "broken on purpose", "moves": []}}
    return play_task(task)


def _slow_early_games(task):
    """Games 0-3 come back last: the records reach on_record in index order all the same."""
    import time
    _, index = task
    if index < 4:
        time.sleep(0.3)
    return {"index": index, "stub": True}


def test_on_record_gets_each_record_once_in_index_order_while_the_pool_plays():
    seen = []
    records = sim.run_games(_spec(seats=["random"] * 3), 40, jobs=2, task=_slow_early_games, on_record=seen.append)
    assert [r["index"] for r in seen] == list(range(40)) == [r["index"] for r in records]


def test_on_record_skips_failed_games_and_still_gets_every_record():
    from rulesrun.interpreter.simulate import pool as simpool
    seen = []
    with pytest.raises(simpool.SimulationIncomplete) as e:
        sim.run_games(_spec(seats=["random"] * 3, seed=3), 40, jobs=2, keep_going=True, task=_breaks_on_game_5,
                      on_record=seen.append)
    assert [r["index"] for r in seen] == [i for i in range(40) if i != 5] == [r["index"] for r in e.value.records]


def test_summary_added_a_game_at_a_time_equals_the_summary_of_all():
    spec = _spec(seats=["greedy", "random", "random"], seed=4)
    records = sim.run_games(spec, 12, jobs=1)
    whole = sim.summarise(records, 3)
    totals = sim.Summary(3)
    for r in records:
        totals.add(r)
    assert totals.result() == whole
    assert whole["games"] == 12 and whole["agents"]["random"]["seats"] == 24
    assert sim.summarise([], 3)["seats"][0]["score"] == {"n": 0}
