"""Running many games for ``rulesrun simulate``: in this process, in a pool of processes, or on Ray.

A game that breaks (a rules error at run time, a bot's error, more decisions than ``--max-steps``)
comes back as a failure naming its index, seed and moves, never as a traceback: the run stops at
the first one, or with ``keep_going`` plays on and keeps the games that finished. A worker process
that dies (killed, out of memory) breaks the pool: the games it and the pool still owed are named as
lost, at once, never waited for. On Ctrl-C the workers (which ignore SIGINT, so they print nothing)
are ended and ``KeyboardInterrupt`` goes up to the command.
"""
from __future__ import annotations

import math
import random
import signal
import time

from rulesrun.dsl import RulesrunError
from rulesrun.interpreter.bots.agents import make_agent, standings

from rulesrun.interpreter.runtime.engine import DECISION_BOUND as MAX_STEPS, never_ended  # the bound of --max-steps
_WORKER: dict = {}


# ── one game ────────────────────────────────────────────────────────────────
def game_seeds(seed: int, index: int, players: int) -> tuple[int, list[int]]:
    """The seed of game ``index`` and of each of its seats' bots: from (seed, index) only."""
    r = random.Random(f"rulesrun-simulate/{seed}/{index}")  # a string seed is hashed with SHA-512: stable
    return r.getrandbits(31), [r.getrandbits(32) for _ in range(players)]


def seat_kinds(seats: list[str], index: int, rotate: bool) -> list[str]:
    """The kinds at each seat in game ``index``: ``seats``, turned by one seat a game with --rotate."""
    if not rotate:
        return list(seats)
    n = len(seats)
    k = index % n
    return [seats[(p - k) % n] for p in range(n)]


def _numeric(prog):
    g = [(i, v.name) for i, v in enumerate(prog.globals) if v.type == "number"]
    pv = [(i, v.name) for i, v in enumerate(prog.player_vars) if v.type == "number"]
    fams = list(prog.families.items())
    return g, pv, fams


class GameBroke(Exception):
    """One game of a simulation broke; ``info`` (plain data) says which and how."""

    def __init__(self, info: dict):
        super().__init__(info["error"])
        self.info = info


def play_one(game, seats: list[str], index: int, seed: int, rotate: bool, max_steps: int | None = None) -> dict:
    """Play game ``index`` and return its record (plain JSON data). A game that raises an error or
    takes more than ``max_steps`` decisions raises ``GameBroke`` naming its index, seed and moves."""
    game_seed, agent_seeds = game_seeds(seed, index, game.players)
    kinds = seat_kinds(seats, index, rotate)
    box: list = []
    try:
        return _play(game, kinds, index, game_seed, agent_seeds, max_steps or MAX_STEPS, box)
    except Exception as e:          # a rules error at run time, a bot's error, the budget: one game's
        from rulesrun.dsl import RulesRuntimeError
        if isinstance(e, RulesRuntimeError):
            error = str(e)
        elif isinstance(e, _TooLong):
            error = str(e)
        elif isinstance(e, RecursionError):
            error = "the rules run too deep (procedures calling one another without end?)"
        else:
            error = f"{type(e).__name__}: {e}"
        state = box[0] if box else None
        raise GameBroke({"index": index, "seed": game_seed, "agents": kinds, "agent_seeds": agent_seeds,
                         "error": error, "too_long": isinstance(e, _TooLong), "moves": state.history() if state is not None else []}) from None


class _TooLong(Exception):
    pass


