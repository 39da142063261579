"""The plan of a combination choice held once by the program (dsl.emit.combos.Plan), for speed:
what changes between decisions is worked out once per decision, entries that cannot apply make nothing."""
from __future__ import annotations

import re

from rulesrun.dsl.emit import combos
from rulesrun.dsl.emit.helpers import _or_none
from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402


def _calls(game):
    return [line.strip() for src in game.program.code.sources.values() for line in src.splitlines()
            if "_combos" in line]


def test_big_two_builds_no_plan_at_a_decision():
    """The seven entries are one constant: the table's size and the beats() test appear once in the
    call; a follow, tested by beats() alone, passes beats()'s arguments as they are (no tuple); the
    lead's test "holds the 3 of Diamonds" is the intersection with a constant set, not a lambda."""
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    calls = _calls(game)
    follow = [c for c in calls if c.endswith(", True)")]     # a choice block's pick: the quiet form
    lead = [c for c in calls if not c.endswith(", True)") and "_combos_at(" in c]
    assert follow and lead
    for c in follow:
        assert c.startswith("_o = _combos_beating(") and c.count("len(_z[") == 1 and c.count(", S, ") == 1, c
    for c in lead:      # the first play's test, once, not once per entry: "holds the 3 of Diamonds"
        assert c.count("_intersection") == 1 and "lambda" not in c, c
        test = game.program.code.ns[re.search(r"_k\d+_intersection", c).group()]
        assert test.__self__ == frozenset([0])      # card 0: the 3 of Diamonds
    plans = [v for v in game.program.code.ns.values() if isinstance(v, combos.Plan)]
    assert sorted(len(p.entries) for p in plans) == [7, 7]


def test_entries_that_need_more_items_than_there_are_make_nothing(monkeypatch):
    key = [0, 0, 1, 1, 2].__getitem__
    plan = combos.Plan(((1, (), (), None), (2, (), (("same", key),), None), (5, (), (("same", key),), None),
                        (None, (0,), (("same", key),), None)))
    assert [e[0] for e in plan.now((3,), 3)] == [1, 2, 3]
    assert [e[0] for e in plan.now((4,), 3)] == [1, 2]      # the said size 4 of 3 items, and the 5, dropped
    calls = []
    real = combos._gen
    monkeypatch.setattr(combos, "_gen", lambda *a: calls.append(a[1]) or real(*a))
    got = combos._combos_at([0, 1, 2], None, plan, (4,), (), None)
    assert got == [(0,), (1,), (2,), (0, 1)] and calls == [2]     # none for the sets of 5 or 4 (single items: as they are)


def test_a_choice_block_pick_with_no_combination_does_not_raise(monkeypatch):
    """_or_none(_combos_at, ...) says none with [], without raising NoLegalAction and catching it."""
    def boom(*a):
        raise AssertionError("raised")
    monkeypatch.setattr(combos, "fail_no_options", boom)
    plan = combos.Plan(((2, (), (("same", [0, 1, 2].__getitem__),), None),))
    assert _or_none(combos._combos_at, [0, 1, 2], None, plan, (), (), None) == []


def test_a_follow_of_one_item_is_told_by_its_entries_class():
    key = [0, 0, 1, 1, 2].__getitem__
    plan = combos.Plan(((1, (0,), (), 0), (2, (0,), (("same", key),), 0)))     # as Big Two's follow
    assert type(plan.now((1,), 4)) is combos._OneItem        # a table of one: the first entry alone
    assert type(plan.now((2,), 4)) is tuple                 # a pair
    assert type(combos.Plan(((1, (), (("same", key),), 0),)).now((), 4)) is tuple     # one item with a shape
