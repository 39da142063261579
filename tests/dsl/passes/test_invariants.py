"""Loop invariants worked out once (dsl/passes/invariants.py), small quantifiers over the players
written out and empty zones as truth tests (dsl/passes/unroll.py), and a choice block whose
options never read alike taking the engine's fast path (what
Crazy Eights beside OpenSpiel needs). Each keeps play exactly as it was: tests/dsl/test_equivalence.py plays the shipped games."""
from __future__ import annotations

import ast

import pytest

from rulesrun.dsl.errors import Pos
from rulesrun.dsl.ir import K, Comp, Local, St, assign, boolop, call, compare, name, not_, sub
from rulesrun.dsl.passes import invariants, unroll
from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.engine import RulesRuntimeError
from tests.dsl.test_language import make

from tests.support import ROOT  # noqa: E402
P = Pos("t.rules", 1, 1)
RANK = [1, 2, 3, 4]


def zone(i):
    return sub(St("z"), K(i))


def top(z):
    return call("_top", z, K("top"), K(P))


def flow_source(game) -> str:
    return "\n".join(src for f, src in game.program.code.sources.items() if ": flow>" in f)


# ── invariants ───────────────────────────────────────────────────────────────
def _filter(cond, x):
    return assign(name("_o"), Comp("list", x, x, zone(2), cond), P)


def test_a_top_card_behind_or_is_worked_out_once_under_a_guard_with_the_statement_as_it_was_beside():
    x = Local(9, "temp")
    cond = boolop("or", compare(sub(K(RANK), x), "==", K(8)),
                  compare(sub(K(RANK), x), "==", sub(K(RANK), top(zone(1)))))
    stmt = _filter(cond, x)
    out = invariants.lower([stmt])
    assert len(out) == 1 and isinstance(out[0], ast.If)
    guard = out[0].test
    assert isinstance(guard, ast.Subscript) and guard.value.which == "z" and guard.slice.value == 1
    first, comp = out[0].body
    assert first.targets[0].id == "_e1"
    assert ast.unparse(first.value).endswith("[-1]]")           # the table at Z[-1]: no call left
    assert not any(isinstance(n, ast.Call) for n in ast.walk(first.value))
    assert comp.value.cond.values[1].comparators[0].id == "_e1"
    assert out[0].orelse == [stmt]              # no top card: as it was, failing where it did
    assert stmt.value.cond is cond              # the statement given is not changed


def test_what_could_fail_or_reads_the_item_stays_in_the_condition():
    x = Local(9, "temp")
    unsafe = compare(sub(K(RANK), x), "<", call("_div", K(4), Local(0, "frame"), K(P)))
    assert invariants.lower([_filter(unsafe, x)])[0].value.cond is unsafe
    ordered = compare(sub(K(RANK), x), "==", compare(sub(K(RANK), top(zone(1))), "<", K(3)))
    out = invariants.lower([_filter(ordered, x)])
    kept = out[0].body[-1].value.cond.comparators[0]    # '<' could fail on none: it stays, the
    assert isinstance(kept.ops[0], ast.Lt) and kept.left.id == "_e1"      # card's rank is taken out
    plain = boolop("or", compare(sub(K(RANK), x), "==", sub(St("g"), K(2))), not_(x))
    out = invariants.lower([_filter(plain, x)])  # ... a global at a constant place needs no guard
    assert [type(s).__name__ for s in out] == ["Assign", "Assign"] and out[0].targets[0].id == "_e1"


PLAYABLE = """
state led: Suit = Red
flow:
    shuffle deck
    deal 3 from deck to hand
    while size(deck) > 0:
        for p in players:
            if size(deck) > 0 and any(c in p.hand where c.rank == 4 or c.suit == led or c.rank == top(pile).rank):
                p chooses c from p.hand where c.rank == 4 or c.suit == led or c.rank == top(pile).rank as "play"
                move c to pile
                led = c.suit
                move top(deck) to p.hand
    end game
"""


