"""One decision with a pick and named moves (`p chooses:` branches), unset values (`number = none`)
and kind values shown with spaces (`no_trump shown as "no trump"`)."""
from __future__ import annotations

import json
import textwrap

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter import State, load_game_text
from rulesrun.interpreter.runtime.observe import resample
from rulesrun.interpreter.runtime.engine import RulesRuntimeError
from tests.dsl.test_language import make
from tests.support import TINY as HEADER, tiny_game

BLOCK = """
state drawn: yes/no = no
flow:
    shuffle deck
    deal 2 from deck to hand
    repeat 2 times:
        for p in players:
            drawn = no
            p chooses:
                "draw" if size(deck) > 0:
                    move top(deck) to p.hand
                    drawn = yes
                c from p.hand where c.rank > 1 as "play":
                    move c to pile
                    announce "{p} plays {c}."
                "pass":
                    announce "{p} passes."
    end game
"""

DECK = ["Red 3", "Red 1", "Green 2", "Blue 4", "Blue 1", "Green 1"]   # top first: P1 Red 3, Red 1; P2 Green 2, Blue 4


def test_a_choice_block_offers_the_pick_and_the_moves_in_the_order_written():
    s = make(BLOCK).new_initial_state(seed=1, stack={"deck": DECK})
    assert [str(a) for a in s.legal_actions()] == ["draw", "play Red 3", "pass"]   # Red 1 is not > 1
    s.apply_action("play Red 3")
    assert s.cards("pile") == ["Red 3"] and s.log()[-1] == "Player 1 plays Red 3."
    s.apply_action("draw")
    assert sorted(s.cards("hand", 1)) == ["Blue 1", "Blue 4", "Green 2"]
    s.apply_action("pass")
    assert s.log()[-1] == "Player 1 passes."


def test_a_move_is_offered_only_while_its_condition_holds():
    body = BLOCK.replace('"draw" if size(deck) > 0:', '"draw" if size(deck) > 10:')
    s = make(body).new_initial_state(seed=1, stack={"deck": DECK})
    assert [str(a) for a in s.legal_actions()] == ["play Red 3", "pass"]     # 8 cards left in the deck
    body = BLOCK.replace('"draw" if size(deck) > 0:', '"draw" if size(deck) > 7:')
    s = make(body).new_initial_state(seed=1, stack={"deck": DECK})
    assert [str(a) for a in s.legal_actions()] == ["draw", "play Red 3", "pass"]
    s.apply_action("draw")                                                  # 7 left: no more drawing
    assert "draw" not in [str(a) for a in s.legal_actions()]


def test_nothing_to_choose_is_a_runtime_error_naming_the_seat():
    body = BLOCK.replace('"draw" if size(deck) > 0:', '"draw" if no:').replace('"pass":', '"pass" if no:') \
        .replace("c.rank > 1", "c.rank > 9")
    with pytest.raises(RulesRuntimeError, match="Player 1 has nothing to choose from"):
        make(body).new_initial_state(seed=1)


def test_a_choice_block_survives_clone_json_replay_and_resampling():
    g = make(BLOCK)
    s = g.new_initial_state(seed=3)
    s.apply_action("draw")
    data = json.loads(json.dumps(s.to_json()))
    t = State.from_json(g, data)
    assert t == s and [str(a) for a in t.legal_actions()] == [str(a) for a in s.legal_actions()]
    assert g.replay(3, s.history()) == s
    import random
    twin = resample(s, 1, random.Random(5), redraw=True)
    assert [str(a) for a in twin.legal_actions()] == [str(a) for a in s.legal_actions()]


def test_labels_with_values_in_the_pick_branch():
    body = BLOCK.replace('as "play"', 'as "lay {c} down"')
    s = make(body).new_initial_state(seed=1, stack={"deck": DECK})
    assert [str(a) for a in s.legal_actions()] == ["draw", "lay Red 3 down", "pass"]


def test_only_moves():
    s = make("""
        flow:
            player 1 chooses:
                "stand":
                    announce "stands"
                "hit":
                    announce "hits"
            end game
    """).new_initial_state(seed=1)
    assert [str(a) for a in s.legal_actions()] == ["stand", "hit"]
    s.apply_action("hit")
    assert s.log() == ["hits"] and s.is_terminal()


@pytest.mark.parametrize("body, message", [
    ("""
    flow:
        player 1 chooses:
            "pass":
                pass
            "pass":
                pass
    """, 'the move "pass" is offered twice'),
    ("""
    flow:
        player 1 chooses:
            "pass" if 3:
                pass
    """, "a move's 'if' condition must be a yes/no"),
])
def test_choice_block_errors(body, message):
    with pytest.raises(RulesError) as err:
        make(body)
    assert message in err.value.message


