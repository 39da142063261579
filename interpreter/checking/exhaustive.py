"""``rulesrun check --exhaustive``: every line of play of one small configuration, breadth first.

Chance is fixed: the game starts from one seed (``--seed``), and every shuffle during the game
draws from the state's own random stream, so each line of play meets the same chance outcomes as
the seed gives it — what is explored is every sequence of *decisions*, for that deal. States are
de-duplicated by everything that decides the future (zones, values, the open decision, the running
procedures, the random stream) — not the history or the log, which never change what happens next.

Proved for the configuration when the search ends within the budget: every reachable state holds
the invariants, conserves the cards, and offers the player to move a legal option; and every line
of play ends (the graph of states has no cycle). Otherwise the shortest counterexample — breadth
first finds the shortest — is reported as the moves that reach it.
"""
from __future__ import annotations

import json
import time
from collections import deque
from pathlib import Path

from rulesrun.dsl import compile_rules, parse_file
from rulesrun.dsl.program import NoLegalAction

from rulesrun.interpreter.runtime.engine import Game
from rulesrun.interpreter.checking.properties import GameChecker, Violation, runtime
from rulesrun.interpreter.checking.report import configurations, report_failure
from rulesrun.interpreter.checking.search import Failure

FUTURE = ("z", "g", "pv", "cv", "frames", "pending", "rng", "stacked")


def state_key(state) -> str:
    """What decides the rest of the game (not its history or its log), as one string."""
    data = state.to_json()
    return json.dumps([data[k] for k in FUTURE], separators=(",", ":"))


def explore(game: Game, seed: int, max_states: int, max_steps: int):
    """Breadth first from the seed's deal. Gives (outcome, detail, states, path) where outcome is
    'proved', 'failed' (detail: a Violation) or 'budget'."""
    checker = GameChecker(game, max_steps, sample_every=10 ** 9)
    path_to: list = [None]                # state number -> (parent number, action text)
    edges: list = []                      # state number -> the state numbers it leads to
    depth: list = [0]

    def moves(i):
        out = []
        while path_to[i] is not None:
            i, a = path_to[i]
            out.append(a)
        return out[::-1]

    try:
        start = game.new_initial_state(seed=seed)
    except Exception as e:
        return "failed", runtime(e), 1, []
    numbers = {state_key(start): 0}
    queue = deque([(0, start)])
    known = [set() for _ in range(game.players)]
    edges.append([])
    while queue:
        i, state = queue.popleft()
        try:
            checker.last_ann = None
            checker.check_state(state, known, None, 1)
        except Violation as v:
            return "failed", v, len(numbers), moves(i)
        if state.is_terminal():
            try:
                checker.check_end(state, seed)
            except Violation as v:
                return "failed", v, len(numbers), moves(i)
            continue
        if depth[i] >= max_steps:
            return "failed", Violation("ends", f"a line of play has not ended after {max_steps:,} decisions"), \
                len(numbers), moves(i)
        actions = state.legal_actions()
        if not actions:
            return "failed", Violation("legal action", f"Player {state.current_player() + 1} is to move but "
                                                       f"has no legal action"), len(numbers), moves(i)
        for a in actions:
            child = state.clone()
            try:
                child.apply_action(a)
            except NoLegalAction as e:
                return "failed", runtime(e), len(numbers), moves(i) + [str(a)]
            except Exception as e:
                return "failed", runtime(e), len(numbers), moves(i) + [str(a)]
            key = state_key(child)
            j = numbers.get(key)
            if j is None:
                if len(numbers) >= max_states:
                    return "budget", None, len(numbers), []
                j = numbers[key] = len(numbers)
                path_to.append((i, str(a)))
                edges.append([])
                depth.append(depth[i] + 1)
                queue.append((j, child))
            edges[i].append((j, str(a)))
    cycle = _cycle(edges)
    if cycle is not None:
        at, back = cycle
        back = [t for _, t in back]
        return "failed", Violation("ends", f"a line of play comes back to a state it was in ({len(back)} "
                                           f"decision{'s' if len(back) != 1 else ''} round), so it need never end: "
                                           f"after the moves below, {' / '.join(back)} leads back to the same state"), \
            len(numbers), moves(at)
    return "proved", None, len(numbers), []


def _cycle(edges):
    """(a state on a cycle, [(state, action text)] round it), or None: iterative depth-first search."""
    WHITE, GREY, BLACK = 0, 1, 2
    colour = [WHITE] * len(edges)
    for root in range(len(edges)):
        if colour[root] != WHITE:
            continue
        colour[root] = GREY
        stack = [(root, iter(edges[root]))]
        trail: list = []                  # (state, action text) taken from it, along the stack
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                colour[node] = BLACK
                stack.pop()
                if trail:
                    trail.pop()
                continue
            j, text = nxt
            if colour[j] == GREY:
                path = trail + [(node, text)]
                start = next(k for k, (n, _) in enumerate(path) if n == j)
                return j, path[start:]
            if colour[j] == WHITE:
                colour[j] = GREY
                trail.append((node, text))
                stack.append((j, iter(edges[j])))
    return None


def run_exhaustive(path, players, variants, max_states, max_steps, out, err, seed: int = 0,
                   allow_leaks: bool = False, params: dict | None = None) -> int:
    rules = parse_file(path)
    cfg = configurations(path, players, list(variants), rules, allow_leaks, params, bounds=False)[0]
    game = Game(compile_rules(rules, cfg.players, cfg.variants, allow_leaks=allow_leaks, params=cfg.params))
    t0 = time.perf_counter()
    outcome, v, n, moves = explore(game, seed, max_states, max_steps)
    took = time.perf_counter() - t0
    where = f"{Path(path).name}, {cfg.describe()}, the deal of seed {seed}"
    if outcome == "budget":
        print(f"not proved: {where} — stopped after {n:,} distinct states ({took:.1f}s), the --max-states "
              f"budget, with lines of play left to explore. Try fewer players, a variant with fewer cards, "
              f"or a larger --max-states.", file=out)
        return 3
    if outcome == "failed":
        print(f"  {where}: FAILED after exploring {n:,} states ({took:.1f}s)", file=err)
        report_failure(path, Failure(v.prop, v.message, cfg.players, cfg.variants, seed, moves, "exhaustive",
                                     cfg.params), out)
        return 1
    print(f"proved: {game.title} — {where}: every line of play explored, {n:,} distinct states in "
          f"{took:.1f}s; the invariants and card conservation hold in every state, the player to move "
          f"always has a legal option, and every line of play ends.", file=out)
    return 0
