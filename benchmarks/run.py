#!/usr/bin/env python3
"""Random playouts through the public API: the engine on every shipped game and player count, and,
for The Magic Shop, the hand-written reference (benchmarks/reference/magic_shop.py) side by side.

    python benchmarks/run.py                                  # games/*.rules and Big Two, President, Durak
    python benchmarks/run.py --seconds 2 --json /tmp/perf.json
    python benchmarks/run.py games/magic_shop.rules --players 4 --games 200
    python benchmarks/run.py --climbing only                  # Big Two beside The Magic Shop, alternating
    python benchmarks/run.py --profile 4                      # cProfile of the engine, Magic Shop, 4 players

What is measured, per game and player count (one row per implementation):
    decisions/s  legal_actions() + a seeded random pick + apply_action(), over whole games
                 (new_initial_state included); games/s is the same run counted in games
    clones/s     clone() of states sampled across the first games (every 10th decision)
    json B/state len(json.dumps(state.to_json())) averaged over the same sample
    deep B/state sys.getsizeof summed over every object reachable from the state, each counted once,
                 leaving out what all states share (the compiled game / the game object, classes,
                 None/True/False and the small ints Python caches); objects shared by a state and
                 its clones (immutable tuples, history strings, a linked log) are counted in full
    clone B/st   what one more clone costs: the bytes reachable from state.clone() that are not
                 shared with the state it was cloned from (the figure that matters for a search tree)
    child B/st   a node of a search tree: a clone that then takes its first legal action, counted
                 the same way (sharing that only puts copying off until the first move does not help)
The engine and the reference run the same driver loop, interleaved in slices so that the load of a
shared machine falls on both alike; ratio = engine / reference (1.0 = as fast as hand-written).
Beside them, a row "playouts" runs the engine through its playout API instead (num_legal_actions(),
the same seeded pick, apply_index(): no Actions made, nothing added to the history), the loop a bot
or a search uses on its own copies; ratio_engine_playouts_vs_reference compares it with the
reference's full loop (the reference has no such API: its legal_actions() is its only way).
Big Two and The Magic Shop (4 players) alternate the same way when no files are given or both are:
ratio_big_two_vs_magic_shop_time_per_decision (issue 15's mark is 3).
Nothing here is asserted by the tests: the figures depend on the machine and its load.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import require_dependencies  # noqa: E402

require_dependencies("run.py")

from benchmarks.reference import magic_shop as reference  # noqa: E402
from rulesrun.dsl import RulesError  # noqa: E402
from rulesrun.interpreter import load_game  # noqa: E402

REFERENCE_FOR = {"The Magic Shop": reference.MagicShop}
# Climbing and shedding games played with combinations (issue 15): run by default with the shipped
# games, so that the enumeration of combinations is measured beside The Magic Shop's single cards.
COMBINATION_GAMES = ("big_two.rules", "president.rules", "durak.rules")
SAMPLE_EVERY = 10        # sample a state for clones/bytes every this many decisions ...
SAMPLE_STATES = 60       # ... up to this many states
SLICES = 4               # engine and reference alternate in this many slices each
# Issue 15's mark: Big Two's time per decision against The Magic Shop's, the two games alternating
# in slices of one run (as the engine and the reference do), at this many players
CLIMB_PAIR = ("examples/big_two.rules", "games/magic_shop.rules")
CLIMB_PLAYERS = 4


# ── measuring ───────────────────────────────────────────────────────────────
class Runner:
    """Random playouts of one implementation; ``run(budget)`` adds to the totals."""

    def __init__(self, impl: str, game, seed: int):
        self.impl, self.game = impl, game
        self.rng = random.Random(seed)
        self.next_seed = seed
        self.games = self.decisions = 0
        self.elapsed = 0.0
        self.samples: list = []

    def run(self, seconds: float | None = None, games: int | None = None) -> None:
        randrange = self.rng.randrange
        decisions = played = 0
        self.paused = 0.0               # the samples' clones, taken out of the timing
        start = time.perf_counter()
        while True:
            if games is not None:
                if played >= games:
                    break
            elif played and time.perf_counter() - start - self.paused >= seconds:
                break
            decisions = self.play(self.new_state(), randrange, decisions)
            played += 1
        self.elapsed += time.perf_counter() - start - self.paused
        self.games += played
        self.decisions += decisions

    def new_state(self):
        state = self.game.new_initial_state(seed=self.next_seed)
        self.next_seed += 1
        return state

    def play(self, state, randrange, decisions: int) -> int:
        """One whole game by the benchmark's loop; the decisions counted, with this game's. (Each
        kind of runner writes its loop out: a call or a test per decision would be timed with it.)"""
        sampling = len(self.samples) < SAMPLE_STATES
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[randrange(len(actions))])
            decisions += 1
            if sampling and decisions % SAMPLE_EVERY == 0:
                sampling = self.sample(state)
        return decisions

    def sample(self, state) -> bool:
        """Keep a clone of ``state`` for the clone and bytes figures (out of the timing); whether
        to keep more."""
        t = time.perf_counter()
        self.samples.append(state.clone())
        self.paused += time.perf_counter() - t
        return len(self.samples) < SAMPLE_STATES

    def clones_per_s(self, seconds: float) -> float:
        samples = self.samples
        count = 0
        start = time.perf_counter()
        while True:
            for s in samples:
                s.clone()
            count += len(samples)
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                return count / elapsed

    def row(self, title: str, rules: str, players: int, clone_seconds: float) -> dict:
        samples = self.samples
        return {
            "implementation": self.impl, "game": title, "rules": rules, "players": players,
            "games": self.games, "decisions": self.decisions, "seconds": round(self.elapsed, 3),
            "games_per_s": round(self.games / self.elapsed, 2),
            "decisions_per_s": round(self.decisions / self.elapsed),
            "decisions_per_game": round(self.decisions / self.games, 1),
            "clones_per_s": round(self.clones_per_s(clone_seconds)),
            "json_bytes_per_state": round(sum(len(json.dumps(s.to_json())) for s in samples) / len(samples)),
            "deep_bytes_per_state": round(sum(deep_size(s) for s in samples) / len(samples)),
            "clone_bytes_per_state": round(sum(clone_bytes(s) for s in samples) / len(samples)),
            "child_bytes_per_state": round(sum(child_bytes(s) for s in samples) / len(samples)),
            "sampled_states": len(samples),
        }


class PlayoutRunner(Runner):
    """The engine's playout loop: ``apply_index(randrange(num_legal_actions()))``, the same seeded
    picks as Runner's loop (so the same games), without Actions or the history."""

    def play(self, state, randrange, decisions: int) -> int:
        sampling = len(self.samples) < SAMPLE_STATES
        while not state.is_terminal():
            state.apply_index(randrange(state.num_legal_actions()))
            decisions += 1
            if sampling and decisions % SAMPLE_EVERY == 0:
                sampling = self.sample(state)
        return decisions


