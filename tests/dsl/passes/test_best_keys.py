"""dsl.passes.loops: a highest / lowest by a whole-number card attribute starts below (above) every
value instead of at the "no candidate yet" marker — the same card (the first of equals), fewer tests."""
from __future__ import annotations

import re
import textwrap

from rulesrun.dsl.passes import loops
from rulesrun.interpreter import load_game_text

GAME = textwrap.dedent("""
    game "Best"
    players 2
    kind Suit: Red, Blue
    cards:
        suit: Suit
        rank: number
        {suit: s, rank: r} for s in Suit, r in 1 to 5
    zone deck: facedown
    zone pile: public
    zone hand per player: owner
    player state got: number = 0
    flow:
        shuffle deck
        deal 5 from deck to hand
        repeat 5 times:
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
            let best = highest c in pile where c.suit == Red by c.rank
            let least = lowest c in pile by c.rank
            if best != none:
                announce "{best} is the best, {least} the least."
            else:
                announce "No red card: {least} is the least."
            for p in players:
                if best != none and least != none:
                    p.got += best.rank * 10 + least.rank
            move pile to deck
    score(p) = p.got
""")


def _text():
    return GAME


def _play(g) -> list:
    out = []
    for seed in range(6):
        s = g.new_initial_state(seed=seed)
        n = 0
        while not s.is_terminal():
            a = s.legal_actions()
            s.apply_action(a[(n * 5 + seed) % len(a)])
            n += 1
        out.append((s.returns(), s.log(everything=True)))
    return out


def test_whole_number_keys_start_beyond_every_value_and_pick_the_same_card(monkeypatch):
    g = load_game_text(_text(), 2, path="best.rules")
    source = "\n".join(g.program.code.sources.values())
    assert "_FIRST" not in source
    assert re.search(r"_h\d+b = 0$", source, re.M) and re.search(r"_h\d+b = 6$", source, re.M)
    played = _play(g)
    monkeypatch.setattr(loops, "_beyond", lambda best: None)        # as before
    before = load_game_text(_text(), 2, path="best.rules")
    assert "_FIRST" in "\n".join(before.program.code.sources.values())
    assert _play(before) == played


def test_keys_that_are_not_whole_numbers_keep_the_marker():
    from rulesrun.dsl.ir import K, Best, Local, St, sub
    item = Local(0, "temp")

    def best(table, kind="highest", keys=None):
        return Best(kind, keys or [sub(K(table), Local(0, "temp"))], item, Local(1, "temp"), sub(St("z"), K(1)))
    assert loops._beyond(best([2, 9, 4])) == 1 and loops._beyond(best([2, 9, 4], "lowest")) == 10
    assert loops._beyond(best(["Red", "Blue"])) is None           # texts
    assert loops._beyond(best([1, 2.5])) is None                  # not whole numbers
    assert loops._beyond(best([True, 2])) is None                 # yes/no is not a number here
    assert loops._beyond(best([1, 2], keys=[sub(K([1, 2]), item), sub(K([3, 4]), item)])) is None   # two keys
    assert loops._beyond(best([1, 2], keys=[sub(K([1, 2]), Local(5, "frame"))])) is None            # not the item
