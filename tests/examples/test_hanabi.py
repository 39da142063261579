"""Hanabi (examples/hanabi.rules): scenarios from stacked decks — plays, misplays, discards, hints
and their tokens, the three ends of the game — who sees which hand, and a seat's imagined deals
keeping to its hints. (The whole game against OpenSpiel's: tests/interpreter/bridges/.)"""
from __future__ import annotations

import io
import random

import pytest

from rulesrun.interpreter import load_game
from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.runtime.observe import resample

from tests.support import ROOT

COLOURS = ["Red", "Yellow", "Green", "White", "Blue"]
PATH = ROOT / "examples" / "hanabi.rules"


@pytest.fixture(scope="module")
def games():
    return {n: load_game(PATH, players=n) for n in (2, 3, 4, 5)}


def start(games, hands, players=2, deck=(), seed=1):
    """A game whose hands are dealt as given (Player 1's first, each hand in its order), then the
    deck's top cards as given; the rest of the deck at random."""
    return games[players].new_initial_state(
        seed=seed, stack={"deck": [c for hand in hands for c in hand] + list(deck)})


P1 = ["Red 1", "Red 2", "Blue 3", "Green 4", "White 5"]
P2 = ["Red 1", "Blue 2", "Red 3", "Green 1", "Yellow 4"]


def backs(state, seat, name="told_colour"):
    """What the seat sees on the backs of its own cards, by place."""
    return state.observation(seat)["players"][seat]["hand"]["backs"][name]


def test_the_hands_are_dealt_in_blocks_and_a_seat_sees_every_hand_but_its_own(games):
    s = start(games, [P1, P2, ["Red 4", "Red 5", "Yellow 1", "Yellow 2", "Yellow 3"]], players=3)
    assert [s.cards("hand", p) for p in range(2)] == [P1, P2]
    for seat in range(3):
        view = s.observation(seat)["players"]
        assert "cards" not in view[seat]["hand"] and view[seat]["hand"]["count"] == 5
        for other in set(range(3)) - {seat}:
            assert sorted(view[other]["hand"]["cards"]) == sorted(s.cards("hand", other))


def test_a_play_of_the_next_rank_raises_its_firework_and_the_player_draws_at_the_end(games):
    s = start(games, [P1, P2], deck=["Yellow 1"])
    s.apply_action("play 1")
    assert s.cards("fireworks") == ["Red 1"] and s.var("lives") == 3 and s.var("tokens") == 8
    assert s.cards("hand", 0) == P1[1:] + ["Yellow 1"]
    assert s.log()[-1] == "Player 1 plays Red 1." and s.current_player() == 1
    s.apply_action("play 1")                     # Player 2's Red 1: the red firework is at 1 already
    assert s.cards("fireworks") == ["Red 1"] and s.cards("discards") == ["Red 1"]


def test_a_misplay_costs_a_life_and_the_card_is_discarded(games):
    s = start(games, [P1, P2], deck=["Yellow 1"])
    s.apply_action("play 2")                     # Red 2 on no red firework
    assert s.var("lives") == 2 and s.cards("fireworks") == [] and s.cards("discards") == ["Red 2"]
    assert s.cards("hand", 0) == ["Red 1", "Blue 3", "Green 4", "White 5", "Yellow 1"]
    assert "does not fit" in s.log()[-1]


def test_discarding_is_refused_at_eight_tokens_and_gains_one_below(games):
    s = start(games, [P1, P2], deck=["Yellow 1", "Yellow 2"])
    assert not any(str(a).startswith("discard") for a in s.legal_actions())
    s.apply_action("hint Player 2 Red")
    assert s.var("tokens") == 7
    assert [str(a) for a in s.legal_actions() if str(a).startswith("discard")] == [f"discard {i}" for i in range(1, 6)]
    s.apply_action("discard 2")                  # Player 2's Blue 2
    assert s.var("tokens") == 8 and s.cards("discards") == ["Blue 2"]
    assert s.cards("hand", 1) == ["Red 1", "Red 3", "Green 1", "Yellow 4", "Yellow 1"]


def test_a_hint_marks_exactly_the_cards_of_its_colour_or_rank_and_costs_a_token(games):
    s = start(games, [P1, P2])
    hints = [str(a) for a in s.legal_actions() if str(a).startswith("hint")]
    # only what Player 2 holds can be hinted
    assert hints == ["hint Player 2 Red", "hint Player 2 Yellow", "hint Player 2 Green", "hint Player 2 Blue",
                     "hint Player 2 1s", "hint Player 2 2s", "hint Player 2 3s", "hint Player 2 4s"]
    s.apply_action("hint Player 2 Red")
    assert s.var("tokens") == 7
    assert backs(s, 1) == ["Red", None, "Red", None, None]
    assert backs(s, 1, "told_rank") == [None] * 5
    assert s.log()[-1] == "Player 1 tells Player 2 which cards are Red."
    s.apply_action("hint Player 1 5s")
    assert s.var("tokens") == 6 and backs(s, 0, "told_rank") == [None, None, None, None, 5]
    assert backs(s, 1) == ["Red", None, "Red", None, None]       # the hints so far stay


