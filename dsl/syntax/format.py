"""``rulesrun fmt``: one canonical layout for ``.rules`` files, comments kept where they stand.

The formatter works on tokens, line by line, rather than printing the AST (the parser drops
comments, and a printed AST would lose the author's line breaks inside brackets). Its rules:

* a block is indented by 4 spaces a level; tabs and odd widths are re-indented;
* inside a line, one space between tokens, none inside brackets, before ``,`` ``:`` ``.``, a
  call's ``(`` or an index's ``[``, and none after a unary minus;
* a line continued inside brackets is indented 4 spaces past the line that opened the bracket
  when the bracket ends its line (a hanging indent), else lined up just after the bracket;
* a run of consecutive lines that each hold a bracketed list or record at the same column is
  aligned as a table: the k-th items start in one column (a record's fields only when every line
  has the same field there) — the card lists and tables of the shipped games read as tables;
* a comment at the end of a line stays in its column (at least two spaces after the code); a
  comment on a line of its own takes the indentation of the code it belongs to;
* runs of blank lines become one; no blank lines at the start, one newline at the end;
  trailing spaces go.

Formatting never changes what a file means: the result is parsed and compared with the input's
AST (positions aside), and a difference is reported as an error rather than written.
"""
from __future__ import annotations

import functools
import re

import attrs

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.errors import Pos, RulesError
from rulesrun.dsl.syntax.parser import parse_one

TOKEN = re.compile(r"""
    (?P<ws>[ \t]+)
  | (?P<comment>\#.*)
  | (?P<string>"[^"\n]*"|'[^'\n]*')
  | (?P<booltype>yes/no(?![A-Za-z0-9_]))
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<int>[0-9]+)
  | (?P<op>==|!=|<=|>=|\+=|-=|[=<>+\-*/.,:()\[\]{}])
  | (?P<other>.)
""", re.X)

OPEN, CLOSE = "([{", ")]}"
# Keywords that are values, so that a '-' after one is a subtraction.
_VALUE_WORDS = frozenset({"yes", "no", "none", "players"})
# Keywords that are also called like functions (score(p) = ..., bottom(deck)).
_CALL_WORDS = frozenset({"score", "heuristic", "bottom", "top", "any", "each"})


@functools.lru_cache(maxsize=1)
def keywords() -> frozenset:
    """Every word the grammar reserves (its literal terminals made of letters)."""
    from pathlib import Path

    from rulesrun import grammar
    from lark import Lark
    text = (Path(grammar.__file__).resolve().parent / "rules.lark").read_text(encoding="utf-8")
    lark = Lark(text, parser="lalr", start=["start"])
    return frozenset(t.pattern.value for t in lark.terminals
                     if type(t.pattern).__name__ == "PatternStr" and re.fullmatch(r"[a-z]+", t.pattern.value))


@attrs.define
class _Tok:
    kind: str
    text: str


@attrs.define
class _Line:
    width: int                 # the original indentation (a tab counts as 8)
    toks: list                 # code tokens
    comment: str | None
    comment_col: int           # the comment's original column (0-based)
    depth: int                 # the bracket depth at the start of the line
    blank: bool = False


def _lex_line(text: str, lineno: int, path: str, source: str) -> tuple[list, str | None, int]:
    toks, comment, ccol = [], None, 0
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind == "comment":
            comment, ccol = m.group().rstrip(), m.start()
            break
        if kind == "other":
            raise RulesError(f"unexpected character {m.group()!r}", Pos(path, lineno, m.start() + 1), None, source)
        toks.append(_Tok(kind, m.group()))
    return toks, comment, ccol


def _split(source: str, path: str) -> list[_Line]:
    lines, depth = [], 0
    for i, raw in enumerate(source.split("\n"), 1):
        raw = raw.rstrip("\r")
        stripped = raw.lstrip(" \t")
        width = len((raw[:len(raw) - len(stripped)]).expandtabs(8))
        toks, comment, ccol = _lex_line(raw, i, path, source)
        lines.append(_Line(width, toks, comment, len(raw[:ccol].expandtabs(8)) if comment else 0, depth,
                           blank=not toks and comment is None))
        for t in toks:
            if t.kind == "op" and t.text in OPEN:
                depth += 1
            elif t.kind == "op" and t.text in CLOSE:
                depth = max(depth - 1, 0)
    return lines


