"""Rules coverage in `rulesrun check`: lines, branches (if/elif/else, implicit else, `if able` both
ways), decisions and options, the summary line, --coverage FILE and --min-coverage."""
from __future__ import annotations

import io

from rulesrun.dsl import compile_rules, parse_file
from rulesrun.interpreter import load_game
from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.checking.coverage import AbleProbe, Coverage, Tracer, branches_of, rules_positions
from rulesrun.interpreter.checking.properties import GameChecker
from rulesrun.interpreter.cli.main import main

from tests.support import ROOT  # noqa: E402
SHOP = ROOT / "games" / "magic_shop.rules"

BRANCHY = """game "Branchy"
players 2

kind Suit: Red, Blue

cards:
    suit: Suit
    rank: number
    shown as "{suit} {rank}"
    for suit in Suit, rank in 1 to 3

zone deck: facedown
zone hand per player: owner
zone table: public

player state points: number = 0

flow:
    shuffle deck
    deal 2 from deck to hand
    for p in players:
        p chooses c from p.hand as "play"
        move c to table
        if c.rank == 1:
            p.points += 1
        elif c.rank == 99:
            p.points += 99
        if c.rank == 98:
            p.points += 98
    for p in players:
        p chooses c from p.hand where c.suit == Red if able as "discard"
        move c to table

winners p by highest p.points
"""


def write(tmp_path, text, name="branchy.rules"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def coverage_of(path, players, games=20):
    rules = parse_file(path)
    prog = compile_rules(rules, players, ())
    game = load_game(path, players=players)
    prog = game.program
    cov = Coverage.empty(prog, rules)
    checker = GameChecker(game, 1000, coverage=cov, tracer=Tracer(prog), probe=AbleProbe(rules, players, (), prog))
    for seed in range(games):
        checker.play(seed, [], [])
    return cov


def test_branches_come_from_the_syntax_tree(tmp_path):
    kinds = [b.kind for b in branches_of(parse_file(write(tmp_path, BRANCHY)))]
    assert kinds.count("if") == 2 and kinds.count("elif") == 1
    assert kinds.count("implicit else") == 2       # both ifs have no else
    assert "able" in kinds and "fallback" in kinds


def test_unreached_branches_and_lines_are_named(tmp_path):
    path = write(tmp_path, BRANCHY)
    cov = coverage_of(path, 2)
    missing = {(b.kind, b.pos.line) for b in cov.unreached()}
    # rank 99 and rank 98 never occur: those bodies never run; their implicit elses do
    assert ("elif", 27) in missing and ("if", 29) in missing
    assert ("implicit else", 26) not in missing and ("implicit else", 28) not in missing
    assert cov.lines_run[(str(path), 25)] > 0                  # the rank 1 body ran
    assert not cov.lines_run.get((str(path), 27))
    line = cov.summary_line()
    assert line.startswith("coverage: lines ") and "never reached: branchy.rules:27, 29" in line
    assert cov.decisions["play"] == 2 * 20 and cov.decisions["discard"] == 2 * 20


def test_if_able_is_seen_both_ways(tmp_path):
    """Two cards in hand, one played: the other is Red (able) or not (fallback) — both happen."""
    cov = coverage_of(write(tmp_path, BRANCHY), 2, games=30)
    (tally,) = cov.able.values()
    assert tally["able"] > 0 and tally["fallback"] > 0
    assert not [b for b in cov.unreached() if b.kind in ("able", "fallback")]


def test_if_able_never_falling_back_is_reported(tmp_path):
    # every card is Red: the filter never comes up empty, so the fallback is never taken
    text = BRANCHY.replace("for suit in Suit, rank in 1 to 3", "for suit in [Red], rank in 1 to 6")
    cov = coverage_of(write(tmp_path, text), 2, games=10)
    assert [b.kind for b in cov.unreached() if b.kind in ("able", "fallback")] == ["fallback"]


def test_positions_come_from_the_program_mapping_only():
    game = load_game(SHOP, players=3)
    table = rules_positions(game.program)
    assert table is game.program.code.code_pos
    assert all(isinstance(k, int) for t in table.values() for k in t)


def test_normal_play_is_not_traced():
    import sys
    game = load_game(SHOP, players=3)
    state = game.new_initial_state(seed=1)
    assert sys.gettrace() is None or "Tracer" not in repr(sys.gettrace())
    state.apply_action(state.legal_actions()[0])


def test_summary_file_and_min_coverage(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    html = tmp_path / "cov.html"
    assert run_check(str(SHOP), players=3, games=6, out=out, err=err, coverage_file=str(html)) == 0
    text = out.getvalue()
    assert "\ncoverage: lines " in text and "never reached: magic_shop.rules:" in text
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!doctype html>") and "never: implicit else" in page
    annotated = tmp_path / "cov.txt"
    assert main(["check", str(SHOP), "--players", "3", "--games", "4", "--coverage", str(annotated)]) == 0
    lines = annotated.read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("# coverage: lines")
    assert any(ln.split()[1:2] == ["!"] and "if size(winner.hand) > 0" in ln for ln in lines if ln.split())
    # the Machine effect's empty-hand case cannot happen: 100 % is out of reach
    assert main(["check", str(SHOP), "--players", "3", "--games", "4", "--min-coverage", "100"]) == 1
    assert main(["check", str(SHOP), "--players", "3", "--games", "4", "--min-coverage", "50"]) == 0


def test_bad_coverage_flags_get_messages(capsys):
    assert main(["check", str(SHOP), "--no-coverage", "--min-coverage", "5"]) == 1
    assert "--no-coverage cannot go with" in capsys.readouterr().err
    try:
        main(["check", str(SHOP), "--min-coverage", "x"])
    except SystemExit as e:
        assert e.code == 2
    assert "percentage" in capsys.readouterr().err