def test_the_playable_filter_reads_the_top_card_once_and_fails_as_before_only_when_it_is_read():
    g = make(PLAYABLE)
    src = flow_source(g)
    assert "if _z[1]:" in src and "_top(" in src     # the top card under a guard; the fallback keeps it
    # the card is read only through its tables: the cards that pass, by (led, the top card's rank)
    assert "[*filter(_k" in src and "_passing[_g[" in src and "[_z[1][-1]]]" in src
    # the pile is empty. Player 1's cards are each a 4 or Red: the top card is never read
    s = g.new_initial_state(seed=1, stack={"deck": ["Red 1", "Blue 4", "Red 2", "Red 3", "Blue 1", "Green 3"]})
    assert [str(a) for a in s.legal_actions()] == ["play Red 1", "play Blue 4", "play Red 2"]
    # a Green 2 is neither: its rank is compared with the top card's — the rules error, as before
    with pytest.raises(RulesRuntimeError, match=r"top\(\) of an empty zone"):
        g.new_initial_state(seed=1, stack={"deck": ["Red 1", "Green 2", "Red 2", "Red 3", "Blue 1", "Green 3"]})


def test_with_a_top_card_the_choices_are_those_the_rules_say():
    g = make(PLAYABLE.replace("deal 3 from deck to hand", "deal 3 from deck to hand\n    move top(deck) to pile"))
    for seed in range(20):
        s = g.new_initial_state(seed=seed)
        s.apply_action(s.legal_actions()[0])
        while not s.is_terminal():
            top = s.cards("pile")[-1]
            led = s.var("led")
            hand = s.cards("hand", s.current_player())
            want = [f"play {c}" for c in hand
                    if c.endswith(" 4") or c.startswith(led) or c.split()[1] == top.split()[1]]
            assert [str(a) for a in s.legal_actions()] == want
            s.apply_action(s.legal_actions()[-1])


def test_the_sets_of_passing_cards_are_worked_out_once_and_only_for_safe_conditions():
    x = Local(9, "temp")
    led = Local(0, "frame", rtype="number")
    cond = boolop("or", compare(sub(K(RANK), x), "==", K(4)), compare(sub(K(RANK), x), "==", led))
    out = invariants.lower([_filter(cond, x)])[0].value
    assert out.func.id == "list" and out.args[0].func.id == "filter"       # list(filter(T[l0], Z[2]))
    passing = out.args[0].args[0].value.value
    assert isinstance(passing, invariants.Passing) and len(passing) == 0
    test = passing[2]
    assert [c for c in range(4) if test(c)] == [1, 3] and len(passing) == 1 and passing[2] is test
    assert passing.__missing__(1)(0) and not passing.__missing__(1)(2)
    # two values read: looked up one at a time (no tuple of them made at every test), each level
    # made once; the sets are the same as the condition's
    other = Local(1, "frame", rtype="number")
    two = boolop("or", compare(sub(K(RANK), x), "==", led), compare(sub(K(RANK), x), "==", other))
    out = invariants.lower([_filter(two, x)])[0].value
    outer = out.args[0].args[0]
    assert isinstance(outer.value, ast.Subscript) and isinstance(outer.value.value, K)   # T[l0][l1]
    levels = outer.value.value.value
    assert isinstance(levels, invariants.Passing) and levels.depth == 2
    inner = levels[1]
    assert isinstance(inner, invariants.Passing) and levels[1] is inner
    assert [c for c in range(4) if inner[3](c)] == [0, 2] and inner[3] is inner[3]
    assert [c for c in range(4) if levels[4][4](c)] == [3] and levels.kept == 4    # two levels, two sets
    listy = Local(1, "frame", rtype="list:number")        # a list cannot be a key: left as it was
    kept = boolop("or", compare(sub(K(RANK), x), "==", K(4)), compare(sub(K(RANK), x), "==", listy))
    assert isinstance(invariants.lower([_filter(kept, x)])[0].value, Comp)
    ordered = boolop("or", compare(sub(K(RANK), x), "==", K(4)), compare(sub(K(RANK), x), "<", led))
    assert isinstance(invariants.lower([_filter(ordered, x)])[0].value, Comp)   # '<' could fail


