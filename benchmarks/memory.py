"""Bytes per state of every shipped game and example, without timing: load-independent figures.

For each game and player count, seeded random games are played and every 10th state is sampled
(up to 60, as ``run.py`` samples them); for each sample:

    json B   len(json.dumps(state.to_json()))
    deep B   sys.getsizeof over every object reachable from the state, each once (``run.deep_size``)
    clone B  what one more clone costs: the bytes of state.clone() not shared with the state
    child B  a node of a search tree: a clone that then takes its first legal action, counted the
             same way (sharing that only puts copying off until the first move does not help)

    python benchmarks/memory.py                          # every game, every player count
    python benchmarks/memory.py games/magic_shop.rules --players 4
    python benchmarks/memory.py --root /tmp/old --json /tmp/old.json   # another checkout (git archive)

The hand-written reference of The Magic Shop is measured beside the engine for that game. ``--root``
measures the engine of another checkout of the project with this script's counting, so that two
versions are compared alike.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_EVERY, SAMPLE_STATES = 10, 60
GAMES = ["games/magic_shop.rules", "games/gachapon.rules", "games/magi.rules", "examples/oh_hell.rules",
         "examples/crazy_eights.rules", "examples/hearts.rules", "examples/whist.rules", "examples/big_two.rules",
         "examples/president.rules", "examples/durak.rules"]


def _reachable(state, exclude=None) -> dict:
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
        elif not isinstance(obj, (str, bytes, bytearray, int, float, bool)):
            for cls in type(obj).__mro__:
                for name in getattr(cls, "__slots__", ()):
                    if hasattr(obj, name):
                        stack.append(getattr(obj, name))
            if hasattr(obj, "__dict__"):
                stack.append(obj.__dict__)
    return seen


def _size(state, exclude=None) -> int:
    return sum(sys.getsizeof(o) for o in _reachable(state, exclude).values())


def measure(state) -> dict:
    twin = state.clone()
    clone_b = _size(twin, set(_reachable(state)))
    child = state.clone()
    if not child.is_terminal():
        child.apply_action(child.legal_actions()[0])
    child._legal = None
    child_b = _size(child, set(_reachable(state)))
    return {"json": len(json.dumps(state.to_json())), "deep": _size(state), "clone": clone_b, "child": child_b}


def samples(game, seed: int = 0) -> list:
    rng = random.Random(seed)
    out: list = []
    n = 0
    while len(out) < SAMPLE_STATES:
        state = game.new_initial_state(seed=seed + n)
        n += 1
        k = 0
        while not state.is_terminal() and len(out) < SAMPLE_STATES:
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            k += 1
            if k % SAMPLE_EVERY == 0:
                out.append(state.clone())
    return out


def row(title: str, players: int, impl: str, states: list) -> dict:
    got = [measure(s) for s in states]
    r = {"game": title, "players": players, "implementation": impl}
    for key in ("json", "deep", "clone", "child"):
        r[f"{key}_bytes_per_state"] = round(sum(g[key] for g in got) / len(got))
    return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*")
    ap.add_argument("--players", type=int)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose engine is measured")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.root))
    from rulesrun.interpreter.runtime.engine import load_game
    from rulesrun.interpreter.runtime.files import load_rules_text
    rows = []
    print(f"{'game':<18} {'pl':>2} {'impl':<9} {'json B':>8} {'deep B':>8} {'clone B':>8} {'child B':>8}")
    for f in args.files or GAMES:
        path = args.root / f
        if args.players:
            counts = [args.players]
        else:
            from rulesrun.dsl.syntax.ast import PlayersDecl
            decl = next(i for i in load_rules_text(path).items if isinstance(i, PlayersDecl))
            counts = list(range(decl.low, decl.high + 1))
        for n in counts:
            game = load_game(path, players=n)
            rows.append(row(game.title, n, "engine", samples(game)))
            if Path(f).name == "magic_shop.rules":
                from benchmarks.reference.magic_shop import MagicShop
                rows.append(row(game.title, n, "reference", samples(MagicShop(n))))
            for r in rows[-2 if Path(f).name == "magic_shop.rules" else -1:]:
                print(f"{r['game'][:18]:<18} {r['players']:>2} {r['implementation']:<9} {r['json_bytes_per_state']:>8,} "
                      f"{r['deep_bytes_per_state']:>8,} {r['clone_bytes_per_state']:>8,} {r['child_bytes_per_state']:>8,}",
                      flush=True)
    if args.json:
        args.json.write_text(json.dumps({"root": str(args.root), "results": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
