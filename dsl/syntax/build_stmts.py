"""The statements of a ``.rules`` file, from Lark's tree to the AST: blocks, assignments, moves,
decisions (choices, subsets, choice blocks with their picks, windows), announcements, reveals,
conditionals and loops, ``at once`` blocks. A part of the parser's one transformer
(``dsl.syntax.parser``), kept in its own module."""
from __future__ import annotations

from lark import Transformer, v_args

from rulesrun.dsl.syntax import ast as A


@v_args(meta=True)
class Statements(Transformer):
    """Lark callbacks for the statements (their helpers are the parser's)."""

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
        self._branches(branches)
        return A.ChooseBlock(pos=self._pos(meta), player=player, branches=tuple(branches))

    def window_kw(self, meta, c):
        return str(c[0])

    def window(self, meta, c):
        mode, var, source, cond, branches = c[0], c[1], c[2], c[3], c[4:]
        self._branches(branches)
        for b in branches:
            if b.text == A.PASS:
                self._fail(f'a window offers "{A.PASS}" itself', b.pos,
                           f'write only what a seat may take; every seat asked may also "{A.PASS}"')
        return A.Window(pos=self._pos(meta), mode=mode, var=str(var), source=source, cond=cond,
                        branches=tuple(branches))

    def _branches(self, branches):
        """A choice block's (or a window's) branches: at most one pick, each move once."""
        seen = {}
        for b in branches:
            if b.text is not None:
                if b.text in seen:
                    self._fail(f'the move "{b.text}" is offered twice', b.pos)
                seen[b.text] = b

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

    def at_once_stmt(self, meta, c):
        return A.AtOnce(pos=self._pos(meta), var=str(c[0]), source=c[1], body=c[2], then=c[3])
