"""OpenSpiel's C++ games driven from Python, side by side with the same games written in rules.

OpenSpiel (``pip install open_spiel``, the ``bench`` extra) is what search and RL users know: its
games are C++, and its users drive them from Python, so each ``legal_actions()`` and
``apply_action()`` crosses the binding. ``benchmarks/run.py`` runs these pairs after the shipped
games, with the same random-move loop on both sides, alternating slices:

    oh_hell       OpenSpiel oh_hell, 4 players, num_tricks_fixed=10 (one hand of 10 cards)
                  examples/oh_hell.rules, 4 players, variants one_hand + no_hook
    crazy_eights  OpenSpiel crazy_eights, 4 players (one hand)
                  examples/crazy_eights.rules, 4 players, variant one_hand (one hand, drawing by
                  choice one card a decision, at most five a turn, as OpenSpiel plays it)
    skat          OpenSpiel skat, 3 players (its simplified bidding: the first to declare plays)
                  examples/skat.rules, 3 players (the same rules: tests/examples/test_skat.py)

OpenSpiel deals and draws through chance nodes: the loop samples a chance outcome with the same
seeded ``random.Random`` and applies it inside the timed loop, as a user would; only the players'
actions count as decisions. The rules differ between the two implementations (docs/performance.md
says how, and what that does to the comparison). Without OpenSpiel the pairs are skipped with a
note. Nothing here is asserted by the tests.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

from benchmarks.run import SAMPLE_EVERY, SAMPLE_STATES, Runner, alternate

ROOT = Path(__file__).resolve().parent.parent

# (key, OpenSpiel game, its parameters, our rules file, our variants, players)
PAIRS = [
    ("oh_hell", "oh_hell", {"players": 4, "num_tricks_fixed": 10}, "examples/oh_hell.rules", ("one_hand", "no_hook"), 4),
    ("crazy_eights", "crazy_eights", {"players": 4}, "examples/crazy_eights.rules", ("one_hand",), 4),
    ("skat", "skat", {}, "examples/skat.rules", (), 3),
]


def missing_note() -> str | None:
    """None when OpenSpiel can be imported, else why the pairs are skipped."""
    if importlib.util.find_spec("pyspiel") is None:
        return ("OpenSpiel is not installed: the side-by-side with its C++ games is skipped "
                "(pip install -e '.[bench]' adds it)")
    return None


class SpielRunner(Runner):
    """Random playouts of an OpenSpiel game from Python; the same totals as run.Runner."""

    def __init__(self, game, seed: int):
        super().__init__("openspiel", game, seed)

    def new_state(self):
        return self.game.new_initial_state()

    def play(self, state, randrange, decisions: int) -> int:
        sampling = len(self.samples) < SAMPLE_STATES
        while not state.is_terminal():
            if state.is_chance_node():          # a deal or a draw: sampled as a user would
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[randrange(len(outcomes))][0])
                continue
            actions = state.legal_actions()
            state.apply_action(actions[randrange(len(actions))])
            decisions += 1
            if sampling and decisions % SAMPLE_EVERY == 0:
                sampling = self.sample(state)
        return decisions

    def row(self, title: str, rules: str, players: int, clone_seconds: float) -> dict:
        return {
            "implementation": "openspiel", "game": title, "rules": rules, "players": players,
            "games": self.games, "decisions": self.decisions, "seconds": round(self.elapsed, 3),
            "games_per_s": round(self.games / self.elapsed, 2),
            "decisions_per_s": round(self.decisions / self.elapsed),
            "decisions_per_game": round(self.decisions / self.games, 1),
            "clones_per_s": round(self.clones_per_s(clone_seconds)),
            # a C++ state's memory is not visible from Python: no bytes figures
            "json_bytes_per_state": None, "deep_bytes_per_state": None, "clone_bytes_per_state": None,
            "child_bytes_per_state": None,
            "sampled_states": len(self.samples),
        }


def bench_pair(key: str, seconds: float, games: int | None, seed: int, slices: int) -> tuple[list[dict], dict]:
    """One pair in alternating slices: (rows, comparison with ``ratio_engine_vs_openspiel_<key>``)."""
    import pyspiel

    from rulesrun.interpreter import load_game

    _, spiel_name, params, rules, variants, players = next(p for p in PAIRS if p[0] == key)
    ours = load_game(ROOT / rules, players=players, variants=variants)
    theirs = pyspiel.load_game(spiel_name, params)
    runners = [Runner("engine", ours, seed), SpielRunner(theirs, seed)]
    Runner("engine", ours, seed + 10_000).run(games=1)          # warm up, untimed
    SpielRunner(theirs, seed + 10_000).run(games=1)
    alternate(runners, seconds, games, slices)
    clone_seconds = min(1.0, max(0.2, seconds / 2))
    label = f"{ours.title}" + (f" ({'+'.join(variants)})" if variants else "")
    rows = [runners[0].row(label, rules, players, clone_seconds),
            runners[1].row(f"OpenSpiel {spiel_name}", f"pyspiel {spiel_name} {params}", players, clone_seconds)]
    rows[0]["variants"] = list(variants)
    eng, spiel = rows
    comparison = {
        "game": key, "players": players, "rules": rules, "variants": list(variants),
        "openspiel_game": spiel_name, "openspiel_parameters": params,
        "engine_decisions_per_s": eng["decisions_per_s"], "openspiel_decisions_per_s": spiel["decisions_per_s"],
        f"ratio_engine_vs_openspiel_{key}": round(eng["decisions_per_s"] / spiel["decisions_per_s"], 3),
        "ratio_engine_vs_openspiel_clones_per_s": round(eng["clones_per_s"] / spiel["clones_per_s"], 3),
        "engine_decisions_per_game": eng["decisions_per_game"],
        "openspiel_decisions_per_game": spiel["decisions_per_game"],
    }
    return rows, comparison
