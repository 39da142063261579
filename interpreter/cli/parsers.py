"""The parsers of the ``rulesrun`` subcommands: the one place where argv becomes arguments. Each
subcommand's package offers a function that takes them (``simulate.runner.simulate``,
``web.command.serve``, ``authoring.fmt.format_files``, ...); ``cli.main`` makes the calls."""
from __future__ import annotations

import argparse

from rulesrun.interpreter.cli.args import Parser, add_param_flag, positive, seconds, seed_number

# The bot in every seat but the first when --seats is not given: one that answers well under a
# second a move and plays well in every shipped game. Measured (docs/guides/simulation.md): ismcts:50
# takes 0.01–0.03 s a move on average, at most ~0.07 s, and wins 75% of The Magic Shop against
# random seats, where greedy wins like a random seat in two of the three games.
DEFAULT_BOT = "ismcts:50"

DESCRIPTION = """Play, check and compile card games written in the rulesrun rules language.

commands:
  rulesrun GAME [options]          play GAME: a shipped game's name (magi) or a .rules file
  rulesrun FILE [options]          play the game in FILE (same as 'rulesrun play FILE')
  rulesrun list                    the shipped games and examples, by name
  rulesrun compile FILE [options]  check FILE and print a one-line summary, or its errors
  rulesrun check FILE [options]    property-test the rules: play many games and check every step
  rulesrun replay RECORD           step through a saved game
  rulesrun simulate FILE --games N play many games between bots and report the statistics
  rulesrun serve FILE [options]    play in the browser with friends on a local network (docs/guides/web.md)
  rulesrun --load RECORD           resume a saved game
  rulesrun fmt FILE... [--check]   lay out rules files canonically (docs/guides/tools.md)
  rulesrun doc FILE [--format html] write a rulebook from the rules file (docs/guides/rulebooks.md)
  rulesrun diff A B                what B changes against A, in the rulebook's words (docs/guides/variants.md)
  rulesrun lsp                     the language server for editors (docs/guides/editors.md)

examples:
  rulesrun magi --players 4
  rulesrun games/magic_shop.rules --players 4
  rulesrun games/magic_shop.rules --players 4 --seats random,random,random,random --seed 1
  rulesrun compile games/magic_shop.rules
  rulesrun check games/magic_shop.rules --games 50
  rulesrun simulate games/magic_shop.rules --games 100 --players 4 --seats ismcts:100,random,random,random
"""


def _version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version("rulesrun")
    except PackageNotFoundError:
        return "(not installed)"


def _common(p: argparse.ArgumentParser, optional: bool = False) -> None:
    if optional:
        p.add_argument("file", metavar="FILE", nargs="?", help="a .rules file, or a shipped game's name")
    else:
        p.add_argument("file", metavar="FILE", help="a .rules file, or a shipped game's name")
    p.add_argument("--players", "-p", type=positive, metavar="N",
                   help="number of players (default: the fewest the game allows)")
    p.add_argument("--variant", "-V", action="append", default=[], metavar="NAME",
                   help="play a named variant of the rules (repeatable)")
    add_param_flag(p)