def test_hints_are_refused_at_no_tokens(games):
    s = start(games, [P1, P2])
    for _ in range(8):
        s.apply_action(next(a for a in s.legal_actions() if str(a).startswith("hint")))
    assert s.var("tokens") == 0
    legal = [str(a) for a in s.legal_actions()]
    assert not any(a.startswith("hint") for a in legal) and "discard 1" in legal and "play 1" in legal


def test_a_five_gives_a_token_back_when_one_is_spent(games):
    s = start(games, [["Red 1", "Red 3", "Red 5", "Blue 1", "Blue 2"], ["Red 2", "Red 4", "Green 1", "Green 2", "Green 3"]])
    for a in ["play 1", "play 1", "play 1", "play 1", "hint Player 2 Green", "hint Player 1 Blue"]:
        s.apply_action(a)
    assert len(s.cards("fireworks")) == 4 and s.var("tokens") == 6
    assert s.cards("hand", 0)[0] == "Red 5"
    s.apply_action("play 1")
    assert s.cards("fireworks")[-1] == "Red 5" and s.var("tokens") == 7


def test_the_game_ends_with_a_score_of_0_when_the_lives_run_out(games):
    s = start(games, [["Red 1", "Red 3", "Red 4", "Blue 2", "Blue 3"], P2])
    s.apply_action("play 1")                     # Red 1: the score would be 1
    for a in ["play 1", "play 2", "play 2"]:     # Red 1 again, Red 4, Red 3: three misfires
        assert not s.is_terminal()
        s.apply_action(a)
    assert s.is_terminal() and s.var("lives") == 0 and s.cards("fireworks") == ["Red 1"]
    assert s.returns() == [0, 0]


def test_the_game_ends_one_more_turn_each_after_the_last_card_is_drawn(games):
    s = start(games, [P1, P2])
    s.apply_action("play 1")                     # Red 1
    turns_after = None
    while not s.is_terminal():
        legal = [str(a) for a in s.legal_actions()]
        s.apply_action("discard 1" if "discard 1" in legal else next(a for a in legal if a.startswith("hint")))
        if turns_after is not None:
            turns_after += 1
        elif not s.cards("deck"):
            turns_after = 0                      # this turn drew the last card
    assert turns_after == 2 and s.var("lives") == 3
    assert s.returns() == [1, 1]


def test_the_game_ends_when_every_firework_reaches_5(games):
    order = [f"{c} {r}" for c in COLOURS for r in range(1, 6)]
    # Player 1 plays the 1st, 3rd, ... card needed, Player 2 the 2nd, 4th, ...; each plays its
    # oldest card and draws the next needed one at the end of its hand.
    s = start(games, [order[0:10:2], order[1:10:2]], deck=order[10:])
    for i in range(25):
        assert not s.is_terminal()
        s.apply_action("play 1")
    assert s.is_terminal() and len(s.cards("fireworks")) == 25 and s.var("lives") == 3
    assert s.returns() == [25, 25] and s.var("tokens") == 8      # no token back at 8


def test_check_passes_on_every_player_count_and_parameter_extreme():
    """`rulesrun check` plays 2 to 5 players and each parameter's extremes, and every property holds
    — the twin leak test with the hints' reveals, the bots on twins, the invariants of each card."""
    out = io.StringIO()
    assert run_check(str(PATH), games=3, out=out, err=io.StringIO(), coverage=False) == 0, out.getvalue()
    assert "7 configurations, 21 games" in out.getvalue()   # 2, 3, 4, 5 players; 3 parameters at their least


def test_a_seats_imagined_deals_keep_its_hints(games):
    """A bot of Player 2 imagines its own hand among the cards it has not seen: in 100 copies every
    card it was told is Red is red, every card told is a 3 is a 3, and the others' hands are kept."""
    s = start(games, [P1, P2])
    s.apply_action("hint Player 2 Red")
    s.apply_action("hint Player 1 1s")
    s.apply_action("hint Player 2 3s")
    told_colour, told_rank = backs(s, 1), backs(s, 1, "told_rank")
    assert told_colour == ["Red", None, "Red", None, None] and told_rank == [None, None, 3, None, None]
    rng = random.Random(3)
    hands = set()
    for _ in range(100):
        copy = resample(s, 1, rng, redraw=True)
        hand = copy.cards("hand", 1)
        hands.add(tuple(hand))
        assert copy.cards("hand", 0) == P1
        for card, colour, rank in zip(hand, told_colour, told_rank):
            assert colour is None or card.startswith(colour)
            assert rank is None or card.endswith(str(rank))
        assert backs(copy, 1) == told_colour
    assert len(hands) > 50                      # and otherwise the copies differ
