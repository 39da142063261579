"""Bytecodes and machine instructions per decision for every shipped game and example.

Both counts do not depend on the machine's load (timings on a shared machine do), so they are the
figures to compare two versions of the compiler by: "no game got slower" is checked here. Each
game is played with seeded random moves (``legal_actions()``, a seeded pick, ``apply_action()``,
the loop of ``benchmarks/run.py``).

- **bytecodes**: ``sys.settrace`` opcode events over at least ``--decisions`` decisions, after
  warm-up games (so the engine's action caches are as full as in a long run).
- **instructions**: valgrind's callgrind count of the same loop, after warm-up games: only what
  runs inside the counted loop is collected (``--toggle-collect``; the loop runs inside a call of
  ``functools.reduce``, a C function callgrind can name), so start-up, compiling and the first
  games' cache filling are left out. Needs valgrind; ``--no-instructions`` leaves it out (one
  run under valgrind per game, a few minutes each).

    python benchmarks/counts.py                          # every game, a markdown table
    python benchmarks/counts.py games/magic_shop.rules --players 3
    python benchmarks/counts.py examples/crazy_eights.rules --players 4 --variant one_hand
    python benchmarks/counts.py --json /tmp/counts.json --no-instructions

To compare with an older version: ``git archive OLD | tar -x -C /tmp/old``, copy this file into
``/tmp/old/benchmarks/`` and run it there with the same arguments.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# (rules file, player count, variants): the shipped games and the examples, as benchmarks/run.py plays them
GAMES = [
    ("games/magic_shop.rules", 4, ()),
    ("games/gachapon.rules", 3, ()),
    ("games/magi.rules", 4, ()),
    ("examples/oh_hell.rules", 4, ()),
    ("examples/crazy_eights.rules", 4, ()),
    ("examples/hearts.rules", 4, ()),
    ("examples/whist.rules", 4, ()),
    ("examples/bridge.rules", 4, ()),
    ("examples/spades.rules", 4, ()),
    ("examples/euchre.rules", 4, ()),
    ("examples/big_two.rules", 4, ()),
    ("examples/president.rules", 4, ()),
    ("examples/durak.rules", 4, ()),
]


def _load(path: str, players: int, variants):
    sys.path.insert(0, str(ROOT))
    from rulesrun.interpreter.runtime.engine import load_game
    return load_game(ROOT / path, players=players, variants=variants)


def play(game, decisions: int, seed0: int = 0) -> int:
    """Seeded random games until at least ``decisions`` decisions; the decisions taken."""
    rng = random.Random(1)
    n, seed = 0, seed0
    while n < decisions:
        s = game.new_initial_state(seed=seed)
        seed += 1
        while not s.is_terminal():
            a = s.legal_actions()
            s.apply_action(a[rng.randrange(len(a))])
            n += 1
    return n


def bytecodes(path: str, players: int, variants, decisions: int) -> float:
    game = _load(path, players, variants)
    play(game, decisions, seed0=10_000)          # warm-up: the action caches fill
    count = [0]

    def tracer(frame, event, arg):
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False

        def opcode(f, e, a):
            if e == "opcode":
                count[0] += 1
            return opcode
        return opcode

    sys.settrace(tracer)
    try:
        n = play(game, decisions)
    finally:
        sys.settrace(None)
    return count[0] / n


def counted(path: str, players: int, variants, decisions: int) -> int:
    """The child under valgrind: warm-up games, then the counted loop inside ``functools.reduce``."""
    game = _load(path, players, variants)
    play(game, max(1, decisions // 3), seed0=10_000)
    return functools.reduce(lambda n, d: n + play(game, d), [decisions], 0)


def _valgrind(path: str, players: int, variants, decisions: int) -> tuple[int, int]:
    env = dict(os.environ, PYTHONHASHSEED="0")
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", "--toggle-collect=functools_reduce",
           sys.executable,
           str(Path(__file__).resolve()), "--child", path, "--players", str(players),
           "--variants", ",".join(variants), "--decisions", str(decisions)]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=ROOT)
    found = re.search(r"Collected\s*:\s*(\d+)", out.stderr)
    taken = re.search(r"^decisions (\d+)$", out.stdout, re.M)
    if out.returncode != 0 or not found or not taken:
        raise SystemExit(f"counts.py: the run under valgrind failed:\n{out.stderr[-2000:]}")
    return int(found.group(1)), int(taken.group(1))


def instructions(path: str, players: int, variants, decisions: int) -> float:
    total, taken = _valgrind(path, players, variants, decisions)
    return total / taken


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="rules files (default: every shipped game and example)")
    ap.add_argument("--players", type=int, help="player count for the files given (default: as in GAMES, else the fewest)")
    ap.add_argument("--variant", action="append", default=[], metavar="NAME",
                    help="a variant of the files given (repeatable), e.g. --variant one_hand for the OpenSpiel pair")
    ap.add_argument("--decisions", type=int, default=1000,
                    help="decisions counted per game, at least (whole games are played; default 1000)")
    ap.add_argument("--no-instructions", action="store_true", help="bytecodes only (no valgrind)")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--variants", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        variants = tuple(v for v in args.variants.split(",") if v)
        print(f"decisions {counted(args.child, args.players, variants, args.decisions)}")
        return 0
    known = {p: (n, v) for p, n, v in GAMES}
    games = [(f, args.players or known.get(f, (None,))[0], tuple(args.variant) or known.get(f, (0, ()))[1])
             for f in args.files] \
        if args.files else [(p, args.players or n, v) for p, n, v in GAMES]
    with_instructions = not args.no_instructions
    if with_instructions and shutil.which("valgrind") is None:
        print("counts.py: valgrind is not installed (Debian: apt install valgrind); counting bytecodes only",
              file=sys.stderr)
        with_instructions = False
    rows = []
    print("| game | players | bytecodes per decision | instructions per decision |")
    print("| --- | ---: | ---: | ---: |")
    for path, players, variants in games:
        if players is None:
            players = _load(path, 2, variants).program.min_players
        bc = bytecodes(path, players, variants, args.decisions)
        ins = instructions(path, players, variants, args.decisions) if with_instructions else None
        rows.append({"file": path, "players": players, "variants": list(variants),
                     "bytecodes_per_decision": round(bc, 1),
                     "instructions_per_decision": None if ins is None else round(ins)})
        print(f"| {path} | {players} | {bc:,.1f} | {'—' if ins is None else f'{ins:,.0f}'} |", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"python": sys.version.split()[0], "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
