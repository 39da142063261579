"""``rulesrun fmt FILE... [--check]``: lay out rules files in the one canonical layout (dsl/syntax/format.py)."""
from __future__ import annotations

import argparse
import sys

from rulesrun.dsl import RulesError


def main(argv: list[str]) -> int:
    from rulesrun.dsl.syntax.format import format_text
    from rulesrun.interpreter.cli.args import _Parser
    parser = _Parser(prog="rulesrun fmt", formatter_class=argparse.RawDescriptionHelpFormatter,
                     description="Lay out rules files in the one canonical layout, keeping their comments.\n"
                                 "Files are rewritten in place; with --check nothing is written, and the\n"
                                 "command fails if a file is not laid out canonically.")
    parser.add_argument("files", metavar="FILE", nargs="+", help="the .rules files")
    parser.add_argument("--check", action="store_true",
                        help="only report the files that fmt would change (exit 1 if any)")
    parser.add_argument("--diff", action="store_true", help="with --check, also show what would change")
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as e:
            print(f"rulesrun fmt: error: cannot read {path}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
            status = 1
            continue
        try:
            formatted = format_text(text, path)
        except RulesError as e:
            print(e.render(), file=sys.stderr)
            status = 1
            continue
        if formatted == text:
            continue
        if args.check:
            print(f"{path}: not formatted (run: rulesrun fmt {path})")
            if args.diff:
                import difflib
                sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), formatted.splitlines(True),
                                                           path, path + " (formatted)"))
            status = 1
        else:
            try:
                with open(path, "w", encoding="utf-8", newline="") as f:
                    f.write(formatted)
            except OSError as e:
                print(f"rulesrun fmt: error: cannot write {path}: {e.strerror or e}", file=sys.stderr)
                status = 1
                continue
            print(f"formatted {path}")
    return status