def deep_size(state, exclude: set | None = None) -> int:
    """Bytes of every object reachable from ``state``, each once, without what all states share
    (and without the objects whose ids are in ``exclude``)."""
    return sum(sys.getsizeof(o) for o in _reachable(state, exclude).values())


def clone_bytes(state) -> int:
    """What a clone adds: the bytes of the objects reachable from ``state.clone()`` that are not
    shared with ``state`` (structure shared between the two, such as immutable tuples, history
    strings or a linked log, is not counted)."""
    return deep_size(state.clone(), set(_reachable(state)))


def child_bytes(state) -> int:
    """What a node of a search tree costs: a clone of ``state`` that then takes its first legal
    action, counted as ``clone_bytes`` counts (what is not shared with ``state``). Sharing that
    only put the copying off until the first move does not make this figure smaller."""
    child = state.clone()
    if not child.is_terminal():
        child.apply_action(child.legal_actions()[0])
    child._legal = None         # the cache of legal actions, made by the call above
    return deep_size(child, set(_reachable(state)))


def _reachable(state, exclude: set | None = None) -> dict:
    skip = {id(None), id(True), id(False)}
    for attr in ("_game", "_prog", "game"):
        if hasattr(state, attr):
            skip.add(id(getattr(state, attr)))
    if exclude:
        skip |= exclude
    seen: dict = {}
    stack = [state]
    while stack:
        obj = stack.pop()
        i = id(obj)
        if i in seen or i in skip or isinstance(obj, type) or callable(obj) and not hasattr(obj, "__slots__"):
            continue
        if type(obj) is int and -5 <= obj <= 256:
            continue
        seen[i] = obj
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif not isinstance(obj, (str, bytes, int, float, bool)):
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(obj, name):
                        stack.append(getattr(obj, name))
            if hasattr(obj, "__dict__"):
                stack.append(obj.__dict__)
    return seen


