"""Differential test: the engine running games/magic_shop.rules against the hand-written reference
(benchmarks/reference/magic_shop.py, written from the rulebook and rulings independently).

Hypothesis draws the three rounds' decks (fed to the engine as a stacked deck and to the reference as
its deals) and, at every decision, which legal action to take. After every step both sides must
agree on the legal actions (as sorted lists), the current player, the end, every seat's VP, and
also on the trump suit, the Power Token, thirst, tricks and bids. No timing is asserted here.
"""
from __future__ import annotations

import os
import random
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support import ROOT  # noqa: E402
sys.path.insert(0, str(ROOT))

from benchmarks.reference.magic_shop import NAMES, MagicShop, SUITS  # noqa: E402
from rulesrun.interpreter import TERMINAL, load_game  # noqa: E402

RULES = ROOT / "games" / "magic_shop.rules"
_GAMES: dict = {}
# A failure names the full history and Hypothesis prints the decks; shrinking a 200-step game takes
# minutes, so it is off unless REFERENCE_SHRINK=1.
PHASES = tuple(p for p in Phase if p is not Phase.shrink or os.environ.get("REFERENCE_SHRINK") == "1")


def games(n):
    if n not in _GAMES:
        _GAMES[n] = (load_game(RULES, players=n), MagicShop(n))
    return _GAMES[n]


def deck_names(n):
    return [NAMES[c] for c in games(n)[1].cards]


def compare(eng, ref, n, where):
    assert eng.is_terminal() == ref.is_terminal(), f"{where}: terminal engine {eng.is_terminal()}"
    assert eng.current_player() == ref.current_player(), \
        f"{where}: current player engine {eng.current_player()}, reference {ref.current_player()}"
    e_legal = sorted(str(a) for a in eng.legal_actions())
    r_legal = sorted(ref.legal_actions())
    assert e_legal == r_legal, f"{where}: legal actions\n engine    {e_legal}\n reference {r_legal}"
    for p in range(n):
        assert eng.var("vp", player=p) == ref.vp[p], f"{where}: seat {p} VP"
        assert eng.var("thirst", player=p) == ref.thirst[p], f"{where}: seat {p} thirst"
        assert eng.var("tricks", player=p) == ref.tricks[p], f"{where}: seat {p} tricks"
    assert eng.var("trump") == SUITS[ref.trump], f"{where}: trump"
    assert eng.var("power") == ("Open" if ref.power_open else "Closed"), f"{where}: power"
    assert eng.var("round") == ref.round, f"{where}: round"
    for p in range(n):
        assert eng.var("bid", player=p) == ref.bid[p], f"{where}: seat {p} bid"
    if eng.decision_label() == "bid with" and eng.current_player() == 0:
        # a round's first question: both dealt the same hands
        for p in range(n):
            assert sorted(eng.cards("hand", player=p)) == sorted(ref.hand(p)), f"{where}: seat {p} hand"


def play_both(n, decks, choose, seen=None):
    """Drive both sides with the same decks; ``choose(k)`` picks an index among k sorted actions."""
    game, rgame = games(n)
    eng = game.new_initial_state(seed=0, stack={"deck": decks})
    ref = rgame.new_initial_state(deals=decks)
    compare(eng, ref, n, "start")
    step = 0
    while not ref.is_terminal():
        legal = sorted(ref.legal_actions())
        a = legal[choose(len(legal))]
        if seen is not None:
            seen[eng.decision_label()] += 1
            seen[a.split(",")[0] if a.startswith("place") else a if a.startswith("use") else ""] += 1
        where = f"{n} players, step {step}, after {a!r} (history {eng.history() + [a]})"
        eng.apply_action(a)
        ref.apply_action(a)
        step += 1
        compare(eng, ref, n, where)
    assert eng.current_player() == ref.current_player() == TERMINAL
    assert eng.returns() == ref.returns(), f"{n} players: returns"
    return step


def decks_for(n):
    return st.lists(st.permutations(deck_names(n)), min_size=3, max_size=3)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.slow
