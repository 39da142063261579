"""Every shipped game's and example's generated code, written to a folder: to check that a change
meant to change nothing in what the compiler makes (a faster pass, a tidier stage) changes nothing.

For each rules file, with no variant and with each variant alone, at its fewest and most players,
one file holds the generated Python (``rulesrun compile --emit``), then the bytecode, line table
and positions of every function, then the map from generated lines to rules positions:

    .venv/bin/python -m tests.emitted /tmp/before          # on the old code (git stash, or a worktree)
    .venv/bin/python -m tests.emitted /tmp/after
    diff -r /tmp/before /tmp/after && echo same

It runs with ``PYTHONHASHSEED=0`` (it starts itself again with it), so that two runs of the same
code write the same files. Temporaries are numbered across one process, so the programs are
compiled in the same order every time: compare whole runs, not single files of different runs.
"""
from __future__ import annotations

import os
import re
import sys
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _code_lines(code, out: list) -> None:
    out.append(f"{code.co_name}|{list(code.co_lines())}|{list(code.co_positions())}|{code.co_code.hex()}")
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            _code_lines(c, out)


def write(folder: Path, files=None) -> int:
    """Write one file per program into ``folder``; the number written."""
    sys.path.insert(0, str(ROOT))
    from rulesrun.dsl import compile_rules
    from rulesrun.dsl.syntax.ast import VariantDecl
    from rulesrun.interpreter.cli.main import _allowed_players, _emitted
    folder = folder.resolve()
    folder.mkdir(parents=True, exist_ok=True)
    paths = files or sorted(ROOT.glob("games/*.rules")) + sorted(ROOT.glob("examples/*.rules"))
    n = 0
    os.chdir(ROOT)                  # paths as the rules name them, the same in any checkout
    for path in paths:
        path = Path(path).resolve()
        rules, span = _allowed_players(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path))
        if span is None:
            continue
        for variants in [()] + [(v.name,) for v in rules.items if isinstance(v, VariantDecl)]:
            for players in sorted({span[0], span[1]}):
                try:
                    prog = compile_rules(rules, players, variants)
                except Exception as e:          # (a variant for other player counts: its message)
                    text = f"error {type(e).__name__}: {e}\n"
                else:
                    lines: list = []
                    for name in sorted(prog.code.ns):
                        value = prog.code.ns[name]
                        if isinstance(value, types.FunctionType):
                            _code_lines(value.__code__, lines)
                    where = sorted((f, sorted((line, repr(pos)) for line, pos in table.items()))
                                   for f, table in prog.code.code_pos.items())
                    text = _emitted(prog) + "\n".join(lines) + "\n" + repr(where) + "\n"
                text = re.sub(r" at 0x[0-9a-f]+", "", text)     # (addresses of objects in reprs)
                (folder / f"{Path(path).stem}-{'+'.join(variants) or '-'}-{players}.txt").write_text(text)
                n += 1
    return n


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit("usage: python -m tests.emitted FOLDER [RULES_FILE ...]")
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.execve(sys.executable, [sys.executable, "-m", "tests.emitted", *sys.argv[1:]],
                  dict(os.environ, PYTHONHASHSEED="0"))
    count = write(Path(sys.argv[1]), [Path(a).resolve() for a in sys.argv[2:]] or None)
    print(f"wrote {count} programs to {sys.argv[1]}")
