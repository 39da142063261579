"""The ``rulesrun`` command line.

    rulesrun FILE [--players N] [--variant V ...] [--param NAME=VALUE ...] [--seed N] [--seats human,random,...]
    rulesrun play FILE ...              (the same)
    rulesrun compile FILE [--players N] [--variant V ...] [--param NAME=VALUE ...]
    rulesrun list                       (the shipped games and examples)

FILE is a path, or the name of a shipped game or example (``rulesrun magi``).
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from rulesrun.dsl import RulesError, RulesrunError, RulesRuntimeError

from rulesrun.interpreter import __doc__ as _pkg_doc  # noqa: F401
from rulesrun.interpreter.cli.args import param_dict
from rulesrun.interpreter.cli.parsers import (DEFAULT_BOT, build_parsers, diff_parser, doc_parser, fmt_parser, lsp_parser,  # noqa: F401
                                             serve_parser, simulate_parser)


def cmd_list() -> int:
    from rulesrun.interpreter.records.games import game_summaries
    rows = game_summaries()
    if not rows:
        return _err("rulesrun list: error: no shipped games were found next to this installation")
    width = max(len(r[0]) for r in rows)
    for kind, heading in (("game", "Shipped games:"), ("example", "Examples:")):
        group = [r for r in rows if r[3] == kind]
        if group:
            print(heading)
            for name, title, players, _ in group:
                print(f"  {name:<{width}}  {title} ({players} players)")
    from rulesrun.interpreter.terminal.command import rulesrun_command
    print(f"Play one with: {rulesrun_command()} NAME, e.g. {rulesrun_command()} {rows[0][0]}")
    return 0


def _err(msg: str) -> int:
    from rulesrun.interpreter.terminal.safe_text import safe
    print(safe(msg, lines=True), file=sys.stderr)
    return 1


def _allowed_players(path: str):
    from rulesrun.dsl.syntax.ast import PlayersDecl
    from rulesrun.interpreter.runtime.files import load_rules_text
    rules = load_rules_text(path)
    decl = next((i for i in rules.items if isinstance(i, PlayersDecl)), None)
    return rules, (decl.low, decl.high) if decl else None


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _emitted(prog) -> str:
    """The generated Python of a compiled game, function by function, then its constants."""
    out = [f"# Python generated for {prog.title}, {prog.players} players"
           + (f", variants {', '.join(prog.variants)}" if prog.variants else "") + "\n"]
    for name, source in prog.code.sources.items():
        out.append(f"\n# ── {name}\n{source}")
    out.append("\n# ── constants (values known when compiling; texts and tables from the rules)\n")
    names = {id(v): n for n, v in prog.code.constants()}
    for cname, value in prog.code.constants():
        owner = getattr(value, "__self__", None)
        if id(owner) in names:                       # a method bound when compiling
            text = f"{names[id(owner)]}.{value.__name__}"
        elif callable(value) and not isinstance(value, type):
            text = "<a function of the compiler: how a value is shown>" if "display" in getattr(
                value, "__qualname__", "") else f"<function {getattr(value, '__name__', '?')}>"
        else:
            text = _no_addresses(repr(value), names)
        out.append(f"# {cname} = {text if len(text) <= 100 else text[:97] + '...'}\n")
    return "".join(out)


_BOUND = re.compile(r"<built-in method (\w+) of (\w+) object at 0x([0-9a-f]+)>")
_AT = re.compile(r" at 0x[0-9a-f]+>")


def _no_addresses(text: str, names: dict) -> str:
    """A constant's repr without memory addresses, which differ from run to run: a method of
    another constant as ``_k9.__getitem__``, of some other object as ``<list>.__getitem__``."""
    def bound(m):
        owner = names.get(int(m.group(3), 16))
        return f"{owner or '<' + m.group(2) + '>'}.{m.group(1)}"
    return _AT.sub(">", _BOUND.sub(bound, text))


def cmd_compile(args) -> int:
    from rulesrun.dsl import compile_rules
    from rulesrun.dsl.check.params import param_texts
    from rulesrun.interpreter.runtime.engine import Game
    rules, span = _allowed_players(args.file)
    if span is None:
        raise RulesError("the rules never say how many players the game is for", None,
                         "add a line like 'players 3 to 5'")
    if args.players:
        counts = [args.players]
    else:  # every count the file allows, with a variant's own 'players' line where it has one
        from rulesrun.dsl.syntax.ast import PlayersDecl, VariantDecl
        allowed = set(range(span[0], span[1] + 1))
        for v in rules.items:
            if isinstance(v, VariantDecl):
                allowed.update(n for i in v.items if isinstance(i, PlayersDecl) for n in range(i.low, i.high + 1))
        counts = sorted(allowed)
    games, first_error = [], None
    for n in counts:
        try:
            games.append(Game(compile_rules(rules, n, tuple(args.variant), allow_leaks=args.allow_leaks,
                                            params=param_dict(args.param))))
        except RulesError as e:
            if args.players or "players, not" not in e.message:
                raise
            first_error = first_error or e
    if not games:
        raise first_error
    counts = [x.players for x in games]
    warned = set()
    for w in (w for x in games for w in x.program.warnings):
        if str(w) not in warned:
            warned.add(str(w))
            print(str(w).replace(": error: ", ": warning: ", 1), file=sys.stderr)
    g = games[0]
    prog = g.program
    if getattr(args, "emit", False):
        from rulesrun.interpreter.terminal.safe_text import safe
        print(safe(_emitted(prog), lines=True), end="")
        return 0
    players = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}–{counts[-1]}"
    variants = prog.available_variants
    cards = sorted({len(x.program.card_names) for x in games})
    from rulesrun.interpreter.terminal.safe_text import safe
    print(safe(f"ok: {prog.title} — {players} players, {'/'.join(map(str, cards))} cards, "
          f"{len([z for z in prog.zones if z.owner is None])} shared + {len(prog.families)} per-player zones, "
          # the file's decisions: an 'at once' block's, written out once a seat, said once
          f"{_n(len({d.pos for d in prog.decisions}), 'decision')}, {_n(len(prog.invariants), 'invariant')}"
          + (f", variants: {', '.join(variants)}" if variants else "")
          + (f", parameters: {param_texts(prog.params, prog.param_info)}" if prog.params else "")))
    return 0


def cmd_check(args) -> int:
    from rulesrun.interpreter.checking import run_check
    players = args.players
    if players != "all":
        try:
            players = int(players)
            if players < 1:
                raise ValueError
        except ValueError:
            return _err(f"rulesrun check: error: --players takes a number of at least 1 or 'all', not {args.players!r}")
    if args.exhaustive and players == "all":
        return _err("rulesrun check: error: --exhaustive explores one configuration: give --players N")
    if args.no_coverage and (args.coverage_file or args.min_coverage is not None):
        return _err("rulesrun check: error: --no-coverage cannot go with --coverage or --min-coverage")
    return run_check(args.file, players=players, variants=tuple(args.variant), params=param_dict(args.param),
                     games=args.games,
                     seed=args.seed, max_steps=args.max_steps, coverage=not args.no_coverage,
                     coverage_file=args.coverage_file, min_coverage=args.min_coverage,
                     exhaustive=args.exhaustive, max_states=args.max_states, allow_leaks=args.allow_leaks,
                     jobs=args.jobs or os.cpu_count() or 1)


def _resume(args) -> int:
    from rulesrun.interpreter.records.record import RecordError, open_record, record_seats
    from rulesrun.interpreter.terminal.repl import Repl
    try:
        game, state, record = open_record(args.load)
    except RecordError as e:
        return _err(f"rulesrun: error: {e}")
    try:
        seats = record_seats(record, game.players, args.seats)
    except ValueError as e:
        return _err(f"rulesrun: error: {e}")
    repl = Repl(game, state, seats, record["seed"], delay=args.delay, ask_always=args.ask_always,
                max_steps=args.max_steps)
    repl.moves = [(-1, a) for a in state.history()]
    repl.reseeds = [list(r) for r in record["reseeds"]]
    repl.log_seen = len(state.log())
    repl.say(f"Resuming {args.load}: {len(repl.moves)} decisions in.")
    return repl.run()


def _read_moves(path: str) -> list[str]:
    from rulesrun.interpreter.runtime.files import FileProblem, read_text
    try:
        text = read_text(path, "moves file")
    except FileProblem as e:
        raise SystemExit(_err(f"rulesrun: error: {e}"))
    return [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def cmd_replay(args) -> int:
    from rulesrun.interpreter.records.record import RecordError, open_record
    from rulesrun.interpreter.terminal.replay import ReplayViewer
    try:
        game, _, record = open_record(args.record)
    except RecordError as e:
        return _err(f"rulesrun replay: error: {e}")
    seat = None
    if args.seat != "all":
        if not (args.seat.isascii() and args.seat.isdigit()) or not 1 <= int(args.seat) <= game.players:
            return _err(f"rulesrun replay: error: --seat takes a player from 1 to {game.players} or 'all', "
                        f"not {args.seat!r}")
        seat = int(args.seat) - 1
    return ReplayViewer(game, record, seat).run(to_end=args.to_end or not sys.stdin.isatty() and _stdin_empty())


def _stdin_empty() -> bool:
    try:
        import select
        ready, _, _ = select.select([sys.stdin], [], [], 0)
        return not ready or sys.stdin.buffer.peek(1) == b""
    except (OSError, ValueError, AttributeError):
        return False


def cmd_play(args) -> int:
    from rulesrun.interpreter.bots.agents import parse_seats
    from rulesrun.interpreter.runtime.engine import load_game
    from rulesrun.interpreter.terminal.hotseat import fresh_seed
    from rulesrun.interpreter.terminal.repl import Repl
    if args.load:
        return _resume(args)
    if args.file is None:
        return _err("rulesrun: error: give a rules file to play (or --load RECORD to resume a saved game)")
    game = load_game(args.file, players=args.players, variants=tuple(args.variant), params=param_dict(args.param))
    spec = args.seats or ",".join(["human"] + [DEFAULT_BOT] * (game.players - 1))
    try:
        seats = parse_seats(spec, game.players)
    except ValueError as e:
        return _err(f"rulesrun: error: {e}")
    seed = args.seed if args.seed is not None else fresh_seed()   # 62 bits from the OS: not guessable
    state = game.new_initial_state(seed=seed)
    repl = Repl(game, state, seats, seed, delay=args.delay, ask_always=args.ask_always, max_steps=args.max_steps)
    if args.moves:
        if not repl.replay_moves(_read_moves(args.moves)):
            return 1
    return repl.run()


class _NoSuchGame(Exception):
    """FILE is neither a file nor a shipped game's name."""


