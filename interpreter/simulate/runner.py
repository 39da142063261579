"""``rulesrun simulate``: many games between bots, in parallel, and what they show.

    rulesrun simulate FILE --games N [--players N] [--variant V] [--seats KIND,...] [--rotate]
                           [--jobs N] [--backend local|ray] [--seed S] [--json OUT] [--plot OUT.png]

Each game is played from a seed worked out from (``--seed``, the game's index) alone, and so are
its bots' seeds, so the results are the same whatever ``--jobs`` or ``--backend`` is (except the
timings, and ``ismcts:Ts`` seats, whose budget is in seconds). The statistics know nothing of any
particular game: win rates per seat and per agent (Wilson 95% intervals), the distribution of
``returns()`` per seat, game length in decisions, every numeric state value (a ``round`` counter
reads as the number of rounds), the sizes of the per-player zones, and how often each option of
each decision was chosen. ``docs/guides/simulation.md`` describes the options and the JSON.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

from rulesrun.interpreter.bots.agents import parse_kind
# the statistics are simsummary's; these names stay importable from here
from rulesrun.interpreter.simulate.summary import Summary, describe, summarise, team_wins, wilson  # noqa: F401
# playing the games (one, or many in a pool) is simpool's; these names stay importable from here
from rulesrun.interpreter.simulate.pool import (
    MAX_STEPS,
    GameBroke,
    MissingExtra,
    SimulationIncomplete,
    game_seeds,
    play_one,
    prime,
    ray_available,
    run_games,
    seat_kinds,
)

FORMAT = "rulesrun-simulate/1"
COMPARE_FORMAT = "rulesrun-compare/1"
TOP_OPTIONS = 6          # options shown per decision label in the table (the JSON has them all)

USAGE = """Play many games between bots, in parallel, and report win rates per seat and per agent,
score distributions, game length, state values, zone sizes and the options chosen.

seat kinds (--seats): random, greedy, ismcts, ismcts:N (N iterations a move), ismcts:Ts (T seconds
a move); one kind per player, or one kind for every seat.

examples:
  rulesrun simulate games/magic_shop.rules --games 200 --players 4
  rulesrun simulate games/magic_shop.rules --games 40 --players 3 --seats ismcts:50,random,random --rotate
  rulesrun simulate games/magic_shop.rules --games 100 --players 4 --seats ismcts:200,random,random,random --json out.json --plot out.png