def build_parsers():
    from rulesrun.interpreter.runtime.engine import DECISION_BOUND
    main = Parser(prog="rulesrun", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    _common(main, optional=True)
    main.add_argument("--version", action="version", version=f"rulesrun {_version()}")
    main.add_argument("--seed", type=seed_number, metavar="N", help="random seed: the same seed and moves replay the same game")
    main.add_argument("--seats", metavar="SPEC",
                      help="who plays each seat, a comma list of human, random, greedy, ismcts, "
                           "ismcts:N (N iterations a move) or ismcts:Ts (T seconds a move) "
                           f"(default: seat 1 human, the others {DEFAULT_BOT})")
    main.add_argument("--delay", type=seconds, default=0.0, metavar="SECONDS",
                      help="pause this long after each bot move, to watch them play (default: 0)")
    main.add_argument("--ask-always", action="store_true",
                      help="ask even a decision with one legal option (by default it is played for you "
                           "and said in one line)")
    main.add_argument("--max-steps", type=positive, default=DECISION_BOUND, metavar="N",
                      help="with bots in every seat, stop a game that has not ended after N decisions, as "
                           f"'rulesrun check' does (default: {DECISION_BOUND})")
    main.add_argument("--load", metavar="RECORD",
                      help="resume a game saved with 'save FILE' at the prompt (FILE is then optional)")
    main.add_argument("--moves", metavar="FILE",
                      help="first play these moves (one action text per line), showing each step; "
                           "'rulesrun check' writes such a file when it finds a problem")
    comp = Parser(prog="rulesrun compile", description="Check a rules file and print a one-line summary of the game.")
    _common(comp)
    comp.add_argument("--allow-leaks", action="store_true",
                      help="report hidden information reaching what every seat sees as warnings, not errors")
    comp.add_argument("--emit", action="store_true",
                      help="print the Python generated for the game (for the first player count compiled, "
                           "or --players N), with its table of constants")
    check = Parser(prog="rulesrun check", formatter_class=argparse.RawDescriptionHelpFormatter,
                    description="Property-test a rules file: play many games chosen by hypothesis and check, at\n"
                                "every step, that the player to move has a legal action, cards are conserved,\n"
                                "actions are unique, clones and JSON copies are equal, nothing leaks to a seat\n"
                                "that should not see it, the file's invariants hold, and every game ends.\n"
                                "A failure is shrunk to a short sequence of moves, with a command to replay it.")
    check.add_argument("file", metavar="FILE", help="the .rules file")
    check.add_argument("--players", "-p", default="all", metavar="N|all",
                       help="check this player count, or every allowed count (default: all)")
    check.add_argument("--variant", "-V", action="append", default=[], metavar="NAME",
                       help="check with this variant (repeatable; default: no variant, then each named variant)")
    add_param_flag(check)
    check.add_argument("--games", "-n", type=positive, default=100, metavar="N",
                       help="games per configuration (default: 100)")
    check.add_argument("--seed", type=seed_number, default=0, metavar="S", help="seed for the search (default: 0)")
    check.add_argument("--jobs", "-j", type=positive, default=None, metavar="N",
                       help="configurations checked at once, each in its own process; the report is the "
                            "same whatever N is (default: the number of CPUs)")
    check.add_argument("--max-steps", type=positive, default=DECISION_BOUND, metavar="N",
                       help=f"decisions after which a game counts as never ending (default: {DECISION_BOUND})")
    check.add_argument("--coverage", metavar="FILE", dest="coverage_file",
                       help="write the rules file with how often each line ran and the branches never "
                            "taken: FILE.html as a page, any other name as annotated text")
    check.add_argument("--min-coverage", type=percent, metavar="N",
                       help="fail when fewer than N %% of the branches were reached")
    check.add_argument("--no-coverage", action="store_true",
                       help="no coverage and no guided search: every game from hypothesis")
    check.add_argument("--allow-leaks", action="store_true",
                       help="check a file the compiler rejects for leaks (its leaks become warnings), so that "
                            "the dynamic leak tests run on it")
    check.add_argument("--exhaustive", action="store_true",
                       help="explore every line of play from one deal (--seed) instead of sampling games")
    check.add_argument("--max-states", type=positive, default=200_000, metavar="N",
                       help="with --exhaustive, give up after this many distinct states (default: 200000)")
    replay = Parser(prog="rulesrun replay", description="Step through a saved game: Enter or 'n' for the next "
                     "step, 'b' back, 'j N' to jump, 'end', 'q'.")
    replay.add_argument("record", metavar="RECORD", help="a game saved with 'save FILE' at the prompt")
    replay.add_argument("--seat", default="all", metavar="N|all",
                        help="see the game as player N sees it, or everything (default: all)")
    replay.add_argument("--to-end", action="store_true", help="print every step at once, without prompting")
    return main, comp, check, replay


def percent(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a percentage from 0 to 100, not {text!r}") from None
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(f"takes a percentage from 0 to 100, not {text!r}")
    return value



def simulate_parser() -> Parser:
    from rulesrun.interpreter.bots.agents import SEAT_HELP
    from rulesrun.interpreter.simulate.runner import MAX_STEPS, USAGE
    p = Parser(prog="rulesrun simulate", description=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", metavar="FILE", help="the .rules file")
    p.add_argument("--games", "-n", type=positive, required=True, metavar="N", help="how many games to play")
    p.add_argument("--players", "-p", type=positive, metavar="N",
                   help="number of players (default: the fewest the game allows)")
    p.add_argument("--variant", "-V", action="append", default=[], metavar="NAME",
                   help="play a named variant of the rules (repeatable)")
    add_param_flag(p)
    p.add_argument("--seats", metavar="SPEC",
                   help=f"the bot at each seat, a comma list ({SEAT_HELP.replace('human, ', '')}); "
                        f"one kind alone fills every seat (default: random)")
    p.add_argument("--rotate", action="store_true",
                   help="turn the seats by one place each game, so every agent plays every seat")
    p.add_argument("--jobs", "-j", type=positive, default=None, metavar="N",
                   help="games played at once (default: the number of CPUs)")
    p.add_argument("--backend", choices=("local", "ray"), default="local",
                   help="local: a process pool (default); ray: Ray tasks (pip install 'rulesrun[ray]')")
    p.add_argument("--seed", type=seed_number, default=0, metavar="S",
                   help="seed of the whole run: game i is seeded from (S, i) (default: 0)")
    p.add_argument("--json", metavar="OUT", help="write every statistic and every game's record to OUT")
    p.add_argument("--plot", metavar="OUT.png", help="draw win rates, scores and game lengths (pip install 'rulesrun[plot]')")
    p.add_argument("--markdown", action="store_true", help="print the tables as Markdown (for reports)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress report")
    p.add_argument("--max-steps", type=positive, default=MAX_STEPS, metavar="N",
                   help=f"decisions after which a game counts as never ending and fails (default: {MAX_STEPS})")
    p.add_argument("--keep-going", action="store_true",
                   help="when a game fails, play on: report the games that finished (and write them to "
                        "--json, marked incomplete) and name the failed ones; the exit code is still 1")
    p.add_argument("--compare", metavar="B", help="also play B (a .rules file or a shipped game's name) on the "
                   "same seeds with the same seats, and report both side by side with each difference's 95%% "
                   "interval, marking those beyond noise (docs/guides/variants.md)")
    p.add_argument("--compare-variant", action="append", default=[], metavar="NAME",
                   help="B with this variant (repeatable); B may be FILE itself, to compare variants of one game")
    return p


def serve_parser() -> Parser:
    p = Parser(prog="rulesrun serve", description="Serve a game to play in the browser: one link per "
                "human seat, one for spectators. On a local network as it is; over the internet behind "
                "a TLS reverse proxy (docs/guides/web.md). There are no accounts, only the links' secret tokens.")
    p.add_argument("file", metavar="FILE", nargs="?", help="the .rules file")
    p.add_argument("--players", "-p", type=positive, metavar="N",
                   help="number of players (default: the fewest the game allows)")
    p.add_argument("--variant", "-V", action="append", default=[], metavar="NAME",
                   help="play a named variant of the rules (repeatable)")
    add_param_flag(p)
    p.add_argument("--seats", metavar="SPEC", help="who plays each seat, a comma list of human, random, "
                   "greedy, ismcts or ismcts:N (default: seat 1 human, the others random)")
    p.add_argument("--seed", type=seed_number, metavar="N", help="random seed of the first table")
    p.add_argument("--port", type=int, default=8000, metavar="P", help="the port to listen on (default: 8000)")
    p.add_argument("--host", default="127.0.0.1", metavar="H",
                   help="the address to listen on (default: 127.0.0.1, this machine only; "
                        "0.0.0.0 lets the local network in)")
    p.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a name the server answers to (repeatable); IP addresses and localhost always work. "
                        "Requests naming any other host are refused, which stops DNS rebinding")
    p.add_argument("--proxy-headers", action="store_true",
                   help="behind a reverse proxy: take the scheme, host and client address from its "
                        "X-Forwarded-* headers (only from --forwarded-allow-ips)")
    p.add_argument("--forwarded-allow-ips", metavar="IPS", default=None,
                   help="the proxy's addresses, comma list (default: 127.0.0.1)")
    p.add_argument("--max-tables", type=positive, default=100, metavar="N",
                   help="tables the server holds at once (default: 100; idle ones are reclaimed)")
    p.add_argument("--tables-per-client", type=positive, default=10, metavar="N",
                   help="tables one client address may have open at once (default: 10)")
    p.add_argument("--root-path", default="", metavar="PATH",
                   help="the sub-path the proxy serves the tables under, like /cards (the proxy strips it)")
    p.add_argument("--delay", type=float, default=0.8, metavar="SECONDS",
                   help="pause before each bot move, so people can follow (default: 0.8)")
    p.add_argument("--watch", action="store_true",
                   help="reload the rules file when it changes and restart the tables with the same seed; "
                        "compile errors show on the page")
    p.add_argument("--load", metavar="RECORD", help="resume a game saved from the table (or by the REPL)")
    p.add_argument("--save-dir", default=".", metavar="DIR", help="where the Save button writes records "
                   "(default: the current folder)")
    return p


def doc_parser() -> Parser:
    parser = Parser(prog="rulesrun doc", description="Write a rulebook a player can read from a rules file: the "
                     "components, the table, the flow of play as numbered steps, scoring and the variants.")
    parser.add_argument("file", metavar="FILE", help="the .rules file")
    parser.add_argument("--players", "-p", type=positive, metavar="N",
                        help="the rulebook for this many players (default: every count the game allows)")
    parser.add_argument("--variant", "-V", action="append", default=[], metavar="NAME",
                        help="with this variant's rules in place (repeatable)")
    add_param_flag(parser)
    parser.add_argument("--format", "-f", choices=("md", "html"), default=None,
                        help="Markdown or a standalone HTML page (default: from -o's suffix, else md)")
    parser.add_argument("-o", "--output", metavar="OUT", help="write to this file (default: print it)")
    parser.add_argument("--diagram", action="store_true",
                        help="add a picture of the flow (Graphviz DOT; SVG in HTML when 'dot' is installed); "
                             "with -o, also write OUT.dot (and OUT.svg)")
    return parser


def diff_parser() -> Parser:
    parser = Parser(prog="rulesrun diff", description="Say what the second rules file changes against the first, "
                    "in the rulebook's words: each declaration that differs, before → after (docs/guides/variants.md).")
    parser.add_argument("first", metavar="A", help="a .rules file, or a shipped game's name")
    parser.add_argument("second", metavar="B", help="a .rules file, or a shipped game's name")
    parser.add_argument("--players", "-p", type=positive, metavar="N",
                        help="compare the games for this many players (default: the fewest each allows)")
    parser.add_argument("--variant-a", action="append", default=[], metavar="NAME",
                        help="A with this variant's rules in place (repeatable)")
    parser.add_argument("--variant-b", action="append", default=[], metavar="NAME",
                        help="B with this variant's rules in place (repeatable)")
    return parser


def fmt_parser() -> Parser:
    parser = Parser(prog="rulesrun fmt", formatter_class=argparse.RawDescriptionHelpFormatter,
                    description="Lay out rules files in the one canonical layout, keeping their comments.\n"
                                "Files are rewritten in place; with --check nothing is written, and the\n"
                                "command fails if a file is not laid out canonically.")
    parser.add_argument("files", metavar="FILE", nargs="+", help="the .rules files")
    parser.add_argument("--check", action="store_true",
                        help="only report the files that fmt would change (exit 1 if any)")
    parser.add_argument("--diff", action="store_true", help="with --check, also show what would change")
    return parser


def lsp_parser() -> Parser:
    return Parser(prog="rulesrun lsp", description="Run the language server for .rules files on stdin/stdout "
                  "(for an editor to start; see docs/guides/editors.md).")
