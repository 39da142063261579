"""A resumable 'for' over a row of a table known when compiling (the players from a seat) reads
the row as it is — no copy, its length a constant, no budget spent — and plays as before."""
from __future__ import annotations

import re

from rulesrun.dsl.lower import statements as lower
from rulesrun.interpreter import load_game_text
from tests.support import small_game

GAME = small_game("Rounds", 3, """
    state leader: player = player 2
    flow:
        shuffle deck
        deal 3 from deck to hand
        repeat 3 times:
            for p in players from leader:
                p chooses c from p.hand as "play"
                move c to pile
            for c in pile:
                leader chooses x from ["keep", "pass"] as "see"
            leader = left(leader)
    score(p) = size(p.hand)
""")


def _source(g) -> str:
    return "\n".join(g.program.code.sources.values())


def _play(g, seed=5) -> list:
    s = g.new_initial_state(seed=seed)
    seen, n = [], 0
    while not s.is_terminal():
        actions = s.legal_actions()
        seen.append([str(a) for a in actions])
        s.apply_action(actions[(n * 7) % len(actions)])
        n += 1
    return seen + [s.returns()]


def test_the_players_from_a_seat_are_read_as_they_are(monkeypatch):
    g = load_game_text(GAME, 3, path="rounds.rules")
    source = _source(g)
    assert re.search(r"^\s*l\d+ = _k\d+\[_g\[\d+\]\]$", source, re.M)       # the row itself, no list()
    assert re.search(r"while l\d+ < 3:", source)                             # its length, a constant
    assert re.search(r"l\d+ = (list\(|\[\*)_z\[", source)                   # a zone is still copied ...
    assert source.count("S.budget -= len(") >= 1                             # ... and spends its rounds
    played = _play(g)
    assert len(played) > 9
    monkeypatch.setattr(lower, "_fixed_length", lambda src: None)            # as before
    before = load_game_text(GAME, 3, path="rounds.rules")
    assert not re.search(r"while l\d+ < 3:", _source(before))
    assert _play(before) == played


def test_fixed_length_of_tables():
    from rulesrun.dsl.ir import K, St, sub
    assert lower._fixed_length(sub(K([[0, 1], [1, 0]]), sub(St("g"), K(1)))) == 2
    assert lower._fixed_length(sub(K([[0, 1], [1]]), sub(St("g"), K(1)))) is None      # rows differ
    assert lower._fixed_length(sub(St("z"), K(1))) is None                              # a zone


def test_a_state_saved_inside_such_a_loop_loads_and_plays_on_alike():
    import json
    from rulesrun.interpreter.runtime.engine import State
    g = load_game_text(GAME, 3, path="rounds.rules")
    s = g.new_initial_state(seed=5)
    for _ in range(2):                      # inside the first 'for p in players from leader'
        s.apply_action(s.legal_actions()[0])
    copy = State.from_json(g, json.loads(json.dumps(s.to_json())))
    twin = s.clone()
    for other in (copy, twin):
        a, b = s.clone(), other
        while not a.is_terminal():
            assert [str(x) for x in a.legal_actions()] == [str(x) for x in b.legal_actions()]
            a.apply_action(a.legal_actions()[-1])
            b.apply_action(b.legal_actions()[-1])
        assert b.is_terminal() and a.returns() == b.returns()
