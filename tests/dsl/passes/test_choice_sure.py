"""A choice block's pick from a zone is never none (dsl.passes.nonnull): the card it gives is moved
without a check for none; a pick from a list that may hold none keeps it."""
from __future__ import annotations

import textwrap

from rulesrun.interpreter import load_game_text

GAME = textwrap.dedent("""
    game "Picks"
    players 2
    kind Suit: Red, Blue
    cards:
        suit: Suit
        rank: number
        {suit: s, rank: r} for s in Suit, r in 1 to 4
    zone deck: facedown
    zone pile: public
    zone hand per player: owner
    flow:
        shuffle deck
        deal 3 from deck to hand
        repeat 3 times:
            for p in players:
                p chooses:
                    c from p.hand as "play":
                        move c to pile
                    "wait" if size(pile) < 2:
                        announce "{p} waits."
    score(p) = size(p.hand)
""")


def _checks(g) -> int:
    return sum(line.count(" is None") for line in "\n".join(g.program.code.sources.values()).splitlines())


def test_a_card_picked_in_a_choice_block_is_moved_without_a_check():
    g = load_game_text(GAME, 2, path="picks.rules")
    assert _checks(g) == 0
    s = g.new_initial_state(seed=2)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert s.is_terminal()


def test_a_pick_from_a_list_that_may_hold_none_keeps_its_check():
    text = GAME.replace('c from p.hand as "play"', 'c from [top(deck), none] as "take"')
    # (the option names the deck's top card, which the seat does not see: allowed, it is not the point)
    g = load_game_text(text, 2, path="picks.rules", allow_leaks=True)
    assert _checks(g) >= 1
