"""The code generator on its own: resuming inside nested loops and branches, inlined functions,
'highest ... by' ties, and runtime errors that name the rules line from generated code."""
from __future__ import annotations

import json

import pytest

from rulesrun.dsl import RulesRuntimeError
from rulesrun.interpreter import State
from tests.support import tiny_game, tiny_header

# the small deck of the language tests, with two counters and one per player
HEADER = tiny_header(players="2 to 3", extra="""
    state total: number = 0
    state turns: number = 0
    player state got: number = 0
""".lstrip("\n"))


def make(body: str, players: int = 2):
    # these rules test code generation, not secrets: leaks are allowed (tests/dsl/analysis/test_infoflow.py)
    return tiny_game(body, players, header=HEADER)


def stacked(game, names: list):
    """A new game whose deck has these cards on top, in this order (then the others)."""
    return game.new_initial_state(seed=1, stack={"deck": names + [n for n in game.program.card_names if n not in names]})


NESTED = """
procedure take(p):
    if p.got mod 2 == 0:
        p chooses c from p.hand as "even"
        move c to pile
        total += c.rank
    else:
        p chooses n from 1 to 3 as "odd"
        total += 10 * n
    p.got += 1

flow:
    shuffle deck
    deal 4 from deck to hand
    while turns < 2:
        turns += 1
        repeat 2 times:
            for p in players:
                take(p)
    let k = 0
    while k < 2:
        k += 1
        player 1 chooses yes_no from [yes, no] as "again"
        if yes_no:
            total += 100
        else:
            end game
    total += 1000
"""


def run_through_json(game, seed, pick):
    """Play to the end, reloading the state from JSON before every decision."""
    s = game.new_initial_state(seed=seed)
    steps = []
    while not s.is_terminal():
        s = State.from_json(game, json.loads(json.dumps(s.to_json())))
        acts = s.legal_actions()
        a = acts[pick(len(steps), len(acts))]
        steps.append(str(a))
        s.apply_action(a)
    return s, steps


def test_resuming_inside_nested_loops_branches_and_calls():
    g = make(NESTED)
    s = g.new_initial_state(seed=3)
    labels = []
    total = 0
    while s.decision_label() in ("even", "odd"):
        labels.append(s.decision_label())
        acts = s.legal_actions()
        if s.decision_label() == "even":
            total += g.program.card_attrs["rank"][s.pending[2][0]]
        else:
            total += 10 * 1
        s.apply_action(acts[0])
    # 2 rounds x 2 repeats x 2 players, each player alternating even / odd
    assert labels == ["even", "even", "odd", "odd"] * 2
    assert s.var("total") == total
    assert s.var("turns") == 2 and s.var("got", 0) == 4 and s.var("got", 1) == 4
    s.apply_action("again yes")
    assert s.var("total") == total + 100 and s.decision_label() == "again"
    s.apply_action("again yes")
    assert s.is_terminal() and s.var("total") == total + 200 + 1000


def test_end_game_from_inside_a_loop():
    g = make(NESTED)
    s = g.new_initial_state(seed=3)
    while s.decision_label() != "again":
        s.apply_action(s.legal_actions()[-1])
    before = s.var("total")
    s.apply_action("again no")
    assert s.is_terminal() and s.var("total") == before


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_state_read_back_from_json_at_every_decision_plays_the_same_game(seed):
    g = make(NESTED)
    pick = lambda i, n: (i * 7 + seed) % n
    a, steps = run_through_json(g, seed, pick)
    b = g.replay(seed, steps)
    assert a == b and a.var("total") == b.var("total")
    # and the frames hold only what the rules declared: the locals survive in the frame at each stop
    c = g.new_initial_state(seed=seed)
    for step in steps[:5]:
        c.apply_action(step)
    d = c.clone()
    c.apply_action(c.legal_actions()[0])
    d.apply_action(d.legal_actions()[0])
    assert c == d


