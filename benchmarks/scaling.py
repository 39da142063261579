#!/usr/bin/env python3
"""How the cost grows, each set measured side by side in one run (docs/performance.md, "Scaling"):

    players   Magi at 4 to 8 players: decisions/s, deep and clone bytes per state (random playouts,
              the players counts alternating in slices, as run.py alternates implementations)
    jobs      `rulesrun simulate FILE --games N` with --jobs 1 and --jobs 2, alternating, best of
              --repeat: the speed-up of the process pool on this machine
    hands     Oh Hell, one hand at 4 players (variants one_hand, no_hook), dealt 1 to 12 cards each
              (the game's parameter `cards`): decisions/s and bytes per state as the hands grow
    ray       the same games with --backend ray (when Ray is installed: the ray extra), beside
              --jobs 2 of the local pool: the cost per game, to predict a cluster run

    python benchmarks/scaling.py                       # all three
    python benchmarks/scaling.py --only players --seconds 2
    python benchmarks/scaling.py --only hands
    python benchmarks/scaling.py --only jobs --games 2000 --json /tmp/scaling.json

The simulate runs are whole processes (start-up and compiling the rules included, the same on both
sides), timed from outside; the games alone are the JSON's `wall_seconds` of each run. Nothing here is asserted by the tests.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import require_dependencies  # noqa: E402

require_dependencies("scaling.py")

from benchmarks.run import SLICES, Runner, clone_bytes, deep_size  # noqa: E402
from rulesrun.interpreter import load_game  # noqa: E402

MAGI = ROOT / "games" / "magi.rules"
OH_HELL = ROOT / "examples" / "oh_hell.rules"
HAND_SIZES = (1, 4, 7, 10, 12)
SIM_GAME = ROOT / "games" / "magic_shop.rules"


def side_by_side(games: list, seconds: float, seed: int) -> list:
    """Random playouts of each (label, game), alternating in slices as run.py alternates
    implementations: one row a game, with decisions/s and bytes per state."""
    runners = []
    for label, game in games:
        Runner("engine", game, seed + 10_000).run(games=1)      # warm up
        runners.append((label, Runner("engine", game, seed)))
    for _ in range(SLICES):
        for _, r in runners:
            r.run(seconds=seconds / SLICES)
    rows = []
    for label, r in runners:
        samples = r.samples
        rows.append({**label, "decisions_per_s": round(r.decisions / r.elapsed),
                     "games_per_s": round(r.games / r.elapsed, 2),
                     "decisions_per_game": round(r.decisions / r.games, 1),
                     "deep_bytes_per_state": round(sum(map(deep_size, samples)) / len(samples)),
                     "clone_bytes_per_state": round(sum(map(clone_bytes, samples)) / len(samples))})
        what = ", ".join(f"{k} {v}" for k, v in label.items())
        print(f"{what}: {rows[-1]['decisions_per_s']:>9,} decisions/s, "
              f"{rows[-1]['decisions_per_game']:>6.1f} decisions/game, deep {rows[-1]['deep_bytes_per_state']:>7,} "
              f"B/state, clone {rows[-1]['clone_bytes_per_state']:>6,} B/state", flush=True)
    return rows


def players(seconds: float, seed: int) -> list[dict]:
    """Magi at each player count, the counts alternating in slices."""
    return side_by_side([({"game": "Magi", "players": n}, load_game(MAGI, players=n)) for n in range(4, 9)],
                        seconds, seed)


def hands(seconds: float, seed: int) -> list[dict]:
    """One hand of Oh Hell at 4 players with each hand size, alternating in slices."""
    return side_by_side([({"game": "Oh Hell", "players": 4, "cards": k},
                          load_game(OH_HELL, players=4, variants=("one_hand", "no_hook"), params={"cards": k}))
                         for k in HAND_SIZES], seconds, seed)


def simulate(games: int, jobs: int, backend: str = "local") -> tuple[float, float]:
    """Wall seconds of one `rulesrun simulate` process, and of its games alone (the JSON's
    `wall_seconds`: from the first game sent out to the last record counted)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "rulesrun.interpreter.cli.main", "simulate", str(SIM_GAME), "--games", str(games),
               "--players", "4", "--jobs", str(jobs), "--backend", backend, "--quiet",
               "--json", str(Path(tmp) / "out.json")]
        start = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
        wall = time.perf_counter() - start
        if out.returncode != 0:
            raise SystemExit(f"scaling.py: {' '.join(cmd[2:])} failed:\n{out.stderr[-2000:]}")
        play = json.loads((Path(tmp) / "out.json").read_text())["wall_seconds"]
    return wall, play


