#!/usr/bin/env python3
"""Random playouts through the public engine API: games/s, decisions/s and clones/s.

    python benchmarks/bench.py                      # every shipped game, every player count
    python benchmarks/bench.py games/magic_shop.rules --players 4 --seconds 5
    python benchmarks/bench.py --json bench.json

Figures depend on the machine; run it on an idle one. Nothing here is asserted by the tests.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dsl import RulesError  # noqa: E402
from interpreter import load_game  # noqa: E402


def bench(path: Path, players: int, seconds: float, seed: int = 0) -> dict:
    game = load_game(path, players=players)
    rng = random.Random(seed)
    games = decisions = 0
    sample = None
    start = time.perf_counter()
    while time.perf_counter() - start < seconds or games == 0:
        state = game.new_initial_state(seed=seed + games)
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            decisions += 1
            if sample is None and decisions == 40:
                sample = state.clone()
        games += 1
    elapsed = time.perf_counter() - start
    clones = 0
    cstart = time.perf_counter()
    while time.perf_counter() - cstart < min(1.0, seconds):
        for _ in range(100):
            sample.clone()
        clones += 100
    celapsed = time.perf_counter() - cstart
    return {"game": game.title, "rules": str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path),
            "players": players, "games": games, "seconds": round(elapsed, 3),
            "games_per_s": round(games / elapsed, 1), "decisions_per_s": round(decisions / elapsed),
            "decisions_per_game": round(decisions / games, 1), "clones_per_s": round(clones / celapsed)}


def player_counts(path: Path) -> list[int]:
    from dsl import parse_file
    from dsl.ast import PlayersDecl
    decl = next(i for i in parse_file(path).items if isinstance(i, PlayersDecl))
    return list(range(decl.low, decl.high + 1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="*", type=Path, help="rules files (default: games/*.rules)")
    ap.add_argument("--players", type=int, help="only this player count")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per game and player count (default 3)")
    ap.add_argument("--json", type=Path, metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args()
    files = args.files or sorted((ROOT / "games").glob("*.rules"))
    rows = []
    print(f"{'game':<22} {'players':>7} {'games/s':>9} {'decisions/s':>12} {'dec/game':>9} {'clones/s':>10}")
    for f in files:
        try:
            counts = [args.players] if args.players else player_counts(f)
            for n in counts:
                r = bench(f, n, args.seconds)
                rows.append(r)
                print(f"{r['game'][:22]:<22} {n:>7} {r['games_per_s']:>9.1f} {r['decisions_per_s']:>12,} "
                      f"{r['decisions_per_game']:>9.1f} {r['clones_per_s']:>10,}", flush=True)
        except RulesError as e:
            print(e.render(), file=sys.stderr)
            return 1
    if args.json:
        args.json.write_text(json.dumps({"python": sys.version.split()[0], "results": rows}, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