# ── unset values ────────────────────────────────────────────────────────────
UNSET = """
player state bid: number = none
state best: number = none
flow:
    for p in players:
        if p.bid == none:
            p chooses b from 0 to 2 as "bid {b}"
            p.bid = b
    if player 1.bid != none:
        best = player 1.bid + 10
    player 2.bid = none
    announce "{player 2.bid}"
    let x = player 2.bid + 1
    end game
"""


def test_a_number_may_have_no_value_yet_and_be_tested_for_it():
    g = make(UNSET.replace("    let x = player 2.bid + 1\n", ""))
    s = g.new_initial_state(seed=1)
    assert [s.var("bid", p) for p in (0, 1)] == [None, None] and s.var("best") is None
    s.apply_action("bid 1")
    s.apply_action("bid 2")
    assert s.var("best") == 11 and [s.var("bid", p) for p in (0, 1)] == [1, None] and s.log() == ["none"]


def test_arithmetic_on_an_unset_number_is_a_runtime_error_naming_the_line():
    s = make(UNSET).new_initial_state(seed=1)
    s.apply_action("bid 1")
    with pytest.raises(RulesRuntimeError) as err:
        s.apply_action("bid 2")
    assert "has no value yet" in str(err.value) and "p.bid != none" in str(err.value)
    assert err.value.pos.line == HEADER.count("\n") + 13


# ── kind values shown with spaces ───────────────────────────────────────────
STRAINS = """
game "Strains"
players 2
kind Strain: clubs, spades, no_trump shown as "no trump"
cards:
    strain: Strain
    {strain: s} for s in Strain
    shown as "{strain} card"
zone deck: facedown
state trumps: Strain = clubs
flow:
    player 1 chooses s from Strain as "call {s}"
    trumps = s
    if trumps == no_trump:
        announce "{player 1} calls {trumps}."
    end game
"""


def test_a_kind_value_reads_as_its_shown_text_everywhere():
    g = load_game_text(STRAINS, 2, path="t.rules")
    assert g.program.card_names == ["clubs card", "spades card", "no trump card"]
    s = g.new_initial_state(seed=1)
    assert [str(a) for a in s.legal_actions()] == ["call clubs", "call spades", "call no trump"]
    s.apply_action("call no trump")
    assert s.var("trumps") == "no trump" and s.log() == ["Player 1 calls no trump."]


@pytest.mark.parametrize("old, new, message", [
    ('no_trump shown as "no trump"', 'no_trump shown as "spades"', "would read 'spades', as 'spades' does"),
    ('no_trump shown as "no trump"', 'no_trump shown as "{x}"', "cannot be shown as a value's name"),
    ('no_trump shown as "no trump"', 'no_trump shown as " "', "cannot be shown as a value's name"),
])
def test_kind_shown_as_errors(old, new, message):
    with pytest.raises(RulesError) as err:
        load_game_text(STRAINS.replace(old, new), 2, path="t.rules")
    assert message in err.value.message


def test_the_rulebook_the_diagram_and_coverage_read_a_choice_block():
    from rulesrun.dsl.syntax.parser import parse_text
    from rulesrun.interpreter.checking.coverage import branches_of
    from rulesrun.interpreter.authoring.diagram import to_dot
    from rulesrun.interpreter.authoring.rulebook import rulebook_text
    text = HEADER + textwrap.dedent(BLOCK)
    rules = parse_text(text, "t.rules")
    kinds = sorted(b.kind for b in branches_of(rules))
    assert kinds.count("option") == 3
    dot = to_dot(list(rules.items))
    assert "draw / play / pass" in dot and '[label="pass"]' in dot
    book = rulebook_text(make(BLOCK))
    assert "makes one choice of these" in book and "“draw” (offered when" in book and "“pass”:" in book


# ── procedures that return a value ──────────────────────────────────────────
RETURNS = """
state total: number = 0
procedure pick(p):
    p chooses c from p.hand as "play"
    move c to pile
    return c.rank
procedure double(n):
    if n > 2:
        return n * 2
    return n
procedure maybe(n):
    if n > 100:
        return n
flow:
    shuffle deck
    deal 2 from deck to hand
    for p in players:
        let r = pick(p)
        total += double(r)
        let z = maybe(r)
        if z == none:
            announce "{p} played rank {r}."
    end game
"""


def test_a_procedure_returns_a_value_even_across_a_decision():
    g = make(RETURNS)
    s = g.new_initial_state(seed=1, stack={"deck": ["Red 3", "Red 1", "Blue 2", "Green 4"]})
    s.apply_action("play Red 3")           # doubled: 6
    s.apply_action("play Blue 2")          # 2
    assert s.is_terminal() and s.var("total") == 8
    assert s.log() == ["Player 1 played rank 3.", "Player 2 played rank 2."]


