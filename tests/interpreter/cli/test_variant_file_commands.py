"""Every command that takes a rules file takes a variant file (a file that 'extends' a base)."""
from __future__ import annotations

import pytest

from rulesrun import load_game
from rulesrun.interpreter.cli.main import main

from tests.support import ROOT

HOUSE = str(ROOT / "examples" / "magi_house_rules.rules")


@pytest.fixture
def house(tmp_path, monkeypatch):
    """A variant file of Magi in a folder of its own, and that folder the working one."""
    (tmp_path / "house.rules").write_text((ROOT / "examples" / "magi_house_rules.rules").read_text())
    monkeypatch.chdir(tmp_path)
    return "house.rules"


def test_play_runs_a_variant_file_to_the_end(house, capsys):
    assert main([house, "--seats", "random,random,random,random", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Magi: a weeknight game — 4 players") and "Final scores:" in out


def _final_penalties(path, seed):
    import random
    state = load_game(path, players=4).new_initial_state(seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return [p["penalty"] for p in state.observation(0)["players"]]


def test_the_game_ends_at_the_variants_target_not_the_bases():
    house = _final_penalties(HOUSE, 2)
    base = _final_penalties(str(ROOT / "games" / "magi.rules"), 2)
    assert max(house) >= 30 and max(base) >= 50
    assert max(house) < max(base)


def test_compile_check_and_fmt_take_a_variant_file(house, capsys):
    assert main(["compile", house, "--players", "5"]) == 0
    assert "Magi: a weeknight game — 5 players" in capsys.readouterr().out
    assert main(["check", house, "--games", "2", "--players", "4"]) == 0
    out = capsys.readouterr().out
    assert "the file's own invariants hold at every step" in out     # the base's invariants, checked
    assert main(["fmt", "--check", house]) == 0


def test_check_of_a_variant_file_checks_the_bases_invariants(tmp_path, monkeypatch, capsys):
    (tmp_path / "base.rules").write_text((ROOT / "games" / "magi.rules").read_text())
    (tmp_path / "house.rules").write_text('extends "base.rules"\nreplace procedure score_hand():\n'
                                          '    in_hand = no\n    for q in players:\n        q.penalty -= 1\n')
    monkeypatch.chdir(tmp_path)
    assert main(["check", "house.rules", "--games", "2", "--players", "4"]) == 1
    out = capsys.readouterr().out
    assert 'invariant "penalty totals are never negative" does not hold' in out     # the base's invariant
