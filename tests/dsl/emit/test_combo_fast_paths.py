"""The quick paths of combination choices (dsl/emit/combos.py, dsl/emit/shapes.py): a follow of one card, the buckets of
items by key, the early stop of shapes a hand cannot make, and a choice block's subset asking
``_combos_at`` for its quiet form directly. Each gives exactly what the general path gives."""
from __future__ import annotations

import itertools
import random
import sys

from rulesrun.dsl.emit import combos
from rulesrun.dsl.emit.combos import KeyMemo, _beating_all, _beating_one
from rulesrun.dsl.emit.shapes import _buckets, _gen_groups, _gen_run
from rulesrun.dsl.errors import Pos
from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402
sys.path.insert(0, str(ROOT))
P = Pos("t.rules", 1, 1)
VALUE = [(c % 13) * 4 + c // 13 for c in range(52)]     # a card's rank, then its suit
RANK = [c % 13 for c in range(52)]


def _strength(S, cards):
    return max(VALUE[c] for c in cards)


def test_a_follow_of_one_card_offers_the_cards_that_beat_the_table_in_the_hands_order():
    rng = random.Random(5)
    memo = KeyMemo()
    for _ in range(300):
        hand = rng.sample(range(52), rng.randint(1, 13))
        table = [rng.choice([c for c in range(52) if c not in hand])]
        got = _beating_one(hand, None, table, _strength, memo)
        assert got == [(c,) for c in hand if VALUE[c] > VALUE[table[0]]]
        assert got == _beating_all(list(zip(hand)), 1, None, table, _strength, KeyMemo())
    assert memo.one and all(memo.one[c] == VALUE[c] for c in memo.one)     # remembered by the card itself
    assert _beating_one([1, 2], None, [3, 4], _strength, memo) == []      # a pair is not beaten by one card


def test_a_follow_of_one_card_works_out_the_keys_it_has_not_seen_even_after_the_memo_fills(monkeypatch):
    monkeypatch.setattr(combos, "MAX_MEMO", 4)
    memo = KeyMemo()
    calls = []

    def key(S, cards):
        calls.append(tuple(cards))
        return _strength(S, cards)

    hand = [0, 13, 26, 39, 5, 18]
    assert _beating_one(hand, None, [40], key, memo) == [(c,) for c in hand if VALUE[c] > VALUE[40]]
    assert _beating_one(hand, None, [1], key, memo) == [(c,) for c in hand if VALUE[c] > VALUE[1]]
    assert len(memo.one) <= 4 + len(hand) + 1 and (0,) in calls


def test_big_twos_follow_uses_the_memo_by_card():
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    memos = [v for v in game.program.procs[0][0].__globals__.values() if isinstance(v, KeyMemo)]
    assert memos, "beats()'s memo of a key that reads only its cards is a KeyMemo"
    rng = random.Random(3)
    for seed in range(5):
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal():
            a = s.legal_actions()
            s.apply_action(a[rng.randrange(len(a))])
    assert any(m.one for m in memos)


def test_buckets_hold_each_keys_indices_in_order_keys_in_the_order_they_come():
    rng = random.Random(2)
    for _ in range(100):
        items = rng.sample(range(52), rng.randint(0, 13))
        got = _buckets(items, RANK.__getitem__)
        want: dict = {}
        for i, c in enumerate(items):
            want.setdefault(RANK[c], []).append(i)
        assert got == want and list(got) == list(want)


def _brute_groups(items, pattern):
    size = sum(pattern)
    out = set()
    for idx in itertools.combinations(range(len(items)), size):
        counts = sorted((sum(1 for i in idx if RANK[items[i]] == r) for r in {RANK[items[i]] for i in idx}),
                        reverse=True)
        if counts == sorted(pattern, reverse=True):
            out.add(idx)
    return out


def test_groups_stop_early_when_no_key_has_enough_items_and_are_otherwise_every_such_set():
    rng = random.Random(7)
    for _ in range(150):
        items = rng.sample(range(52), rng.randint(0, 9))
        by_key = _buckets(items, RANK.__getitem__)
        for pattern in ([3, 2], [4, 1], [2, 2], [3], [2, 1, 1]):
            got = _gen_groups(by_key, pattern, P)
            assert len(got) == len(set(got)) and set(got) == _brute_groups(items, pattern), (items, pattern)
    assert _gen_groups({}, [], P) == [()] and _gen_groups({1: [0]}, [0], P) == [()]
    assert _gen_groups({1: [0], 2: [1]}, [2], P) == []


def test_a_run_longer_than_the_hands_keys_makes_nothing_and_runs_are_found_among_gaps():
    assert _gen_run({1: [0], 2: [1]}, 3, None, P) == []
    by_key = {3: [0], 4: [1, 2], 5: [3], 7: [4], 8: [5], 9: [6]}
    assert sorted(_gen_run(by_key, 3, None, P)) == [(0, 1, 3), (0, 2, 3), (4, 5, 6)]


def test_runs_of_one_length_are_every_set_of_that_many_consecutive_keys_one_item_each():
    """``_gen_run``'s loop for a run of one length without a ring, against every subset: each set
    once, its indices in order, whatever the hand (few keys with many items, or many with one)."""
    rng = random.Random(13)
    for _ in range(120):
        ranks = rng.sample(range(13), rng.randint(3, 13))
        cards = [c for c in range(52) if RANK[c] in ranks]
        items = rng.sample(cards, rng.randint(0, min(len(cards), 13)))
        by_key = _buckets(items, RANK.__getitem__)
        for size in (2, 3, 5):
            got = _gen_run(by_key, size, None, P)
            want = {idx for idx in itertools.combinations(range(len(items)), size)
                    if sorted(RANK[items[i]] for i in idx) == list(range(min(RANK[items[i]] for i in idx),
                                                                        min(RANK[items[i]] for i in idx) + size))}
            assert len(got) == len(set(got)) and set(got) == want and all(list(t) == sorted(t) for t in got)


def test_a_choice_blocks_subset_asks_for_the_quiet_form_directly(capsys):
    from rulesrun.interpreter.cli.main import main
    assert main(["compile", str(ROOT / "examples" / "big_two.rules"), "--players", "4", "--emit"]) == 0
    out = capsys.readouterr().out
    assert "_o = _combos_at(_o, None," in out and ", True)" in out and "_or_none(" not in out
    assert "_combos_at_or_none" not in combos.COMBO_RUNTIME      # generated code calls _combos_at(..., True)
    assert combos._combos_at.or_none is combos._combos_at_or_none     # _or_none(_combos_at, ...) stays quiet


def test_a_lead_of_big_two_lists_its_sets_by_size_then_in_the_hands_order_as_trying_every_subset():
    """A lead (no test; seven entries, their sets made together) gives the order of the general
    path: smallest first, then by the hand's order — what seeded games depend on."""
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    names = game.program.procs[0][0].__globals__
    plan = next(v for v in names.values() if isinstance(v, combos.Plan) and not any(e[1] for e in v.entries))
    assert plan.one_test
    combination = names["_D12"]
    rng = random.Random(8)
    for _ in range(60):
        hand = rng.sample(range(52), rng.randint(1, 13))
        want = [tuple(map(hand.__getitem__, idx)) for n in range(1, len(hand) + 1)
                for idx in itertools.combinations(range(len(hand)), n)
                if combination(None, [hand[i] for i in idx])]
        assert combos._combos_at(hand, None, plan, (), (None,), P) == want


def test_a_follow_tested_by_beats_alone_offers_what_the_general_path_offers():
    """``_combos_beating`` (beats() alone, no bombs, KEY remembered: what Big Two's and President's
    follows compile to) gives the options ``_combos_at`` gives with the same test as a tuple."""
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    names = game.program.procs[0][0].__globals__
    plans = [v for v in names.values() if isinstance(v, combos.Plan)]
    follow = next(v for v in plans if any(e[1] for e in v.entries))
    lead = next(v for v in plans if v is not follow)
    strength = names["_D17"]
    rng = random.Random(11)
    sizes = []
    for _ in range(400):
        deal = rng.sample(range(52), 39)
        hand = deal[:13 - rng.randint(0, 9)]
        made = combos._combos_at(deal[13:], None, lead, (), (None,), P)    # Big Two's combinations of other cards
        n = rng.choice(sorted({len(c) for c in made}))
        table = rng.choice([c for c in made if len(c) == n])
        sizes.append(n)
        want = combos._combos_at(list(hand), None, follow, (len(table),),
                                 ((None, table, strength, KeyMemo(sets=True), None, None),), P, True)
        got = combos._combos_beating(list(hand), None, follow, (len(table),), None, table, strength,
                                     KeyMemo(sets=True), P, True)
        assert got == want
    assert min(sizes.count(n) for n in (1, 2, 3, 5)) > 20       # every size of table, often


def test_two_groups_of_different_sizes_are_every_such_set_in_hands_with_many_of_a_key():
    """``_gen_two_groups`` (a full house, four of a kind and one): hands of few ranks, so that most
    keys can make either group; each set once, with its indices in order."""
    rng = random.Random(11)
    for _ in range(60):
        ranks = rng.sample(range(13), rng.randint(2, 4))
        cards = [c for c in range(52) if RANK[c] in ranks]
        items = rng.sample(cards, rng.randint(4, len(cards)))
        by_key = _buckets(items, RANK.__getitem__)
        for pattern in ([3, 2], [4, 1], [2, 1], [4, 2], [1, 3]):
            got = _gen_groups(by_key, pattern, P)
            assert len(got) == len(set(got)) and set(got) == _brute_groups(items, pattern), (items, pattern)
            assert all(list(s) == sorted(s) for s in got)


def test_a_test_of_holding_a_marked_card_is_an_intersection_in_c_and_passes_the_same_sets():
    """``any(c in s where <card attributes only>)`` as a set's test compiles to the intersection
    with the set of the cards it marks (dsl/emit/writer.py), not a lambda; a test that says more stays one.
    The options are the sets a lambda would pass."""
    src = """game "T"
players 2
cards:
    rank: number
    for rank in 1 to 8
zone deck: facedown
zone hand per player: owner
zone pile: public
flow:
    shuffle deck
    deal 4 from deck to hand
    let p = holder(lowest c in every card by c.rank)
    p chooses subset s from p.hand such that size(s) == 2 and any(c in s where c.rank >= 2 and c.rank <= 7) as "play"
    move s to pile
    p = left(p)
    p chooses subset t from p.hand such that size(t) == 2 and (any(c in t where c.rank >= 2 and c.rank <= 7) or size(pile) == 9) as "play"
    move t to pile
score(p) = 0
"""
    from rulesrun.interpreter import load_game_text
    game = load_game_text(src, 2)
    code = "".join(game.program.code.sources.values())
    assert code.count("_intersection") == 1 and code.count("lambda") == 1     # the second test says more
    rank = {c: 1 + c for c in range(8)}        # cards in the order the rules list them
    for seed in range(20):
        s = game.new_initial_state(seed=seed)
        for _ in range(2):
            hand = list(s.z[1 + s.pending[0]])      # (zones: deck, each hand, pile)
            want = [p for p in itertools.combinations(hand, 2) if any(2 <= rank[c] <= 7 for c in p)]
            assert s.pending[2] == want
            s.apply_action(s.legal_actions()[-1])
