"""``rulesrun check``: property-test a rules file (docs/guides/checking.md).

    properties.py  the properties and the player that plays one game under them
    leaks.py       the two dynamic leak tests (resample, twin)
    search.py      the games played: hypothesis, then coverage-guided search
    coverage.py    which lines, branches, decisions and options the games ran
    exhaustive.py  every line of play of a small configuration, breadth first
    report.py      configurations, the printed report, the moves file
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from rulesrun.dsl import compile_rules, parse_file

from rulesrun.interpreter.runtime.engine import Game
from rulesrun.interpreter.checking.coverage import AbleProbe, Coverage, Tracer
from rulesrun.interpreter.checking.parallel import WorkerDied, outcomes
from rulesrun.interpreter.checking.properties import COMPARED, PROPERTIES, GameChecker, Violation
from rulesrun.interpreter.checking.report import Config, configurations, report_failure, write_moves
from rulesrun.interpreter.checking.search import Failure, Guide, hypothesis_games

__all__ = ["PROPERTIES", "Config", "Failure", "GameChecker", "Violation", "check_config", "configurations",
           "run_check", "write_moves"]


def check_config(path: str, cfg: Config, games: int, seed: int, max_steps: int, progress=None,
                 coverage: bool = True, rules=None, allow_leaks: bool = False):
    """Check one configuration: (checker, failure or None). With ``coverage`` the games are traced
    (``checker.coverage``) and half of them are guided toward what the others never reached."""
    rules = rules if rules is not None else parse_file(path)
    program = compile_rules(rules, cfg.players, cfg.variants, allow_leaks=allow_leaks, params=cfg.params)
    game = Game(program)
    if not coverage:    # traced all the same, lightly: the leak tests need the announcements' moments
        checker = GameChecker(game, max_steps, tracer=Tracer(program), rules=rules)
        return checker, hypothesis_games(checker, cfg, games, seed, progress)
    cov = Coverage.empty(program, rules)
    checker = GameChecker(game, max_steps, coverage=cov, tracer=Tracer(program),
                          probe=AbleProbe(rules, cfg.players, cfg.variants, program, allow_leaks, cfg.params))
    first = max(1, games - games // 2)
    failure = hypothesis_games(checker, cfg, first, seed, progress)
    if failure is None and games > first:
        failure = Guide(checker, seed).games(cfg, games - first, seed, progress, done=first)
    return checker, failure


def run_check(path: str, players=None, variants=(), games: int = 100, seed: int = 0, params: dict | None = None,
              max_steps: int = 100_000, out=None, err=None, coverage: bool = True,
              coverage_file: str | None = None, min_coverage: float | None = None,
              exhaustive: bool = False, max_states: int = 200_000, allow_leaks: bool = False, jobs: int = 1) -> int:
    """Check a rules file and print the report; 0 when every property holds (and coverage is at
    least ``min_coverage`` per cent of the branches), 1 on a failure, 3 when an exhaustive search
    ran out of its state budget. ``params`` sets the file's game parameters in every configuration.
    ``jobs``: configurations checked at once, each in its own process (the same report)."""
    out = out or sys.stdout
    err = err or sys.stderr
    if exhaustive:
        from rulesrun.interpreter.checking.exhaustive import run_exhaustive
        return run_exhaustive(path, players, variants, max_states, max_steps, out, err, seed, allow_leaks, params)
    rules = parse_file(path)
    kept: dict = {}
    configs = configurations(path, players, list(variants), rules, allow_leaks, params, kept=kept)
    tty = hasattr(err, "isatty") and err.isatty()
    start = time.perf_counter()
    totals = {k: 0 for k in PROPERTIES}
    title, ngames, nsteps = "", 0, 0
    total_cov = None
    per_config: list = []
    blind: dict = {k: [] for k in COMPARED}    # the configurations where a twin test compared nothing
    jobs = max(1, min(jobs, len(configs)))

    def progress(cfg, k):
        if not tty:
            return
        if cfg is None:
            print(f"\r  checking {Path(path).name}: {k} of {len(configs)} configurations done "
                  f"({jobs} at once) ", end="", file=err, flush=True)
        else:
            print(f"\r  checking {Path(path).name}, {cfg.describe()}: game {k}/{games} ", end="", file=err, flush=True)
    results = outcomes(path, rules, configs, jobs, (games, seed, max_steps, coverage, allow_leaks), progress)
    try:
        for cfg, got in results:
            label = f"{Path(path).name}, {cfg.describe()}"
            title = got.title
            nsteps += got.steps
            for k, v in got.counts.items():
                totals[k] = totals.get(k, 0) + v
            blind.update({k: blind[k] + [cfg.describe()] for k in COMPARED
                          if got.counts.get(k) and not got.counts.get(k + " compared")})
            cov = got.coverage
            if cov is not None:
                per_config.append(f"{cfg.describe()}: {cov.summary_line()}")
                if total_cov is None:
                    total_cov = cov
                else:
                    total_cov.merge(cov)
            if tty:
                print("\r" + " " * 70 + "\r", end="", file=err)
            if got.failure is not None:
                print(f"  {label}: FAILED", file=err)
                got.failure.params = cfg.params
                report_failure(path, got.failure, out)
                if cov is not None:
                    print(f"  ({cov.summary_line()})", file=out)
                return 1
            ngames += games
            shown = f", branches {cov.percent():.0f} %" if cov is not None else ""
            print(f"  {label}: {games} games, {got.steps:,} steps{shown}, ok ({got.seconds:.1f}s)", file=err)
    except WorkerDied as e:
        if tty:
            print("\r" + " " * 70 + "\r", end="", file=err)
        print(f"error: a worker process died while checking {Path(path).name}, {e.cfg.describe()} "
              f"(killed, or out of memory?); try fewer --jobs", file=err)
        return 1
    finally:
        results.close()         # after a failure: the pool's workers still checking are ended now
    at_once = bool(totals.get("at once blocks"))
    untested = [k for k in PROPERTIES if not totals[k] and (k != "hidden picks" or at_once)]
    # a comparison tried that compared nothing held of nothing, in any one configuration: it fails
    empty = [k for k in COMPARED if blind[k]]
    held = len(PROPERTIES) - len(untested) - len(empty) - (0 if at_once else 1)
    print(f"{'FAILED' if empty else 'ok'}: {title} — {len(configs)} configuration{'s' if len(configs) != 1 else ''}, "
          f"{ngames} games, {nsteps:,} steps in {time.perf_counter() - start:.1f}s; "
          f"{held} properties hold" + (f", {len(untested)} not tested" if untested else "")
          + (f", {len(empty)} compared nothing" if empty else "") + ":", file=out)
    for k, text in PROPERTIES.items():
        if k == "hidden picks" and not at_once:
            print(f"  - {text} (not applicable: no 'at once' block)", file=out)
        elif k in empty:
            if totals[k + " compared"]:     # in some configurations only
                print(f"  - FAILED, COMPARED NOTHING in {'; '.join(blind[k])}: {text} ({totals[k]:,} tries, "
                      f"{totals[k + ' compared']:,} steps compared in the other configurations)", file=out)
            else:
                print(f"  - FAILED, COMPARED NOTHING: {text} ({totals[k]:,} tries, no step compared)", file=out)
        elif totals[k] and k in COMPARED:
            print(f"  - {text} ({totals[k]:,} tries, {totals[k + ' compared']:,} steps compared)", file=out)
        elif totals[k]:
            print(f"  - {text} ({totals[k]:,} checks)", file=out)
        else:   # holding vacuously is not holding: say so
            print(f"  - NOT TESTED: {text} (no step of these games could test it)", file=out)
    if empty:
        return 1
    for what in kept:
        print(f"note: the bots' copies keep the real value of {what}: it holds a secret, but the compiler "
              f"cannot list the values it could hold, so a bot knows it (a secret number is never kept: "
              f"its bounds are inferred or declared, docs/language.md 2.6)", file=out)
    if total_cov is None:
        return 0
    print(total_cov.summary_line(), file=out)
    if coverage_file:
        try:
            total_cov.write(coverage_file, path, per_config)
        except OSError as e:
            print(f"error: cannot write the coverage to {coverage_file}: {e.strerror or e}", file=err)
            return 1
        print(f"coverage of every line written to {coverage_file}", file=out)
    if min_coverage is not None and total_cov.percent() < min_coverage:
        print(f"FAILED: branch coverage {total_cov.percent():.1f} % is below --min-coverage {min_coverage:g}",
              file=out)
        return 1
    return 0
