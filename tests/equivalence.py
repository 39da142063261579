"""Seeded random games of every shipped game and example, reduced to one digest per game.

The digests in ``tests/data/equivalence.json`` were written by the compiler as it was before the
pipeline of passes existed; ``tests/dsl/test_equivalence.py`` plays the same games with today's
compiler and asserts the same digests: the same legal actions, history, log, observations and
returns at every step. After a change that is *meant* to change play, write them again:

    .venv/bin/python -m tests.equivalence --write                          # every game
    .venv/bin/python -m tests.equivalence --write games/magi.rules         # one file's games
"""
from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "equivalence.json"
SEEDS = (1, 2, 3)
# (file, player counts, variant lists)
CONFIGS = [
    ("games/magic_shop.rules", (3, 4, 5), [()]),
    ("games/gachapon.rules", (2, 3, 4), [()]),
    ("games/magi.rules", (4, 5, 6, 8), [(), ("catastrophe",)]),
    ("examples/crazy_eights.rules", (2, 3, 5), [()]),
    ("examples/hearts.rules", (4,), [()]),
    ("examples/oh_hell.rules", (3, 5, 7), [(), ("no_hook",), ("up_and_down",)]),
    ("examples/whist.rules", (4,), [(), ("long_whist",)]),
    ("examples/bridge.rules", (4,), [()]),
    ("examples/spades.rules", (4,), [()]),
    ("examples/euchre.rules", (4,), [(), ("stick_the_dealer",)]),
    ("examples/big_two.rules", (4,), [()]),
    ("examples/president.rules", (4, 7), [()]),
    ("examples/durak.rules", (2, 4, 6), [(), ("perevodnoy",)]),
    ("examples/goofspiel.rules", (2, 3, 4), [()]),
]


def configs():
    for path, counts, variant_lists in CONFIGS:
        for n in counts:
            for variants in variant_lists:
                for seed in SEEDS:
                    yield path, n, variants, seed


def key(path, n, variants, seed) -> str:
    return f"{path} players={n} variants={','.join(variants) or '-'} seed={seed}"


def digest(path, n, variants, seed) -> str:
    from rulesrun.interpreter import load_game

    game = load_game(ROOT / path, players=n, variants=variants)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    h = hashlib.sha256()
    seen_log = 0
    while not state.is_terminal():
        p = state.current_player()
        acts = state.legal_actions()
        h.update(json.dumps([p, [str(a) for a in acts]]).encode())
        h.update(json.dumps(state.observation(p), sort_keys=True, default=str).encode())
        state.apply_action(acts[rng.randrange(len(acts))])
        log = state.log()
        h.update(json.dumps(log[seen_log:]).encode())
        seen_log = len(log)
    h.update(json.dumps([state.history(), state.returns(), state.winners()]).encode())
    return h.hexdigest()[:16]


def compute() -> dict:
    return {key(*c): digest(*c) for c in configs()}


def compute_for(paths) -> dict:
    """The stored digests with those of the given rules files (as in CONFIGS) worked out again."""
    known = {path for path, _, _ in CONFIGS}
    unknown = sorted(set(paths) - known)
    if unknown:
        sys.exit(f"not in CONFIGS: {', '.join(unknown)} (one of: {', '.join(sorted(known))})")
    data = json.loads(DATA.read_text()) if DATA.exists() else {}
    data.update({key(*c): digest(*c) for c in configs() if c[0] in paths})
    return data


if __name__ == "__main__":
    # --write: every digest again; --write FILE...: only those files' (a change meant for one game)
    if "--write" not in sys.argv:
        sys.exit("usage: python -m tests.equivalence --write [FILE ...]")
    files = [a for a in sys.argv[1:] if a != "--write"]
    DATA.parent.mkdir(parents=True, exist_ok=True)
    data = compute_for(files) if files else compute()
    DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {DATA}")
