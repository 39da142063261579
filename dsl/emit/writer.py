"""Emit: IR statements and expressions (``dsl.ir``) → Python AST nodes, for ``dsl.emit.namespace``
to compile. A ``K`` becomes a reference into the table of constants (``_k0``, ...; a literal for
None, booleans and integers), a ``Local`` a Python name made from its slot number (``l3``, ``v3``,
``_t3``, or ``L[3]``), ``St`` the state's list, a ``Stop`` the code that saves the frame and leaves
or calls, a ``Load`` the code that reads the frame back. No user text becomes Python source."""
from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from rulesrun.dsl.ir import K, Load, Local, Move, Reveal, St, Stop
from rulesrun.dsl.program import CALL_DEPTH, DONE, STOP, SWITCH

if TYPE_CHECKING:
    from rulesrun.dsl.emit.namespace import Namespace

_LOCAL_NAMES = {"py": "v{}", "frame": "l{}", "temp": "_t{}"}


class _Text(ast.Constant):
    """A text from the rules: a constant of the code object (read as fast as a number), shown in
    the listing by its name in the table of constants. It never passes through Python's parser."""
    _fields = ("value", "kind")


class _Writer:
    """Our nodes as plain Python nodes, for one function."""

    def __init__(self, space: Namespace, hoisted: tuple):
        self.space, self.hoisted = space, hoisted

    def head(self) -> list:
        return [_assign(_n(f"_{w}", store=True), _attr("S", w)) for w in self.hoisted]

    @staticmethod
    def param(p) -> str:
        return p if isinstance(p, str) else _local_name(p)

    # statements
    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        pos = getattr(s, "pos", None)
        if isinstance(s, Stop):
            out = self._stop(s)
        elif isinstance(s, Load):
            out = self._load(s.stop)
        elif isinstance(s, Move):
            out = self._move(s)
        elif _zone_move(s):
            out = self._move_zone(s.value.args[1], s.value.args[2])
        elif isinstance(s, Reveal):
            out = []
        elif _row_target(s) is not None:
            out = self._row_write(s)
        else:
            s = _shallow(s)
            for field in s._fields:
                value = getattr(s, field, None)
                if value is None:           # (a field not set: as ast.iter_fields leaves it out)
                    continue
                if field in ("body", "orelse"):
                    setattr(s, field, self.block(value) or ([ast.Pass()] if field == "body" else []))
                elif isinstance(value, ast.expr):
                    setattr(s, field, self.expr(value))
                elif isinstance(value, list) and value and isinstance(value[0], ast.expr):
                    setattr(s, field, [self.expr(v) for v in value])
            _stores(s)
            out = [s]
        for x in out:
            if getattr(x, "pos", None) is None:
                x.pos = pos
        return out

    def expr(self, node):
        return _Plain(self).visit(node)

    def _stop(self, s: Stop) -> list:
        out = self.block(s.pre)
        saved = [_n(f"l{i}") for i in s.saved]     # a decision's value is passed to the entry
        frame = ast.Subscript(value=_n("F"), slice=ast.Constant(value=2), ctx=ast.Store())
        # a tuple (one allocation; clones share it): the frame's locals are never changed in place
        out.append(_assign(frame, ast.Tuple(elts=saved, ctx=ast.Load())))
        out.append(_assign(ast.Subscript(value=_n("F"), slice=ast.Constant(value=1), ctx=ast.Store()),
                           ast.Constant(value=s.label)))
        if s.kind == "decision":
            out.append(ast.Return(value=ast.Constant(value=STOP)))
            return out
        deep = _compare(_call(_n("len"), _attr("S", "frames")), ast.Gt(), ast.Constant(value=CALL_DEPTH))
        out.append(ast.If(test=deep, body=[ast.Return(value=ast.Constant(value=SWITCH))], orelse=[]))
        out.append(_assign(_n("_r", store=True), _call(_n(f"_R{s.callee}_0"), _n("S"), _n("_G"))))
        out.append(ast.If(test=_compare(_n("_r"), ast.NotEq(), ast.Constant(value=DONE)),
                          body=[ast.Return(value=_n("_r"))], orelse=[]))
        return out

    def _load(self, s: Stop) -> list:
        names = [f"l{i}" for i in s.saved]      # (a decision's value is the entry's argument)
        if not names:
            return []
        target = ast.Tuple(elts=[_n(x, store=True) for x in names], ctx=ast.Store())
        return [_assign(target, ast.Subscript(value=_n("F"), slice=ast.Constant(value=2), ctx=ast.Load()))]

    def _move(self, s: Move) -> list:
        top = self._move_top(s)
        if top is not None:
            return top
        out = []
        card, dest = self.expr(s.card), self.expr(s.dest)
        if not _simple(s.card):
            out.append(_assign(_n("_c", store=True), card))
            card = _n("_c")
        if not _simple(s.dest):
            out.append(_assign(_n("_d", store=True), dest))   # worked out before the card leaves its zone
            dest = _n("_d")
        loc = self._st("loc")
        fail = _call(_n("fail"), self._k("there is no card to move"), self._k(s.pos))
        if not getattr(s, "card_sure", False):      # dsl.passes.nonnull: the card is never none
            out.append(ast.If(test=_compare(card, ast.Is(), ast.Constant(value=None)), body=[ast.Expr(value=fail)],
                              orelse=[]))
        held = ast.Subscript(value=loc, slice=card, ctx=ast.Load())
        out.append(self._shared_or(_call(ast.Attribute(value=ast.Subscript(value=self._st("z"), slice=held,
                                                                           ctx=ast.Load()),
                                                       attr="remove", ctx=ast.Load()), card),
                                   _call(ast.Attribute(value=_call(_n("own"), self._st("z"), held), attr="remove",
                                                       ctx=ast.Load()), card), "AttributeError"))
        return out + self._put(s, card, dest)

    def _put(self, s: Move, card, dest) -> list:
        """The card (taken from its zone) put on the top or the bottom of ``dest``; its place noted."""
        out = []
        into = ast.Subscript(value=self._st("z"), slice=dest, ctx=ast.Load())
        into_own = _call(_n("own"), self._st("z"), dest)
        if s.bottom:
            put, put_own = (_call(ast.Attribute(value=x, attr="insert", ctx=ast.Load()), ast.Constant(value=0), card)
                            for x in (into, into_own))
        else:
            put, put_own = (_call(ast.Attribute(value=x, attr="append", ctx=ast.Load()), card) for x in (into, into_own))
        out.append(self._shared_or(put, put_own, "AttributeError"))
        out.append(_assign(ast.Subscript(value=self._st("loc"), slice=card, ctx=ast.Store()), dest))
        return out

    def _move_top(self, s: Move):
        """``move top(Z) to D`` (or the bottom card): taken with ``pop()`` rather than looked for
        with ``remove()``, which reads the zone from its bottom (the whole stock, to draw its top
        card). An empty Z fails as before, and D is worked out while the card is still in Z. None
        when the card is not the top or bottom of a zone."""
        c = s.card
        if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "_top" and len(c.args) == 3
                and isinstance(c.args[1], K) and c.args[1].value in ("top", "bottom")):
            return None
        z = c.args[0]
        if not (isinstance(z, ast.Subscript) and isinstance(z.value, St) and z.value.which == "z"
                and _simple_index(self.expr(z.slice))):
            return None
        out: list = [ast.If(test=ast.UnaryOp(op=ast.Not(), operand=self.expr(z)), orelse=[],
                            body=[ast.Expr(value=self.expr(c))])]      # _top() of an empty zone: the error
        dest = self.expr(s.dest)
        if not _simple(s.dest):
            out.append(_assign(_n("_d", store=True), dest))
            dest = _n("_d")
        end = [] if c.args[1].value == "top" else [ast.Constant(value=0)]

        def take(zone):
            return _assign(_n("_c", store=True), _call(ast.Attribute(value=zone, attr="pop", ctx=ast.Load()), *end))
        out.append(self._shared_or(take(self.expr(z)), take(_call(_n("own"), self._st("z"), self.expr(z.slice))),
                                   "AttributeError"))
        return out + self._put(s, _n("_c"), dest)

    def _move_zone(self, src, dest) -> list:
        """``move_zone(S, src, dest, False)`` (every card of a zone to the top of another) written
        out: no call, and nothing but a test when the zone is empty (an accumulated pile, say)::

            _d = 21 + v0
            _m = _z[2]
            if _m:
                _z[2] = []
                for _mc in _m:
                    S.loc[_mc] = _d
                _z[_d].extend(_m)

        Both zones are worked out first, as for the call; moving a zone onto itself keeps its cards."""
        out = []
        src, dest = self.expr(src), self.expr(dest)
        if not _simple_index(src):
            out.append(_assign(_n("_s", store=True), src))
            src = _n("_s")
        if not isinstance(dest, (ast.Constant, ast.Name)):   # written once per card: worked out once
            out.append(_assign(_n("_d", store=True), dest))
            dest = _n("_d")

        def zone(i, ctx=ast.Load()):
            return ast.Subscript(value=self._st("z"), slice=i, ctx=ctx)
        relocate = ast.For(target=_n("_mc", store=True), iter=_n("_m"), orelse=[], body=[
            _assign(ast.Subscript(value=self._st("loc"), slice=_n("_mc"), ctx=ast.Store()), dest)])
        # a zone clones share is a tuple: extend this state's own copy of it (State.clone, own)
        extend = self._shared_or(_call(ast.Attribute(value=zone(dest), attr="extend", ctx=ast.Load()), _n("_m")),
                                 _call(ast.Attribute(value=_call(_n("own"), self._st("z"), dest), attr="extend",
                                                     ctx=ast.Load()), _n("_m")), "AttributeError")
        out.append(_assign(_n("_m", store=True), zone(src)))
        out.append(ast.If(test=_n("_m"), orelse=[], body=[
            _assign(zone(src, ast.Store()), ast.List(elts=[], ctx=ast.Load())), relocate, extend]))
        return out

    @staticmethod
    def _shared_or(first, again, error: str):
        """``try: first / except error: again`` — a change to a zone or a row, and the same change
        made again to a copy of this state's own when the zone or row is a tuple that clones share
        (``State.clone`` turns them into tuples; ``own`` copies one back into a list). A try costs
        nothing in Python 3.11 until something is raised, so a state that was never cloned pays
        nothing for the sharing."""
        wrap = (lambda x: x) if isinstance(first, ast.stmt) else (lambda x: ast.Expr(value=x))
        return ast.Try(body=[wrap(first)], handlers=[ast.ExceptHandler(type=_n(error), name=None, body=[wrap(again)])],
                       orelse=[], finalbody=[])

    def _row_write(self, s) -> list:
        """``S.pv[i][p] = v`` (or ``+=``), and on a row that clones share (a tuple: the write raises
        TypeError), the same write to ``own(S.pv, i)``, this state's own copy of the row."""
        t = _row_target(s)
        value = self.expr(s.value)
        first, again = _shallow(s), _shallow(s)
        for node, row in ((first, self.expr(t.value)), (again, _call(_n("own"), self.expr(t.value.value),
                                                                      self.expr(t.value.slice)))):
            place = ast.Subscript(value=row, slice=self.expr(t.slice), ctx=ast.Store())
            if isinstance(node, ast.Assign):
                node.targets = [place]
            else:
                node.target = place
            node.value = value
        return [self._shared_or(first, again, "TypeError")]

    # expressions
    def _k(self, value):
        if value is None or isinstance(value, (bool, int)):
            return ast.Constant(value=value)
        if type(value) is str:
            node = _Text(value=value)
            node.alias = self.space.const(value)
            return node
        return _n(self.space.const(value))

    def _st(self, which: str):
        return _n(f"_{which}") if which in self.hoisted else _attr("S", which)


