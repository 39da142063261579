"""Clones share what has not changed: the history, the log, the open decision,
the zones, the rows of player and card values and a frame's locals are shared between a state and
its clones, and the first change copies only the part it changes. The other half of the bargain:
nothing a clone does ever shows in the state it came from, nor the other way round — checked over
random games of every shipped game and example, with clones taken at random moments and played on."""
from __future__ import annotations

import json
import random

import pytest

from rulesrun.interpreter import State
from rulesrun.interpreter.runtime.engine import load_game
from tests.support import check_cards

from tests.support import ROOT  # noqa: E402
RULES = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("games/*.rules"), *ROOT.glob("examples/*.rules")])
PLAYERS = {"games/magi.rules": 4}


def _game(path):
    return load_game(ROOT / path, players=PLAYERS.get(path))


def _play(state, rng, steps):
    for _ in range(steps):
        if state.is_terminal():
            return
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])


def _snapshot(state) -> str:
    return json.dumps(state.to_json(), sort_keys=True)


def _mid_game(path, seed=3, steps=40):
    game = _game(path)
    state = game.new_initial_state(seed=seed)
    _play(state, random.Random(seed), steps)
    return game, state


def test_a_clone_shares_the_history_log_decision_zones_rows_and_locals():
    _, state = _mid_game("games/magic_shop.rules")
    twin = state.clone()
    assert twin.steps is state.steps and twin.ann is state.ann and twin.pending is state.pending
    assert all(a is b for a, b in zip(twin.z, state.z))              # every zone, the same object
    assert all(a is b for a, b in zip(twin.pv, state.pv)) and all(a is b for a, b in zip(twin.cv, state.cv))
    assert all(F[2] is G[2] for F, G in zip(twin.frames, state.frames))
    assert twin.z is not state.z and twin.pv is not state.pv and twin.frames[0] is not state.frames[0]
    assert twin == state and _snapshot(twin) == _snapshot(state)


def test_a_move_in_a_clone_copies_only_the_zones_it_changes():
    _, state = _mid_game("games/magic_shop.rules")
    rng = random.Random(1)
    while state._prog.decisions[state.pending[1]].kind != "card":     # a card to play: a move follows
        _play(state, rng, 1)
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    changed = [zi for zi, (a, b) in enumerate(zip(twin.z, state.z)) if a is not b]
    assert 0 < len(changed) < len(state.z) // 2, changed    # a card played: its hand and the trick
    assert all(list(twin.z[zi]) != list(state.z[zi]) for zi in changed)


def test_the_history_is_shared_and_reads_back_in_order():
    game, state = _mid_game("games/magic_shop.rules", steps=60)
    before = state.hist
    twin = state.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert state.hist == before and twin.hist[:-1] == before       # a new step in the clone only
    assert twin.steps[0] is state.steps                             # the earlier steps: shared, not copied
    assert len(twin.hist) == len(before) + 1 and twin.history()[-1] == str(twin.history()[-1])
    again = game.replay(state.seed, state.history())
    assert again == state and again.hist == before


def test_states_compare_equal_whether_their_parts_are_shared_or_their_own():
    _, state = _mid_game("games/magic_shop.rules")
    fresh = State.from_json(state._game, state.to_json())           # every part a list of its own
    state.clone()                                                   # every part of state: shared tuples
    assert fresh == state and state == fresh
    assert _snapshot(fresh) == _snapshot(state)


def test_histories_compare_by_their_steps_up_to_the_past_they_share():
    from rulesrun.interpreter.runtime.saved import _same_steps
    game, state = _mid_game("games/magic_shop.rules", steps=40)
    a, b = state.clone(), state.clone()
    action = str(state.legal_actions()[0])
    a.apply_action(action)
    b.apply_action(action)
    assert a.steps is not b.steps and a.steps[0] is b.steps[0]      # the new steps apart, the past shared
    assert _same_steps(a.steps, b.steps) and a == b
    loaded = State.from_json(game, a.to_json())                     # no link shared: compared step by step
    assert _same_steps(loaded.steps, a.steps) and loaded == a
    assert not _same_steps(a.steps, state.steps)                    # one step more
    assert not _same_steps(state.steps, a.steps)
    other = state.clone()
    other.apply_action(str(state.legal_actions()[-1]))
    assert action != str(state.legal_actions()[-1]) and not _same_steps(other.steps, a.steps)
    assert _same_steps(None, None) and not _same_steps(None, a.steps)


@pytest.mark.slow
@pytest.mark.parametrize("path", RULES)
def test_moves_in_clones_never_change_the_original_nor_the_reverse(path):
    """Property-style: at random moments of random games, clone; play the clone (and clones of the
    clone) on; the original is unchanged. Then play the original on: the clones are unchanged,
    and the original ends as a replay of its own history does."""
    game = _game(path)
    for seed in range(2):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        kept = []                                   # (clone, its snapshot when it was last played)
        step = 0
        while not state.is_terminal():
            step += 1
            if rng.random() < 0.05:
                before = _snapshot(state)
                twin = state.clone()
                assert twin == state
                _play(twin, rng, rng.randrange(1, 6))
                deeper = twin.clone()
                _play(deeper, rng, 3)
                if not twin.is_terminal() and rng.random() < 0.5:
                    twin.apply_index(0)             # the allocation-free path copies shared locals too
                assert _snapshot(state) == before, f"{path} seed {seed}: a clone's moves changed the original"
                check_cards(twin, f"{path} seed {seed} (clone)")
                kept = [*kept[-2:], (twin, _snapshot(twin))]
            _play(state, rng, 1)
            if step % 8 == 0:
                for twin, snap in kept:
                    assert _snapshot(twin) == snap, f"{path} seed {seed}: the original's moves changed a clone"
        for twin, snap in kept:
            assert _snapshot(twin) == snap, f"{path} seed {seed}: the original's moves changed a clone"
        check_cards(state, f"{path} seed {seed}")
        assert game.replay(seed, state.history()) == state
