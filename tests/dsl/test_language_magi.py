"""The language constructs games/magi.rules leans on, each on its own in a tiny inline game.

Magi needed no new construct; these tests pin down the existing ones it relies on, so that a change
to the language that would break Magi shows up here, small and named:

- a variant that replaces a ``const`` changes every ``define`` that reads it (Catastrophe);
- a kind-valued state may hold ``none`` ("the pile has no colour") and compares with ``==``;
- ``player_at(p, k)`` with a direction of 1 or -1 and ``players from p``;
- a choice from ``[none] + [...]`` is always asked, "nothing" being one option, and a choice from a
  kind filtered by ``where`` with one option left is still asked (no secret leaks by skipping);
- ``chooses q from [q in players where q != p]`` (SHOOT);
- ``top(zone, n)`` is top first; ``highest q in LIST by 0`` is the first of the list;
- labels may end in ``?`` or ``:``, and a single-quoted announcement may hold double quotes;
- each shuffled zone is stacked on its own, and a list of lists stacks successive shuffles.
"""
from __future__ import annotations


import pytest

from rulesrun.interpreter import GameError
from tests.support import tiny_game

HEADER = """
game "Colours"
players 4
kind Colour: red, blue, grey
kind Move: play, draw, Pass
cards:
    name: text
    colour: Colour
    points: number
    shown as "{colour} {name}"
    2 x {name: "Coin", colour: c, points: 2} for c in [red, blue]
    {name: "Staff", colour: c, points: 10} for c in [red, blue]
    {name: "Witch", colour: grey, points: 15}
zone deck: facedown
zone other: facedown
zone pile: public
zone hand per player: owner
"""


def make(body: str, variants=(), players: int = 4):
    return tiny_game(body, players, header=HEADER, variants=variants)


def test_a_variant_replacing_a_const_changes_the_defines_that_read_it():
    body = """
        const special = ["Staff"]
        define special_card(c) = c.name in special
        flow:
            shuffle deck
            deal 1 from deck to hand
            player 1 chooses c from [none] + [h for h in deck where special_card(h)] as "take"
        variant wide:
            const special = ["Staff", "Witch"]
    """
    base = make(body).new_initial_state(seed=1)
    wide = make(body, variants=("wide",)).new_initial_state(seed=1)
    assert not any("Witch" in a for a in base.legal_actions())
    assert any("Witch" in a for a in wide.legal_actions())
    assert base.legal_actions()[0] == "take nothing"


def test_a_kind_state_may_be_none_and_compares_with_values():
    g = make("""
        state pile_colour: Colour = none
        define open_to(c) = pile_colour == none or c.colour == pile_colour
        flow:
            shuffle deck
            move top(deck, 2) to player 1.hand
            player 1 chooses c from player 1.hand where open_to(c) as "play"
            move c to pile
            pile_colour = c.colour
            player 1 chooses d from player 1.hand where open_to(d) if able as "then"
    """)
    s = g.new_initial_state(seed=0, stack={"deck": ["red Coin", "blue Staff"]})
    assert s.var("pile_colour") is None
    assert sorted(s.legal_actions()) == ["play blue Staff", "play red Coin"]
    obs = s.observation(1)
    assert obs["state"]["pile_colour"] is None
    s.apply_action("play red Coin")
    assert s.var("pile_colour") == "red"
    assert s.legal_actions() == ["then blue Staff"]      # nothing matches: 'if able' opens all


def test_player_at_with_a_direction_and_players_from():
    g = make("""
        state direction: number = 1
        state seen: list of player = []
        flow:
            let p = player 2
            repeat 3 times:
                seen = seen + [p]
                p = player_at(p, direction)
            direction = -1
            repeat 3 times:
                seen = seen + [p]
                p = player_at(p, direction)
            for q in players from player 3:
                seen = seen + [q]
    """)
    s = g.new_initial_state(seed=0)
    assert s.is_terminal()
    assert s.var("seen") == [1, 2, 3, 0, 3, 2, 2, 3, 0, 1]


def test_always_asked_choices_keep_the_same_label_whatever_the_hand():
    g = make("""
        flow:
            shuffle deck
            deal 1 from deck to hand
            for p in players:
                p chooses c from [none] + [h for h in p.hand where h.colour == red] as "magic phase: play"
                p chooses m from Move where m == draw or (m == play and any(h in p.hand where h.colour == blue)) as "main phase:"
    """)
    s = g.new_initial_state(seed=0, stack={"deck": ["red Coin", "blue Coin", "grey Witch", "red Staff"]})
    labels = []
    options = []
    while not s.is_terminal():
        labels.append(s.decision_label())
        options.append(sorted(s.legal_actions()))
        s.apply_action(s.legal_actions()[0])
    assert labels == ["magic phase: play", "main phase:"] * 4
    assert options[0] == ["magic phase: play nothing", "magic phase: play red Coin"]
    assert options[2] == ["magic phase: play nothing"]             # a blue card: nothing to play
    assert options[1] == ["main phase: draw"]                     # a single option is still asked
    assert options[3] == ["main phase: draw", "main phase: play"]


def test_choosing_another_player_and_yes_no_questions():
    g = make("""
        state shot: player = none
        flow:
            let p = player 3
            p chooses q from [q in players where q != p] as "shoot"
            shot = q
            q chooses called from [yes, no] as "call Magi?"
            if called:
                announce '{q}: "Magi!"'
    """)
    s = g.new_initial_state(seed=0)
    assert s.current_player() == 2
    assert s.legal_actions() == ["shoot Player 1", "shoot Player 2", "shoot Player 4"]
    with pytest.raises(GameError):
        s.apply_action("shoot Player 3")
    s.apply_action("shoot Player 4")
    assert s.current_player() == 3 and s.var("shot") == 3
    assert s.legal_actions() == ["call Magi? yes", "call Magi? no"]
    s.apply_action("call Magi? yes")
    assert s.log() == ['Player 4: "Magi!"']


def test_top_n_is_top_first_and_highest_by_zero_is_the_first():
    g = make("""
        state first: player = none
        flow:
            shuffle deck
            move top(deck, 2) to pile
            let contenders = [q for q in players where q != player 1]
            first = highest q in contenders by 0
            announce "{top(pile, 2)} / {first}"
    """)
    s = g.new_initial_state(seed=0, stack={"deck": ["grey Witch", "red Staff", "blue Coin"]})
    # the list moves in list order, so the second card from the top ends on top of the pile
    assert s.cards("pile") == ["grey Witch", "red Staff"]
    assert s.log() == ["red Staff, grey Witch / Player 2"]


def test_each_shuffled_zone_is_stacked_on_its_own():
    g = make("""
        flow:
            repeat 2 times:
                move every card to deck
                shuffle deck
                move top(deck) to pile
                move top(deck, 2) to other
                shuffle other
                move top(other) to pile
                player 1 chooses c from [yes] as "next"
    """)
    s = g.new_initial_state(seed=3, stack={"deck": [["grey Witch", "red Coin", "blue Coin"],
                                                    ["red Staff", "blue Coin", "red Coin"]],
                                           "other": [["blue Coin"], ["red Coin"]]})
    assert s.cards("pile") == ["grey Witch", "blue Coin"]
    s.apply_action("next yes")
    assert s.cards("pile") == ["red Staff", "red Coin"]
