"""dsl.passes.asks: a loop spends no budget when every round surely reaches a decision — also
through a 'while' loop that is sure to run its first round (its flag just set)."""
from __future__ import annotations

import ast

import pytest

from rulesrun.dsl.errors import Pos
from rulesrun.dsl.ir import K, Local, Stop, assign, not_
from rulesrun.dsl.passes import asks
from rulesrun.dsl.program import RulesRuntimeError
from rulesrun.interpreter import load_game_text
from tests.support import small_game

P = Pos("t.rules", 1, 1)


def _ask():
    return Stop("decision", 1, [], P, chosen=Local(9, "frame"))


def test_a_while_loop_entered_with_its_flag_just_set_asks():
    flag = Local(0, "frame")
    loop = ast.While(test=not_(flag), body=[_ask()], orelse=[])
    assert asks.each_round([assign(flag, K(False), P), loop])
    assert not asks.each_round([loop])                                   # the flag unknown
    assert not asks.each_round([assign(flag, K(True), P), loop])         # the loop never runs
    other = Local(1, "frame")
    assert asks.each_round([assign(flag, K(False), P), assign(other, K(3), P), loop])
    # the flag changed after it was set, or the body may leave before asking: no longer sure
    changed = ast.If(test=Local(2, "frame"), body=[assign(flag, K(True), P)], orelse=[])
    assert not asks.each_round([assign(flag, K(False), P), changed, loop])
    leaves = ast.While(test=not_(flag), body=[ast.Break(), _ask()], orelse=[])
    assert not asks.each_round([assign(flag, K(False), P), leaves])


def test_values_of_conditions():
    a, b = Local(0, "frame"), Local(1, "frame")
    known = {a.key(): 2, b.key(): False}
    assert asks.value(ast.BoolOp(op=ast.Or(), values=[b, ast.Compare(left=a, ops=[ast.Eq()], comparators=[K(2)])]),
                      known) is True
    assert asks.value(ast.BoolOp(op=ast.And(), values=[b, Local(5, "frame")]), known) is False
    assert asks.value(ast.BoolOp(op=ast.Or(), values=[b, Local(5, "frame")]), known) is asks._UNKNOWN
    assert asks.value(K([1, 2]), known) is asks._UNKNOWN


GAME = small_game("Turns", 2, """
    state turns: number = 0
    procedure turn(p):
        turns += 1
        let done = no
        while not done:
            p chooses:
                c from p.hand as "play":
                    move c to pile
                    done = yes
                "wait" if size(pile) < 3:
                    announce "{p} waits."
    flow:
        shuffle deck
        deal 4 from deck to hand
        let who = player 1
        while not empty(who.hand):
            turn(who)
            who = left(who)
    score(p) = size(p.hand)
""")


def _play(g, seed=4) -> list:
    s = g.new_initial_state(seed=seed)
    seen, n = [], 0
    while not s.is_terminal():
        actions = s.legal_actions()
        seen.append([str(a) for a in actions])
        s.apply_action(actions[n % len(actions)])
        n += 1
    return seen + [s.returns()]


def test_the_turn_loop_spends_no_budget_and_plays_as_without_the_pass(monkeypatch):
    g = load_game_text(GAME, 2, path="turns.rules")
    source = "\n".join(g.program.code.sources.values())
    assert "S.budget" not in source
    played = _play(g)
    assert len(played) > 8
    monkeypatch.setattr(asks, "value", lambda node, known: asks._UNKNOWN)     # the pass turned off
    before = load_game_text(GAME, 2, path="turns.rules")
    assert "S.budget -= 1" in "\n".join(before.program.code.sources.values())
    assert _play(before) == played


def test_a_loop_whose_inner_loop_may_not_run_still_spends_and_stops():
    text = GAME.replace("let done = no", "let done = turns > 1")
    g = load_game_text(text, 2, path="turns.rules")
    source = "\n".join(g.program.code.sources.values())
    assert "S.budget -= 1" in source
    with pytest.raises(RulesRuntimeError, match="loops too long"):
        s = g.new_initial_state(seed=4)
        while not s.is_terminal():
            s.apply_action(s.legal_actions()[0])
