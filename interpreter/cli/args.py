"""Command-line argument helpers shared by the subcommands' parsers (cli/parsers.py): a parser that
reports bad arguments in one clear line, and the number types of the flags."""
from __future__ import annotations

import argparse
import sys

from rulesrun.interpreter.terminal.command import rulesrun_command   # the command as it can be typed here


class Parser(argparse.ArgumentParser):
    def error(self, message):  # a clear message and exit 2, never a traceback
        self.print_usage(sys.stderr)
        print(f"rulesrun: error: {message}", file=sys.stderr)
        print(f"Try '{rulesrun_command()} --help' for more.", file=sys.stderr)
        sys.exit(2)


def positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, not {n}")
    return n


def seed_number(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if abs(n).bit_length() > 256:      # what a saved game accepts
        raise argparse.ArgumentTypeError("expected a seed of at most 256 bits")
    return n


def seconds(text: str) -> float:
    """Seconds to wait: finite, from 0 to 3600 (``nan`` and ``inf`` would crash or hang a sleep)."""
    import math
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not math.isfinite(x) or not 0 <= x <= 3600:
        raise argparse.ArgumentTypeError(f"expected a number of seconds from 0 to 3600, not {text!r}")
    return x


def param_pair(text: str) -> tuple[str, str]:
    """``--param NAME=VALUE``: (name, value text); the game checks the name and value (dsl.check.params)."""
    name, eq, value = text.partition("=")
    if not eq or not name.strip().isidentifier() or not value.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, such as target=300, not {text!r}")
    return name.strip(), value.strip()


def add_param_flag(p: argparse.ArgumentParser) -> None:
    """The ``--param NAME=VALUE`` flag (repeatable) every command that compiles a game takes."""
    p.add_argument("--param", type=param_pair, action="append", default=[], metavar="NAME=VALUE", dest="param",
                   help="set one of the game's parameters, e.g. --param target=300 (repeatable; "
                        "'rulesrun doc FILE' lists them)")


def param_dict(pairs) -> dict:
    """The --param flags as {name: value text}; a later flag for the same name wins."""
    return dict(pairs or ())
