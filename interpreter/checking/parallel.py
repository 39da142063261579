"""``rulesrun check --jobs N``: the configurations checked side by side, one per process.

A configuration's check depends only on the file, the configuration, ``--games`` and ``--seed``
(each starts its search from the same seed), so checking several at once finds the same failures,
counts the same checks and reaches the same lines as checking them one after another. The
outcomes come back in the order of the configurations: the report reads the same as with one job,
and a failure is the first configuration's that failed, as it would be one at a time. The pool is
``rulesrun simulate``'s (``simpool``): forked where that is safe, workers that leave Ctrl-C to the
parent, ended at once on a failure, Ctrl-C or a worker's death.
"""
from __future__ import annotations

import time

import attrs


@attrs.define
class Outcome:
    """One configuration checked, as plain data a worker can send back."""
    title: str
    steps: int
    counts: dict
    coverage: object            # Coverage without its compiled program (rules given back by the parent), or None
    failure: object             # Failure or None
    seconds: float


class WorkerDied(Exception):
    """A worker process died (killed, out of memory) while checking a configuration."""

    def __init__(self, cfg):
        super().__init__(cfg.describe())
        self.cfg = cfg


_RULES: dict = {}       # path -> the parsed rules, for forked workers (spawned ones parse the file)


def check_one(job) -> Outcome:
    """Check one configuration (in this process or a worker) and return its outcome."""
    from rulesrun.interpreter.checking import check_config
    path, cfg, games, seed, max_steps, coverage, allow_leaks, progress = job
    t0 = time.perf_counter()
    checker, failure = check_config(path, cfg, games, seed, max_steps, progress, coverage,
                                    _RULES.get(path), allow_leaks)
    return Outcome(checker.game.title, checker.steps, dict(checker.counts), checker.coverage, failure,
                   time.perf_counter() - t0)


def _in_worker(job) -> Outcome:
    out = check_one(job)
    if out.coverage is not None:    # its program holds compiled functions: not sent, not needed
        out.coverage.program = out.coverage.rules = None
    return out


def outcomes(path: str, rules, configs: list, jobs: int, job_args: tuple, progress):
    """Yield (configuration, Outcome) in the configurations' order: one at a time in this process
    with ``jobs`` 1, else from a pool of ``jobs`` processes. ``job_args``: (games, seed,
    max_steps, coverage, allow_leaks). ``progress(cfg, k)`` is told of game k of a configuration
    checked here; with a pool, ``progress(None, done)`` of configurations done. Stopping the
    iteration early (a failure) ends the pool's workers at once. Raises WorkerDied."""
    if jobs <= 1 or len(configs) <= 1:
        _RULES[path] = rules
        try:
            for cfg in configs:
                yield cfg, check_one((path, cfg, *job_args, (lambda k, cfg=cfg: progress(cfg, k))))
        finally:
            _RULES.pop(path, None)
        return
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    from rulesrun.interpreter.simulate.pool import end_pool, pool_context, worker_init
    context = pool_context()
    _RULES[path] = rules          # inherited by forked workers
    ex = ProcessPoolExecutor(max_workers=min(jobs, len(configs)), mp_context=context, initializer=worker_init)
    try:
        futures = [ex.submit(_in_worker, (path, cfg, *job_args, None)) for cfg in configs]
        for cfg, fut in zip(configs, futures):
            while not fut.done():           # report the others as they finish, in any order
                wait([f for f in futures if not f.done()], return_when=FIRST_COMPLETED)
                progress(None, sum(f.done() for f in futures))
            try:
                out = fut.result()
            except BrokenProcessPool:
                raise WorkerDied(cfg) from None
            if out.coverage is not None:
                out.coverage.rules = rules
            yield cfg, out
    except BaseException:           # a failure (the caller stopped), Ctrl-C, a dead worker: end the workers now
        end_pool(ex)
        raise
    finally:
        _RULES.pop(path, None)
    ex.shutdown(wait=True)
