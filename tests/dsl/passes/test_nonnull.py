"""dsl.passes.nonnull: checks for none are dropped only where the local can never be none."""
from __future__ import annotations

import ast
import re
import textwrap

import pytest

from rulesrun.dsl.errors import Pos
from rulesrun.dsl.ir import K, Local, Move, St, Stop, assign, call, compare, expr_stmt, name, sub
from rulesrun.dsl.passes import nonnull
from rulesrun.dsl.program import RulesRuntimeError
from rulesrun.interpreter import load_game_text

P = Pos("t.rules", 1, 1)


def _check(local):
    return ast.If(test=compare(local, "is", K(None)), orelse=[],
                  body=[expr_stmt(call("fail", K("nobody is there to choose"), K(P)), P)])


def _checks(stmts) -> int:
    return sum(1 for s in stmts for n in ast.walk(s) if isinstance(n, ast.Compare)
               and isinstance(n.ops[0], ast.Is))


def test_a_seat_of_a_constant_list_of_players_is_never_none():
    seats, i, p = Local(0, "frame"), Local(1, "frame"), Local(2, "frame")
    body = [assign(seats, call("list", sub(K([(0, 1), (1, 0)]), sub(St("g"), K(4)))), P),
            assign(i, K(0), P),
            ast.While(test=compare(i, "<", call("len", seats)), orelse=[], body=[
                assign(p, sub(seats, i), P), _check(p), ast.AugAssign(target=i, op=ast.Add(), value=K(1))])]
    out = nonnull.run(body)
    assert _checks(out) == 0


def test_a_value_read_from_the_state_or_a_parameter_keeps_its_check():
    who, param = Local(0, "frame"), Local(1, "frame")
    body = [assign(who, sub(St("g"), K(3)), P), _check(who),        # a player state: may be nobody
            _check(param), assign(param, K(2), P)]                    # read before written: a parameter
    out = nonnull.run(body)
    assert _checks(out) == 2
    # a list of seats known when compiling, with nobody in it, is no help either
    seat = Local(2, "py")
    loop = [ast.For(target=seat, iter=K([0, None]), orelse=[], body=[_check(seat)])]
    assert _checks(nonnull.run(loop)) == 1


def test_a_card_chosen_from_a_zone_is_moved_without_a_check_and_a_found_one_with_it():
    chosen, found = Local(0, "frame"), Local(1, "frame")
    stop = Stop("decision", 1, [], P, chosen=chosen)
    stop.sure = True
    move_chosen = Move(chosen, sub(St("z"), K(2)), False, P)
    move_found = Move(found, sub(St("z"), K(2)), False, P)
    nonnull.run([stop, move_chosen, assign(found, sub(St("cv"), chosen), P), move_found])
    assert getattr(move_chosen, "card_sure", False) and not getattr(move_found, "card_sure", False)
    other = Stop("decision", 1, [], P, chosen=Local(0, "frame"))        # options that may hold none
    move = Move(Local(0, "frame"), sub(St("z"), K(2)), False, P)
    nonnull.run([other, move])
    assert not getattr(move, "card_sure", False)


GAME = textwrap.dedent("""
    game "Checks"
    players 2
    kind Suit: Red, Blue
    cards:
        suit: Suit
        rank: number
        {suit: s, rank: r} for s in Suit, r in 1 to 3
    zone deck: facedown
    zone pile: public
    zone hand per player: owner
    state boss: player = none
    flow:
        shuffle deck
        deal 2 from deck to hand
        for p in players:
            p chooses c from p.hand as "play"
            move c to pile
        let best = highest c in deck where c.rank > 5 by c.rank
        move best to pile
    score(p) = 0
""")


def test_generated_code_keeps_the_checks_that_can_fire():
    g = load_game_text(GAME, 2, path="checks.rules")
    source = "\n".join(g.program.code.sources.values())
    lines = source.splitlines()
    checked = {line.split()[1] for line in lines if "is None" in line}
    found = {line.split()[0] for line in lines if "= _h" in line and line.split()[0].startswith("l")}
    assert checked and checked == found          # the found card only; not the seat, not the chosen card
    s = g.new_initial_state(seed=3)
    s.apply_action(s.legal_actions()[0])
    with pytest.raises(RulesRuntimeError, match="no card to move"):
        s.apply_action(s.legal_actions()[0])


def test_a_chooser_that_may_be_nobody_is_still_checked():
    text = GAME.replace("for p in players:\n        p chooses c from p.hand", "if yes:\n        boss chooses c from deck")
    text = text.replace("move best to pile", 'announce "done"')
    # (the options show the facedown deck: allowed here, it is not the point)
    g = load_game_text(text, 2, path="checks.rules", allow_leaks=True)
    with pytest.raises(RulesRuntimeError, match="nobody is there to choose"):
        g.new_initial_state(seed=1)


# ── a procedure written out in its caller reads its arguments, not copies ────────
CALLS = textwrap.dedent("""
    game "Calls"
    players 2
    kind Suit: Red, Blue
    cards:
        suit: Suit
        rank: number
        {suit: s, rank: r} for s in Suit, r in 1 to 3
    zone deck: facedown
    zone pile: public
    zone hand per player: owner
    state total: number = 0
    procedure turn(who, n):
        who chooses c from who.hand as "play"
        move c to pile
        total += n
    procedure again(who, n):
        n = n + 1
        who chooses c from who.hand as "play"
        move c to pile
        total += n
    flow:
        shuffle deck
        deal 2 from deck to hand
        for p in players:
            turn(p, 2)
        for p in players:
            again(p, 3)
    score(p) = total
""")


def test_an_inlined_procedure_reads_its_arguments_and_copies_only_what_it_assigns():
    g = load_game_text(CALLS, 2, path="calls.rules")
    source = "\n".join(g.program.code.sources.values())
    assert not re.search(r"^\s*l\d+ = (l\d+|2)$", source, re.M)     # who and turn's n: no copies
    assert len(set(re.findall(r"^\s*l\d+ = 3$", source, re.M))) == 1  # again assigns its n: a copy
    assert "+= 2" in source
    s = g.new_initial_state(seed=2)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[-1])
    assert s.returns() == [2 * 2 + 2 * 4] * 2



def test_a_parameter_assigned_on_one_path_only_keeps_its_check():
    def param():
        node = Local(0, "frame")
        node.param = True
        return node
    body = [ast.If(test=sub(St("g"), K(0)), orelse=[], body=[assign(param(), K(2), P)]), _check(param())]
    assert _checks(nonnull.run(body)) == 1
    plain = [ast.If(test=sub(St("g"), K(0)), orelse=[], body=[assign(Local(0, "frame"), K(2), P)]),
             _check(Local(0, "frame"))]         # the same shape without the mark: the check goes
    assert _checks(nonnull.run(plain)) == 0
