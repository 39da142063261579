"""dsl.passes.tables: what a loop works out from its card alone is read from a table made when
compiling — the same values, and left as it was where it reads anything else."""
from __future__ import annotations

import re

from rulesrun.dsl.ir import K, Local, St, ifexp, compare, sub
from rulesrun.dsl.passes import tables
from rulesrun.interpreter import load_game_text
from tests.support import small_game

GAME = small_game("Penalties", 2, """
    state bonus: number = 3
    player state penalty: number = 0
    define value(c) = 50 if c.rank == 6 else 10 if c.rank >= 4 and c.suit == Red else c.rank
    flow:
        shuffle deck
        deal 4 from deck to hand
        repeat 2 times:
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
        for p in players:
            reveal p.hand
            p.penalty += sum(value(c) for c in p.hand)
            p.penalty += sum(c.rank + bonus for c in p.hand)
    score(p) = -p.penalty
""")


def _play(g) -> list:
    out = []
    for seed in range(8):
        s = g.new_initial_state(seed=seed)
        n = 0
        while not s.is_terminal():
            a = s.legal_actions()
            s.apply_action(a[(n + seed) % len(a)])
            n += 1
        out.append(s.returns())
    return out


def test_a_value_of_the_card_alone_is_read_from_a_table_and_plays_alike(monkeypatch):
    g = load_game_text(GAME, 2, path="penalties.rules")
    source = "\n".join(g.program.code.sources.values())
    assert re.search(r"_h\d+ \+= _k\d+\[_t\d+\]$", source, re.M)          # value(c): a table
    assert re.search(r"\+= _k\d+\[_t\d+\] \+ ", source)                    # c.rank + bonus reads the state
    played = _play(g)
    monkeypatch.setattr(tables, "in_loop", lambda node: node)             # as before
    before = load_game_text(GAME, 2, path="penalties.rules")
    assert not re.search(r"_h\d+ \+= _k\d+\[_t\d+\]$", "\n".join(before.program.code.sources.values()), re.M)
    assert _play(before) == played


def test_what_is_not_worked_out_from_the_item_alone_stays():
    item = Local(0, "temp")
    rank = sub(K([1, 2, 3]), item)
    made = tables.of_item(ifexp(compare(rank, "==", K(2)), K(10), rank), item)
    assert isinstance(made.value, K) and made.value.value == [1, 10, 3]
    state = ifexp(compare(rank, "==", sub(St("g"), K(0))), K(10), rank)         # reads the state
    assert tables.of_item(state, item) is state
    other = ifexp(compare(sub(K([1, 2]), item), "==", K(2)), K(10), rank)       # tables of two lengths
    assert tables.of_item(other, item) is other
    single = sub(K([1, 2, 3]), item)                                              # one read: not worth it
    assert tables.of_item(single, item) is single