def _play(game, kinds, index, game_seed, agent_seeds, max_steps, box) -> dict:
    prog = game.program
    n = game.players
    agents = [make_agent(k, s) for k, s in zip(kinds, agent_seeds)]
    state = game.new_initial_state(seed=game_seed)
    box.append(state)
    gnum, pnum, fams = _numeric(prog)
    g_sum = [0.0] * len(gnum)
    g_max = [-math.inf] * len(gnum)
    z_sum = [0.0] * len(fams)
    z_max = [0] * len(fams)
    choices: list[dict] = [{} for _ in range(n)]
    think = [0.0] * n
    moves = [0] * n
    decisions = 0
    started = time.perf_counter()
    while not state.is_terminal():
        p = state.current_player()
        values = state.game_values
        for j, (i, _) in enumerate(gnum):
            v = values[i]
            g_sum[j] += v
            if v > g_max[j]:
                g_max[j] = v
        z = state.zones
        for j, (_, first) in enumerate(fams):
            sizes = list(map(len, z[first:first + n]))
            z_sum[j] += sum(sizes) / n
            m = max(sizes)
            if m > z_max[j]:
                z_max[j] = m
        label = state.decision_label()
        t0 = time.perf_counter()
        action = agents[p].choose(state)
        think[p] += time.perf_counter() - t0
        text = str(action)
        option = text[len(label) + 1:] if text.startswith(label + " ") else text
        per = choices[p].setdefault(label, {})
        per[option] = per.get(option, 0) + 1
        state.apply_action(action)
        decisions += 1
        moves[p] += 1
        if decisions >= max_steps and not state.is_terminal():
            raise _TooLong(never_ended(max_steps))
    final_g = {name: state.game_values[i] for i, name in gnum}
    for j, (i, _) in enumerate(gnum):  # the final values count as seen too
        g_max[j] = max(g_max[j], state.game_values[i])
    return {
        "index": index,
        "seed": game_seed,
        "agents": kinds,
        "agent_seeds": agent_seeds,
        "returns": list(state.returns()),
        "winners": list(state.winners()),
        "standings": [list(k) for k in (standings(state) or [()] * n)],
        "decisions": decisions,
        "moves": moves,
        "state": final_g,
        "state_mean": {name: (g_sum[j] / decisions if decisions else final_g[name]) for j, (_, name) in enumerate(gnum)},
        "state_max": {name: g_max[j] for j, (_, name) in enumerate(gnum)},
        "player_state": {name: [state.player_values[i][q] for q in range(n)] for i, name in pnum},
        "zone_mean": {fam: (z_sum[j] / decisions if decisions else 0.0) for j, (fam, _) in enumerate(fams)},
        "zone_max": {fam: z_max[j] for j, (fam, _) in enumerate(fams)},
        "choices": choices,
        "time": {"game": time.perf_counter() - started, "think": think},
        **({"teams": list(state.player_values[prog.team_var])} if prog.teams else {}),   # each seat's team at the end
    }


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def _run_ray(spec: dict, games: int, jobs: int, done, task) -> None:
    try:
        import ray
    except ImportError:
        raise MissingExtra("--backend ray needs Ray, an optional extra: pip install 'rulesrun[ray]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        remote = ray.remote(play_chunk)       # a run of games a task, as in the local pool
        pending = [remote.remote((task, spec, chunk)) for chunk in _chunks(games, jobs)]
        while pending:
            ready, pending = ray.wait(pending, num_returns=1)
            for ref in ready:
                for rec in ray.get(ref):
                    done(rec)
    finally:
        if started_here:
            ray.shutdown()




class MissingExtra(RulesrunError):
    """An optional dependency is not installed; the message says what to install."""


class SimulationIncomplete(Exception):
    """Not every game finished: ``records`` holds those that did (in index order), ``failed`` the
    games that broke (dicts with index, seed, error, moves), ``lost`` the indices a dead worker took."""

    def __init__(self, records: list[dict], failed: list[dict], lost: list[int], games: int):
        super().__init__(f"{len(failed)} games failed and {len(lost)} were lost out of {games}")
        self.records, self.failed, self.lost, self.games = records, failed, lost, games


class _Stop(Exception):
    """The first failure, when not keeping going."""


def _key(spec: dict) -> tuple:
    params = spec.get("params") or {}
    return (spec["path"], spec["text"], spec["players"], tuple(spec["variants"]), tuple(sorted(params.items())))


def prime(spec: dict, game) -> None:
    """Remember ``game`` as the compiled form of ``spec``, so the games played here (and in workers
    forked from here) do not compile the rules again."""
    _WORKER.clear()
    _WORKER[_key(spec)] = game


def _load(spec: dict):
    from rulesrun.interpreter.runtime.engine import load_game_text
    params = spec.get("params") or {}
    key = _key(spec)
    game = _WORKER.get(key)
    if game is None:
        _WORKER.clear()
        game = _WORKER[key] = load_game_text(spec["text"], spec["players"], spec["variants"], spec["path"],
                                             params=params)
    return game


def play_task(task) -> dict:
    """Play one game of a spec: its record, or ``{"index": i, "failed": {...}}`` if it broke."""
    spec, index = task
    try:
        return play_one(_load(spec), spec["seats"], index, spec["seed"], spec["rotate"], spec.get("max_steps"))
    except GameBroke as e:
        return {"index": index, "failed": e.info}


def worker_init() -> None:
    """Workers leave Ctrl-C to the parent, which ends them: no stray tracebacks from each one."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def end_pool(ex) -> None:
    """Stop a ProcessPoolExecutor now: cancel what has not started, end the workers."""
    processes = list((getattr(ex, "_processes", None) or {}).values())
    ex.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5)
        if p.is_alive():
            p.kill()


def run_games(spec: dict, games: int, jobs: int = 1, backend: str = "local", progress=None,
              keep_going: bool = False, task=None, on_record=None) -> list[dict]:
    """Play games 0 … games-1 and return their records in index order. ``spec`` holds the rules
    text and path, players, variants, game parameters (``params``), seats, seed, rotate and max_steps. ``progress(done)`` is
    called as games finish. ``on_record(record)`` is called with each finished game's record in
    index order, as soon as every game before it is back (or has failed): so the caller can work
    on the records while the pool still plays. Raises ``SimulationIncomplete`` when a game failed
    or was lost; ``on_record`` has then been called with every record it holds."""
    task = task or play_task
    records: dict[int, dict] = {}
    failed: list[dict] = []
    lost: list[int] = []
    early: dict[int, dict] = {}     # records back before an earlier game's
    gaps: set[int] = set()          # failed games: on_record skips them
    cursor = 0

    def done(rec):
        nonlocal cursor
        if "failed" in rec:
            failed.append(rec["failed"])
            gaps.add(rec["index"])
            if not keep_going:
                raise _Stop
        else:
            records[rec["index"]] = rec
            if on_record is not None:
                early[rec["index"]] = rec
        if on_record is not None:
            while True:
                if cursor in early:
                    on_record(early.pop(cursor))
                elif cursor in gaps:
                    gaps.discard(cursor)
                else:
                    break
                cursor += 1
        if progress:
            progress(len(records) + len(failed))

    try:
        if backend == "ray":
            _run_ray(spec, games, jobs, done, task)
        elif jobs <= 1 or games <= 1:
            for i in range(games):
                done(task((spec, i)))
        else:
            lost = _run_pool(spec, games, jobs, done, task)
    except _Stop:
        pass
    for i in sorted(early):         # after a game that never came back (lost), in order
        on_record(early[i])
    if failed or lost:
        failed.sort(key=lambda f: f["index"])
        raise SimulationIncomplete([records[i] for i in sorted(records)], failed, sorted(lost), games)
    return [records[i] for i in range(games)]


def _chunks(games: int, jobs: int) -> list[range]:
    """The games cut into runs of consecutive indices for the pool: a few per worker, so the
    pickling and waiting cost is paid per run rather than per game, while the runs stay small
    enough (at most 50 games) that progress keeps moving and the workers finish together."""
    size = max(1, min(50, games // (jobs * 8)))
    return [range(i, min(games, i + size)) for i in range(0, games, size)]


def play_chunk(job) -> list[dict]:
    """Play a run of games in a worker: ``task((spec, i))`` for each index, in order. A game that
    breaks comes back as its own ``failed`` record, so the rest of the run still counts."""
    task, spec, indices = job
    return [task((spec, i)) for i in indices]


def pool_context():
    """fork where it is safe (Linux, and this process runs no other thread): the workers start
    with the game already compiled, at no cost; spawn everywhere else."""
    import multiprocessing as mp
    import sys
    import threading
    if sys.platform.startswith("linux") and threading.active_count() == 1:
        return mp.get_context("fork")
    return mp.get_context("spawn")


def _run_pool(spec: dict, games: int, jobs: int, done, task) -> list[int]:
    """Play the games in a pool of processes, a run of games per task; the indices lost to a dead worker."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    ex = ProcessPoolExecutor(max_workers=min(jobs, games), mp_context=pool_context(), initializer=worker_init)
    try:
        pending = {ex.submit(play_chunk, (task, spec, chunk)): chunk for chunk in _chunks(games, jobs)}
        while pending:
            ready, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(ready, key=lambda f: pending[f].start):
                chunk = pending.pop(fut)
                try:
                    recs = fut.result()
                except BrokenProcessPool:
                    # a worker died: every game not yet back is lost, but keep those that are
                    pending[fut] = chunk
                    lost = []
                    for other, run in sorted(pending.items(), key=lambda kv: kv[1].start):
                        if other.done() and not other.cancelled() and other.exception() is None:
                            for rec in other.result():
                                done(rec)
                        else:
                            lost.extend(run)
                    end_pool(ex)
                    return lost
                for rec in recs:
                    done(rec)
    except BaseException:           # the first failure (_Stop), Ctrl-C, anything: end the workers now
        end_pool(ex)
        raise
    ex.shutdown(wait=True)
    return []


def _ranges(xs: list[int]) -> str:
    """0, 2-5, 9: a short list of game indices."""
    out, i = [], 0
    while i < len(xs):
        j = i
        while j + 1 < len(xs) and xs[j + 1] == xs[j] + 1:
            j += 1
        out.append(str(xs[i]) if i == j else f"{xs[i]}-{xs[j]}")
        i = j + 1
    return ", ".join(out)


def replay_command(args, game, failure: dict, moves_path: str) -> str:
    """The command that plays a failed game's moves again, step by step, up to where it broke."""
    import shlex
    words = ["rulesrun", str(args.file), "--players", str(game.players)]
    for v in game.variants:
        words += ["--variant", v]
    for i in game.program.param_info:
        words += ["--param", f"{i.name}={i.text(game.params[i.name])}"]
    words += ["--seed", str(failure["seed"]), "--seats", ",".join(["human"] * game.players), "--moves", moves_path]
    return " ".join(shlex.quote(w) for w in words)


def report_incomplete(e: SimulationIncomplete, args, game, seats) -> None:
    """Say on stderr which games failed (index, seed, error, a command replaying each) and which a
    dead worker lost. Each failed game's moves go to a file in a new private folder."""
    import os
    import sys
    import tempfile

    from rulesrun.interpreter.terminal.safe_text import safe
    folder = tempfile.mkdtemp(prefix="rulesrun-simulate-") if e.failed else None   # mode 0700
    for f in e.failed:
        moves = os.path.join(folder, f"game-{f['index']}.moves")
        try:
            with open(moves, "w", encoding="utf-8") as out:
                out.write(f"# game {f['index']} of rulesrun simulate --seed {args.seed}: seats "
                          f"{','.join(f['agents'])}\n")
                out.write("".join(m + "\n" for m in f["moves"]))
        except OSError:
            moves = "MOVES"
        f["replay"] = replay_command(args, game, f, moves)
        print(safe(f"rulesrun simulate: game {f['index']} (seed {f['seed']}, seats {','.join(f['agents'])}) "
                   f"failed after {len(f['moves'])} decisions:\n{f['error']}\n  replay it: {f['replay']}",
                   lines=True), file=sys.stderr)
    if e.lost:
        print(f"rulesrun simulate: a worker process died (killed, or out of memory?); {len(e.lost)} "
              f"game{'s' if len(e.lost) != 1 else ''} lost: {_ranges(e.lost)} (game i is played from seed "
              f"({args.seed}, i), so a run of just those repeats them)", file=sys.stderr)
    too_long = sum(1 for f in e.failed if f.get("too_long"))
    if too_long:
        print(f"rulesrun simulate: {too_long} of {e.games} game{'s' if e.games != 1 else ''} hit the step bound "
              f"({args.max_steps:,} decisions, --max-steps): a game that never ends is a defect of the rules "
              f"('rulesrun check' finds it)", file=sys.stderr)
    done = len(e.records)
    if args.keep_going:
        print(f"rulesrun simulate: {done} of {e.games} games finished; the report covers those", file=sys.stderr)
    else:
        print(f"rulesrun simulate: stopped ({done} of {e.games} games had finished); --keep-going plays on "
              f"past a failed game and reports the rest", file=sys.stderr)