# ── unroll ───────────────────────────────────────────────────────────────────
def show(node) -> str:
    """Python text of an IR expression: a zone list reads Z, a constant its value (a table T)."""
    class Plain(ast.NodeTransformer):
        def visit_St(self, n):
            return ast.Name(id=n.which.upper(), ctx=ast.Load())

        def visit_K(self, n):
            return ast.Constant(value=n.value) if isinstance(n.value, int) else ast.Name(id="T", ctx=ast.Load())
    import copy
    return ast.unparse(Plain().visit(copy.deepcopy(node)))


def test_any_over_the_players_is_written_out_with_empty_zones_as_truth_tests():
    x = Local(5, "temp")
    node = Comp("any", compare(call("len", sub(St("z"), ast.BinOp(left=K(2), op=ast.Add(), right=x))), "==", K(0)),
                x, K([0, 1, 2]))
    out = unroll.run([ast.Expr(value=node)])[0].value
    assert show(out).replace("(", "").replace(")", "") == "not Z[2] or not Z[3] or not Z[4]"


def test_all_with_a_where_and_what_is_not_written_out():
    x = Local(5, "temp")
    node = Comp("all", compare(sub(K(RANK), x), ">", K(1)), x, K([0, 1]), compare(x, "!=", K(1)))
    out = unroll.run([ast.Expr(value=node)])[0].value
    assert isinstance(out, ast.BoolOp) and isinstance(out.op, ast.And) and len(out.values) == 2
    assert show(out.values[0]) == "not 0 != 1 or T[0] > 1" and show(out.values[1]) == "not 1 != 1 or T[1] > 1"
    big = Comp("any", compare(x, "==", K(1)), x, K(list(range(9))))       # more than eight values
    assert unroll.run([ast.Expr(value=big)])[0].value is big
    value = Comp("any", sub(St("g"), x), x, K([0, 1]))     # a value that may not be True / False
    assert unroll.run([ast.Expr(value=value)])[0].value is value


def test_a_count_over_the_players_is_written_out_as_a_sum_of_truth_tests():
    x = Local(5, "temp")
    empty = compare(call("len", sub(St("z"), ast.BinOp(left=K(2), op=ast.Add(), right=x))), "==", K(0))
    node = Comp("count", K(None), x, K([0, 1, 2]), empty)
    out = unroll.run([ast.Expr(value=node)])[0].value
    assert show(out).replace("(", "").replace(")", "") == "0 + not Z[2] + not Z[3] + not Z[4]"
    one = unroll.run([ast.Expr(value=Comp("count", K(None), x, K([0]), empty))])[0].value
    assert eval(show(one), {"Z": [[], [], []]}) == 1 and type(eval(show(one), {"Z": [[], [], []]})) is int
    plain = Comp("count", K(None), x, K([0, 1]))        # no 'where': left as it is
    assert unroll.run([ast.Expr(value=plain)])[0].value is plain


QUANTIFIERS = """
player state n: number = 0
flow:
    shuffle deck
    deal 2 from deck to hand
    let k = 0
    while not any(p in players where empty(p.hand)) and k < 9:
        k += 1
        let some = any(p in players where p.n > 0)
        let each = all(p in players where size(p.hand) > 0)
        announce "{some} {each} {count(p in players where empty(p.hand))} {count(p in players where p.n > 0)}"
        for p in players:
            p chooses c from p.hand as "play"
            move c to pile
            p.n += 1
    end game
"""


def test_quantifiers_written_out_give_the_same_values_and_play():
    g = make(QUANTIFIERS, players=3)
    src = flow_source(g)
    assert "any(" not in src and "for _t" not in src.split("while", 1)[1].split(":", 1)[0]
    s = g.new_initial_state(seed=2)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[-1])
    assert s.log()[:2] == ["no yes 0 0", "yes yes 0 3"]
    assert "len([" not in src           # the counts written out too