def _named(args):
    """A shipped game's name in place of FILE (``rulesrun magi``) becomes its file; a path stays."""
    from rulesrun.interpreter.records.games import find_game, missing
    if getattr(args, "file", None):
        looks_like_a_name = re.fullmatch(r"\w[\w .-]*", args.file) and not args.file.endswith(".rules")
        problem = missing(args.file) if looks_like_a_name else None
        if problem:
            raise _NoSuchGame(f"rulesrun: error: {problem}")
        args.file = find_game(args.file)
    return args


def _named_first(argv: list[str]) -> list[str]:
    """The same for ``simulate``: its FILE is its first argument that is neither an option nor an
    option's value."""
    from rulesrun.interpreter.records.games import find_game
    flags = {"--rotate", "--markdown", "--quiet", "-q", "-h", "--help"}
    i = 0
    while i < len(argv):
        a = argv[i]
        if not a.startswith("-"):
            return argv[:i] + [find_game(a)] + argv[i + 1:]
        i += 1 if a in flags or "=" in a else 2
    return argv


def cmd_simulate(argv: list[str]) -> int:
    from rulesrun.interpreter.simulate.runner import simulate
    argv = _named_first(argv)
    return simulate(simulate_parser().parse_args(argv), argv)


def cmd_serve(argv: list[str]) -> int:      # the web table; its module says if the 'web' extra is missing
    from rulesrun.interpreter.web.command import serve
    return serve(serve_parser().parse_args(argv))


