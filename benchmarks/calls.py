"""Where a decision's time goes, call by call: the engine against the hand-written reference.

``run.py`` says how fast whole games run; ``opcodes.py`` and ``instructions.py`` count what the CPU
does. Neither says which call of the driver loop the time is in, and bytecodes are a poor guide to
it: a bytecode that reads a local costs a few nanoseconds, one that makes a list, calls a function
or walks a list inside C costs tens to hundreds. This plays The Magic Shop on both sides with the
benchmark's driver loop and times each call of it on its own (``time.perf_counter_ns`` around it,
less the cost of reading the clock), then prints nanoseconds per decision for each part, and for
``apply_action`` by the kind of decision (its label on the engine's side, its phase on the
reference's), with the share of decisions of that kind:

    is_terminal   legal_actions   the random pick   apply_action   new_initial_state (per decision)

    python benchmarks/calls.py                   # 4 players, 300 games each, twice
    python benchmarks/calls.py --players 3 --games 100 --rounds 1
    python benchmarks/calls.py --json /tmp/calls.json

Reading the clock around every call slows both sides alike (about the same number of readings per
decision), so compare the two sides of one run, not with ``run.py``'s decisions/s. The rounds
alternate the engine and the reference, so that a change of the machine's load falls on both.
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import require_dependencies  # noqa: E402

require_dependencies("calls.py")

from benchmarks.reference.magic_shop import MagicShop  # noqa: E402
from rulesrun.interpreter.runtime.engine import load_game  # noqa: E402

PARTS = ("is_terminal", "legal_actions", "random_pick", "apply_action", "new_initial_state")
_PHASES = ("BID", "PLACE", "PLAY", "USE", "PASS", "MOVE", "NEW_BID", "OVER")   # the reference's


def clock_cost(samples: int = 20_000) -> float:
    """Nanoseconds between two readings of the clock with nothing between them (on average)."""
    pc = time.perf_counter_ns
    total = 0
    for _ in range(samples):
        a = pc()
        total += pc() - a
    return total / samples


def split(new_state, kind_of, games: int, seed: int = 1) -> dict:
    """Play ``games`` seeded games with the benchmark's loop, timing each call on its own: the
    nanoseconds per decision of each part, apply_action by kind, and the decisions counted."""
    pc = time.perf_counter_ns
    cal = clock_cost()
    randrange = random.Random(seed).randrange
    total: collections.Counter = collections.Counter()
    by_kind: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    decisions = 0
    for g in range(games):
        t = pc()
        state = new_state(g)
        total["new_initial_state"] += pc() - t - cal
        while True:
            t0 = pc()
            over = state.is_terminal()
            t1 = pc()
            total["is_terminal"] += t1 - t0 - cal
            if over:
                break
            kind = kind_of(state)
            t2 = pc()
            actions = state.legal_actions()
            t3 = pc()
            i = randrange(len(actions))
            t4 = pc()
            state.apply_action(actions[i])
            t5 = pc()
            total["legal_actions"] += t3 - t2 - cal
            total["random_pick"] += t4 - t3 - cal
            total["apply_action"] += t5 - t4 - cal
            by_kind[kind] += t5 - t4 - cal
            kinds[kind] += 1
            decisions += 1
    return {
        "decisions": decisions,
        "ns_per_decision": {p: round(total[p] / decisions) for p in PARTS},
        "total_ns_per_decision": round(sum(total.values()) / decisions),
        "apply_action_by_kind": {k: {"ns": round(by_kind[k] / kinds[k]), "share": round(kinds[k] / decisions, 3)}
                                 for k in sorted(kinds, key=lambda k: -kinds[k])},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
    ap.add_argument("--games", type=int, default=300, help="games a side a round (default 300)")
    ap.add_argument("--rounds", type=int, default=2, help="rounds, each the engine then the reference (default 2)")
    ap.add_argument("--json", metavar="OUT", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if args.games < 1 or args.rounds < 1:
        ap.error("--games and --rounds must be at least 1")

    game = load_game(ROOT / "games" / "magic_shop.rules", players=args.players)
    ref = MagicShop(args.players)
    sides = {
        "engine": (lambda seed: game.new_initial_state(seed=seed), lambda s: s.decision_label()),
        "reference": (lambda seed: ref.new_initial_state(seed=seed), lambda s: _PHASES[s.phase]),
    }
    for name, (new, kind) in sides.items():       # warm up: the engine's caches filled, as in a long run
        split(new, kind, 30, seed=99)
    rounds = []
    for r in range(args.rounds):
        row = {name: split(new, kind, args.games) for name, (new, kind) in sides.items()}
        rounds.append(row)
        print(f"round {r + 1}, The Magic Shop, {args.players} players, {args.games} games a side "
              f"(ns per decision; the clock read around each call):")
        print(f"  {'':10}" + "".join(f"{p:>19}" for p in PARTS) + f"{'all':>8}")
        for name, fig in row.items():
            ns = fig["ns_per_decision"]
            print(f"  {name:10}" + "".join(f"{ns[p]:>19,}" for p in PARTS) + f"{fig['total_ns_per_decision']:>8,}")
        eng, refr = row["engine"], row["reference"]
        print(f"  engine / reference, all: {eng['total_ns_per_decision'] / refr['total_ns_per_decision']:.2f}x the time")
        for name, fig in row.items():
            kinds = ", ".join(f"{k} {v['ns']:,} ({v['share']:.0%})" for k, v in fig["apply_action_by_kind"].items())
            print(f"  apply_action by kind, {name}: {kinds}")
    if args.json:
        Path(args.json).write_text(json.dumps({"game": "The Magic Shop", "players": args.players,
                                               "games": args.games, "rounds": rounds}, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
