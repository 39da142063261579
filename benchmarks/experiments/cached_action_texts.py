#!/usr/bin/env python3
"""A measurement aid for docs/performance.md, not an engine change: how much faster random playouts
of The Magic Shop get when ``legal_actions`` reads each action text from a per-decision cache and
returns plain strings (no ``Action`` objects, no duplicate check, no text->index dict), and
``apply_action`` finds the index with ``list.index``. It monkeypatches ``State`` in this process
only, and alternates the two versions so that a shared machine's load falls on both.

    python benchmarks/experiments/cached_action_texts.py [--players 4] [--seconds 1.5] [--rounds 3]

It relies on the engine's internals as of this writing (``pending = [seat, decision, options]``,
``Decision.label/display/slot``); if they change, it says so and stops.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from interpreter import load_game  # noqa: E402
from interpreter.engine import GameError, State  # noqa: E402

TEXTS: dict = {}     # (program id, decision index) -> {option value: text}


def legal_actions(self, player=None):
    pend = self.pending
    if pend is None or (player is not None and player != pend[0]):
        return []
    if self._legal is None:
        p, did, opts = pend
        cache = TEXTS.setdefault((id(self._prog), did), {})
        try:
            texts = [cache[v] for v in opts]
        except (KeyError, TypeError):
            dec = self._prog.decisions[did]
            texts = []
            for v in opts:
                t = f"{dec.label} {dec.display(v)}"
                try:
                    cache[v] = t
                except TypeError:        # unhashable option (a subset): not cached
                    pass
                texts.append(t)
        self._legal = texts
    return list(self._legal)


def apply_action(self, action):
    if self.pending is None:
        raise GameError("the game is over; no more actions")
    if self._legal is None:
        legal_actions(self)
    legal = self._legal
    try:
        idx = legal.index(action)
    except ValueError:
        raise GameError(f"'{action}' is not a legal action now") from None
    p, did, opts = self.pending
    F = self.frames[-1]
    F[2][self._prog.decisions[did].slot] = opts[idx]
    F[1] += 1
    self.hist.append(legal[idx])
    self.pending = None
    self._legal = None
    self._run()


def playouts(game, seconds: float) -> float:
    rng = random.Random(0)
    decisions = seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state(seed=seed)
        seed += 1
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])
            decisions += 1
    return decisions / (time.perf_counter() - start)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=1.5)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    game = load_game(ROOT / "games" / "magic_shop.rules", players=args.players)
    original = (State.legal_actions, State.apply_action)
    try:   # the same game, both ways: the experiment must not change what is played
        a = game.new_initial_state(seed=1)
        b = game.new_initial_state(seed=1)
        rng = random.Random(1)
        while not a.is_terminal():
            State.legal_actions, State.apply_action = original
            want = [str(x) for x in a.legal_actions()]
            State.legal_actions, State.apply_action = legal_actions, apply_action
            assert b.legal_actions() == want
            act = rng.choice(want)
            b.apply_action(act)
            State.legal_actions, State.apply_action = original
            a.apply_action(act)
        assert a.returns() == b.returns()
    except (AttributeError, AssertionError, TypeError, ValueError) as e:
        State.legal_actions, State.apply_action = original
        print(f"the engine's internals changed; this experiment no longer applies ({type(e).__name__}: {e})")
        return 1
    for _ in range(args.rounds):
        State.legal_actions, State.apply_action = original
        before = playouts(game, args.seconds)
        State.legal_actions, State.apply_action = legal_actions, apply_action
        after = playouts(game, args.seconds)
        print(f"engine as is {before:>9,.0f} decisions/s; cached texts {after:>9,.0f} decisions/s "
              f"({after / before:.2f}x)", flush=True)
    State.legal_actions, State.apply_action = original
    return 0


if __name__ == "__main__":
    sys.exit(main())