"""


# ── output ──────────────────────────────────────────────────────────────────
def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _num(x: float) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if float(x).is_integer() and abs(x) < 1e9:
        return str(int(x))
    return f"{x:.2f}" if abs(x) < 100 else f"{x:.1f}"


def headline(summary: dict, info: dict) -> str:
    n = info["players"]
    return (f"{info['title']}: {summary['games']} games, {n} players"
            + (f", variant {', '.join(info['variants'])}" if info["variants"] else "")
            + "".join(f", {k}={v}" for k, v in (info.get("param_texts") or {}).items())
            + f"; seats {','.join(info['seats'])}" + (" (the default)" if info.get("default_seats") else "")
            + (" (rotated each game)" if info["rotate"] else "")
            + f"; seed {info['seed']}")


def seats_note(info: dict) -> str | None:
    """When every seat is random: a word that balance questions want bots."""
    if not all(parse_kind(s)[0] == "random" for s in info["seats"]):
        return None
    return ("Note: every seat played at random, and random players mostly show what random play does; "
            "for balance questions, seat bots: --seats ismcts (or ismcts:N, N iterations a move).")


def report_tables(summary: dict, info: dict) -> list[dict]:
    """The report as plain tables: title, columns (a trailing ':' right-aligns), rows, caption."""
    n = info["players"]
    stats = ("mean", "sd", "min", "q1", "median", "q3", "max")
    tables = []
    rows = []
    above = [f"Player {s['seat']}" for s in summary["seats"] if s["vs_fair"] == "above"]
    below = [f"Player {s['seat']}" for s in summary["seats"] if s["vs_fair"] == "below"]
    for s in summary["seats"]:
        sc = s["score"]
        agent = ", ".join(s["agents"]) if len(s["agents"]) <= 2 else "rotated"
        rows.append([f"Player {s['seat']}", agent, str(s["wins"]), _pct(s["rate"]),
                     f"{_pct(s['low'])} – {_pct(s['high'])}", *(_num(sc[k]) for k in stats)])
    tables.append({"title": "Wins per seat (95% Wilson interval; a shared win counts for every winner)",
                   "columns": ["seat", "agent", "wins:", "win rate:", "95% interval:"] + [f"{k}:" for k in stats],
                   "rows": rows,
                   "caption": (f"score = returns(); {summary['shared_wins']} of {summary['games']} games had a "
                               f"shared win{' (a team win is shared by its players)' if summary.get('teams') else ''}, so a seat's fair share is {_pct(summary['fair_share'])} (1/{n} = "
                               f"{_pct(1 / n)} without shared wins); "
                               + "; ".join([f"interval above it: {', '.join(above)}"] * bool(above)
                                           + [f"below it: {', '.join(below)}"] * bool(below)
                                           or ["no seat's interval leaves it out"]))})
    if summary.get("teams"):
        rows = [[t["team"], ", ".join(f"Player {p}" for p in t["seats"]) if t["seats"] is not None else "varies",
                 str(t["wins"]), _pct(t["rate"]), f"{_pct(t['low'])} – {_pct(t['high'])}"] for t in summary["teams"]]
        tables.append({"title": "Wins per team (a team wins when its players are among the winners)",
                       "columns": ["team", "players", "wins:", "win rate:", "95% interval:"], "rows": rows,
                       "caption": ""})
    if len(summary["agents"]) > 1 or info["rotate"]:
        rows = [[kind, str(a["seats"]), str(a["wins"]), _pct(a["rate"]), f"{_pct(a['low'])} – {_pct(a['high'])}",
                 _num(a["score"]["mean"]), f"{a['seconds_per_move']:.4f}"] for kind, a in summary["agents"].items()]
        tables.append({"title": "Wins per agent (pooled over the seats it held)",
                       "columns": ["agent", "seat-games:", "wins:", "win rate:", "95% interval:", "mean score:",
                                   "s/move:"], "rows": rows, "caption": ""})
    rows = []

    def row(name, d):
        rows.append([name, *(_num(d[k]) for k in stats)])

    row("decisions", summary["length"]["decisions"])
    for name, d in summary["state"].items():
        row(f"{name} (at the end)", d["final"])
        if d["max"]["max"] != d["final"]["max"] or d["mean"]["mean"] != d["final"]["mean"]:
            row(f"{name} (mean over the game)", d["mean"])
            row(f"{name} (highest in the game)", d["max"])
    for name, d in summary["player_state"].items():
        row(f"{name} of a player (at the end)", d["final"])
    for fam, d in summary["zones"].items():
        row(f"size of a {fam} (mean over the game)", d["mean"])
        row(f"largest {fam} (in the game)", d["max"])
    tables.append({"title": "Game length and state values (per game)",
                   "columns": ["value"] + [f"{k}:" for k in stats], "rows": rows, "caption": ""})
    kinds = list(summary["agents"])
    rows = []
    for label, c in summary["choices"].items():
        opts = list(c["options"].items())
        shown = opts if len(opts) <= TOP_OPTIONS else opts[:3]
        for i, (opt, o) in enumerate(shown):
            if len(kinds) == 1:
                shares = [_pct(o["share"])]
            else:
                shares = [_pct(c["by_agent"][kind]["options"].get(opt, 0.0)) if kind in c["by_agent"] else "–"
                          for kind in kinds]
            rows.append([label if i == 0 else "", _num(c["per_game"]) if i == 0 else "", opt, *shares])
        if len(shown) < len(opts):
            rest = [sum(o["share"] for _, o in opts[len(shown):])] if len(kinds) == 1 else [
                sum(share for o, share in c["by_agent"][kind]["options"].items() if o not in dict(shown))
                if kind in c["by_agent"] else None for kind in kinds]
            rows.append(["", "", f"({len(opts) - len(shown)} other options)",
                         *(_pct(x) if x is not None else "–" for x in rest)])
    tables.append({"title": f"Options chosen (the share of each option among the decisions with that label; "
                            f"the 3 most chosen when there are more than {TOP_OPTIONS})",
                   "columns": ["decision", "per game:", "option"] + [f"{k}:" for k in kinds] if len(kinds) > 1
                   else ["decision", "per game:", "option", "share:"], "rows": rows, "caption": ""})
    return tables


def footer(summary: dict, info: dict) -> str:
    tm = summary["time"]["game"]
    return (f"{summary['games']} games in {info['wall']:.1f} s ({info['jobs']} job{'s' if info['jobs'] != 1 else ''}, "
            f"{info['backend']}); {tm['mean']:.3f} s of play per game on average")


def print_tables(summary: dict, info: dict, console) -> None:
    from rich.table import Table
    from rich.text import Text   # rules texts (titles, options) are never read as rich markup
    console.print(Text(headline(summary, info)))
    for spec in report_tables(summary, info):
        t = Table(title=Text(spec["title"]), title_justify="left")
        for col in spec["columns"]:
            right = col.endswith(":")
            t.add_column(Text(col.rstrip(":")), justify="right" if right else "left")
        for r in spec["rows"]:
            t.add_row(*(Text(x) for x in r))
        if spec["caption"]:
            t.caption = Text(spec["caption"])
            t.caption_justify = "left"
        console.print(t)
    console.print(Text(footer(summary, info)))
    if seats_note(info):
        console.print(Text(seats_note(info)))


def markdown(summary: dict, info: dict) -> str:
    """The same report as GitHub-flavoured Markdown tables."""
    out = [headline(summary, info), ""]
    for spec in report_tables(summary, info):
        out.append(f"**{spec['title']}**")
        out.append("")
        out.append("| " + " | ".join(c.rstrip(":") for c in spec["columns"]) + " |")
        out.append("|" + "|".join(" ---: " if c.endswith(":") else " --- " for c in spec["columns"]) + "|")
        for r in spec["rows"]:
            out.append("| " + " | ".join(x.replace("|", "\\|") if x else " " for x in r) + " |")
        if spec["caption"]:
            out.append("")
            out.append(spec["caption"])
        out.append("")
    out.append(footer(summary, info))
    if seats_note(info):
        out += ["", seats_note(info)]
    return "\n".join(out) + "\n"


def plot(summary: dict, records: list[dict], info: dict, path: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = info["players"]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    rates = [s["rate"] for s in summary["seats"]]
    err = [[s["rate"] - s["low"] for s in summary["seats"]], [s["high"] - s["rate"] for s in summary["seats"]]]
    ax.bar([f"P{p + 1}" for p in range(n)], rates, yerr=err, capsize=4, color="tab:blue")
    ax.axhline(1 / n, color="grey", linestyle="--", linewidth=1, label=f"1/{n}")
    ax.set_title("win rate per seat (95% interval)")
    ax.set_ylim(0, 1)
    ax.legend()
    ax = axes[1]
    ax.boxplot([[r["returns"][p] for r in records] for p in range(n)])
    ax.set_xticks(range(1, n + 1), [f"P{p + 1}" for p in range(n)])
    ax.set_title("score (returns) per seat")
    ax = axes[2]
    ax.hist([r["decisions"] for r in records], bins=min(30, max(5, len(records) // 5)), color="tab:green")
    ax.set_title("game length (decisions)")
    fig.suptitle(f"{info['title']} — {summary['games']} games, {n} players"
                 + (f", {', '.join(info['variants'])}" if info["variants"] else "")
                 + f"; seats {','.join(info['seats'])}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ── the command ─────────────────────────────────────────────────────────────
def json_text(out: dict, rows: list[str] | None = None) -> str:
    """The JSON report: the summary laid out for reading, then ``records`` one game to a line
    (``rows``: those lines, made already). Laid out with ``indent``, json writes in Python rather
    than C: for thousands of games that took longer than the summary (0.4 s against 0.1 s for
    1,500 games), in the one process that every worker waits on."""
    out = dict(out)
    records = out.pop("records")
    if rows is None:
        rows = [json.dumps(r, separators=(",", ":")) for r in records]
    head = json.dumps(out, indent=1)
    lines = ",\n".join(rows)
    return f'{head[:-2]},\n "records": [\n{lines}\n ]\n}}\n'


def _fail(message: str, code: int = 2) -> int:
    from rulesrun.interpreter.terminal.safe_text import safe
    print(safe(f"rulesrun simulate: error: {message}", lines=True), file=sys.stderr)
    return code


def _check_output(path: str, what: str) -> str | None:
    parent = Path(path).resolve().parent
    if not parent.is_dir():
        return f"cannot write {what} {path}: the folder {parent} does not exist"
    if not os.access(parent, os.W_OK):
        return f"cannot write {what} {path}: the folder {parent} is not writable"
    return None


def resolve_seats(spec: str | None, players: int) -> list[str]:
    """The seat kinds for a simulation: bots only; one kind alone fills every seat."""
    if spec is None:
        return ["random"] * players
    seats = [s.strip().lower() for s in spec.split(",")]
    if len(seats) == 1 and players > 1:
        seats = seats * players
    if len(seats) != players:
        raise ValueError(f"--seats names {len(seats)} seats but the game has {players} players; give one bot "
                         f"per player, like {','.join(['ismcts:100'] + ['random'] * (players - 1))}, or one for all")
    for p, s in enumerate(seats):
        if not s:
            raise ValueError(f"--seats has an empty entry for seat {p + 1}; give one bot per player, like "
                             f"{','.join(['random'] * players)}")
        name, _ = parse_kind(s)
        if name == "human":
            raise ValueError(f"simulate plays bots only, but seat {p + 1} is 'human'; use random, greedy or ismcts")
    return seats


class _Progress:
    """A rich progress bar on a terminal; otherwise a plain line every tenth of the games."""

    def __init__(self, total: int, quiet: bool):
        self.total = total
        self.bar = None
        self.quiet = quiet
        self.next = 0
        if quiet:
            return
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)
            self.bar = Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                TextColumn("eta"), TimeRemainingColumn(), console=Console(stderr=True), transient=True,
                                auto_refresh=False)   # no refresh thread: the pool may then fork (simpool)
            self.task = self.bar.add_task("games", total=total)
            self.shown = 0.0

    def __enter__(self):
        if self.bar:
            self.bar.start()
        return self

    def __exit__(self, *exc):
        if self.bar:
            self.bar.stop()

    def __call__(self, done: int) -> None:
        if self.quiet:
            return
        if self.bar:
            now = time.perf_counter()
            fresh = now - self.shown >= 0.1 or done == self.total
            if fresh:
                self.shown = now
            self.bar.update(self.task, completed=done, refresh=fresh)
        elif done >= self.next or done == self.total:
            print(f"simulating: {done}/{self.total} games", file=sys.stderr, flush=True)
            self.next = done + max(1, self.total // 10)


def _play_all(args, game, seats: list, jobs: int, keep_rows: bool):
    """Play ``args.games`` games of ``game``: (records, incomplete or None, their Summary, the JSON
    lines of the records when ``keep_rows``, seconds); or an exit code when they could not be played."""
    from rulesrun.interpreter.runtime.files import read_text
    prog = game.program
    spec = {"path": str(prog.path), "text": read_text(prog.path, "rules file"), "players": game.players,
            "variants": list(game.variants), "seats": seats, "seed": args.seed, "rotate": args.rotate,
            "max_steps": args.max_steps, "params": dict(game.params)}
    prime(spec, game)       # the game compiled above serves this process's games and forked workers
    # each record is counted (and written out as a line of JSON) as it comes back, while the
    # workers go on playing, so that little is left to do after the last game
    totals = Summary(game.players, prog.teams)
    rows: list[str] = []

    def take(rec: dict) -> None:
        totals.add(rec)
        if keep_rows:
            rows.append(json.dumps(rec, separators=(",", ":")))

    started = time.perf_counter()
    incomplete = None
    with _Progress(args.games, args.quiet) as progress:
        try:
            records = run_games(spec, args.games, jobs=jobs, backend=args.backend, progress=progress,
                                keep_going=args.keep_going, on_record=take)
        except MissingExtra as e:
            return _fail(str(e), 1)
        except SimulationIncomplete as e:
            incomplete, records = e, e.records
        except KeyboardInterrupt:
            print("rulesrun simulate: interrupted; no games are reported", file=sys.stderr)
            return 130
    return records, incomplete, totals, rows, time.perf_counter() - started


def _compare(args, game, seats: list, jobs: int) -> int:
    """``--compare B``: B played on the same seeds with the same seats, and the two side by side."""
    from rulesrun.interpreter.runtime.engine import load_game
    from rulesrun.interpreter.simulate import compare
    from rulesrun.interpreter.terminal.safe_text import SafeConsole, safe
    from rulesrun.interpreter.records.games import find_game, missing
    if missing(args.compare):
        return _fail(f"--compare: {missing(args.compare)}", 1)
    other = load_game(find_game(args.compare), players=game.players, variants=tuple(args.compare_variant),
                      params=dict(args.param or ()))
    runs = []
    for g in (game, other):
        played = _play_all(args, g, seats, jobs, False)
        if isinstance(played, int):
            return played
        records, incomplete, _, _, _ = played
        if incomplete is not None:
            from rulesrun.interpreter.simulate.pool import report_incomplete
            report_incomplete(incomplete, args, g, seats)
            return 1
        runs.append(records)
    comp = compare.comparison(runs[0], runs[1], game.players)
    side = lambda g: {"title": g.title, "file": str(g.program.path), "variants": list(g.variants)}  # noqa: E731
    info = {"a": side(game), "b": side(other), "players": game.players, "seats": seats, "rotate": args.rotate,
            "seed": args.seed, "games": args.games}
    if args.markdown:
        sys.stdout.write(safe(compare.markdown(comp, info), lines=True))
    else:
        compare.print_report(comp, info, SafeConsole(highlight=False, width=None if sys.stdout.isatty() else 120))
    if args.json:
        out = {"format": COMPARE_FORMAT, **info, "comparison": comp,
               "summaries": [summarise(r, game.players, g.program.teams) for r, g in zip(runs, (game, other))]}
        try:
            Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")
        except OSError as e:
            return _fail(f"cannot write the JSON to {args.json}: {e.strerror or e}", 1)
    if args.plot:
        try:
            compare.plot(comp, runs[0], runs[1], info, args.plot)
        except OSError as e:
            return _fail(f"cannot write the plot to {args.plot}: {e.strerror or e}", 1)
    if seats_note({"seats": seats}):
        print(safe(seats_note({"seats": seats})))
    return 0


def simulate(args, argv=()) -> int:
    """``rulesrun simulate``: ``args`` as cli/parsers.py's ``simulate_parser`` reads them (``argv``:
    the command's words, kept in the JSON report); returns the exit code. Errors in the rules file
    are raised as ``RulesError`` for the caller (``cli.main``) to print."""
    from rulesrun.interpreter.runtime.engine import load_game
    game = load_game(args.file, players=args.players, variants=tuple(args.variant), params=dict(args.param or ()))
    n = game.players
    try:
        seats = resolve_seats(args.seats, n)
    except ValueError as e:
        return _fail(str(e))
    if args.backend == "ray" and not ray_available():
        return _fail("--backend ray needs Ray, which is not installed; install the extra: pip install 'rulesrun[ray]'", 1)
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return _fail("--plot needs matplotlib, which is not installed; install the extra: "
                         "pip install 'rulesrun[plot]'", 1)
    for path, what in ((args.json, "the JSON to"), (args.plot, "the plot to")):
        if path:
            problem = _check_output(path, what)
            if problem:
                return _fail(problem, 1)
    jobs = args.jobs or os.cpu_count() or 1
    if getattr(args, "compare", None):
        return _compare(args, game, seats, jobs)
    played = _play_all(args, game, seats, jobs, args.json)
    if isinstance(played, int):
        return played
    records, incomplete, totals, rows, wall = played
    if incomplete is not None:
        from rulesrun.interpreter.simulate.pool import report_incomplete
        report_incomplete(incomplete, args, game, seats)
        if not args.keep_going or not records:
            return 1
    summary = totals.result()
    info = {"title": game.title, "file": str(args.file), "players": n, "variants": list(game.variants),
            "param_texts": {i.name: i.text(game.params[i.name]) for i in game.program.param_info},
            "seats": seats, "default_seats": args.seats is None, "rotate": args.rotate, "seed": args.seed,
            "games": args.games, "jobs": jobs, "backend": args.backend, "wall": wall}
    from rulesrun.interpreter.terminal.safe_text import SafeConsole, safe
    console = SafeConsole(highlight=False, width=None if sys.stdout.isatty() else 120)
    if args.markdown:
        sys.stdout.write(safe(markdown(summary, info), lines=True))
        sys.stdout.flush()
    else:
        print_tables(summary, info, console)
    if args.json:
        out = {"format": FORMAT, "command": ["rulesrun", "simulate"] + list(argv),
               **({} if incomplete is None else {
                   "complete": False, "finished": len(records), "failed": incomplete.failed,
                   "lost": incomplete.lost}),
               "game": game.title, "file": str(args.file), "players": n, "variants": list(game.variants),
               "params": dict(game.params),
               "seats": seats, "rotate": args.rotate, "seed": args.seed, "games": args.games, "jobs": jobs,
               "backend": args.backend, "wall_seconds": wall, "summary": summary, "records": records}
        try:
            Path(args.json).write_text(json_text(out, rows), encoding="utf-8")
        except OSError as e:
            return _fail(f"cannot write the JSON to {args.json}: {e.strerror or e}", 1)
        if not args.quiet:
            print(f"wrote {args.json}", file=sys.stderr)
    if args.plot:
        try:
            plot(summary, records, info, args.plot)
        except OSError as e:
            return _fail(f"cannot write the plot to {args.plot}: {e.strerror or e}", 1)
        if not args.quiet:
            print(f"wrote {args.plot}", file=sys.stderr)
    return 0 if incomplete is None else 1
