"""Bots keep in mind what their seat was told of cards it cannot see (a hint on the backs of its
own cards, `on back` card state) through the file's invariants of each card: told "these are your
red cards" (and so the others are not), a bot plays one of them to play red; without the invariant
it cannot tell its cards apart."""
from __future__ import annotations

import pytest

from rulesrun.interpreter import load_game_text
from tests.support import wins

PLAY_THE_RED = """
game "Play The Red"
players 2
kind Suit: Red, Blue, Green
cards:
    suit: Suit
    rank: number
    shown as "{suit} {rank}"
    for suit in Suit, rank in 1 to 4
zone deck: facedown
zone table: public
zone hand per player: others
card state told: Suit = none, on back
card state not_red: yes/no = no, on back
invariant "a hint is true of its card" for every card c: (c.told == none or c.told == c.suit) and not (c.not_red and c.suit == Red)
flow:
    shuffle deck
    deal 3 from deck to hand
    let partner = player 2
    reveal [c.suit == Red for c in partner.hand]      # Player 1 points out Player 2's red cards
    for c in partner.hand:
        if c.suit == Red:
            c.told = Red
        else:
            c.not_red = yes
    announce "Player 1 points out Player 2's red cards."
    partner chooses i from 1 to size(partner.hand) as "play the card at"
    move partner.hand[i] to table
    announce "Player 2 plays {top(table)}."
score(p) = 1 if p == player 2 and top(table).suit == Red else 0
"""


def played_red(text, bot, games=40):
    game = load_game_text(text, 2, path="red.rules")
    with_red = [s for s in range(games) if "Red" in " ".join(game.new_initial_state(seed=s).cards("hand", 1))]
    return wins(game, ["random", bot], games)[1], len(with_red)


@pytest.mark.parametrize("bot", ["greedy", "ismcts:30"])
def test_a_bot_plays_the_card_it_was_told_is_red(bot):
    got, could = played_red(PLAY_THE_RED, bot)
    assert got == could > 10


def test_without_the_invariant_a_bot_plays_by_chance():
    text = "\n".join(line for line in PLAY_THE_RED.splitlines() if not line.startswith("invariant"))
    got, could = played_red(text, "ismcts:30")
    assert got < could