def test_an_inlined_function_does_not_capture_the_loop_variable_around_it():
    # frequency(c) loops over the pile itself; inlined into the key of 'highest', its loop variable
    # must not be the one of 'highest'
    g = make("""
        define frequency(c) = count(d in pile where d.suit == c.suit)
        define winner() = highest c in pile by frequency(c) then c.rank

        state best: card = none
        flow:
            shuffle deck
            repeat 4 times:
                move top(deck) to pile
            best = winner()
            player 1 chooses x from [1] as "done"
    """)
    names = ["Red 1", "Green 4", "Red 2", "Blue 3"]
    s = stacked(g, names)
    # two Reds beat the single Green 4 and Blue 3; of the Reds, rank 2 is higher
    assert s.var("best") == "Red 2"


def test_highest_and_lowest_give_the_first_of_equals_and_none_of_nothing():
    g = make("""
        state hi: card = none
        state lo: card = none
        state nothing: card = none
        flow:
            shuffle deck
            repeat 4 times:
                move top(deck) to pile
            hi = highest c in pile by c.rank
            lo = lowest c in pile where c.suit != Blue by c.rank
            nothing = highest c in pile where c.rank > 9 by c.rank
            player 1 chooses x from [1] as "done"
    """)
    names = ["Red 3", "Blue 1", "Green 3", "Green 1"]
    s = stacked(g, names)
    assert s.cards("pile") == names
    assert s.var("hi") == "Red 3"         # Red 3 and Green 3 tie: the first in the pile
    assert s.var("lo") == "Green 1"       # Blue 1 is left out by 'where'
    assert s.var("nothing") is None


def test_a_python_error_inside_a_pure_procedure_names_its_rules_line():
    g = make("""
        state who: player = none
        procedure count_up():
            total += 1
            total += who.got
        flow:
            count_up()
            player 1 chooses x from [1] as "done"
    """)
    with pytest.raises(RulesRuntimeError) as info:
        g.new_initial_state(seed=1)
    err = info.value
    assert err.pos.line == HEADER.count("\n") + 5
    assert "is none (nobody, or no card)" in err.message   # not a raw Python TypeError
    assert "        total += who.got" in str(err)


def test_a_python_error_inside_a_define_names_the_define():
    g = make("""
        state who: player = none
        define bad(p) = p.got + who.got
        flow:
            player 1 chooses x from players as "done"
            total = bad(x)
    """)
    s = g.new_initial_state(seed=1)
    with pytest.raises(RulesRuntimeError) as info:
        s.apply_action(0)
    assert "is none (nobody, or no card)" in info.value.message
    assert info.value.pos.line in (HEADER.count("\n") + 3, HEADER.count("\n") + 6)


def test_for_and_repeat_loops_spend_their_rounds_once_so_a_long_but_finite_loop_runs():
    g = make("""
        flow:
            repeat 3000 times:
                for c in every card:
                    total += 1
            player 1 chooses x from [1] as "done"
    """)
    s = g.new_initial_state(seed=1)
    assert s.var("total") == 3000 * 12


def test_generated_source_is_kept_for_reading():
    g = make(NESTED)
    sources = g.program.code.sources
    flow = next(src for name, src in sources.items() if name.endswith(": flow>"))
    # take() is called from one place: it is written into flow, which stops at its decisions
    assert not any("procedure take" in name for name in sources)
    assert "return 1" in flow and "while" in flow
    # one entry per place to start from (0: the beginning), with the way back in worked out
    labels = flow.count("def _R0_")
    assert "def _R0_0(S, F)" in flow and labels == 1 + 3    # 2 decisions in take(), 1 in flow
    assert "not pc" not in flow and "pc ==" not in flow


def test_a_procedure_called_from_two_places_gets_its_own_frame():
    g = make("""
        procedure ask(p):
            p chooses n from 1 to 2 as "pick"
            total += n
        flow:
            ask(player 1)
            turns += 1
            ask(player 2)
    """)
    assert any("procedure ask" in name for name in g.program.code.sources)
    s = g.new_initial_state(seed=1)
    assert len(s.frames) == 2 and s.current_player() == 0
    s.apply_action("pick 2")
    assert s.var("turns") == 1 and s.current_player() == 1
    s.apply_action("pick 1")
    assert s.is_terminal() and s.var("total") == 3


