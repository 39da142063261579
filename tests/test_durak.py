"""Durak (examples/durak.rules) over random games: the throw-in limit (six cards — five in the first
bout — and no more than the defender held when the bout began), refilling to six while the pack
lasts, and the durak."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from interpreter import load_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("players", [2, 4, 6])
def test_limits_refills_and_the_durak(players):
    game = load_game(ROOT / "examples" / "durak.rules", players=players)
    bouts = 0
    for seed in range(8):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        held = None
        first = True
        most = 5
        while not state.is_terminal():
            label = state.decision_label()
            if label == "attack with":
                bouts += 1
                most = 5 if first else 6
                first = False
                defender = state.var("defender")
                held = len(state.cards("hand", defender))
                assert state.cards("attack") == [] and state.cards("defence") == []
                if state.cards("stock"):       # everyone has drawn up to six while the pack lasts
                    assert all(len(state.cards("hand", p)) >= 6 for p in range(players))
            if label == "throw in":
                for a in state.legal_actions():
                    if a != "pass":
                        assert len(state.cards("attack")) < min(most, held)
            state.apply_action(rng.choice(state.legal_actions()))
            assert len(state.cards("attack")) <= min(most, held)
        holding = [p for p in range(players) if state.cards("hand", p)]
        assert len(holding) <= 1
        if holding:
            assert state.returns() == [-1 if p == holding[0] else 0 for p in range(players)]
            assert state.winners() == [p for p in range(players) if p != holding[0]]
        else:
            assert state.returns() == [0] * players
    assert bouts > 40
