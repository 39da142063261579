"""`reveal X to P`: what the rules show one player alone (a hand shown to the challenger). The
state notes it for that seat (`State.revealed`), its bots remember those cards and keep them in
their copies, the other seats' bots do not, and `check`'s twin test holds the twin to it. A
revealed value that is not a card (`reveal guilty`) no longer stops the twin test."""
from __future__ import annotations

import random

from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.bots.agents import Memory
from rulesrun.interpreter.checking.leaks import twin_leak
from rulesrun.interpreter.runtime.observe import resample, revealed_cards, visible_cards
from tests.support import ROOT

SHOWN = ROOT / "tests" / "flow_corpus" / "honest" / "hand_shown_to_one_player.rules"


def after_the_bids(seed=4):
    g = load_game_text(SHOWN.read_text(), 3, path=SHOWN.name)
    s = g.new_initial_state(seed=seed)
    for _ in range(3):
        s.apply_action(s.legal_actions()[0])
    return g, s


def test_a_hand_shown_to_one_player_is_noted_for_that_seat_alone():
    g, s = after_the_bids()
    hand = {g.card_id(n) for n in s.cards("hand", 0)}
    assert revealed_cards(s, 1) == hand
    assert revealed_cards(s, 2) == set() and revealed_cards(s, 0) == set()
    assert any(len(k) == 4 and k[3] == 2 and k[0] == "pv" for k in s.revealed)   # the bid, to Player 3


def test_the_seat_shown_a_hand_keeps_it_in_its_copies_and_the_others_do_not():
    g, s = after_the_bids()
    hand = sorted(s.cards("hand", 0))
    rng = random.Random(1)
    shown_to = Memory(1).update(s)
    assert {g.card_id(n) for n in hand} <= shown_to
    assert all(sorted(resample(s, 1, rng, shown_to).cards("hand", 0)) == hand for _ in range(10))
    others = Memory(2).update(s)
    assert any(sorted(resample(s, 2, rng, others).cards("hand", 0)) != hand for _ in range(20))


def test_a_bid_shown_to_one_player_is_kept_by_its_bots_only():
    g, s = after_the_bids()
    bid = s.var("bid", 0)
    rng = random.Random(2)
    assert all(resample(s, 2, rng, redraw=True).var("bid", 0) == bid for _ in range(10))
    assert any(resample(s, 1, rng, redraw=True).var("bid", 0) != bid for _ in range(30))


def test_the_private_announcement_of_a_zone_tells_its_cards():
    g, s = after_the_bids()
    s.apply_action(s.legal_actions()[0])
    told = s.log(1)[-1]
    assert all(n in told for n in s.cards("hand", 0) if n) and "hand of" not in told


REVEALED_VALUE = """\
game "Guilty Or Not"
players 2
kind Suit: Red, Blue
cards:
    suit: Suit
    rank: number
    shown as "{suit} {rank}"
    for suit in Suit, rank in 1 to 4
zone deck: facedown
zone table: public
zone hand per player: owner
flow:
    shuffle deck
    deal 2 from deck to hand
    let guilty = any(c.suit == Red for c in (player 1).hand)
    reveal guilty
    announce "Player 1 {'holds' if guilty else 'holds no'} red card."
    repeat 2 times:
        for p in players:
            p chooses c from p.hand as "play"
            move c to table
            announce "{p} plays {c}."
            move top(deck) to p.hand
score(p) = size(p.hand)
"""


def test_the_twin_test_compares_on_after_a_revealed_yes_or_no():
    g = load_game_text(REVEALED_VALUE, 2)
    compared = 0
    for seed in range(12):
        s = g.new_initial_state(seed=seed)
        indices, seen = [], set(visible_cards(s, 1))
        while not s.is_terminal():
            indices.append(0)
            s.apply_action(0)
            seen |= visible_cards(s, 1)
        unseen = [c for c in range(len(s.card_zones)) if c not in seen]
        compared = max(compared, twin_leak(g, seed, s.hist, indices, 1, unseen, random.Random(seed)))
    assert compared == len(indices), "no twin consistent with the revealed yes/no compared the whole game"