def _is_value_end(t: _Tok, kws) -> bool:
    if t.kind in ("int", "string"):
        return True
    if t.kind == "name":
        return t.text not in kws or t.text in _VALUE_WORDS
    return t.kind == "op" and t.text in CLOSE


def _render(toks: list, kws) -> tuple[str, list]:
    """The tokens of one physical line, canonically spaced; and each token's start column."""
    out, cols = "", []
    prev = None
    unary = False      # the previous token is a unary minus
    for i, t in enumerate(toks):
        space = True
        if prev is None:
            space = False
        elif t.kind == "op" and t.text in ",:.)]}":
            space = False
        elif prev.kind == "op" and (prev.text in "([{." or unary):
            space = False
        elif t.kind == "op" and t.text == "(" and prev.kind == "name" and (
                prev.text not in kws or prev.text in _CALL_WORDS):
            space = False
        elif t.kind == "op" and t.text == "[" and _is_value_end(prev, kws):    # an index: xs[1]
            space = False
        if space:
            out += " "
        cols.append(len(out))
        out += t.text
        after_dot = i >= 2 and toks[i - 2].kind == "op" and toks[i - 2].text == "."   # prev is p.NAME
        unary = t.kind == "op" and t.text == "-" and (prev is None or not (_is_value_end(prev, kws) or after_dot))
        prev = t
    return out, cols


def _table_items(toks: list) -> tuple[int, list] | None:
    """The first bracket on a line that closes on it, and the token index starting each of its
    items: (index of the bracket, [(start index, field name or None), ...])."""
    for i, t in enumerate(toks):
        if t.kind == "op" and t.text in "[{":
            depth, starts = 0, [(i + 1, None)]
            for j in range(i, len(toks)):
                u = toks[j]
                if u.kind == "op" and u.text in OPEN:
                    depth += 1
                elif u.kind == "op" and u.text in CLOSE:
                    depth -= 1
                    if depth == 0:
                        if j == starts[-1][0]:    # a trailing comma
                            starts.pop()
                        items = []
                        for s, _ in starts:
                            field = toks[s].text if s + 1 < len(toks) and toks[s].kind == "name" and \
                                toks[s + 1].text == ":" else None
                            items.append((s, field))
                        return (i, items) if len(items) > 1 else None
                elif u.kind == "op" and u.text == "," and depth == 1:
                    starts.append((j + 1, None))
            return None
    return None


def _align(group: list) -> None:
    """Align the items of a run of table lines: group is a list of [tokens, pads, bracket col]."""
    tables = [_table_items(toks) for toks, _, _ in group]
    k = 1
    while all(len(items) > k for _, items in tables):
        fields = {items[k][1] for _, items in tables}
        if len(fields) > 1 or (None in fields and any(items[k][1] for _, items in tables)):
            break
        starts = []
        for (toks, pads, _), (_, items) in zip(group, tables):
            text, cols = _render(toks, keywords())
            idx = items[k][0]
            starts.append(cols[idx] + sum(p for j, p in pads.items() if j <= idx))
        target = max(starts)
        for (toks, pads, _), (_, items), s in zip(group, tables, starts):
            if s < target:
                pads[items[k][0]] = pads.get(items[k][0], 0) + target - s
        k += 1


def _padded(toks: list, pads: dict) -> str:
    text, cols = _render(toks, keywords())
    for idx in sorted(pads, reverse=True):
        c = cols[idx]
        text = text[:c] + " " * pads[idx] + text[c:]
    return text


