"""Parse ``.rules`` text into the AST (dsl.syntax.ast) with Lark's LALR parser.

The grammar lives in ``grammar/rules.lark`` (shipped inside the wheel as ``dsl/grammar``).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from lark import Token, v_args
from lark.exceptions import VisitError

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.errors import Pos, RulesError, deep_rules
from rulesrun.dsl.syntax.extend import resolve
from rulesrun.dsl.syntax.build_decls import Declarations
from rulesrun.dsl.syntax.build_stmts import Statements


from rulesrun.dsl.syntax.grammar_loader import _lark, grammar_path  # noqa: F401 (grammar_path: for tools)
from rulesrun.dsl.syntax.syntax_errors import SYNTAX_ERRORS as _SYNTAX_ERRORS, syntax_error as _syntax_error  # noqa: E402


def parse_file(path: str | Path) -> A.RulesFile:
    path = str(path)
    try:
        source = Path(path).read_text(encoding="utf-8-sig")     # a BOM at the start is left out
    except FileNotFoundError:
        raise RulesError(f"no such rules file: {path}") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:   # ValueError: a NUL in the name
        raise RulesError(f"cannot read {path!r}: {e}") from None
    return parse_text(source, path)


def parse_text(source: str, path: str = "<rules>") -> A.RulesFile:
    """The rules text parsed. The same text of the same path is parsed once (the last few are
    kept): the AST is frozen, never changed by compiling, so one parse serves every player count,
    variant and reload (``rulesrun check``, a table's new game, the tests)."""
    return resolve(parse_one(source, path), parse_one)


def parse_one(source: str, path: str = "<rules>") -> A.RulesFile:
    """One file parsed as it is written: a variant file's ``extends`` not followed, its base not read
    (``rulesrun fmt``, the language server's view of the file itself)."""
    source = source[1:] if source.startswith("\ufeff") else source
    _check_text(source, path)
    return _parsed(source, path)


@functools.lru_cache(maxsize=32)
def _parsed(source: str, path: str) -> A.RulesFile:
    text = source if source.endswith("\n") else source + "\n"
    try:
        tree = _lark().parse(text, start="start")
    except _SYNTAX_ERRORS as e:
        raise _syntax_error(e, path, source) from None
    try:
        with deep_rules(path, source):
            items = _Builder(path, source).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, RecursionError):
            with deep_rules(path, source):
                raise e.orig_exc from None
        if isinstance(e.orig_exc, RulesError):
            raise e.orig_exc from None
        raise
    return A.RulesFile(path=path, source=source, items=tuple(items))


# Characters a rules file may not hold: they could drive a terminal or reorder the text shown
# (C0 controls but tab, DEL, C1 controls, bidi controls). A newline ends a line; '\r' before it is
# a Windows line end. A UTF-8 BOM at the very start is left out before this check.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
                       "|\r(?!\n)")


def _check_text(source: str, path: str) -> None:
    m = _CONTROLS.search(source)
    if m is None:
        return
    line = source.count("\n", 0, m.start()) + 1
    col = m.start() - (source.rfind("\n", 0, m.start()) + 1) + 1
    raise RulesError(f"unexpected character U+{ord(m.group()[0]):04X}", Pos(path, line, col),
                     "a control character, which does not show here but could change what a terminal "
                     "shows: remove it (a rules file may not hold control characters, even in a text)", source)


def parse_expr(text: str, path: str, source: str, line: int, col: int) -> A.Expr:
    """Parse an expression embedded in a string (``{...}`` in announce texts)."""
    try:
        tree = _lark().parse(text, start="test")
    except _SYNTAX_ERRORS as e:
        err = _syntax_error(e, path, text)
        raise RulesError(err.message + " in '{" + text + "}'", Pos(path, line, col + (err.pos.column - 1 if err.pos else 0)),
                         None, source) from None
    try:
        return _Builder(path, source, line_base=line, col_base=col).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, RulesError):
            raise e.orig_exc from None
        raise


_INTERP = re.compile(r"\{([^{}]*)\}")


