"""dsl.emit.closures: comprehensions and lambdas of generated functions take the locals they read
as values of their own, so that the function keeps no cells — and they give the same values."""
from __future__ import annotations

import ast
import textwrap

import pytest

from rulesrun.dsl.emit import closures
from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.runtime.engine import load_game
from tests.support import small_game

CASES = {
    "one local": """
        def f(S, F):
            g = S[0]
            z = S[1]
            out = [c for c in z if c % 3 == g]
            return out, len(z)
    """,
    "two locals and the first source": """
        def f(S, F):
            g, z = S
            return [c + g for c in z[1:] if c != F], sum(x for x in z if x > g)
    """,
    "a generator, a set, a dict and a nested comprehension": """
        def f(S, F):
            g, z = S
            a = any(c == g for c in z)
            b = {c % g for c in z}
            d = {c: [x for x in z if x < c + g] for c in z if c > F}
            return a, sorted(b), d
    """,
    "a lambda": """
        def f(S, F):
            g, z = S
            return sorted(z, key=lambda c: (c % g, -c)), list(map(lambda c, k=2: c * k + g, z))
    """,
    "a local set only on some paths": """
        def f(S, F):
            g, z = S
            items = z
            if items:
                h = g + 1
            return [c for c in items if c != h and c != g]
    """,
    "a name of its own in the first source": """
        def f(S, F):
            g, z = S
            c = z
            return [c for c in c if c > g]
    """,
}


def _function(source: str):
    return ast.parse(textwrap.dedent(source)).body[0]


def _compiled(fn):
    ns: dict = {}
    exec(compile(ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[])), "<t>", "exec"), ns)
    return ns["f"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_cells_and_the_same_values(name):
    before = _compiled(_function(CASES[name]))
    after = _compiled(closures.run(_function(CASES[name])))
    assert before.__code__.co_cellvars            # the case does make cells as written
    for S, F in (((2, [1, 5, 8, 3, 6]), 4), ((3, [9, 2, 7, 7]), 0), ((1, []), 1)):
        assert after(S, F) == before(S, F)
    if name == "a name of its own in the first source":     # left as it was
        assert after.__code__.co_cellvars == before.__code__.co_cellvars
    elif name == "a local set only on some paths":          # h may have no value: it stays a cell
        assert after.__code__.co_cellvars == ("h",)
    else:
        assert not after.__code__.co_cellvars


GAME = small_game("Cells", 2, """
    state lead: Suit = Red
    define playable(c) = c.suit == lead or c.rank == top(pile).rank
    flow:
        shuffle deck
        deal 4 from deck to hand
        move top(deck) to pile
        repeat 4 times:
            for p in players:
                p chooses c from p.hand where playable(c) if able as "play"
                move c to pile
                lead = c.suit
    score(p) = size(p.hand)
""")


def test_generated_entries_keep_no_cells():
    g = load_game_text(GAME, 2, path="cells.rules")
    assert g._entries and not any(e.__code__.co_cellvars for e in g._entries)
    s = g.new_initial_state(seed=3)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[-1])
    assert s.returns() is not None


@pytest.mark.parametrize("path,variants", [("examples/oh_hell.rules", ("one_hand", "no_hook")),
                                           ("examples/crazy_eights.rules", ("one_hand",))])
def test_the_openspiel_pairs_keep_no_cells(path, variants):
    g = load_game(path, players=4, variants=variants)
    assert not any(e.__code__.co_cellvars for e in g._entries)