def format_text(source: str, path: str = "<rules>") -> str:
    """The canonical layout of a rules file (which must parse); raises RulesError otherwise."""
    source = source.replace("\r\n", "\n")
    before = parse_one(source, path)           # only valid files are formatted (a variant file alone)
    lines = _split(source, path)
    n = len(lines)

    # 1. The indentation level of each line that starts a statement (outside brackets).
    level = [None] * n
    stack = [0]
    stacks = [None] * n          # the indentation stack before each line
    for i, ln in enumerate(lines):
        stacks[i] = list(stack)
        if ln.blank or ln.depth > 0 or not ln.toks:
            continue
        while ln.width < stack[-1]:
            stack.pop()
        if ln.width > stack[-1]:
            stack.append(ln.width)
        level[i] = len(stack) - 1
    nxt = 0
    for i in range(n - 1, -1, -1):          # comment-only lines outside brackets
        ln = lines[i]
        if level[i] is not None:
            nxt = level[i]
        elif not ln.blank and ln.depth == 0:
            st = stacks[i]
            here = max(j for j, w in enumerate(st) if w <= ln.width) if ln.width >= st[0] else 0
            level[i] = max(nxt, here)

    # 2. Render each line; continuation lines indented by the open brackets.
    out: list = []              # [indent, tokens, pads, comment, comment col] or None (blank)
    brackets: list = []         # (continuation column, indent of the line that opened it)
    for i, ln in enumerate(lines):
        if ln.blank:
            if out and out[-1] is not None and not brackets:
                out.append(None)
            continue
        if ln.depth == 0 or not brackets:
            indent = 4 * (level[i] or 0)
            brackets = []
        elif ln.toks and ln.toks[0].kind == "op" and ln.toks[0].text in CLOSE:
            indent = brackets[-1][1] if brackets[-1][2] else brackets[-1][0] - 1
        else:
            indent = brackets[-1][0]
        out.append([indent, ln.toks, {}, ln.comment, ln.comment_col])
        _, cols = _render(ln.toks, keywords())
        for j, t in enumerate(ln.toks):
            if t.kind == "op" and t.text in OPEN:
                hanging = j == len(ln.toks) - 1
                brackets.append((indent + 4 if hanging else indent + cols[j] + 1, indent, hanging))
            elif t.kind == "op" and t.text in CLOSE and brackets:
                brackets.pop()
    while out and out[-1] is None:
        out.pop()

    # 3. Tables: consecutive code lines with a bracketed list or record at the same column.
    run: list = []

    def flush():
        if len(run) > 1:
            _align(run)
        run.clear()

    for row in out:
        tab = _table_items(row[1]) if row is not None and row[1] else None
        if tab is None:
            flush()
            continue
        col = row[0] + _render(row[1], keywords())[1][tab[0]]
        if run and (run[0][2] != col):
            flush()
        run.append([row[1], row[2], col])
    flush()

    # 4. Assemble, with trailing comments in their columns.
    text = []
    for row in out:
        if row is None:
            text.append("")
            continue
        indent, toks, pads, comment, ccol = row
        code = " " * indent + _padded(toks, pads) if toks else ""
        if comment is not None:
            if toks:
                code += " " * max(ccol - len(code), 2) + comment
            else:
                code = " " * indent + comment
        text.append(code.rstrip())
    result = "\n".join(text) + "\n" if text else ""

    after = parse_one(result, path)
    if strip_positions(after.items) != strip_positions(before.items):
        raise RulesError("the formatter would change what this file means; it was left as it is "
                         "(please report this file)", Pos(path, 1, 1), None, source)
    return result


def strip_positions(value):
    """An AST as plain nested tuples, without source positions, for comparing two parses."""
    if isinstance(value, Pos):
        return None
    if isinstance(value, (tuple, list)):
        return tuple(strip_positions(v) for v in value)
    if attrs.has(type(value)):
        return (type(value).__name__,) + tuple(
            (f.name, strip_positions(getattr(value, f.name))) for f in attrs.fields(type(value)))
    return value


def check_file(path: str) -> bool:
    """Whether the file is already formatted."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return format_text(text, path) == text


__all__ = ["format_text", "strip_positions", "check_file", "keywords", "A"]
