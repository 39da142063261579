"""The language constructs Gachapon Trick leans on, each in a tiny game written inline.

Gachapon needed one small change to the core: an error that says which variant set the player count
(a variant may replace the file's `players` line, as the 2-player game does). Everything else is
built from existing constructs; those tests pin down the uses the game depends on."""
from __future__ import annotations


import pytest

from rulesrun.dsl import RulesError
from tests.support import tiny_game

HEADER = """
game "Capsules"
players 2 to 4
kind Colour: red, blue, green
kind Toy: Robot, Cat
cards:
    label: text
    colour: Colour = none
    value: number = 0
    toy: Toy = none
    special: yes/no = no
    shown as "{label}"
    {label: "{c} {v}", colour: c, value: v, toy: t} for c in Colour, v in [2, 3], t in Toy where position(t, Toy) == position(v, [2, 3])
    {label: "Joker", special: yes}
zone deck: facedown
zone pile: public
zone hand per player: owner
zone bought per player: public
"""


def make(body: str, players: int = 2, variants=()):
    return tiny_game(body, players, header=HEADER, variants=variants)


def test_a_variant_that_sets_the_player_count_is_named_in_the_error():
    text = """
        flow:
            pass
        variant duel when players == 2:
            players 2
        variant big:
            players 5 to 6
    """
    assert make(text, players=2).variants == ("duel",)
    with pytest.raises(RulesError) as e:
        make(text, players=3, variants=("duel",))
    assert e.value.message == "Capsules with the variant 'duel' is for 2 players, not 3"
    assert "use --players 2" in str(e.value)
    with pytest.raises(RulesError) as e:
        make(text, players=4, variants=("big",))
    assert e.value.message == "Capsules with the variant 'big' is for 5 to 6 players, not 4"
    # without the variant, the message is the file's own
    with pytest.raises(RulesError) as e:
        make(text, players=5)
    assert e.value.message == "Capsules is for 2 to 4 players, not 5"


def test_a_kind_attribute_may_default_to_none_for_a_card_without_one():
    g = make("""
        state toys: number = 0
        state jokers: number = 0
        flow:
            toys = count(c in every card where c.toy != none)
            jokers = count(c in every card where c.toy == none and c.special)
    """)
    s = g.new_initial_state(seed=1)
    assert s.var("toys") == 6 and s.var("jokers") == 1
    assert g.program.card_names == ["red 2", "red 3", "blue 2", "blue 3", "green 2", "green 3", "Joker"]
    assert g.program.card_attrs["toy"] == ["Robot", "Cat"] * 3 + [None]


def test_an_optional_choice_offers_nothing_first():
    g = make("""
        flow:
            move [c for c in every card where c.value == 3] to player 1.bought
            player 1 chooses c from [none] + [b for b in player 1.bought where b.colour != green] as "refund"
            if c != none:
                move c to pile
    """)
    s = g.new_initial_state(seed=1)
    assert s.legal_actions() == ["refund nothing", "refund red 3", "refund blue 3"]
    s.apply_action("refund blue 3")
    assert s.cards("pile") == ["blue 3"] and s.is_terminal()
    s = g.new_initial_state(seed=1)
    s.apply_action("refund nothing")
    assert s.cards("pile") == []


def test_follow_any_colour_already_played_if_able():
    g = make("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            for p in players:
                p chooses c from p.hand where c.colour in [d.colour for d in pile] if able as "play"
                move c to pile
    """)
    s = g.new_initial_state(seed=1, stack={"deck": ["red 2", "blue 2", "green 2", "blue 3", "green 3", "red 3"]})
    assert sorted(s.legal_actions()) == ["play blue 2", "play green 2", "play red 2"]
    s.apply_action("play blue 2")
    assert sorted(s.legal_actions()) == ["play blue 3"]
    s = g.new_initial_state(seed=1, stack={"deck": ["red 2", "blue 2", "green 2", "blue 3", "green 3", "red 3"]})
    s.apply_action("play green 2")
    assert sorted(s.legal_actions()) == ["play green 3"]


def test_the_winner_skips_players_who_cannot_pay_and_recounts_without_them():
    g = make("""
        card state played_by: player
        player state skipped: yes/no = no
        player state money: number = 0
        state winner: player = none
        define frequency(c) = count(d in pile where d.colour == c.colour and not d.played_by.skipped)
        define best() = (highest c in pile where not c.played_by.skipped
                         by frequency(c) then c.value then position(c, pile))
        flow:
            player 1.money = 1
            player 2.money = 3
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                for c in p.hand:
                    move c to pile
                    c.played_by = p
            let b = best()
            while b != none and not any(c in pile where c.value <= b.played_by.money):
                b.played_by.skipped = yes
                b = best()
            winner = none if b == none else b.played_by
    """)
    # Player 1: red 2, red 3 (red twice: red 3 would win, but 1 pays for nothing)
    s = g.new_initial_state(seed=1, stack={"deck": ["red 2", "red 3", "blue 3", "green 2"]})
    assert s.var("winner") == 1 and s.var("skipped", player=0) is True
    # without Player 1's cards, blue 3 and green 2 count once each: the higher card wins
    assert s.var("skipped", player=1) is False
