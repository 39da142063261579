"""``rulesrun fmt FILE... [--check]``: lay out rules files in the one canonical layout (dsl/syntax/format.py)."""
from __future__ import annotations

import sys

from rulesrun.dsl import RulesError


def format_files(files, check: bool = False, diff: bool = False) -> int:
    """Rewrite each file in the canonical layout (with ``check``, only report those it would change,
    and with ``diff`` show how); the exit code: 1 if a file could not be read, parsed or written, or
    with ``check`` was not laid out canonically."""
    from rulesrun.dsl.syntax.format import format_text
    status = 0
    for path in files:
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
        if check:
            print(f"{path}: not formatted (run: rulesrun fmt {path})")
            if diff:
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