def _zone_move(s) -> bool:
    """A statement ``move_zone(S, src, dest, False)``: a whole zone moved to the top of another."""
    return (isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Name)
            and s.value.func.id == "move_zone" and len(s.value.args) == 4
            and isinstance(s.value.args[3], K) and s.value.args[3].value is False)


def _simple_index(node) -> bool:
    """A zone index cheap and safe to write twice: a number, a local, or a number plus a local."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)
            and all(isinstance(x, (ast.Constant, ast.Name)) for x in (node.left, node.right)))

def _row_target(s):
    """The target of a write to a player's or a card's state value (``S.pv[i][p] = ...``), else None."""
    if isinstance(s, ast.Assign) and len(s.targets) == 1:
        t = s.targets[0]
    elif isinstance(s, ast.AugAssign):
        t = s.target
    else:
        return None
    if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Subscript) and isinstance(t.value.value, St) \
            and t.value.value.which in ("pv", "cv"):
        return t
    return None


def _simple(node) -> bool:
    from rulesrun.dsl.passes.inline import simple
    return simple(node)


_PLAIN_VISIT: dict = {}


class _Plain(ast.NodeTransformer):
    """Our expression nodes replaced by plain Python ones."""

    def __init__(self, w: _Writer):
        self.w = w

    def visit(self, node):      # ast.NodeVisitor.visit, its method found once per class
        method = _PLAIN_VISIT.get(node.__class__)
        if method is None:
            method = getattr(_Plain, "visit_" + node.__class__.__name__, _Plain.generic_visit)
            if method is ast.NodeVisitor.visit_Constant:    # (for visit_Num and the like: none here)
                method = _Plain.generic_visit
            _PLAIN_VISIT[node.__class__] = method
        return method(self, node)

    def generic_visit(self, node):       # a new node: the IR is shared by entries, never changed
        new = _shallow(node)
        AST, visit = ast.AST, self.visit
        for field in node._fields:
            old = getattr(node, field, None)
            if old.__class__ is list:
                setattr(new, field, [visit(x) if isinstance(x, AST) else x for x in old])
            elif isinstance(old, AST):
                setattr(new, field, visit(old))
        return new

    def visit_K(self, node):
        return self.w._k(node.value)

    def visit_Local(self, node):
        if node.mode == "L":
            return ast.Subscript(value=_n("L"), slice=ast.Constant(value=node.slot), ctx=ast.Load())
        return _n(_local_name(node))

    def visit_St(self, node):
        return self.w._st(node.which)

    def visit_Fn(self, node):
        param = _local_name(node.param)
        body = self.visit(node.body)
        marked = self._any_in_table(body, param) if getattr(node, "test", False) else None
        if marked is not None:      # any(map(TABLE.__getitem__, param)): "holds a card that ..." in C
            return self.w._k(marked.intersection)       # (the cards held of those: none is false)
        args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=param)], kwonlyargs=[],
                             kw_defaults=[], defaults=[])
        return ast.Lambda(args=args, body=body)

    def _any_in_table(self, body, param: str):
        """The items a table of yes/no marks, when the function is ``any(map(TABLE.__getitem__,
        param))`` (a test of a set's cards' attributes only, ``dsl.passes.tables``), else None."""
        if not (isinstance(body, ast.Call) and isinstance(body.func, ast.Name) and body.func.id == "any"
                and len(body.args) == 1 and not body.keywords):
            return None
        inner = body.args[0]
        if not (isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id == "map"
                and len(inner.args) == 2 and not inner.keywords and isinstance(inner.args[0], ast.Name)
                and isinstance(inner.args[1], ast.Name) and inner.args[1].id == param):
            return None
        get = self.w.space.ns.get(inner.args[0].id)
        table = getattr(get, "__self__", None)
        if type(table) is not list or getattr(get, "__name__", None) != "__getitem__" \
                or not all(type(v) is bool for v in table):
            return None
        return frozenset(i for i, v in enumerate(table) if v)

    def _gen(self, target, source, cond):
        return [ast.comprehension(target=_as_store(self.visit(target)), iter=self.visit(source),
                                  ifs=[self.visit(cond)] if cond is not None else [], is_async=0)]

    def visit_Comp(self, node):
        elt = self.visit(node.elt) if node.kind != "count" else ast.Constant(value=None)
        gens = self._gen(node.target, node.source, node.cond)
        if node.kind in ("any", "all"):
            return _call(_n(node.kind), ast.GeneratorExp(elt=elt, generators=gens))
        comp = ast.ListComp(elt=elt, generators=gens)
        if node.kind == "list":
            return comp
        return _call(_n("len" if node.kind == "count" else "sum"), comp)

    def visit_Best(self, node):
        # (keys..., ±position, item): max() gives the highest and the first of equals; min() with
        # +position the lowest. The item itself is never compared, as positions differ.
        i = self.visit(node.index)
        order = ast.UnaryOp(op=ast.USub(), operand=i) if node.kind == "highest" else i
        row = ast.Tuple(elts=[self.visit(k) for k in node.keys] + [order, self.visit(node.target)], ctx=ast.Load())
        target = ast.Tuple(elts=[_as_store(self.visit(node.index)), _as_store(self.visit(node.target))],
                           ctx=ast.Store())
        gens = [ast.comprehension(target=target, iter=_call(_n("enumerate"), self.visit(node.source)),
                                  ifs=[self.visit(node.cond)] if node.cond is not None else [], is_async=0)]
        pick = "max" if node.kind == "highest" else "min"
        return _call(_n("_best"), _n(pick), ast.ListComp(elt=row, generators=gens))


def _shallow(s):
    new = s.__class__.__new__(s.__class__)
    new.__dict__.update(s.__dict__)
    return new


def _stores(s) -> None:
    """Assignment targets written to, as Python wants them marked."""
    if isinstance(s, ast.Assign):
        s.targets = [_as_store(t) for t in s.targets]
    elif isinstance(s, (ast.AugAssign, ast.For)):
        s.target = _as_store(s.target)


def _as_store(t):
    if isinstance(t, (ast.Name, ast.Subscript, ast.Attribute)):
        t = _shallow(t)
        t.ctx = ast.Store()
    elif isinstance(t, (ast.Tuple, ast.List)):
        t = _shallow(t)
        t.elts = [_as_store(e) for e in t.elts]
        t.ctx = ast.Store()
    return t


def _local_name(node: Local) -> str:
    return _LOCAL_NAMES[node.mode].format(node.slot)


def _n(ident: str, store: bool = False):
    return ast.Name(id=ident, ctx=ast.Store() if store else ast.Load())


def _attr(obj: str, attr: str):
    return ast.Attribute(value=_n(obj), attr=attr, ctx=ast.Load())


def _call(func, *args):
    return ast.Call(func=func, args=list(args), keywords=[])


def _compare(a, op, b):
    return ast.Compare(left=a, ops=[op], comparators=[b])


def _assign(target, value):
    return ast.Assign(targets=[target], value=value)
