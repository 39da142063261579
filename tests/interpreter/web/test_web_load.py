"""Load on loopback: 50 tables of four socket-bot seats played to the end at once through one
``rulesrun serve`` process (benchmarks/web_load.py, whose figures are in docs/guides/web.md). Asserted:
correctness only — every game ends, no move is lost or refused, every seat sees every step, and
every table's saved record replays to the returns its seats were shown. Never the time."""
from __future__ import annotations

import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("websockets", reason="uvicorn[standard] brings websockets; not installed")

from benchmarks.web_load import run, summary  # noqa: E402
from rulesrun.interpreter.records.record import open_record  # noqa: E402

TABLES = 50


@pytest.mark.slow
def test_fifty_tables_of_four_bots_play_to_the_end_at_once(tmp_path):
    result = run("games/magic_shop.rules", 4, TABLES, seed=3, save_dir=str(tmp_path))
    assert "Traceback" not in result["server_stderr"], result["server_stderr"]
    assert len(result["tables"]) == TABLES and len({t["table"] for t in result["tables"]}) == TABLES
    seeds = set()
    for made, logs, path in zip(result["tables"], result["logs"], result["saved"]):
        finals = [log.final for log in logs]
        assert all(f is not None and f["terminal"] for f in finals)
        assert all(not log.errors for log in logs)                  # no move refused: none was stale
        end = finals[0]["step"]
        for log in logs:                                             # every seat saw every step since it came, in order
            steps = [json.loads(f)["step"] for f in log.frames]
            assert steps == sorted(steps) and sorted(set(steps)) == list(range(steps[0], end + 1))
        game, state, record = open_record(path)
        assert record["players"] == 4 and record["seats"] == ["human"] * 4
        assert len(record["actions"]) == end                          # nothing lost
        assert state.is_terminal() and all(f["returns"] == state.returns() for f in finals)
        assert sum(len(log.move_times) for log in logs) == end       # each seat's moves came back
        seeds.add(record["seed"])
    assert len(seeds) == TABLES
    assert summary(result)["moves"] == sum(len(open_record(p)[2]["actions"]) for p in result["saved"])
