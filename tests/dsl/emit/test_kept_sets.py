"""A combination plan keeps the sets it made for a hand (dsl.emit.combos._kept): a hand that has only
lost cards since, the rest in the same order, gets the sets made before that hold none of the lost
cards — the same list, in the same order, as making them again — and any other hand has its sets
made afresh."""
from __future__ import annotations

import itertools
import random

from rulesrun.dsl.emit import combos
from rulesrun.dsl.emit.combos import KeyMemo
from rulesrun.dsl.errors import Pos
from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402
P = Pos("t.rules", 1, 1)


def _big_two():
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    names = game.program.procs[0][0].__globals__
    plans = [v for v in names.values() if isinstance(v, combos.Plan)]
    lead = next(p for p in plans if not any(e[1] for e in p.entries))
    follow = next(p for p in plans if p is not lead)
    return names, lead, follow


def _every_subset(hand, ok):
    """What trying every subset gives: smallest first, then in the hand's order (a plan's options
    are tuples of items)."""
    return [tuple(map(hand.__getitem__, idx)) for n in range(1, len(hand) + 1)
            for idx in itertools.combinations(range(len(hand)), n) if ok([hand[i] for i in idx])]


def _counting(monkeypatch):
    """The hands whose sets a call of _kept made (any of them: each size of a lead is made apart)."""
    made, now = [], []
    real_made, real_kept = combos._made, combos._kept

    def kept(items, *a):
        now.clear()
        got = real_kept(items, *a)
        if now:
            assert all(x == list(items) for x in now)
            made.append(list(items))
        return got
    monkeypatch.setattr(combos, "_made", lambda items, *a: now.append(list(items)) or real_made(items, *a))
    monkeypatch.setattr(combos, "_kept", kept)
    return made


def test_a_hand_that_only_lost_cards_gets_the_sets_it_had_without_those_cards(monkeypatch):
    names, lead, _ = _big_two()
    combination = names["_D12"]
    made = _counting(monkeypatch)
    rng = random.Random(3)
    for _ in range(40):
        hand = rng.sample(range(52), 13)
        first = True
        while hand:
            got = combos._combos_at(list(hand), None, lead, (), (None,), P)
            assert got == _every_subset(hand, lambda s: combination(None, s))
            assert made.pop() == hand if first else not made     # made once, then filtered
            first = False
            for c in rng.sample(hand, min(len(hand), rng.randint(1, 5))):
                hand.remove(c)


def test_another_hand_a_reordered_hand_or_a_hand_with_a_new_card_is_made_afresh(monkeypatch):
    names, lead, _ = _big_two()
    combination = names["_D12"]
    made = _counting(monkeypatch)
    hand = [0, 13, 26, 39, 1, 14, 2, 3, 4, 5, 27, 40]       # (cards by rank then suit: a quad, a pair, ...)
    for now in (hand, hand[:-1], hand[::-1], hand[:-1] + [51], [7, 8, 9], hand[2:], hand[2:-1], hand[2:]):
        got = combos._combos_at(list(now), None, lead, (), (None,), P)
        assert got == _every_subset(now, lambda s: combination(None, s))
    # hand[:-1] and hand[2:-1] filtered; hand[2:] again after losing its last card: made afresh
    assert made == [hand, hand[::-1], hand[:-1] + [51], [7, 8, 9], hand[2:], hand[2:]]


def test_kept_sets_are_tested_afresh_each_time_and_never_handed_out():
    """A follow keeps the sets of its size, not the ones that passed: a higher table leaves fewer;
    the list of options is new each time (a caller may keep or change it: a choice block adds its
    moves) and its sets are tuples (no one can change them)."""
    names, _, follow = _big_two()
    strength, combination = names["_D17"], names["_D12"]
    memo = KeyMemo(sets=True)
    hand = [0, 13, 26, 39, 1, 14, 2, 15, 28, 41, 3, 16]
    tables = [[12, 25], [1, 14], [0, 13], [2, 15], [3, 16]]      # pairs, as Big Two's cards go
    for table in tables:
        got = combos._combos_at(list(hand), None, follow, (2,), ((None, table, strength, memo, None, None),), P, True)
        want = _every_subset(hand, lambda s: combination(None, s) and len(s) == 2
                             and strength(None, s) > strength(None, table))
        assert got == want and all(type(s) is tuple for s in got)
        got.append("pass")          # changing what was offered changes nothing kept
        hand = hand[1:]


