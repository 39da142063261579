"""Combinations (docs/language.md "Combinations"): the shape functions, combination choices
enumerated from their shapes (dsl/emit/combos.py), the same options as trying every subset, and the
errors for what cannot be enumerated."""
from __future__ import annotations

import itertools
import random

import pytest

from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.dsl.emit import combos
from tests.support import tiny_game, tiny_header

HEADER = tiny_header("Combos", 2, "Diamonds, Clubs, Hearts, Spades", 13, "{rank} {suit}",
                     ("deck: facedown", "hand per player: owner", "pile: public"), "state last: list of card = []\n")


def make(body: str, header: str = HEADER):
    return tiny_game(body, header=header)


def hand_game(such: str, deal: int = 13, extra: str = ""):
    return make(f"""
        {extra}
        flow:
            shuffle deck
            deal {deal} from deck to hand
            player 1 chooses subset play from player 1.hand such that {such} as "play"
            move play to pile
    """.replace("\n        ", "\n"))


def options(state):
    """The options of the pending choice as sets of card names."""
    return sorted(sorted(a[len("play "):].split(", ")) for a in state.legal_actions())


BIG_TWO_LIKE = ("size(play) == 1 or (size(play) == 2 and same(c.rank for c in play)) "
                "or (size(play) == 3 and same(c.rank for c in play)) "
                "or (size(play) == 5 and (run(c.rank for c in play) or same(c.suit for c in play) "
                "or groups(c.rank for c in play) == [3, 2] or groups(c.rank for c in play) == [4, 1]))")


def brute(hand, ok):
    """Every subset of the hand, tried one by one (plain Python)."""
    out = []
    for k in range(len(hand) + 1):
        for combo in itertools.combinations(hand, k):
            if ok(list(combo)):
                out.append(sorted(f"{r} {s}" for s, r in combo))
    return sorted(out)


def parsed(name):
    r, s = name.split(" ")
    return s, int(r)


def big_two_like(cs):
    ranks = [r for _, r in cs]
    suits = [s for s, _ in cs]
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    run = len(set(ranks)) == len(ranks) and max(ranks) - min(ranks) == len(ranks) - 1 if ranks else True
    return (len(cs) == 1 or (len(cs) in (2, 3) and len(set(ranks)) == 1)
            or (len(cs) == 5 and (run or len(set(suits)) == 1 or counts in ([3, 2], [4, 1]))))


@pytest.mark.parametrize("seed", range(12))
def test_a_thirteen_card_hand_gives_the_same_combinations_as_trying_every_subset(seed):
    state = hand_game(BIG_TWO_LIKE).new_initial_state(seed=seed)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    assert options(state) == brute(hand, big_two_like)


def test_the_options_come_in_the_order_of_trying_every_subset():
    """Smallest first, then in the hand's order: as 'chooses subset' always listed them."""
    state = hand_game(BIG_TWO_LIKE).new_initial_state(seed=5)
    hand = state.cards("hand", 0)
    texts = [a[len("play "):].split(", ") for a in state.legal_actions()]
    order = [(len(t), [hand.index(c) for c in t]) for t in texts]
    assert order == sorted(order)


def test_the_enumeration_does_not_try_every_subset(monkeypatch):
    """A 30-card hand (2**30 subsets) gives its pairs and runs of 4 at once."""
    calls = []
    real = combos._gen
    monkeypatch.setattr(combos, "_gen", lambda *a: calls.append(a) or real(*a))
    game = hand_game("(size(play) == 2 and same(c.rank for c in play)) or "
                     "(size(play) == 4 and run(c.rank for c in play) and same(c.suit for c in play))", deal=26)
    state = game.new_initial_state(seed=2)
    hand = [parsed(n) for n in state.cards("hand", 0)]

    def ok(cs):
        ranks = sorted(r for _, r in cs)
        return (len(cs) == 2 and ranks[0] == ranks[1]) or (
            len(cs) == 4 and len({s for s, _ in cs}) == 1 and ranks == list(range(ranks[0], ranks[0] + 4)))
    want = sorted(sorted(f"{r} {s}" for s, r in combo) for k in (2, 4) for combo in itertools.combinations(hand, k)
                  if ok(list(combo)))
    assert options(state) == want
    assert len(calls) == 2               # one generator per way the condition can hold


def test_any_number_of_one_rank():
    """President: one card, or two, three or four of one rank — 'same' with no size."""
    game = hand_game("size(play) >= 1 and same(c.rank for c in play)", deal=20)
    state = game.new_initial_state(seed=4)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    assert options(state) == brute(hand, lambda cs: len(cs) >= 1 and len({r for _, r in cs}) == 1)