@v_args(meta=True)
class _Builder(Declarations, Statements):
    """Lark's tree to the AST: the declarations (``build_decls``), the statements (``build_stmts``)
    and, here, the expressions and the helpers all three use."""

    def __init__(self, path: str, source: str, line_base: int = 0, col_base: int = 0):
        super().__init__()
        self.path = path
        self.source = source
        self.line_base = line_base
        self.col_base = col_base

    def _pos(self, meta) -> Pos:
        line = getattr(meta, "line", 1)
        col = getattr(meta, "column", 1)
        if self.line_base:
            return Pos(self.path, self.line_base, self.col_base + col - 1)
        return Pos(self.path, line, col)

    def _tpos(self, tok: Token) -> Pos:
        if self.line_base:
            return Pos(self.path, self.line_base, self.col_base + tok.column - 1)
        return Pos(self.path, tok.line, tok.column)

    def _fail(self, msg, pos, hint=None):
        raise RulesError(msg, pos, hint, self.source)

    def _plain(self, tok: Token) -> str:
        """A string that is a name to show, not a message: no {expressions}, not empty."""
        raw = tok.value[1:-1]
        if not raw.strip() or "{" in raw or "}" in raw:
            self._fail(f"{tok.value} cannot be shown as a value's name", self._tpos(tok),
                       "write the words to show, like \"no trump\" (no braces)")
        return raw

    def _string(self, tok: Token) -> A.Str:
        raw = tok.value[1:-1]
        pos = self._tpos(tok)
        parts = []
        last = 0
        for m in _INTERP.finditer(raw):
            if m.start() > last:
                parts.append(raw[last:m.start()])
            inner = m.group(1)
            if not inner.strip():
                self._fail("empty {} in a string", Pos(pos.file, pos.line, pos.column + 1 + m.start()),
                           "put an expression inside the braces, like {p}")
            parts.append(parse_expr(inner, self.path, self.source, pos.line, pos.column + 2 + m.start()))
            last = m.end()
        if last < len(raw):
            parts.append(raw[last:])
        if any(ch in p for p in parts if isinstance(p, str) for ch in "{}"):
            self._fail("unbalanced brace in a string", pos, "braces hold an expression: {p.score}")
        return A.Str(pos=pos, parts=tuple(parts))

    # ── expressions ────────────────────────────────────────────────────────
    def range(self, meta, c):
        return A.Range(pos=self._pos(meta), low=c[0], high=c[1])

    def ternary(self, meta, c):
        return A.Ternary(pos=self._pos(meta), then=c[0], cond=c[1], other=c[2])

    def _binder(self, e, what):
        if not (isinstance(e, A.Compare) and e.op == "in" and isinstance(e.left, A.Name)):
            self._fail(f"{what} needs a name and where it comes from, like 'c in trick'", e.pos)
        return e.left.id, e.right

    def best(self, meta, c):
        kind, binder, cond, *keys = c
        var, source = self._binder(binder, f"'{kind}'")
        return A.Best(pos=self._pos(meta), kind=kind, var=var, source=source, cond=cond, keys=tuple(keys))

    def or_(self, meta, c):
        return A.BoolOp(pos=self._pos(meta), op="or", left=c[0], right=c[1])

    def and_(self, meta, c):
        return A.BoolOp(pos=self._pos(meta), op="and", left=c[0], right=c[1])

    def not_(self, meta, c):
        return A.Not(pos=self._pos(meta), operand=c[0])

    def comp_op(self, meta, c):
        return " ".join(str(t) for t in c)

    def add_op(self, meta, c):
        return str(c[0])

    mul_op = add_op

    def compare(self, meta, c):
        return A.Compare(pos=self._pos(meta), op=c[1], left=c[0], right=c[2])

    def binop(self, meta, c):
        return A.BinOp(pos=self._pos(meta), op=c[1], left=c[0], right=c[2])

    def neg(self, meta, c):
        return A.Neg(pos=self._pos(meta), operand=c[0])

    def attr(self, meta, c):
        return A.Attr(pos=self._pos(meta), obj=c[0], name=str(c[1]), name_pos=self._tpos(c[1]))

    def call(self, meta, c):
        return A.Call(pos=self._pos(meta), func=str(c[0]), args=tuple(a for a in c[1:] if a is not None))

    def index(self, meta, c):
        """``xs[i]``: the i-th item (1 the first, -1 the last), as ``item(xs, i)``."""
        return A.Call(pos=self._pos(meta), func="item", args=(c[0], c[1]))

    def aggregate(self, meta, c):
        func, expr, *loops, cond = c
        pos = self._pos(meta)
        binders = [(str(loops[i]), loops[i + 1]) for i in range(0, len(loops), 2)]
        if len(binders) == 1:
            return A.Aggregate(pos=pos, func=str(func), expr=expr, var=binders[0][0], source=binders[0][1], cond=cond)
        return self._nested(str(func), expr, binders, cond, pos)

    _NESTED = ("sum", "any", "all", "max", "min")

    def _nested(self, func, expr, binders, cond, pos):
        """``f(e for p in P for c in S where w)``, one 'for' after another, as aggregates within
        aggregates: the sum of the inner sums (any of the anys, ...); for max and min only over the
        outer items whose inner list is not empty, so that an empty inner list is no error while
        the whole is not empty."""
        if func not in self._NESTED:
            self._fail(f"'{func}(...)' takes one 'for'", pos,
                       f"several 'for's are for {', '.join(self._NESTED)}: write {func}(... for x in ...) of one source")
        (var, source), rest = binders[0], binders[1:]
        if not rest:
            return A.Aggregate(pos=pos, func=func, expr=expr, var=var, source=source, cond=cond)
        inner = self._nested(func, expr, rest, cond, pos)
        outer_cond = None
        if func in ("max", "min"):          # only where the inner one has something to compare
            outer_cond = self._nested("any", A.Bool(pos=pos, value=True) if cond is None else cond, rest, None, pos)
        return A.Aggregate(pos=pos, func=func, expr=inner, var=var, source=source, cond=outer_cond)

    def aggregate_filter(self, meta, c):
        var, source = self._binder(c[1], f"'{c[0]}(...)'")
        return A.Aggregate(pos=self._pos(meta), func=str(c[0]), expr=None, var=var, source=source, cond=c[2])

    def _ranged(self, binder, high, what):
        """'x in LOW to HIGH' in a filter: the binder's right side is the range's start."""
        var, low = self._binder(binder, what)
        return var, A.Range(pos=low.pos, low=low, high=high)

    def aggregate_range(self, meta, c):
        var, source = self._ranged(c[1], c[2], f"'{c[0]}(...)'")
        return A.Aggregate(pos=self._pos(meta), func=str(c[0]), expr=None, var=var, source=source, cond=c[3])

    def number(self, meta, c):
        return A.Num(pos=self._pos(meta), value=self._int(c[0]))

    def string(self, meta, c):
        return self._string(c[0])

    def yes(self, meta, c):
        return A.Bool(pos=self._pos(meta), value=True)

    def no(self, meta, c):
        return A.Bool(pos=self._pos(meta), value=False)

    def none(self, meta, c):
        return A.NoneLit(pos=self._pos(meta))

    def name(self, meta, c):
        return A.Name(pos=self._pos(meta), id=str(c[0]))

    def players(self, meta, c):
        return A.Players(pos=self._pos(meta), start=c[0])

    def player_lit(self, meta, c):
        n = int(c[0])
        if n < 1:
            self._fail("players are numbered from 1", self._pos(meta))
        return A.PlayerLit(pos=self._pos(meta), number=n)

    def variant_test(self, meta, c):
        return A.VariantTest(pos=self._pos(meta), name=str(c[0]), name_pos=self._tpos(c[0]))

    def all_cards(self, meta, c):
        return A.EveryCard(pos=self._pos(meta))

    def all_teams(self, meta, c):
        return A.AllTeams(pos=self._pos(meta))

    def list_lit(self, meta, c):
        return A.ListLit(pos=self._pos(meta), items=tuple(i for i in c if i is not None))

    def list_filter(self, meta, c):
        var, source = self._binder(c[0], "'[... where ...]'")
        return A.ListComp(pos=self._pos(meta), expr=A.Name(pos=c[0].left.pos, id=var), var=var, source=source, cond=c[1])

    def list_range(self, meta, c):
        var, source = self._ranged(c[0], c[1], "'[... where ...]'")
        return A.ListComp(pos=self._pos(meta), expr=A.Name(pos=c[0].left.pos, id=var), var=var, source=source, cond=c[2])

    def list_comp(self, meta, c):
        return A.ListComp(pos=self._pos(meta), expr=c[0], var=str(c[1]), source=c[2], cond=c[3])