def test_a_state_saved_by_another_version_is_refused_with_a_reason():
    from rulesrun.interpreter import GameError

    g = make(NESTED)
    data = json.loads(json.dumps(g.new_initial_state(seed=1).to_json()))
    data["format"] = "rulesrun-state/1"    # frames of the closure-based engine
    with pytest.raises(GameError) as info:
        State.from_json(g, data)
    assert "another version of rulesrun" in str(info.value) and "history" in str(info.value)


def test_any_and_count_of_an_attribute_equal_to_a_value():
    # compiled to 'value in map(table, zone)' and 'list(map(...)).count(value)'
    g = make("""
        state red_any: bool = no
        state green_any: bool = yes
        state red_count: number = 0
        state none_count: number = 9, hidden
        state wanted: Suit = Red
        flow:
            shuffle deck
            repeat 3 times:
                move top(deck) to pile
            red_any = any(c in pile where c.suit == wanted)
            green_any = any(c in pile where c.suit == Green)
            red_count = count(c in pile where c.suit == wanted)
            none_count = count(c in hand of player 1 where c.suit == Red)
            player 1 chooses x from [1] as "done"
    """.replace("hand of player 1", "(player 1).hand"))
    names = ["Red 1", "Blue 2", "Red 3"]
    s = stacked(g, names)
    assert (s.var("red_any"), s.var("green_any"), s.var("red_count"), s.var("none_count")) == (True, False, 2, 0)
    flow = next(src for name, src in g.program.code.sources.items() if name.endswith(": flow>"))
    assert "_getitem, " in flow and "map(" in flow     # map(_k3_getitem, ...): bound when compiling


def test_a_list_of_one_attribute_of_each_card():
    g = make("""
        state ranks: list of number = []
        state reds: list of number = []
        flow:
            shuffle deck
            repeat 3 times:
                move top(deck) to pile
            ranks = [c.rank for c in pile]
            reds = [c.rank for c in pile where c.suit == Red]
            player 1 chooses x from [1] as "done"
    """)
    names = ["Red 1", "Blue 2", "Red 3"]
    s = stacked(g, names)
    assert s.var("ranks") == [1, 2, 3] and s.var("reds") == [1, 3]


def _flow_source(g) -> str:
    return next(src for name, src in g.program.code.sources.items() if name.endswith(": flow>"))


def test_comprehensions_a_statement_always_evaluates_run_as_loops_with_the_same_values():
    g = make("""
        state reds: number = 0
        state high: number = 0
        state has_four: bool = no
        state all_low: bool = yes
        state best: card = none
        state worst: card = none
        flow:
            shuffle deck
            repeat 4 times:
                move top(deck) to pile
            reds = count(c in pile where c.suit == Red or c.rank == 4)
            high += sum(c.rank for c in pile where c.rank > 1)
            best = (highest c in pile by c.rank then 0 - position(c, pile)) if reds > 0 else none
            worst = lowest c in pile where c.suit != Blue by c.rank
            if any(c in pile where c.rank == 4 and c.suit == Green):
                has_four = yes
            all_low = all(c.rank < 4 for c in pile)
            player 1 chooses x from [1] as "done"
    """)
    names = ["Red 3", "Blue 1", "Green 4", "Green 1"]
    s = stacked(g, names)
    assert s.var("reds") == 2 and s.var("high") == 7
    assert s.var("best") == "Green 4" and s.var("worst") == "Green 1"
    assert s.var("has_four") is True and s.var("all_low") is False
    flow = _flow_source(g)
    # written as loops: no generator, no list of rows for highest / lowest; a test of the card's
    # attributes only (rank 4 and Green) is one table read in C (dsl/passes/fastpaths.py)
    assert "any((" not in flow and "all((" not in flow and "_best(" not in flow and "sum(" not in flow
    assert "for _t" in flow and "_FIRST" in flow
    assert flow.count("any(map(_k") == 1 and "all(" not in flow


def test_a_comprehension_behind_and_or_a_branch_is_not_evaluated_first():
    # who is none: evaluating who.hand would fail, so the loops must stay behind the tests
    g = make("""
        state who: player = none
        state n: number = 5
        flow:
            if who != none and any(c in who.hand where c.rank > 2):
                n = 1
            n += 0 if who == none else count(c in who.hand where c.rank > 2)
            n = count(c in who.hand where c.rank > 0) if who != none else n + 1
            player 1 chooses x from [1] as "done"
    """)
    s = g.new_initial_state(seed=1)
    assert s.var("n") == 6