def jobs_and_ray(games: int, repeat: int, with_ray: bool) -> dict:
    kinds = [("jobs1", 1, "local"), ("jobs2", 2, "local")]
    if with_ray:
        kinds.append(("ray", 2, "ray"))
    best: dict = {}
    games_best: dict = {}
    for _ in range(repeat):
        for key, jobs, backend in kinds:
            wall, play = simulate(games, jobs, backend)
            best[key] = min(best.get(key, wall), wall)
            games_best[key] = min(games_best.get(key, play), play)
            print(f"simulate --games {games} --jobs {jobs} --backend {backend}: {wall:.2f} s "
                  f"(the games: {play:.2f} s)", flush=True)
    out = {"game": "The Magic Shop", "players": 4, "games": games, "repeat": repeat,
           "seconds_jobs1": round(best["jobs1"], 2), "seconds_jobs2": round(best["jobs2"], 2),
           "speedup_jobs2_vs_jobs1": round(best["jobs1"] / best["jobs2"], 2),
           "games_seconds_jobs1": round(games_best["jobs1"], 2), "games_seconds_jobs2": round(games_best["jobs2"], 2),
           "games_speedup_jobs2_vs_jobs1": round(games_best["jobs1"] / games_best["jobs2"], 2),
           "ms_per_game_jobs1": round(1000 * best["jobs1"] / games, 3),
           "ms_per_game_jobs2": round(1000 * best["jobs2"] / games, 3)}
    if "ray" in best:
        out.update({"seconds_ray": round(best["ray"], 2), "ms_per_game_ray": round(1000 * best["ray"] / games, 3),
                    "ratio_ray_vs_jobs2_seconds": round(best["ray"] / best["jobs2"], 2),
                    "games_seconds_ray": round(games_best["ray"], 2)})
    print(f"speed-up --jobs 2 / --jobs 1: {out['speedup_jobs2_vs_jobs1']:.2f}x the whole command, "
          f"{out['games_speedup_jobs2_vs_jobs1']:.2f}x the games alone (best of {repeat})")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=("players", "hands", "jobs"), help="one part only (jobs includes ray)")
    ap.add_argument("--seconds", type=float, default=3.0, help="playout time per player count (default 3)")
    ap.add_argument("--games", type=int, default=1500, help="games per simulate run (default 1500)")
    ap.add_argument("--repeat", type=int, default=3, help="simulate runs of each kind, best taken (default 3)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-ray", action="store_true", help="leave out the --backend ray runs")
    ap.add_argument("--json", type=Path, metavar="OUT")
    args = ap.parse_args(argv)
    result = {"machine": {"cpus": os.cpu_count(), "loadavg_1_5_15_before": [round(x, 2) for x in os.getloadavg()]}}
    if args.only in (None, "players"):
        result["players"] = players(args.seconds, args.seed)
    if args.only in (None, "hands"):
        result["hands"] = hands(args.seconds, args.seed)
    if args.only in (None, "jobs"):
        with_ray = importlib.util.find_spec("ray") is not None and not args.no_ray
        if args.no_ray:
            result["ray_skipped"] = "--no-ray"
        elif not with_ray:
            print("Ray is not installed: the --backend ray figure is skipped (pip install -e '.[ray]')")
            result["ray_skipped"] = "Ray is not installed"
        result["simulate"] = jobs_and_ray(args.games, args.repeat, with_ray)
    result["machine"]["loadavg_1_5_15_after"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average before {result['machine']['loadavg_1_5_15_before']}, after "
          f"{result['machine']['loadavg_1_5_15_after']}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
