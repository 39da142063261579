"""A `list of` state value starts as a list of each new game's own (``State._start``): appending to
it in one game never shows in another game of the same compiled rules, whether the list is a
global, a player's or a card's — and rows that hold no list are copied whole."""
from __future__ import annotations

from rulesrun.interpreter import load_game_text

from tests.support import small_game

GAME = small_game("Lists", 2, """
    state seen: list of number = []
    state turns: number = 0
    player state mine: list of number = []
    player state count: number = 0
    card state marks: list of number = []
    card state times: number = 0
    flow:
        shuffle deck
        deal 2 from deck to hand
        for p in players:
            p chooses c from p.hand as "play"
            seen = seen + [c.rank]
            p.mine = p.mine + [c.rank]
            c.marks = c.marks + [turns]
            c.times += 1
            p.count += 1
            turns += 1
            move c to pile
    score(p) = size(p.mine)
""")


def test_each_game_starts_with_lists_of_its_own():
    game = load_game_text(GAME, 2, path="t.rules", allow_leaks=True)
    a = game.new_initial_state(seed=1)
    while not a.is_terminal():
        a.apply_action(a.legal_actions()[0])
    b = game.new_initial_state(seed=1)
    assert b.g[0] == [] and all(row == [] for row in b.pv[0]) and all(v == [] for v in b.cv[0])
    assert b.pv[1] == [0, 0] and b.cv[1] == [0] * 12
    assert a.g[0] != [] and any(a.pv[0]) and any(a.cv[0])
    # no list is shared between the two games, nor between the players or cards of one
    lists = [b.g[0], *b.pv[0], *b.cv[0]]
    assert len({id(x) for x in lists}) == len(lists)
    assert not {id(x) for x in lists} & {id(x) for x in [a.g[0], *a.pv[0], *a.cv[0]]}
    assert b.pv[1] is not a.pv[1] and b.cv[1] is not a.cv[1]