def test_engine_matches_reference(n):
    @settings(max_examples=30, deadline=None, derandomize=True, database=None, phases=PHASES,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(decks=decks_for(n), data=st.data())
    def check(decks, data):
        play_both(n, decks, lambda k: data.draw(st.integers(0, k - 1)) if k > 1 else 0)

    check()


def test_random_games_cover_every_decision():
    """Seeded random games (no shrinking, so cheap): the same comparison, and every kind of decision
    and effect does come up, so the differential test is not vacuous."""
    seen: Counter = Counter()
    for n in (3, 4, 5):
        for seed in range(4):
            rng = random.Random(seed * 31 + n)
            decks = [rng.sample(deck_names(n), len(deck_names(n))) for _ in range(3)]
            assert play_both(n, decks, rng.randrange, seen) > 100
    for label in ("bid with", "place it", "play", "use", "pass", "move the Trump Marker to", "new Bid Card"):
        assert seen[label] > 0, f"no {label!r} decision in the random games: {seen}"
    for a in ("place it face up", "place it face down", *(f"use {s}" for s in SUITS)):
        assert seen[a] > 0, f"no {a!r} in the random games"


def test_reference_clone_is_independent():
    _, rgame = games(4)
    rng = random.Random(5)
    state = rgame.new_initial_state(seed=5)
    for _ in range(60):
        state.apply_action(rng.choice(state.legal_actions()))
    twin = state.clone()
    before = (state.legal_actions(), [h[:] for h in state.hands], state.vp[:], state.phase)
    stray = state.clone()
    while not stray.is_terminal():
        stray.apply_action(rng.choice(stray.legal_actions()))
    assert (state.legal_actions(), state.hands, state.vp, state.phase) == before
    while not state.is_terminal():
        a = rng.choice(state.legal_actions())
        state.apply_action(a)
        twin.apply_action(a)
        assert twin.legal_actions() == state.legal_actions()
    assert twin.returns() == state.returns()


def test_benchmark_script_runs(tmp_path, capsys):
    """benchmarks/run.py end to end on one game (a smoke test: figures are printed, never asserted)."""
    import json

    from benchmarks.run import main

    out = tmp_path / "perf.json"
    assert main([str(RULES), "--players", "3", "--games", "2", "--seconds", "0.4", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [r["implementation"] for r in data["results"]] == ["engine", "reference", "playouts"]
    for r in data["results"]:
        assert r["games"] == 2 and r["decisions"] > 100
        for key in ("decisions_per_s", "games_per_s", "clones_per_s", "json_bytes_per_state",
                    "deep_bytes_per_state", "clone_bytes_per_state", "child_bytes_per_state"):
            assert r[key] > 0, key
    engine, _, playouts = data["results"]
    assert playouts["decisions"] == engine["decisions"]     # apply_index plays the same games
    (cmp,) = data["comparisons"]
    assert cmp["players"] == 3 and cmp["ratio_engine_vs_reference"] > 0 and cmp["ratio_engine_playouts_vs_reference"] > 0
    assert "ratio" in capsys.readouterr().out


def test_bytecode_count_script_runs(capsys):
    """benchmarks/opcodes.py: counts on both sides and lists generated lines (a smoke test)."""
    from benchmarks.opcodes import main

    assert main(["--players", "3", "--games", "1", "--top", "2", "--lines", "3"]) == 0
    out = capsys.readouterr().out
    assert "engine:" in out and "reference:" in out and "bytecodes per decision" in out
    assert "busiest generated lines" in out


def test_call_timing_script_splits_a_decision_on_both_sides(tmp_path, capsys):
    """benchmarks/calls.py: each call of the driver loop timed on its own, both sides, and apply_action
    by kind of decision (a smoke test: the figures are printed and written, never asserted)."""
    import json

    from benchmarks.calls import PARTS, main, split

    fig = split(lambda seed: MagicShop(3).new_initial_state(seed=seed), lambda s: s.phase, 2)
    assert 2 * 100 < fig["decisions"] < 2 * 200 and set(fig["ns_per_decision"]) == set(PARTS)
    assert abs(sum(v["share"] for v in fig["apply_action_by_kind"].values()) - 1) < 0.01
    out = tmp_path / "calls.json"
    assert main(["--players", "3", "--games", "1", "--rounds", "1", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "engine / reference, all:" in printed and "apply_action by kind, engine: play " in printed
    (row,) = json.loads(out.read_text())["rounds"]
    assert set(row) == {"engine", "reference"} and "play" in row["engine"]["apply_action_by_kind"]
    with pytest.raises(SystemExit) as info:
        main(["--games", "0"])
    assert info.value.code == 2


def test_instruction_count_script_plays_both_sides_and_checks_its_arguments(capsys):
    """benchmarks/instructions.py: its child part plays whole games on both sides (the count
    itself needs valgrind and minutes, so it is not run here); bad arguments get a usage error."""
    from benchmarks.instructions import main, play

    assert 2 * 100 < play("engine", 3, 2) < 2 * 200         # two whole games of about 150 decisions
    assert 2 * 100 < play("reference", 3, 2) < 2 * 200
    assert main(["--child", "reference", "--players", "3", "--games", "1"]) == 0
    assert capsys.readouterr().out.startswith("decisions ")
    for bad in (["--players", "6"], ["--games", "5"]):
        with pytest.raises(SystemExit) as info:
            main(bad)
        assert info.value.code == 2


def test_a_benchmark_run_without_the_dependencies_says_what_to_do(monkeypatch):
    import importlib.util

    import benchmarks

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "lark" else real(name, *a))
    with pytest.raises(SystemExit) as info:
        benchmarks.require_dependencies("run.py")
    assert "lacks rulesrun's dependencies (lark)" in str(info.value.code)
    assert ".venv/bin/python benchmarks/run.py" in str(info.value.code)
    monkeypatch.setattr(importlib.util, "find_spec", real)
    benchmarks.require_dependencies("run.py")          # this Python has them: nothing happens


def test_benchmark_script_compares_big_two_with_the_magic_shop_in_alternating_slices(tmp_path, capsys):
    """run.py --climbing only: Big Two and The Magic Shop at 4 players, alternating, and the ratio
    of their time per decision in the JSON (a smoke test, no figure asserted)."""
    import json

    from benchmarks.run import main

    out = tmp_path / "perf.json"
    assert main(["--climbing", "only", "--games", "2", "--seconds", "0.2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [(r["game"], r["players"], r["games"]) for r in data["results"]] == [
        ("Big Two", 4, 2), ("The Magic Shop", 4, 2)]
    (cmp,) = data["comparisons"]
    ratio = cmp["ratio_big_two_vs_magic_shop_time_per_decision"]
    assert data["ratio_big_two_vs_magic_shop_time_per_decision"] == ratio
    assert ratio == round(cmp["magic_shop_decisions_per_s"] / cmp["big_two_decisions_per_s"], 3) > 0
    assert "Big Two / The Magic Shop, alternating" in capsys.readouterr().out
    # without the pair among the files named, it is not run
    assert main([str(RULES), "--players", "3", "--games", "1", "--no-reference", "--json", str(out)]) == 0
    assert "ratio_big_two_vs_magic_shop_time_per_decision" not in json.loads(out.read_text())
