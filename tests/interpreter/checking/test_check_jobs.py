"""`rulesrun check --jobs N`: configurations checked side by side give the report one at a time
gives, in the same order; a failure is the first failing configuration's; a worker that dies is
named, not a traceback. And a configuration's games do not depend on the hash seed."""
from __future__ import annotations

import io
import os
import re

import pytest

from rulesrun.interpreter.checking import parallel, run_check
from rulesrun.interpreter.checking.search import Guide
from rulesrun.interpreter.cli.main import main

from tests.support import ROOT  # noqa: E402
SHOP = ROOT / "games" / "magic_shop.rules"
WHIST = ROOT / "examples" / "whist.rules"           # two configurations, checked in a second or two
RARE = ROOT / "tests" / "broken" / "rare_branch.rules"


def _check(path, **kw):
    out, err = io.StringIO(), io.StringIO()
    code = run_check(str(path), out=out, err=err, **kw)
    untimed = re.compile(r"\(\d+\.\ds\)| in \d+\.\ds")     # the seconds differ; nothing else may
    return code, untimed.sub("", out.getvalue()), untimed.sub("", err.getvalue())


def test_two_jobs_print_the_report_and_coverage_of_one(tmp_path):
    one = _check(WHIST, games=4, jobs=1, coverage_file=str(tmp_path / "one.txt"))
    two = _check(WHIST, games=4, jobs=2, coverage_file=str(tmp_path / "two.txt"))
    assert one[0] == two[0] == 0, one[1]
    assert "2 configurations" in one[1]
    assert one[1].replace("one.txt", "two.txt") == two[1]
    lines = two[2].splitlines()
    assert [line.split(":")[0] for line in lines] == [
        "  whist.rules, 4 players", "  whist.rules, 4 players, variant long_whist"], two[2]   # in order, each once
    assert one[2] == two[2]
    assert (tmp_path / "one.txt").read_text() == (tmp_path / "two.txt").read_text()


def test_with_two_jobs_a_failure_is_reported_as_with_one():
    one = _check(RARE, jobs=1)
    two = _check(RARE, jobs=2)
    assert one[0] == two[0] == 1
    assert "top() of an empty zone" in two[1] and "Replay it step by step:" in two[1]
    moves = re.compile(r"run-check-\w+")                   # the moves file's folder is new each time
    assert moves.sub("", one[1]) == moves.sub("", two[1]) and one[2] == two[2]


def _die(job):          # a worker killed while it checks (sent by name: forked workers see it)
    os._exit(3)


def test_a_worker_that_dies_is_named_not_a_traceback(monkeypatch):
    import multiprocessing

    from rulesrun.interpreter.simulate import pool as simpool
    monkeypatch.setattr(parallel, "_in_worker", _die)
    # forked (as on Linux with no other thread): the workers see the planted function; spawned
    # ones would look it up by importing this test module afresh
    monkeypatch.setattr(simpool, "pool_context", lambda: multiprocessing.get_context("fork"))
    code, out, err = _check(WHIST, games=2, jobs=2)
    assert code == 1
    assert "error: a worker process died while checking whist.rules, 4 players" in err
    assert "Traceback" not in err + out


def test_jobs_must_be_a_positive_number(capsys):
    with pytest.raises(SystemExit) as e:
        main(["check", str(SHOP), "--jobs", "0"])
    assert e.value.code == 2
    assert "argument --jobs/-j: expected a number of at least 1, not 0" in capsys.readouterr().err


def test_guided_search_saves_positions_in_the_order_the_lines_ran():
    """Which position each watched line saves draws on the search's random numbers: taken in a
    set's order, the games depended on the hash seed (PYTHONHASHSEED), so the same --seed checked
    other games in another run. Small ints hash to themselves: {5, 2} iterates 2 first."""
    from rulesrun.dsl import parse_file
    from rulesrun.interpreter.checking import Config, check_config
    checker, _ = check_config(str(SHOP), Config(3, ()), 1, 0, 10_000, rules=parse_file(str(SHOP)))
    guide = Guide(checker, 0)
    checker.indices = list(range(40))
    guide.targets = {5: "line five", 2: "line two"}
    guide._saw(30, [5, 2, 5])
    assert list(guide.pool) == ["line five", "line two"]
