"""A beats() KEY that reads its cards as a set is remembered by the set (dsl/check/combinations.py
``_order_free``, dsl/emit/combos.py ``KeyMemo.sets``): the same cards held in another order find the
key worked out before. A KEY that can see the order (an item by its place, the first of equal
cards) is remembered by the cards in their order, as before; either way the options are those of
trying every set."""
from __future__ import annotations

import itertools
import random
import sys

import pytest

from rulesrun.dsl.emit.combos import KeyMemo, _beating_all
from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.engine import load_game_text

from tests.support import ROOT  # noqa: E402
sys.path.insert(0, str(ROOT))
from tests.support import small_game  # noqa: E402


def _game(key: str, helper: str = ""):
    return load_game_text(small_game("Keys", 2, f"""
        define key(s) = {key}
        {helper}
        flow:
            shuffle deck
            deal 6 from deck to hand
            move top(player 1.hand, 2) to pile
            player 2 chooses:
                subset play from player 2.hand such that size(play) >= 1 and beats(play, pile, key) as "play":
                    move pile to deck
                    move play to pile
                "pass":
                    announce "{{player 2}} passes."
        score(p) = size(p.hand)
    """), players=2)


def _memos(game) -> list:
    return [v for v in game.program.procs[0][0].__globals__.values() if isinstance(v, KeyMemo)]


@pytest.mark.parametrize("key", [
    "max(c.rank for c in s)",
    "size(s) * 10 + count(c in s where c.rank > 3)",
    "(1 if same(c.suit for c in s) else 0) + (2 if run(c.rank for c in s) else 0) + sum(1 for g in groups(c.rank for c in s))",
    "leading(c.rank for c in s) if any(c in s where c.suit == Red) else min(c.rank for c in s)",
    "helper(s) + 1",
])
def test_a_key_that_reads_its_cards_as_a_set_is_remembered_by_the_set(key):
    memo, = _memos(_game(key, "define helper(t) = max(c.rank for c in t) + size(t)"))
    assert memo.sets


@pytest.mark.parametrize("key", [
    "item(s, 1).rank",                                  # the first card, by its place
    "(highest c in s by c.rank).suit == Red",          # of two equal ranks, the first
    "position(item(s, 2), s)",
    "helper(s)",                                        # a define that reads the order
    "sum(c.rank * position(c, s) for c in s)",
])
def test_a_key_that_can_see_the_order_is_remembered_in_order(key):
    memo, = _memos(_game(f"1 if {key} else 0" if "==" in key else key, "define helper(t) = item(t, 1).rank"))
    assert not memo.sets


def test_big_twos_strength_is_remembered_by_the_set_and_found_again_in_another_order():
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    memo, = _memos(game)
    assert memo.sets
    calls = []
    strength = next(v for k, v in game.program.procs[0][0].__globals__.items() if k == "_D17")

    def key(S, cards):
        calls.append(list(cards))
        return strength(S, cards)

    full_house = (0, 13, 26, 1, 14)         # three 3s and two 4s, in the order dealt
    again = (14, 26, 0, 1, 13)              # the same cards held in another order
    straight = [2, 16, 4, 5, 6]              # 5D 6C 7D 8D 9D: a full house beats it
    first = _beating_all([full_house], 5, None, straight, key, memo)
    assert len(calls) == 2 and first == [full_house]      # the table's key and the full house's
    assert _beating_all([again], 5, None, straight, key, memo) == [again]
    assert len(calls) == 2, "found by the set: not worked out again"


def test_options_with_a_key_of_either_kind_are_those_of_trying_every_set():
    rng = random.Random(11)
    for key in ("max(c.rank for c in s) + size(s)", "item(s, 1).rank + size(s)"):
        game = _game(key)
        for seed in range(40):
            s = game.new_initial_state(seed=seed)
            acts = [str(a) for a in s.legal_actions()]
            assert acts[-1] == "pass"
            cards, top = s.z[3], s.z[1]         # player 2's hand; the pile: two of player 1's cards
            rank = [int(game.card_name(c).split()[-1]) for c in range(12)]

            def k(cs):
                return max(rank[c] for c in cs) + len(cs) if key.startswith("max") else rank[cs[0]] + len(cs)
            want = [list(idx) for n in range(1, len(cards) + 1) for idx in itertools.combinations(cards, n)
                    if len(idx) == len(top) and k(list(idx)) > k(top)]
            assert acts[:-1] == [f"play {', '.join(game.card_name(c) for c in w)}" for w in want], (key, seed)
            s.apply_action(acts[rng.randrange(len(acts))])