def test_a_loop_resumed_after_a_decision_runs_its_written_out_comprehensions_again():
    # the entry that resumes after 'drop' holds the rest of the loop's round and then the loop
    # again: each copy needs its own loop for any() and count()
    g = make("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            while turns < 3:
                turns += 1
                if any(c in (player 1).hand where c.rank > 0):
                    player 1 chooses c from (player 1).hand as "drop"
                    move c to pile
                total = count(c in pile where c.rank > 0)
    """)
    s = g.new_initial_state(seed=2)
    for _ in range(3):
        s.apply_action(s.legal_actions()[0])
    assert s.is_terminal() and s.var("total") == 3 and s.var("turns") == 3


def test_a_call_in_a_comprehension_condition_is_worked_out_once_and_only_for_some_item():
    g = make("""
        state who: player = none
        state empty_pile: list of number = [9]
        state matching: list of number = []
        flow:
            # the pile is empty: who.hand (who is none) must not be looked at
            empty_pile = [c.rank for c in pile where c.suit in [d.suit for d in who.hand]]
            shuffle deck
            deal 2 from deck to hand
            repeat 3 times:
                move top(deck) to pile
            matching = [c.rank for c in pile where c.suit in [d.suit for d in (player 1).hand]]
            player 1 chooses x from [1] as "done"
    """)
    names = ["Red 1", "Blue 2", "Green 3", "Blue 4", "Red 2", "Green 1", "Blue 1"]
    s = stacked(g, names)
    assert s.var("empty_pile") == []
    # player 1 holds Red 1 and Blue 2; the pile: Red 2, Green 1, Blue 1
    assert s.cards("hand", 0) == ["Red 1", "Blue 2"] and s.cards("pile") == ["Red 2", "Green 1", "Blue 1"]
    assert s.var("matching") == [2, 1]         # the Red and the Blue, not the Green
    flow = _flow_source(g)
    assert "if _h" in flow     # the suits of the hand are listed once, before the comprehension


def test_a_resumable_procedure_is_called_directly_and_deep_calls_go_through_the_run_loop():
    # down(n) asks player 1 at the bottom, so it is resumable; it calls itself 150 deep, past the
    # depth where calls stop being plain Python calls, and adds up on the way back
    g = make("""
        procedure down(n):
            if n == 0:
                player 1 chooses x from [1, 2] as "bottom"
                total += x
            else:
                down(n - 1)
                total += 1
        procedure once():
            turns += 1
            player 2 chooses y from [5] as "once"
            turns += y
        flow:
            once()
            down(150)
            once()
            down(3)
    """)
    flow = _flow_source(g)
    assert "_r = _R" in flow          # a call is a Python call (to the callee's first entry)
    s = g.new_initial_state(seed=1)
    s.apply_action("once 5")
    assert s.decision_label() == "bottom" and len(s.frames) == 152
    s.apply_action("bottom 2")
    assert s.var("total") == 152 and s.decision_label() == "once"
    s.apply_action("once 5")
    s.apply_action("bottom 1")
    assert s.is_terminal() and s.var("total") == 152 + 1 + 3 and s.var("turns") == 12
    a, steps = run_through_json(g, 1, lambda i, n: n - 1)    # resumed from JSON at every decision
    assert a.var("total") == 152 + 2 + 3 and steps == ["once 5", "bottom 2", "once 5", "bottom 2"]


def test_a_highest_of_every_card_by_its_attributes_is_worked_out_when_compiling():
    """Every card, keys and test read from the card table: the answer is known before the game,
    and is the card the loop would find (the first of equals, none of nothing)."""
    g = make("""
        state hi: card = none
        state lo: card = none
        state two: card = none
        state nothing: card = none
        flow:
            hi = highest c in every card by c.rank
            lo = lowest c in every card where c.suit != Red by c.rank
            two = highest c in every card by c.rank then (1 if c.suit == Blue else 0)
            nothing = highest c in every card where c.rank > 9 by c.rank
            player 1 chooses x from [1] as "done"
    """)
    s = g.new_initial_state(seed=1)
    assert s.var("hi") == "Red 4"           # the first of the three 4s
    assert s.var("lo") == "Green 1"
    assert s.var("two") == "Blue 4"         # then Blue before the others
    assert s.var("nothing") is None
    flow = next(src for k, src in g.program.code.sources.items() if "flow" in str(k))
    assert "for " not in flow                # no loop over the cards at run time


def test_a_written_list_of_different_texts_is_offered_as_written_and_one_with_repeats_once_each():
    g = make("""
    flow:
        player 1 chooses a from ["up", "down", "left"] as "go"
        player 1 chooses b from ["up", "down", "up"] as "turn"
        player 1 chooses n from [1, 2, 1] as "count"
        total = n
    """)
    s = g.new_initial_state(seed=1)
    assert [a.text for a in s.legal_actions()] == ["go up", "go down", "go left"]
    s.apply_action("go left")
    assert [a.text for a in s.legal_actions()] == ["turn up", "turn down"]
    s.apply_action("turn down")
    assert [a.text for a in s.legal_actions()] == ["count 1", "count 2"]
    s.apply_action("count 2")
    assert s.is_terminal() and s.var("total") == 2
    flow = _flow_source(g)
    # only the lists that repeat a value are tested for repeats (a set of three texts is not made
    # at every decision for a list the compiler can see is all different)
    assert flow.count("len(set(_o))") == 2


def test_moving_every_card_gathers_them_in_the_order_of_the_cards_and_empties_every_other_zone():
    g = make("""
    flow:
        shuffle deck
        deal 3 from deck to hand
        move top(deck) to pile
        player 1 chooses c from (player 1).hand as "keep"
        move every card to pile
        announce "{size(pile)} in the pile"
        player 2 chooses d from pile as "take"
        move d to (player 2).hand
        move every card to deck
        total = size(deck)
    """)
    s = g.new_initial_state(seed=4)
    s.apply_action(s.legal_actions()[1])
    names = g.program.card_names
    # all twelve cards, in the order they were made, whatever the shuffle and the deal did
    assert [a.text for a in s.legal_actions()] == ["take " + n for n in names]
    assert [len(z) for z in s.z] == [0, len(names), 0, 0]          # deck, pile, the two hands
    assert s.loc == [1] * len(names)
    s.apply_action("take " + names[5])
    assert s.is_terminal() and s.z[0] == list(range(len(names))) and s.loc == [0] * len(names)
    assert s.var("total") == len(names)
    assert "move_every(S, 1)" in _flow_source(g) and "move_cards" not in _flow_source(g)


def test_unique_keeps_each_value_once_in_the_order_first_met_for_kinds_yes_no_and_numbers():
    g = make("""
    state flags: list of yes/no = []
    flow:
        shuffle deck
        move top(deck) to pile
        move top(deck) to pile
        move top(deck) to pile
        move top(deck) to pile
        flags = unique([c.rank > 2 for c in pile])
        total = size(unique([c.rank for c in pile])) * 10 + size(flags)
        player 1 chooses s from unique([c.suit for c in pile]) as "suit"
        turns = 1 if s == Red else 2
    """)
    stack = ["Green 3", "Red 1", "Green 4", "Red 3"]
    s = g.new_initial_state(seed=1, stack={"deck": stack + [n for n in g.program.card_names if n not in stack]})
    # the pile, bottom to top: Green 3, Red 1, Green 4, Red 3 — suits Green, Red; ranks 3, 1, 4
    assert [a.text for a in s.legal_actions()] == ["suit Green", "suit Red"]
    assert s.var("flags") == [True, False]
    assert s.var("total") == 3 * 10 + 2
    flow = _flow_source(g)
    # a kind and yes/no have few values: a short list is searched, no dict made; numbers: the dict
    assert flow.count("_unique_few(") == 2 and flow.count("dict.fromkeys(") == 1
    assert "len(set(_o))" not in flow       # the options never repeat: no test for repeats
    s.apply_action("suit Red")
    assert s.is_terminal() and s.var("turns") == 1
