"""Count Python bytecodes per decision: the engine against the hand-written reference.

Timings on a shared machine swing by 20 % from run to run; the number of bytecodes executed does
not. This plays random games of The Magic Shop on both (after warm-up games, so that the engine's
caches are filled as in a long run), counts with ``sys.settrace`` opcode events, and prints the
total per decision and the functions that execute most of them. Bytecodes are not all equal — a
call or a list operation costs more than a local read — so this is a guide for where to look,
not a replacement for ``benchmarks/run.py``.

    python benchmarks/opcodes.py                 # 4 players, 20 games each
    python benchmarks/opcodes.py --players 3 --games 40 --lines 30
"""
from __future__ import annotations

import argparse
import collections
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks import require_dependencies  # noqa: E402

require_dependencies("opcodes.py")

from benchmarks.reference.magic_shop import MagicShop  # noqa: E402
from rulesrun.interpreter.runtime.engine import load_game  # noqa: E402


def count(new_state, games: int, lines: bool = False):
    """(opcodes per decision, Counter by function or by generated line, decisions)."""
    counts: collections.Counter = collections.Counter()

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        code = frame.f_code
        key = (code.co_filename.rsplit("/", 1)[-1], code.co_name)

        def opcode(f, e, a):
            if e == "opcode":
                counts[(f.f_code.co_filename, f.f_lineno) if lines else key] += 1
            return opcode
        return opcode

    rng = random.Random(1)
    states = [new_state(seed) for seed in range(games)]
    decisions = 0
    sys.settrace(tracer)
    try:
        for state in states:
            while not state.is_terminal():
                actions = state.legal_actions()
                state.apply_action(actions[rng.randrange(len(actions))])
                decisions += 1
    finally:
        sys.settrace(None)
    return sum(counts.values()) / decisions, counts, decisions


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--games", type=int, default=20, help="games counted on each side (default 20)")
    ap.add_argument("--top", type=int, default=12, help="functions to list (default 12)")
    ap.add_argument("--lines", type=int, default=0, help="also list the N busiest generated lines")
    args = ap.parse_args(argv)

    game = load_game(ROOT / "games" / "magic_shop.rules", players=args.players)
    warm = random.Random(5)
    for seed in range(300):          # fill the engine's action caches, as in a long run
        s = game.new_initial_state(seed=10_000 + seed)
        while not s.is_terminal():
            a = s.legal_actions()
            s.apply_action(a[warm.randrange(len(a))])
    ref = MagicShop(args.players)

    per = {}
    for name, new in (("engine", lambda seed: game.new_initial_state(seed=seed)),
                      ("reference", lambda seed: ref.new_initial_state(seed=seed))):
        total, counts, decisions = count(new, args.games)
        per[name] = total
        print(f"{name}: {total:.0f} bytecodes per decision ({decisions} decisions)")
        for (file, func), n in counts.most_common(args.top):
            print(f"  {n / decisions:7.1f}  {func}  ({file})")
    print(f"ratio reference/engine: {per['reference'] / per['engine']:.2f}")

    if args.lines:
        sources = game.program.code.lines    # numbered as the line numbers of the running code
        _, counts, decisions = count(lambda seed: game.new_initial_state(seed=seed), args.games, lines=True)
        print(f"\nbusiest generated lines (bytecodes per decision):")
        shown = 0
        for (file, line), n in counts.most_common():
            if file in sources and shown < args.lines:
                text = sources[file][line - 1].strip() if line <= len(sources[file]) else "?"
                print(f"  {n / decisions:7.2f}  {text[:100]}")
                shown += 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