def alternate(runners: list, seconds: float, games: int | None, slices: int) -> None:
    """Run each runner for ``seconds`` (or ``games``) in all, the runners taking turns in
    ``slices`` slices each, so that a change of the machine's load falls on all of them alike."""
    for k in range(slices):
        for r in runners:
            if games is not None:
                share = games // slices + (1 if k < games % slices else 0)
                if share:
                    r.run(games=share)
            else:
                r.run(seconds=seconds / slices)


def bench(path: Path, players: int, seconds: float, games: int | None, seed: int,
          with_reference: bool) -> tuple[list[dict], dict | None]:
    game = load_game(path, players=players)
    rules = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
    runners = [Runner("engine", game, seed)]
    ref_cls = REFERENCE_FOR.get(game.title) if with_reference else None
    if ref_cls is not None:
        runners.append(Runner("reference", ref_cls(players), seed))
        runners.append(PlayoutRunner("playouts", game, seed))
    # warm up (imports, first-call caches), untimed
    for r in runners:
        type(r)(r.impl, r.game, seed + 10_000).run(games=1)
    alternate(runners, seconds, games, SLICES if len(runners) > 1 else 1)
    rows = [r.row(game.title, rules, players, clone_seconds=min(1.0, max(0.2, seconds / 2))) for r in runners]
    comparison = None
    if len(rows) == 3:
        eng, ref, playouts = rows
        comparison = {
            "game": game.title, "players": players,
            "engine_decisions_per_s": eng["decisions_per_s"], "reference_decisions_per_s": ref["decisions_per_s"],
            "ratio_engine_vs_reference": round(eng["decisions_per_s"] / ref["decisions_per_s"], 3),
            "engine_playouts_decisions_per_s": playouts["decisions_per_s"],
            "ratio_engine_playouts_vs_reference": round(playouts["decisions_per_s"] / ref["decisions_per_s"], 3),
            "ratio_engine_vs_reference_clones_per_s": round(eng["clones_per_s"] / ref["clones_per_s"], 3),
            "ratio_engine_vs_reference_deep_bytes_per_state":
                round(eng["deep_bytes_per_state"] / ref["deep_bytes_per_state"], 2),
            "ratio_engine_vs_reference_clone_bytes_per_state":
                round(eng["clone_bytes_per_state"] / ref["clone_bytes_per_state"], 2),
            "ratio_engine_vs_reference_child_bytes_per_state":
                round(eng["child_bytes_per_state"] / ref["child_bytes_per_state"], 2),
            "ratio_engine_vs_reference_json_bytes_per_state":
                round(eng["json_bytes_per_state"] / ref["json_bytes_per_state"], 2),
        }
    return rows, comparison


def bench_climb(seconds: float, games: int | None, seed: int) -> tuple[list[dict], dict]:
    """Big Two and The Magic Shop at 4 players, alternating in slices (``bench``'s way for the
    engine and the reference), so that a change of load falls on both alike: issue 15's mark is
    Big Two within 3x The Magic Shop's time per decision on the same run."""
    runners = []
    for rules in CLIMB_PAIR:
        game = load_game(ROOT / rules, players=CLIMB_PLAYERS)
        runners.append((rules, Runner("engine", game, seed)))
    for _, r in runners:        # warm up, untimed
        Runner(r.impl, r.game, seed + 10_000).run(games=1)
    alternate([r for _, r in runners], seconds, games, SLICES)
    rows = [r.row(r.game.title, rules, CLIMB_PLAYERS, clone_seconds=min(1.0, max(0.2, seconds / 2)))
            for rules, r in runners]
    climb, base = rows
    comparison = {
        "game": climb["game"], "beside": base["game"], "players": CLIMB_PLAYERS,
        "big_two_decisions_per_s": climb["decisions_per_s"], "magic_shop_decisions_per_s": base["decisions_per_s"],
        # time per decision, Big Two over The Magic Shop (the goal: at most 3)
        "ratio_big_two_vs_magic_shop_time_per_decision": round(base["decisions_per_s"] / climb["decisions_per_s"], 3),
    }
    return rows, comparison