# ── a choice block's fast path ───────────────────────────────────────────────
def test_a_choice_block_whose_options_never_read_alike_takes_the_fast_path():
    game = load_game(ROOT / "examples/crazy_eights.rules", players=4, variants=("one_hand",))
    block = next(i for i, d in enumerate(game.program.decisions) if d.moves)
    assert game.program.decisions[block].unique_texts and game._lookups[block] is not None
    s = game.new_initial_state(seed=4)
    for _ in range(60):
        legal = s.legal_actions()
        assert len(set(legal)) == len(legal) and legal == game._legal(s.pending)
        s.apply_action(legal[len(legal) // 2])


def test_a_move_that_reads_as_a_pick_option_keeps_the_numbering():
    g = make("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            player 1 chooses:
                c from player 1.hand as "play":
                    move c to pile
                "play Red 1":
                    pass
            end game
    """)
    assert not g.program.decisions[0].unique_texts
    s = g.new_initial_state(seed=1, stack={"deck": ["Red 1", "Blue 2"]})
    assert [str(a) for a in s.legal_actions()] == ["play Red 1", "play Blue 2", "play Red 1 (2)"]
    s.apply_action("play Red 1 (2)")
    assert s.is_terminal() and s.cards("pile") == []


# ── a loop that asks each round ──────────────────────────────────────────────
def test_a_while_loop_that_asks_in_every_round_spends_no_budget_and_one_that_may_not_does():
    g = make("""
        state done: yes/no = no
        state rounds: number = 0
        flow:
            while not done:
                player 1 chooses:
                    "stop":
                        done = yes
                    "go on":
                        rounds += 1
            while rounds < 6:
                rounds += 1
                if rounds == 5:
                    player 2 chooses x from 1 to 2 as "pick"
            end game
    """)
    src = flow_source(g)
    lines = src.splitlines()
    spent = [lines[i - 1].strip() for i, line in enumerate(lines) if "S.budget -= 1" in line]
    assert spent and all(w.startswith("while") and "< 6" in w for w in spent)   # the second loop only:
    assert any(w.strip().startswith("while not") for w in lines)       # its first round may not ask
    s = g.new_initial_state(seed=1)
    for _ in range(3):
        s.apply_action("go on")
    s.apply_action("stop")
    s.apply_action("pick 1")
    assert s.is_terminal() and s.var("rounds") == 6
    with pytest.raises(RulesRuntimeError, match="loops too long"):
        make("""
            state n: number = 0
            flow:
                while n <= 0:
                    if n > 5:
                        player 1 chooses x from 1 to 2 as "pick"
                    n -= 1
        """).new_initial_state(seed=1)


# ── the top card taken with pop() ───────────────────────────────────────────
DRAW = """
flow:
    repeat 3 times:
        player 1 chooses x from 1 to 2 as "draw"
        if x == 1:
            move top(deck) to player 1.hand
        else:
            move bottom(deck) to bottom of pile
    end game
"""


def test_the_top_or_bottom_card_is_taken_with_pop_even_from_a_zone_a_clone_shares():
    g = make(DRAW)
    src = flow_source(g)
    assert ".pop()" in src and ".pop(0)" in src and ".remove(" not in src
    s = g.new_initial_state(seed=1)
    deck = s.cards("deck")                     # as listed: the bottom card first, the top last
    twin = s.clone()                           # the zones are shared until changed
    s.apply_action("draw 1")
    s.apply_action("draw 2")
    s.apply_action("draw 1")
    assert s.cards("hand", 0) == [deck[-1], deck[-2]] and s.cards("pile") == [deck[0]]
    assert s.cards("deck") == deck[1:-2] and twin.cards("deck") == deck      # the clone is as it was
    assert s == g.replay(1, s.history())
    assert all(c in s.z[s.loc[c]] for c in range(len(s.loc)))          # each card knows its zone
    twin.apply_action("draw 2")
    assert twin.cards("pile") == [deck[0]] and twin.cards("deck") == deck[1:]


def test_the_top_of_an_empty_zone_is_still_the_rules_error():
    g = make("""
        flow:
            move top(pile) to deck
    """)
    with pytest.raises(RulesRuntimeError, match=r"top\(\) of an empty zone"):
        g.new_initial_state(seed=1)
