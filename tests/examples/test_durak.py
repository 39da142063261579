"""Durak (examples/durak.rules) over random games: the throw-in limit (six cards — five in the first
bout — and no more than the defender held when the bout began), refilling to six while the pack
lasts, and the durak."""
from __future__ import annotations

import random

import pytest

from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402


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


@pytest.mark.parametrize("players", [2, 3, 5])
def test_perevodnoy_passes_the_attack_on_only_before_beating_and_to_a_player_who_can_answer(players):
    game = load_game(ROOT / "examples" / "durak.rules", players=players, variants=("perevodnoy",))
    passed = 0
    for seed in range(8):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.decision_label() == "beat it with":
                attack, defence = state.cards("attack"), state.cards("defence")
                defender = state.var("defender")
                ranks = {c[:-1] for c in attack}
                nxt = next((q % players for q in range(defender + 1, defender + players)
                            if state.cards("hand", q % players)), None)
                may = (defence == [] and len(ranks) == 1 and len(attack) < state.var("most") and nxt is not None
                       and any(c[:-1] in ranks for c in state.cards("hand", defender))
                       and len(state.cards("hand", nxt)) > len(attack))
                assert ("pass it on" in legal) == may, (seed, attack, defence)
                if may:
                    state.apply_action("pass it on")
                    state.apply_action(rng.choice(state.legal_actions()))
                    passed += 1
                    assert state.var("attacker") == defender and state.var("defender") == nxt
                    assert len(state.cards("attack")) == len(attack) + 1
                    continue
            state.apply_action(rng.choice(legal))
    assert passed > 5
