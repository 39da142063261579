"""``State.log`` keeps the texts it made (interpreter/runtime/engine.py): a REPL, a table, a bot or a test that
reads the log at every step makes only the new announcements' texts, not the whole log again
(tests/dsl/test_equivalence.py's longest game took 213 s for that, 8 s now). The log it gives is
always what making it afresh gives."""
from __future__ import annotations

import random

import pytest

from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.engine import State

from tests.support import ROOT  # noqa: E402


def afresh(state, seat=None, everything=False) -> list[str]:
    """The log made with nothing kept (a copy of the state has none)."""
    copy = state.clone()
    assert not hasattr(copy, "_logs")
    return copy.log(seat, everything)


@pytest.mark.parametrize("path,players", [("games/magi.rules", 4), ("games/gachapon.rules", 3),
                                          ("games/magic_shop.rules", 4)])
def test_the_log_at_every_step_is_the_log_made_afresh_for_every_reader(path, players):
    game = load_game(ROOT / path, players=players)
    state = game.new_initial_state(seed=5)
    rng = random.Random(5)
    readers = [(None, False), (None, True)] + [(p, False) for p in range(players)]
    steps = 0
    while not state.is_terminal() and steps < 400:
        for seat, everything in readers:
            got = state.log(seat, everything)
            assert got == afresh(state, seat, everything)
            got.append("scribbled")             # the caller's list: what is kept does not change
        acts = state.legal_actions()
        state.apply_action(acts[rng.randrange(len(acts))])
        steps += 1
    assert steps > 50 and len(state.log(None, True)) > 10


def test_each_text_is_made_once_however_often_the_log_is_read(monkeypatch):
    game = load_game(ROOT / "games/magi.rules", players=4)
    state = game.new_initial_state(seed=3)
    made = [0]
    real = State.announcement_text

    def counted(self, entry):
        made[0] += 1
        return real(self, entry)
    monkeypatch.setattr(State, "announcement_text", counted)
    rng = random.Random(3)
    for _ in range(300):
        if state.is_terminal():
            break
        state.log()
        state.log()
        acts = state.legal_actions()
        state.apply_action(acts[rng.randrange(len(acts))])
    n = len(state.log())
    assert n > 30
    assert made[0] == n         # each public announcement's text made once (made afresh: ~n * steps)


def test_a_state_taken_back_to_an_earlier_log_or_given_another_gives_that_log():
    game = load_game(ROOT / "games/magic_shop.rules", players=4)
    state = game.new_initial_state(seed=8)
    rng = random.Random(8)
    marks = []
    for _ in range(60):
        marks.append((state.ann, state.log()))
        acts = state.legal_actions()
        state.apply_action(acts[rng.randrange(len(acts))])
    late = state.log()
    for ann, log in reversed(marks[::7]):       # back to an earlier announcement (as resampling does)
        state.ann = ann
        assert state.log() == log
    other = game.new_initial_state(seed=9)
    state.ann = other.ann                        # a log that never held the kept one
    assert state.log() == other.log()
    state.ann = marks[-1][0]
    assert state.log() == marks[-1][1] and len(late) >= len(marks[-1][1])