def player_counts(path: Path) -> list[int]:
    from rulesrun.dsl import parse_file
    from rulesrun.dsl.syntax.ast import PlayersDecl
    decl = next(i for i in parse_file(path).items if isinstance(i, PlayersDecl))
    return list(range(decl.low, decl.high + 1))


def profile(path: Path, players: int, games: int, top: int, sort: str) -> None:
    """cProfile of the engine's random playouts (the same driver loop as the benchmark)."""
    import cProfile
    import pstats
    game = load_game(path, players=players)
    runner = Runner("engine", game, 0)
    runner.run(games=1)
    prof = cProfile.Profile()
    prof.enable()
    runner.run(games=games)
    prof.disable()
    print(f"# cProfile: {game.title}, {players} players, {games} random games, sorted by {sort}")
    pstats.Stats(prof).strip_dirs().sort_stats(sort).print_stats(top)


# ── output ──────────────────────────────────────────────────────────────────
HEADER = (f"{'game':<18} {'pl':>2} {'impl':<9} {'games/s':>8} {'decisions/s':>11} {'dec/game':>8} "
          f"{'clones/s':>9} {'json B/st':>9} {'deep B/st':>9} {'clone B/st':>10} {'child B/st':>10}")


def fmt(r: dict) -> str:
    def b(key, width):      # bytes are None for OpenSpiel's C++ states
        return f"{r[key]:>{width},}" if r[key] is not None else f"{'-':>{width}}"
    return (f"{r['game'][:18]:<18} {r['players']:>2} {r['implementation']:<9} {r['games_per_s']:>8.1f} "
            f"{r['decisions_per_s']:>11,} {r['decisions_per_game']:>8.1f} {r['clones_per_s']:>9,} "
            f"{b('json_bytes_per_state', 9)} {b('deep_bytes_per_state', 9)} {b('clone_bytes_per_state', 10)} "
            f"{b('child_bytes_per_state', 10)}")


