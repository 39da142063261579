"""benchmarks/run.py beside OpenSpiel (benchmarks/openspiel_pairs.py): smoke tests. Figures are
printed and written, never asserted."""
from __future__ import annotations

import json
import sys

import pytest

from tests.support import ROOT  # noqa: E402
sys.path.insert(0, str(ROOT))


def test_the_pairs_run_side_by_side_and_write_their_ratios(tmp_path, capsys):
    pytest.importorskip("pyspiel", reason="OpenSpiel is an optional extra (pip install -e '.[bench]')")
    from benchmarks.run import main

    out = tmp_path / "perf.json"
    assert main(["--openspiel", "only", "--games", "2", "--seconds", "0.2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    for key in ("oh_hell", "crazy_eights", "skat"):
        assert data[f"ratio_engine_vs_openspiel_{key}"] > 0
    impls = [(r["implementation"], r["players"]) for r in data["results"]]
    assert impls == [("engine", 4), ("openspiel", 4)] * 2 + [("engine", 3), ("openspiel", 3)]
    oh_hell_engine, oh_hell_spiel = data["results"][:2]
    # one hand of 10 cards on both sides: 4 bids and 40 cards played
    assert oh_hell_engine["decisions_per_game"] == oh_hell_spiel["decisions_per_game"] == 44
    assert oh_hell_engine["variants"] == ["one_hand", "no_hook"]
    assert data["results"][2]["variants"] == ["one_hand"]     # Crazy Eights: one hand, as OpenSpiel plays it
    assert oh_hell_spiel["deep_bytes_per_state"] is None
    assert "engine/OpenSpiel" in capsys.readouterr().out


def test_without_openspiel_the_pairs_are_skipped_with_a_note(tmp_path, capsys, monkeypatch):
    import importlib.util

    from benchmarks.run import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspiel" else real(name, *a))
    out = tmp_path / "perf.json"
    assert main(["--openspiel", "only", "--games", "1", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert "OpenSpiel is not installed" in data["openspiel_skipped"]
    assert "ratio_engine_vs_openspiel_oh_hell" not in data
    assert "OpenSpiel is not installed" in capsys.readouterr().out


def test_oh_hell_one_hand_variant_plays_a_single_round():
    from rulesrun.interpreter import load_game

    game = load_game(ROOT / "examples" / "oh_hell.rules", players=4, variants=("one_hand",))
    state = game.new_initial_state(seed=3)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert state.var("round") == 1 and state.var("hand_size") == 10



def test_the_scaling_script_measures_magi_by_players(tmp_path, monkeypatch):
    """benchmarks/scaling.py, players part, very short (a smoke test: figures never asserted)."""
    from benchmarks import scaling

    monkeypatch.setattr(scaling, "MAGI", ROOT / "games" / "magi.rules")
    rows = scaling.players(0.05, 0)
    assert [r["players"] for r in rows] == [4, 5, 6, 7, 8]
    assert all(r["decisions_per_s"] > 0 and r["clone_bytes_per_state"] > 0 for r in rows)


def test_the_scaling_script_measures_oh_hell_by_hand_size():
    """benchmarks/scaling.py, hands part, very short: each hand size through the game's parameter
    `cards` plays one hand of that many cards (4 bids and 4 x cards plays)."""
    from benchmarks import scaling

    rows = scaling.hands(0.05, 0)
    assert [r["cards"] for r in rows] == list(scaling.HAND_SIZES)
    assert [r["decisions_per_game"] for r in rows] == [4 + 4 * k for k in scaling.HAND_SIZES]
    assert all(r["decisions_per_s"] > 0 and r["clone_bytes_per_state"] > 0 for r in rows)


def test_oh_hell_cards_parameter_caps_the_hand_and_the_pack_still_caps_it():
    from rulesrun.interpreter import load_game
    short = load_game(ROOT / "examples" / "oh_hell.rules", players=4, variants=("one_hand",), params={"cards": 3})
    assert [len(short.new_initial_state(seed=1).cards("hand", p)) for p in range(4)] == [3, 3, 3, 3]
    many = load_game(ROOT / "examples" / "oh_hell.rules", players=5, variants=("one_hand",), params={"cards": 17})
    assert len(many.new_initial_state(seed=1).cards("hand", 0)) == 10      # 51 cards / 5 players
