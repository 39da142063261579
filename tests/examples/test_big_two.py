"""Big Two (examples/big_two.rules): a 13-card hand's legal combinations are exactly those found by
trying every subset in plain Python, on a lead and when following; the penalty at the end."""
from __future__ import annotations

import itertools
import random

import pytest

from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402
ORDER = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
SUITS = "DCHS"


@pytest.fixture(scope="module")
def game():
    return load_game(ROOT / "examples" / "big_two.rules", players=4)


def rank(card: str) -> int:
    return ORDER.index(card[:-1])


def value(card: str) -> int:
    return rank(card) * 4 + SUITS.index(card[-1])


def kind(cards) -> int | None:
    """None if not a combination; 0 for 1-3 cards; else straight 1 ... straight flush 5."""
    ranks = sorted(rank(c) for c in cards)
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if len(cards) in (1, 2, 3):
        return 0 if len(set(ranks)) == 1 else None
    if len(cards) != 5:
        return None
    straight = counts == [1] * 5 and ranks[-1] - ranks[0] == 4
    flush = len({c[-1] for c in cards}) == 1
    if straight and flush:
        return 5
    if counts == [4, 1]:
        return 4
    if counts == [3, 2]:
        return 3
    if flush:
        return 2
    return 1 if straight else None


def strength(cards) -> tuple:
    k = kind(cards)
    if k in (3, 4):
        ranks = [rank(c) for c in cards]
        return (k, max(ranks, key=ranks.count))
    return (k, max(value(c) for c in cards))


def brute_force(hand, table, first):
    """Every subset of the hand that may be played now (plain Python, all 8,192 of them)."""
    out = set()
    for n in range(len(hand) + 1):
        for combo in itertools.combinations(hand, n):
            if not combo:
                if table:
                    out.add(())         # a pass (the named move "pass")
                continue
            if kind(combo) is None:
                continue
            if first and "3D" not in combo:
                continue
            if table and (len(combo) != len(table) or strength(combo) <= strength(table)):
                continue
            out.add(tuple(sorted(combo)))
    return out


def legal_sets(state):
    out = set()
    for a in state.legal_actions():
        out.add(() if a == "pass" else tuple(sorted(a[len("play "):].split(", "))))
    return out


def test_every_lead_and_answer_of_random_games_equals_trying_every_subset(game):
    """Random games: at every decision whose hand has 13 cards (and a sample of the others), the
    options are exactly the subsets a plain-Python brute force finds."""
    checked = full = 0
    for seed in range(6):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        first = True
        while not state.is_terminal():
            p = state.current_player()
            hand = state.cards("hand", p)
            if len(hand) == 13 or rng.random() < 0.3:
                table = state.cards("table")
                assert legal_sets(state) == brute_force(hand, table, first), (seed, hand, table)
                checked += 1
                full += len(hand) == 13
            state.apply_action(rng.choice(state.legal_actions()))
            first = False
    assert full >= 24 and checked > 60


def test_the_penalty_is_a_point_a_card_doubled_from_ten_and_tripled_at_thirteen(game):
    def penalty(n):
        return 3 * n if n == 13 else 2 * n if n >= 10 else n
    for seed in range(10):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        left = [len(state.cards("hand", p)) for p in range(4)]
        assert left.count(0) == 1
        assert state.returns() == [-penalty(n) for n in left]
        assert state.winners() == [left.index(0)]