def run_openspiel_pairs(args, rows: list, comparisons: list) -> dict:
    """OpenSpiel's games beside ours (benchmarks/openspiel_pairs.py); skipped with a note without it.
    Returns the JSON's top-level keys: ratio_engine_vs_openspiel_<game>, or openspiel_skipped."""
    from benchmarks import openspiel_pairs
    note = openspiel_pairs.missing_note()
    if note:
        print(note)
        return {"openspiel_skipped": note}
    out = {}
    for key, *_ in openspiel_pairs.PAIRS:
        got, comparison = openspiel_pairs.bench_pair(key, args.seconds, args.games, args.seed, SLICES)
        rows.extend(got)
        comparisons.append(comparison)
        for r in got:
            print(fmt(r), flush=True)
        ratio = comparison[f"ratio_engine_vs_openspiel_{key}"]
        out[f"ratio_engine_vs_openspiel_{key}"] = ratio
        print(f"{'':<18} {comparison['players']:>2} {'ratio':<9} engine/OpenSpiel: decisions/s {ratio:.2f}x, "
              f"clones/s {comparison['ratio_engine_vs_openspiel_clones_per_s']:.2f}x", flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="rules files (default: games/*.rules)")
    ap.add_argument("--players", type=int, help="only this player count")
    ap.add_argument("--seconds", type=float, default=3.0,
                    help="playout time per implementation, game and player count (default 3)")
    ap.add_argument("--games", type=int, help="a fixed number of games per implementation instead of --seconds")
    ap.add_argument("--seed", type=int, default=0, help="first game seed and the random pick's seed (default 0)")
    ap.add_argument("--no-reference", action="store_true", help="the engine only")
    ap.add_argument("--openspiel", choices=("auto", "only", "no"), default="auto",
                    help="OpenSpiel's oh_hell, crazy_eights and skat beside examples/ (benchmarks/openspiel_pairs.py): "
                         "auto = when no files are given and OpenSpiel is installed (default); only = just those")
    ap.add_argument("--climbing", choices=("auto", "only", "no"), default="auto",
                    help="Big Two and The Magic Shop at 4 players in alternating slices, their time per decision "
                         "compared (issue 15's mark): auto = when no files are given, or both are among them "
                         "(default); only = just that pair")
    ap.add_argument("--json", type=Path, metavar="OUT", help="also write the figures as JSON")
    ap.add_argument("--profile", type=int, metavar="PLAYERS",
                    help="instead: cProfile the engine on random playouts of the first file (default Magic Shop)")
    ap.add_argument("--profile-sort", default="tottime", help="pstats sort key for --profile (default tottime)")
    ap.add_argument("--top", type=int, default=30, help="functions shown by --profile (default 30)")
    args = ap.parse_args(argv)

    if args.profile:
        path = args.files[0] if args.files else ROOT / "games" / "magic_shop.rules"
        profile(path, args.profile, args.games or 100, args.top, args.profile_sort)
        return 0

    files = args.files or sorted((ROOT / "games").glob("*.rules")) + [ROOT / "examples" / f for f in COMBINATION_GAMES]
    if args.openspiel == "only" or args.climbing == "only":
        files = []
    load_before = os.getloadavg()
    rows, comparisons, errors = [], [], []
    print(f"python {platform.python_version()}, {os.cpu_count()} cpus, load average "
          f"{' '.join(f'{x:.2f}' for x in load_before)} (1, 5, 15 min)")
    print(HEADER)
    for f in files:
        try:
            counts = [args.players] if args.players else player_counts(f)
            for n in counts:
                got, comparison = bench(f, n, args.seconds, args.games, args.seed, not args.no_reference)
                rows.extend(got)
                for r in got:
                    print(fmt(r), flush=True)
                if comparison:
                    comparisons.append(comparison)
                    print(f"{'':<18} {n:>2} {'ratio':<9} engine/reference: decisions/s "
                          f"{comparison['ratio_engine_vs_reference']:.2f}x (playouts "
                          f"{comparison['ratio_engine_playouts_vs_reference']:.2f}x), clones/s "
                          f"{comparison['ratio_engine_vs_reference_clones_per_s']:.2f}x; bytes: deep "
                          f"{comparison['ratio_engine_vs_reference_deep_bytes_per_state']:.1f}x, clone "
                          f"{comparison['ratio_engine_vs_reference_clone_bytes_per_state']:.2f}x, clone and a move "
                          f"{comparison['ratio_engine_vs_reference_child_bytes_per_state']:.2f}x", flush=True)
        except RulesError as e:   # a game that does not compile (yet) is reported, the others still run
            errors.append({"rules": str(f), "error": e.render()})
            print(f"{f}: does not compile:\n{e.render()}", file=sys.stderr)
    climbing = {}
    named = {Path(f).resolve() for f in args.files}
    if args.climbing == "only" or (args.climbing == "auto" and args.openspiel != "only" and (
            not args.files or all((ROOT / f).resolve() in named for f in CLIMB_PAIR))):
        got, comparison = bench_climb(args.seconds, args.games, args.seed)
        rows.extend(got)
        comparisons.append(comparison)
        for r in got:
            print(fmt(r), flush=True)
        ratio = climbing["ratio_big_two_vs_magic_shop_time_per_decision"] = \
            comparison["ratio_big_two_vs_magic_shop_time_per_decision"]
        print(f"{'':<18} {CLIMB_PLAYERS:>2} {'ratio':<9} Big Two / The Magic Shop, alternating: time per "
              f"decision {ratio:.2f}x", flush=True)
    openspiel = {}
    if args.openspiel == "only" or (args.openspiel == "auto" and not args.files and args.climbing != "only"):
        openspiel = run_openspiel_pairs(args, rows, comparisons)
    load_after = os.getloadavg()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    if args.json:
        out = {
            "machine": {"python": platform.python_version(), "implementation": platform.python_implementation(),
                        "platform": platform.platform(), "cpus": os.cpu_count(),
                        "loadavg_1_5_15_before": [round(x, 2) for x in load_before],
                        "loadavg_1_5_15_after": [round(x, 2) for x in load_after]},
            "settings": {"seconds_per_implementation": None if args.games else args.seconds,
                         "games_per_implementation": args.games, "seed": args.seed,
                         "bytes_per_state": "json = len(json.dumps(state.to_json())); deep = sys.getsizeof "
                                            "over reachable objects without the shared game/program; "
                                            "clone = the deep bytes of state.clone() not shared with state"},
            "results": rows,
            "comparisons": comparisons,
            "errors": errors,
            **climbing,
            **openspiel,
        }
        args.json.write_text(json.dumps(out, indent=2))
        print(f"wrote {args.json}")
    return 1 if errors and not rows else 0


if __name__ == "__main__":
    sys.exit(main())
