"""Count machine instructions per decision with valgrind: the engine against the hand-written reference.

Timings on a shared machine swing by 20 % from run to run, even taking the best of many; the
number of instructions the CPU executes does not (valgrind's callgrind counts them, whatever else
the machine is doing). This plays seeded random games of The Magic Shop under valgrind, twice per
implementation (a few games, then more), and divides the difference of the two counts by the
difference in decisions, so that start-up and compiling the rules cancel out. The hash seed is
fixed so that two runs of the same code give the same count.

    python benchmarks/instructions.py                  # 4 players, 5 then 25 games (about 3 minutes)
    python benchmarks/instructions.py --players 3 --games 40

Needs valgrind (Debian: apt install valgrind). Instructions are not all equal — a cache miss costs
more than an add — so this is a steady guide for comparing two versions of the code, next to
``benchmarks/run.py``, not a replacement for it.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def play(which: str, players: int, games: int) -> int:
    """Play ``games`` seeded random games; the number of decisions taken."""
    sys.path.insert(0, str(ROOT))
    if which == "engine":
        from rulesrun.interpreter.runtime.engine import load_game
        game = load_game(ROOT / "games" / "magic_shop.rules", players=players)
    else:
        from benchmarks.reference.magic_shop import MagicShop
        game = MagicShop(players)
    rng = random.Random(1)
    n = 0
    for seed in range(games):
        s = game.new_initial_state(seed=seed)
        while not s.is_terminal():
            a = s.legal_actions()
            s.apply_action(a[rng.randrange(len(a))])
            n += 1
    return n


def measure(which: str, players: int, games: int) -> tuple[int, int]:
    """(instructions, decisions) of one run under valgrind."""
    env = dict(os.environ, PYTHONHASHSEED="0", RULESRUN_NO_CACHE="1")   # the grammar analysed in every run alike
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
           str(Path(__file__).resolve()), "--child", which, "--players", str(players), "--games", str(games)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    found = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    decisions = re.search(r"^decisions (\d+)$", out.stdout, re.M)
    if out.returncode != 0 or not found or not decisions:
        raise SystemExit(f"instructions.py: the run under valgrind failed:\n{out.stderr[-2000:]}")
    return int(found.group(1)), int(decisions.group(1))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=25, help="games in the longer run (default 25; the shorter plays 5)")
    ap.add_argument("--child", choices=("engine", "reference"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(f"decisions {play(args.child, args.players, args.games)}")
        return 0
    if not 3 <= args.players <= 5:
        ap.error("The Magic Shop is for 3 to 5 players")
    if args.games <= 5:
        ap.error("--games must be more than 5 (the shorter run plays 5)")
    if shutil.which("valgrind") is None:
        print("instructions.py: valgrind is not installed (Debian: apt install valgrind)", file=sys.stderr)
        return 1
    per = {}
    for which in ("engine", "reference"):
        short, long_ = measure(which, args.players, 5), measure(which, args.players, args.games)
        per[which] = (long_[0] - short[0]) / (long_[1] - short[1])
        print(f"{which}: {per[which]:,.0f} instructions per decision ({long_[1] - short[1]} decisions)", flush=True)
    print(f"ratio reference/engine: {per['reference'] / per['engine']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