def test_the_plan_starts_again_when_it_keeps_too_many_items(monkeypatch):
    names, lead, _ = _big_two()
    monkeypatch.setattr(combos, "MAX_KEPT", 20)
    rng = random.Random(4)
    for _ in range(10):
        hand = rng.sample(range(52), 13)
        combos._combos_at(hand, None, lead, (), (None,), P)
        assert len(lead.shelf.hands) <= 20 + 13


def test_seeded_big_two_games_are_the_same_with_and_without_kept_sets(monkeypatch):
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)

    def play():
        out = []
        for seed in range(15):
            s = game.new_initial_state(seed=seed)
            r = random.Random(seed)
            while not s.is_terminal():
                a = s.legal_actions()
                out.append(list(map(str, a)))
                s.apply_action(a[r.randrange(len(a))])
        return out
    kept = play()
    monkeypatch.setattr(combos, "_kept", lambda items, keyfn, plan, active, pos: combos._made(items, active, pos, {}))
    assert play() == kept


def _sizes_made(monkeypatch):
    """The sizes of the sets each call of _made made (a lead makes each size apart)."""
    sizes = []
    real = combos._made
    monkeypatch.setattr(combos, "_made", lambda items, active, *a: sizes.append(sorted({e[0] for e in active}))
                        or real(items, active, *a))
    return sizes


def test_a_follow_finds_the_sets_of_its_size_the_seats_lead_made_and_the_other_way_round(monkeypatch):
    """The program's plans keep a hand's sets together (``combos.Shelf``): a five-card follow takes
    the sets of five its hand's lead made, a pair follow the pairs, and a lead the sets its follows
    made, making only the sizes not made yet — the same options as trying every subset."""
    names, lead, follow = _big_two()
    assert lead.shelf is follow.shelf        # one compile, one shelf
    strength, combination = names["_D17"], names["_D12"]
    memo = KeyMemo(sets=True)
    sizes = _sizes_made(monkeypatch)
    rng = random.Random(7)
    for _ in range(30):
        hand = rng.sample(range(52), 13)
        lead_first = rng.random() < 0.5
        for step in ("lead", "follow") if lead_first else ("follow", "lead"):
            if step == "lead":
                got = combos._combos_at(list(hand), None, lead, (), (None,), P)
                assert got == _every_subset(hand, lambda s: combination(None, s))
            else:
                table = [48, 49, 50, 51, 47] if rng.random() < 0.5 else [0, 4, 8, 12, 16]     # a low or high five
                got = combos._combos_at(list(hand), None, follow, (5,), ((None, table, strength, memo, None, None),), P, True)
                assert got == _every_subset(hand, lambda s: combination(None, s) and len(s) == 5
                                            and strength(None, s) > strength(None, table))
            for c in rng.sample(hand, 2):       # two cards played before the next step
                hand.remove(c)
        # the lead first: it made every size, the follow nothing; the follow first: it made the
        # fives, the lead the rest
        assert sizes == ([[2], [3], [5]] if lead_first else [[5], [2], [3]])     # (single cards: as they are)
        sizes.clear()


def test_a_hand_that_is_not_what_is_left_of_the_kept_one_is_made_afresh_for_every_plan(monkeypatch):
    names, lead, follow = _big_two()
    strength = names["_D17"]
    memo = KeyMemo(sets=True)
    sizes = _sizes_made(monkeypatch)
    hand = [0, 13, 26, 39, 1, 14, 2, 3, 4, 5, 27, 40]
    table = [(5,), ((None, [12, 25], strength, memo, None, None),)]
    combos._combos_at(list(hand), None, lead, (), (None,), P)
    combos._combos_at(hand[::-1], None, follow, (2,), *table[1:], P, True)       # reordered: made again
    combos._combos_at(hand[:-1] + [51], None, follow, (2,), *table[1:], P, True)  # a new card: again
    combos._combos_at(hand[:-2] + [51], None, follow, (2,), *table[1:], P, True)  # what is left of that one
    assert sizes == [[2], [3], [5], [2], [2]]


def test_plans_of_two_compiles_keep_their_sets_apart():
    _, lead, _ = _big_two()
    _, other, _ = _big_two()
    assert lead.shelf is not other.shelf
    hand = [0, 13, 26, 39, 1, 14, 2, 3, 4, 5, 27, 40]
    combos._combos_at(list(hand), None, lead, (), (None,), P)
    assert lead.shelf.hands and not other.shelf.hands