def cmd_fmt(argv: list[str]) -> int:
    from rulesrun.interpreter.authoring.fmt import format_files
    args = fmt_parser().parse_args(argv)
    return format_files(args.files, check=args.check, diff=args.diff)


def cmd_doc(argv: list[str]) -> int:
    from rulesrun.interpreter.authoring.rulebook import write_rulebook
    return write_rulebook(doc_parser().parse_args(argv))


def cmd_diff(argv: list[str]) -> int:
    from rulesrun.interpreter.authoring.rulebook import diff_files
    from rulesrun.interpreter.records.games import find_game, missing
    args = diff_parser().parse_args(argv)
    for name in (args.first, args.second):
        if missing(name):
            return _err(missing(name))
    return diff_files(find_game(args.first), find_game(args.second), args.players, args.variant_a, args.variant_b)


def cmd_lsp(argv: list[str]) -> int:
    from rulesrun.interpreter.authoring.lsp import serve_stdio
    lsp_parser().parse_args(argv)
    return serve_stdio()


def _parsed(parser_of: int, run, named: bool = True):
    """A subcommand read by one of ``build_parsers()``'s parsers (by its place), then run."""
    def command(argv: list[str]) -> int:
        args = build_parsers()[parser_of].parse_args(argv)
        return run(_named(args) if named else args)
    return command


# The subcommands, one table: each takes the words after its name and returns the exit status.
# `rulesrun FILE` (no subcommand) plays; `rulesrun --help` lists every one of them (a test checks).
SUBCOMMANDS = {
    "play": _parsed(0, cmd_play),
    "compile": _parsed(1, cmd_compile),
    "check": _parsed(2, cmd_check),
    "replay": _parsed(3, cmd_replay, named=False),
    "simulate": cmd_simulate,
    "serve": cmd_serve,
    "fmt": cmd_fmt,
    "doc": cmd_doc,
    "diff": cmd_diff,
    "lsp": cmd_lsp,
    "list": lambda argv: cmd_list(),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        name = argv[0] if argv else None
        if name == "list" and (len(argv) > 1 or Path("list").exists()):
            name = None                          # a file named 'list' plays, as any FILE does
        if name in SUBCOMMANDS:
            return SUBCOMMANDS[name](argv[1:])
        return SUBCOMMANDS["play"](argv)
    except _NoSuchGame as e:
        return _err(str(e))
    except RulesError as e:
        return _err(e.render())
    except RulesRuntimeError as e:
        return _err(str(e))
    except RulesrunError as e:      # any other error meant for a person: its text is the message
        return _err(str(e))
    except KeyboardInterrupt:
        return _err("interrupted")
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