def test_a_run_round_the_ring():
    """run_round: K-A-2 is a run when the ranks go round (the ring of every card's rank)."""
    game = make("""
        flow:
            move [c in deck where c.suit == Spades and (c.rank <= 2 or c.rank >= 12)] to player 1.hand
            player 1 chooses subset play from player 1.hand such that size(play) == 3 and run_round(c.rank for c in play) as "play"
    """)
    state = game.new_initial_state(seed=0)
    assert options(state) == [["1 Spades", "12 Spades", "13 Spades"], ["1 Spades", "13 Spades", "2 Spades"]]
    plain = make("""
        flow:
            move [c in deck where c.suit == Spades and (c.rank <= 2 or c.rank >= 12)] to player 1.hand
            player 1 chooses subset play from player 1.hand such that size(play) == 3 and run(c.rank for c in play) as "play"
    """)
    with pytest.raises(RulesRuntimeError, match="no combination satisfies the condition"):
        plain.new_initial_state(seed=0)


def test_groups_and_leading_compare_full_houses():
    """A full house beats a lower one by its three: groups says the shape, leading gives the key."""
    game = make("""
        define full_house(s) = groups(c.rank for c in s) == [3, 2]
        define beats(s, t) = full_house(s) and leading(c.rank for c in s) > leading(c.rank for c in t)
        flow:
            last = [c in deck where (c.rank == 4 and c.suit != Spades) or (c.rank == 9 and c.suit in [Spades, Hearts])]
            move [c in deck where c.rank == 3 or c.rank == 5] to player 1.hand
            player 1 chooses subset play from player 1.hand such that beats(play, last) as "play"
    """)
    state = game.new_initial_state(seed=0)
    opts = options(state)
    assert len(opts) == 4 * 6            # three of the four 5s, two of the four 3s
    assert all(sum(c.startswith("5 ") for c in o) == 3 and sum(c.startswith("3 ") for c in o) == 2 for o in opts)


def test_shape_functions_at_run_time():
    assert combos._same([]) and combos._same([3, 3]) and not combos._same([3, 4])
    assert combos._run([5, 3, 4]) and not combos._run([3, 3, 4]) and not combos._run([3, 5])
    every = list(range(1, 14)) * 4
    assert combos._run_round([13, 1, 2], every) and combos._run_round([12, 13, 1], every)
    assert not combos._run_round([13, 2], every)
    assert combos._groups([9, 4, 9, 4, 9]) == [3, 2]
    assert combos._leading([9, 4, 9, 4, 9], None) == 9 and combos._leading([3, 8], None) == 8


# ── what cannot be enumerated, and mistakes ──────────────────────────────────

def test_a_condition_with_no_shape_over_too_many_items_is_a_clear_runtime_error():
    game = hand_game("sum(c.rank for c in play) == 20", deal=20)
    with pytest.raises(RulesRuntimeError) as info:
        game.new_initial_state(seed=1)
    err = info.value
    assert "too many ways to choose a subset of 20 items (at most 16 when the condition does not say " \
           "the combination's size or shape)" in str(err)
    assert err.pos.line == 19


def test_too_many_combinations_of_one_size_is_a_clear_runtime_error():
    game = hand_game("size(play) == 10", deal=26)
    with pytest.raises(RulesRuntimeError) as info:
        game.new_initial_state(seed=1)
    assert "too many ways to choose 10 of 26 items (5,311,735)" in str(info.value)
    assert info.value.pos.line == 19


def test_a_small_choice_with_no_shape_still_tries_every_subset():
    game = hand_game("size(play) >= 1 and sum(c.rank for c in play) <= 6", deal=6)
    state = game.new_initial_state(seed=3)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    assert options(state) == brute(hand, lambda cs: len(cs) >= 1 and sum(r for _, r in cs) <= 6)


@pytest.mark.parametrize("expr, message, col, hint", [
    ("same(c in play where c.rank > 2)", "same(...) needs a key for each item", 63, "write same(c.rank for c in s)"),
    ("run(c.suit for c in play)", "the key of run(...)", 67, None),
    ("run_round(c for c in [1, 2, 3])", "run_round(...) goes round the keys of every card: it needs cards",
     84, "use run(...) for other lists"),
])
def test_shape_mistakes_are_errors_at_their_place(expr, message, col, hint):
    with pytest.raises(RulesError) as info:
        hand_game(expr)
    err = info.value
    assert message in err.message
    assert (err.pos.line, err.pos.column) == (19, col), err.render()
    if hint:
        assert hint in err.hint