@pytest.mark.parametrize("old, new, message", [
    ("        let r = pick(p)", "        let r = pick(p) + 1", "gives its value only as the whole right side"),
    ("        if z == none:", "        if z == 1 + nothing(z):", "unknown function"),
    ("    end game", "    return 3\n    end game", "'return' ends a procedure, and this is not in one"),
    ("        return n\nflow", "        return n\n    return yes\nflow", "returns a number elsewhere, and a yes/no here"),
])
def test_return_errors(old, new, message):
    with pytest.raises(RulesError) as err:
        make(RETURNS.replace(old, new))
    assert message in err.value.message


def test_taking_the_value_of_a_procedure_that_returns_none_is_an_error():
    body = RETURNS.replace("        let z = maybe(r)", "        let z = shout(r)") + \
        "procedure shout(n):\n    announce \"{n}\"\n"
    with pytest.raises(RulesError) as err:
        make(body)
    assert "does not give a value (it has no 'return VALUE')" in err.value.message


def test_a_returned_secret_is_still_a_secret_to_the_leak_check():
    body = """
        procedure secret_of(p):
            p chooses c from p.hand as "show"
            return c
        flow:
            shuffle deck
            deal 2 from deck to hand
            let c = secret_of(player 1)
            announce "Player 1 holds {c}."
            end game
    """
    with pytest.raises(RulesError) as err:
        tiny_game(body, header=HEADER, allow_leaks=False)
    assert "a card chosen from each player's hand" in err.value.message
    game = load_game_text(HEADER + textwrap.dedent(body.replace('            announce', '            move c to pile\n            announce')), 2, path="t.rules")
    assert game.program.players == 2       # moved to a public zone first: no leak


def test_a_pick_of_a_kind_value_keeps_its_label_beside_named_moves():
    s = make("""
        state trump: Suit = Red
        flow:
            player 1 chooses:
                t from Suit where t != Red as "name":
                    trump = t
                "pass":
                    pass
            end game
    """).new_initial_state(seed=1)
    assert [str(a) for a in s.legal_actions()] == ["name Green", "name Blue", "pass"]
    s.apply_action("name Blue")
    assert s.var("trump") == "Blue"
    with pytest.raises(RulesError, match='the move "Red" reads as a value of Suit'):
        make("""
            flow:
                player 1 chooses:
                    t from Suit as "name":
                        pass
                    "Red":
                        pass
        """)


# ── several picks in one block, picks of several values, moves whose text shows values ───────
PICKS = """
state tokens: number = 1
flow:
    shuffle deck
    deal 2 from deck to hand
    repeat 2 times:
        for p in players:
            p chooses:
                i from 1 to size(p.hand) as "play":
                    move item(p.hand, i) to pile
                    announce "{p} plays card {i}."
                i from 1 to size(p.hand) as "discard" if tokens < 2:
                    tokens += 1
                    announce "{p} discards card {i}."
                q, s from players, Suit where q != p as "hint {q} {s}" if tokens > 0:
                    tokens -= 1
                    announce "{p} hints {q}: {s}."
                "wait, {tokens} left":
                    announce "{p} waits."
    end game
"""


def test_several_picks_each_with_its_label_and_condition_in_the_order_written():
    s = make(PICKS).new_initial_state(seed=1, stack={"deck": DECK})
    assert [str(a) for a in s.legal_actions()] == [
        "play 1", "play 2", "discard 1", "discard 2", "hint Player 2 Red", "hint Player 2 Green",
        "hint Player 2 Blue", "wait, 1 left"]
    s.apply_action("hint Player 2 Blue")             # tokens 1 -> 0: no more hints
    assert s.log() == ["Player 1 hints Player 2: Blue."] and s.var("tokens") == 0
    assert [str(a) for a in s.legal_actions()] == ["play 1", "play 2", "discard 1", "discard 2", "wait, 0 left"]
    s.apply_action("discard 2")                      # the same name 'i', bound by its own branch
    assert s.log()[-1] == "Player 2 discards card 2." and s.var("tokens") == 1
    s.apply_action("play 2")
    assert s.cards("pile") == ["Red 1"] and s.log()[-1] == "Player 1 plays card 2."


def test_a_pick_is_offered_only_while_its_condition_holds():
    body = PICKS.replace("if tokens < 2:", "if tokens > 5:")
    s = make(body).new_initial_state(seed=1, stack={"deck": DECK})
    assert not any(str(a).startswith("discard") for a in s.legal_actions())


