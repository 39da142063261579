"""Parse ``.rules`` text into the AST (dsl.syntax.ast) with Lark's LALR parser.

The grammar lives in ``grammar/rules.lark`` (shipped inside the wheel as ``dsl/grammar``).
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

from lark import Token, Transformer, v_args
from lark.exceptions import VisitError

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.errors import Pos, RulesError, deep_rules
from rulesrun.dsl.syntax.extend import resolve


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
class _Builder(Transformer):
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

    # ── top level ──────────────────────────────────────────────────────────
    def start(self, meta, items):
        return [i for i in items if i is not None]

    def game_decl(self, meta, c):
        return A.GameDecl(pos=self._pos(meta), title=c[0].value[1:-1])

    def about_decl(self, meta, c):
        return A.AboutDecl(pos=self._pos(meta), text=c[0].value[1:-1])

    def extends_decl(self, meta, c):
        base = c[0]
        names = [t for t in c[1:] if t is not None]
        return A.ExtendsDecl(pos=self._pos(meta), base=base.value[1:-1] if base.type == "STRING" else str(base),
                             by_name=base.type != "STRING", selects=tuple(str(t) for t in names),
                             select_pos=tuple(self._tpos(t) for t in names))

    def replace_decl(self, meta, c):
        return A.ReplaceDecl(pos=self._pos(meta), item=c[0])

    def _int(self, tok) -> int:
        if len(tok.value) > 18:
            self._fail("this number is too long", self._tpos(tok), "numbers in rules are small whole numbers")
        return int(tok.value)

    def players_decl(self, meta, c):
        low = self._int(c[0])
        high = self._int(c[1]) if c[1] is not None else low
        if high < low or low < 1:
            self._fail(f"player range {low} to {high} is empty", self._pos(meta))
        return A.PlayersDecl(pos=self._pos(meta), low=low, high=high)

    def kind_decl(self, meta, c):
        vals = c[1:]
        return A.KindDecl(pos=self._pos(meta), name=str(c[0]), values=tuple(str(v[0]) for v in vals),
                          value_pos=tuple(self._tpos(v[0]) for v in vals),
                          shown=tuple(self._plain(v[1]) if v[1] is not None else None for v in vals))

    def kind_value(self, meta, c):
        return (c[0], c[1])

    def cards_decl(self, meta, c):
        attrs_, shown, entries, coloured = [], None, [], None
        for item in c:
            if isinstance(item, A.AttrDecl):
                attrs_.append(item)
            elif isinstance(item, A.ColouredBy):
                if coloured is not None:
                    self._fail("the cards say twice which attribute colours them", item.pos)
                coloured = item
            elif isinstance(item, A.Str):
                if shown is not None:
                    self._fail("the cards say twice how they are shown", item.pos)
                shown = item
            else:
                entries.append(item)
        return A.CardsDecl(pos=self._pos(meta), attrs=tuple(attrs_), shown=shown, entries=tuple(entries),
                           coloured_by=coloured)

    def attr_decl(self, meta, c):
        return A.AttrDecl(pos=self._pos(meta), name=str(c[0]), type=c[1], default=c[2])

    def shown_decl(self, meta, c):
        return self._string(c[0])

    def coloured_decl(self, meta, c):
        return A.ColouredBy(pos=self._tpos(c[0]), name=str(c[0]))

    def card_entry(self, meta, c):
        count, record, binders, cond = c
        return A.CardEntry(pos=self._pos(meta), count=1 if count is None else count,
                           fields=record, binders=binders or (), cond=cond)

    def card_count(self, meta, c):     # a number, or a name worked out when the cards are made
        t = c[0]
        return int(t) if t.type == "INT" else A.Name(pos=self._tpos(t), id=str(t))

    def card_product(self, meta, c):
        count, binders, cond = c
        return A.CardEntry(pos=self._pos(meta), count=1 if count is None else count,
                           fields=None, binders=binders, cond=cond)

    def record(self, meta, c):
        return tuple(f for f in c if f is not None)

    def field(self, meta, c):
        return (str(c[0]), c[1], self._tpos(c[0]))

    def binders(self, meta, c):
        return tuple(c)

    def binder(self, meta, c):
        return (str(c[0]), c[1])

    def t_number(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="number")

    def t_bool(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="bool")

    def t_player(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="player")

    def t_card(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="card")

    def t_text(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="text")

    def t_named(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name=str(c[0]))

    def t_list(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="list", elem=c[0])

    def per_player(self, meta, c):
        return True

    def visibility(self, meta, c):
        return str(c[0])

    def on_back(self, meta, c):
        return "on back"

    def owner_kind(self, meta, c):
        return str(c[0])

    def zone_decl(self, meta, c):
        return A.ZoneDecl(pos=self._pos(meta), name=str(c[0]), per_player=bool(c[1]), visibility=c[2],
                          display=tuple(c[3:]))

    def state_decl(self, meta, c):
        owner, name, typ, default, low, high, vis, *display = c
        return A.StateDecl(pos=self._pos(meta), owner=owner, name=str(name), type=typ, default=default,
                           visibility=vis or "public", low=low, high=high, display=tuple(display))

    # how the table shows a zone or a value
    def shown_label(self, meta, c):
        return A.Shown(pos=self._pos(meta), how="label", text=self._plain(c[0]))

    def shown_in(self, meta, c):
        return A.Shown(pos=self._pos(meta), how="in", text=str(c[0]))

    def not_shown(self, meta, c):
        return A.Shown(pos=self._pos(meta), how="hidden")

    def showing(self, meta, c):
        end, count = c
        if count is not None and int(count) < 1:
            self._fail("a pile shows at least 1 card", self._tpos(count),
                       f"write 'showing {end} 1', or 'showing {end}' for every card")
        return A.Shown(pos=self._pos(meta), how="showing", text=end, count=None if count is None else int(count))

    def pile_end(self, meta, c):
        return str(c[0])

    def described(self, meta, c):
        raw = c[0].value[1:-1]
        if not raw.strip():
            self._fail("a variant's description says something", self._tpos(c[0]),
                       'write one line, like described as "each player plays two cards a trick"')
        return raw

    def option_note(self, meta, c):
        return self._string(c[0])

    def const_decl(self, meta, c):
        return A.ConstDecl(pos=self._pos(meta), name=str(c[0]), expr=c[1])

    def param_decl(self, meta, c):
        name, typ, default, low, high = c
        return A.ParamDecl(pos=self._pos(meta), name=str(name), type=typ, default=default, low=low, high=high)

    def params(self, meta, c):
        return tuple(str(t) for t in c)

    def define_decl(self, meta, c):
        return A.DefineDecl(pos=self._pos(meta), name=str(c[0]), params=c[1] or (), expr=c[2])

    def proc_decl(self, meta, c):
        return A.ProcDecl(pos=self._pos(meta), name=str(c[0]), params=c[1] or (), body=c[2])

    def flow_decl(self, meta, c):
        return A.FlowDecl(pos=self._pos(meta), body=c[0])

    def score_decl(self, meta, c):
        return A.ScoreDecl(pos=self._pos(meta), var=str(c[0]), expr=c[1])

    def heuristic_decl(self, meta, c):
        return A.HeuristicDecl(pos=self._pos(meta), var=str(c[0]), expr=c[1])

    def order_kw(self, meta, c):
        return str(c[0])

    def order(self, meta, c):
        return (c[0], c[1])

    def winners_decl(self, meta, c):
        return A.WinnersDecl(pos=self._pos(meta), var=str(c[1]), orders=tuple(c[2:]), team=c[0] is not None)

    def by_team(self, meta, c):
        return True

    def team_entry(self, meta, c):
        return (str(c[0]), self._plain(c[1]) if c[1] is not None else str(c[0]), self._tpos(c[0]))

    def teams_decl(self, meta, c):
        if len(c) == 1 and isinstance(c[0], Token):
            n = self._int(c[0])
            return A.TeamsDecl(pos=self._pos(meta), count=n, names=(),
                               shown=tuple(f"Team {i + 1}" for i in range(n)))
        return A.TeamsDecl(pos=self._pos(meta), count=len(c), names=tuple(e[0] for e in c),
                           shown=tuple(e[1] for e in c), name_pos=tuple(e[2] for e in c))

    def invariant_decl(self, meta, c):
        return A.InvariantDecl(pos=self._pos(meta), text=c[0].value[1:-1], expr=c[2], card=c[1])

    def invariant_card(self, meta, c):
        return str(c[0])

    def variant_decl(self, meta, c):
        return A.VariantDecl(pos=self._pos(meta), name=str(c[0]), when=c[1], description=c[2],
                             items=tuple(i for i in c[3:] if i is not None))

    # ── statements ─────────────────────────────────────────────────────────
    def block(self, meta, c):
        return tuple(c)

    def random_pick(self, meta, c):
        return A.RandomPick(pos=self._pos(meta), source=c[0])

    def let_stmt(self, meta, c):
        return A.Let(pos=self._pos(meta), name=str(c[0]), expr=c[1])

    def assign_op(self, meta, c):
        return str(c[0])

    def assign_stmt(self, meta, c):
        target, op, expr = c
        if not isinstance(target, (A.Name, A.Attr)):
            self._fail("only a name or an attribute like p.score can be assigned to", target.pos)
        if isinstance(expr, A.RandomPick) and op != "=":
            self._fail(f"'{op} random from ...' is not allowed", expr.pos,
                       "pick into a local first: let r = random from ..., then add it")
        return A.Assign(pos=self._pos(meta), target=target, op=op, expr=expr)

    def bottom(self, meta, c):
        return True

    def move_stmt(self, meta, c):
        return A.Move(pos=self._pos(meta), what=c[0], bottom=bool(c[1]), dest=c[2])

    def shuffle_stmt(self, meta, c):
        return A.Shuffle(pos=self._pos(meta), zone=c[0])

    def deal_stmt(self, meta, c):
        return A.Deal(pos=self._pos(meta), count=c[0], source=c[1], family=str(c[2]), family_pos=self._tpos(c[2]),
                      start=c[3])

    def if_able(self, meta, c):
        return True

    def where_clause(self, meta, c):
        return (c[0], bool(c[1]))

    def pick_names(self, meta, c):
        return [(str(n), self._tpos(n)) for n in c]

    def pick_sources(self, meta, c):
        return list(c)

    def _picked(self, names, sources) -> dict:
        """The name and source of a pick, and for a pick of several values at once every name and
        its source (one source a name)."""
        if len(names) != len(sources):
            self._fail(f"{len(names)} names are picked from {len(sources)} sources", names[0][1],
                       "give one source a name, in the same order: q, col from opponents(p), Colour")
        seen = set()
        for n, pos in names:
            if n in seen:
                self._fail(f"'{n}' is picked twice in one pick", pos, "give each value a name of its own")
            seen.add(n)
        more = len(names) > 1
        return dict(var=names[0][0], source=sources[0], names=tuple(n for n, _ in names) if more else (),
                    sources=tuple(sources) if more else ())

    def branch_label(self, meta, c):
        return c[0], c[1]

    def choose_stmt(self, meta, c):
        player, names, sources, where, label, note = c
        cond, able = where if where else (None, False)
        return A.Choose(pos=self._pos(meta), player=player, cond=cond, **self._picked(names, sources),
                        if_able=able, label=label.value[1:-1] if label else None, label_text=self._label(label),
                        note=note)

    def subset_stmt(self, meta, c):
        player, var, source, where, such, label, note = c
        cond, able = where if where else (None, False)
        return A.Choose(pos=self._pos(meta), player=player, var=str(var), source=source, cond=cond,
                        if_able=able, label=label.value[1:-1] if label else None, subset=True, such_that=such,
                        label_text=self._label(label), note=note)

    def choose_block(self, meta, c):
        player, branches = c[0], c[1:]
        seen = {}
        for b in branches:
            if b.text is not None:
                if b.text in seen:
                    self._fail(f'the move "{b.text}" is offered twice', b.pos)
                seen[b.text] = b
        return A.ChooseBlock(pos=self._pos(meta), player=player, branches=tuple(branches))

    def pick_branch(self, meta, c):
        names, sources, where, labelled, body = c
        label, offered = labelled if labelled else (None, None)
        cond, able = where if where else (None, False)
        pick = A.Choose(pos=self._pos(meta), player=None, cond=cond, if_able=able, **self._picked(names, sources),
                        label=label.value[1:-1] if label else None, label_text=self._label(label))
        return A.Branch(pos=self._pos(meta), pick=pick, text=None, cond=offered, body=body)

    def subset_branch(self, meta, c):
        var, source, where, such, labelled, body = c
        label, offered = labelled if labelled else (None, None)
        cond, able = where if where else (None, False)
        pick = A.Choose(pos=self._pos(meta), player=None, var=str(var), source=source, cond=cond, if_able=able,
                        label=label.value[1:-1] if label else None, subset=True, such_that=such,
                        label_text=self._label(label))
        return A.Branch(pos=self._pos(meta), pick=pick, text=None, cond=offered, body=body)

    def move_branch(self, meta, c):
        text, cond, body = c
        raw = text.value[1:-1]
        if not raw.strip():
            self._fail(f"{text.value} is no move's text", self._tpos(text), "write the words of the move, like \"pass\"")
        parts = self._string(text) if "{" in raw or "}" in raw else None
        return A.Branch(pos=self._pos(meta), pick=None, text=raw, cond=cond, body=body, text_parts=parts)

    def _label(self, tok):
        """A label with {expressions} in it, parsed as a text; None for a plain label."""
        return self._string(tok) if tok is not None and "{" in tok.value else None

    def expr_stmt(self, meta, c):
        e = c[0]
        if not isinstance(e, A.Call):
            self._fail("this line does nothing", e.pos, "a statement on its own must call a procedure, like play_trick()")
        return A.ExprStmt(pos=self._pos(meta), expr=e)

    def announce_stmt(self, meta, c):
        return A.Announce(pos=self._pos(meta), text=self._string(c[1]), to=c[0])

    def reveal_stmt(self, meta, c):
        *exprs, to = c
        return A.Reveal(pos=self._pos(meta), exprs=tuple(exprs), to=to)

    def reveal_to(self, meta, c):
        return c[0]

    def pass_stmt(self, meta, c):
        return A.Pass(pos=self._pos(meta))

    def return_stmt(self, meta, c):
        return A.Return(pos=self._pos(meta), value=c[0])

    def end_stmt(self, meta, c):
        return A.EndGame(pos=self._pos(meta))

    def if_stmt(self, meta, c):
        branches = [(c[0], c[1])]
        orelse = None
        for extra in c[2:]:
            if extra is None:
                continue
            if extra[0] == "elif":
                branches.append((extra[1], extra[2]))
            else:
                orelse = extra[1]
        return A.If(pos=self._pos(meta), branches=tuple(branches), orelse=orelse)

    def elif_clause(self, meta, c):
        return ("elif", c[0], c[1])

    def else_clause(self, meta, c):
        return ("else", c[0])

    def repeat_stmt(self, meta, c):
        return A.Repeat(pos=self._pos(meta), count=c[0], body=c[1])

    def while_stmt(self, meta, c):
        return A.While(pos=self._pos(meta), cond=c[0], body=c[1])

    def for_stmt(self, meta, c):
        return A.For(pos=self._pos(meta), var=str(c[0]), source=c[1], body=c[2])

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