def test_a_pick_of_pairs_offers_every_combination_first_source_outermost_filtered_by_where():
    g = make("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            player 1 chooses q, s from players, Suit where any(c.suit == s for c in q.hand) as "ask {q} for {s}"
            announce "{q}: {s}"
            player 2 chooses n, yes_or_no from 1 to 2, [yes, no]
            announce "{n} {yes_or_no}"
            end game
    """)
    s = g.new_initial_state(seed=1, stack={"deck": DECK})    # P1 Red 3, Red 1; P2 Green 2, Blue 4
    assert [str(a) for a in s.legal_actions()] == ["ask Player 1 for Red", "ask Player 2 for Green",
                                                   "ask Player 2 for Blue"]
    s.apply_action("ask Player 2 for Blue")
    assert s.log() == ["Player 2: Blue"]
    assert [str(a) for a in s.legal_actions()] == ["choose 1 yes", "choose 1 no", "choose 2 yes", "choose 2 no"]
    s.apply_action("choose 2 no")
    assert s.log()[-1] == "2 no" and s.is_terminal()


def test_identical_cards_in_a_pair_are_offered_once():
    header = HEADER.replace("for suit in Suit, rank in 1 to 4", "2 x for suit in Suit, rank in 1 to 4")
    s = make("""
        flow:
            player 1 chooses c, n from every card, [1] where c.rank == 1 as "take {c} {n}"
            end game
    """, header=header).new_initial_state(seed=1)
    assert [str(a) for a in s.legal_actions()] == ["take Red 1 1", "take Green 1 1", "take Blue 1 1"]


def test_a_pick_of_texts_beside_named_moves():
    s = make("""
        flow:
            player 1 chooses:
                t from ["face up", "pass"] as "lay":
                    announce "lays {t}"
                "pass":
                    announce "passes"
            end game
    """).new_initial_state(seed=1)
    assert [str(a) for a in s.legal_actions()] == ["lay face up", "lay pass", "pass"]
    s.apply_action("lay pass")
    assert s.log() == ["lays pass"]


def test_two_subsets_and_a_pick_in_one_block():
    s = make("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            player 1 chooses:
                subset one from player 1.hand such that size(one) == 1 as "lay":
                    move one to pile
                subset two from player 1.hand such that size(two) == 2 and same(c.suit for c in two) as "pair":
                    move two to pile
                c from player 1.hand where c.rank == 3 as "show":
                    announce "{c}"
            end game
    """).new_initial_state(seed=1, stack={"deck": ["Red 3", "Red 1", "Blue 2"]})
    assert [str(a) for a in s.legal_actions()] == ["lay Red 3", "lay Red 1", "lay Blue 2", "pair Red 3, Red 1",
                                                   "show Red 3"]
    s.apply_action("pair Red 3, Red 1")
    assert sorted(s.cards("pile")) == ["Red 1", "Red 3"]


@pytest.mark.parametrize("body, message, line", [
    ("""
    flow:
        player 1 chooses:
            c from pile as "play":
                pass
            d from pile as "play":
                pass
    """, 'two picks of this choice offer options that read alike ("play ..." from line', 5),
    ("""
    flow:
        player 1 chooses:
            i from 1 to 3 as "bid":
                pass
            j from 4 to 5:
                pass
            "bid 2":
                pass
    """, 'the move "bid 2" reads as an option of the pick at line', 7),
    ("""
    flow:
        player 1 chooses:
            i from 1 to 3 as "bid":
                pass
            j from 4 to 5 as "raise" if i > 1:
                pass
    """, "a branch's condition reads 'i', which is chosen by this choice", 5),
    ("""
    flow:
        player 1 chooses:
            i from 1 to 3 as "bid":
                pass
            "stand on {i}":
                pass
    """, "a move's text reads 'i', which is chosen by this choice", 5),
    ("""
    flow:
        player 1 chooses q, s from players as "x"
    """, "2 names are picked from 1 sources", 2),
    ("""
    flow:
        player 1 chooses q, q from players, players as "x"
    """, "'q' is picked twice in one pick", 2),
    ("""
    flow:
        player 1 chooses:
            " ":
                pass
    """, "is no move's text", 3),
])
def test_picks_that_cannot_be_told_apart_are_refused_at_their_place(body, message, line):
    with pytest.raises(RulesError) as err:
        make(body)
    assert message in err.value.message
    assert err.value.pos.line == HEADER.count("\n") + 1 + line


def test_a_tagged_block_survives_clone_json_replay_and_resampling():
    g = make(PICKS)
    s = g.new_initial_state(seed=3)
    s.apply_action("hint Player 2 Red")
    data = json.loads(json.dumps(s.to_json()))
    t = State.from_json(g, data)
    assert t == s and [str(a) for a in t.legal_actions()] == [str(a) for a in s.legal_actions()]
    t.apply_action("discard 1")
    assert t.log()[-1] == "Player 2 discards card 1."
    assert g.replay(3, s.history()) == s and s.clone() == s
    import random
    twin = resample(s, 1, random.Random(5), redraw=True)
    assert [str(a) for a in twin.legal_actions()] == [str(a) for a in s.legal_actions()]
