"""The intermediate representation between checking and emitting Python.

Expressions are trees of Python-shaped nodes (``ast.BinOp``, ``ast.Compare``, ``ast.Call`` of a
runtime helper, ...) with a few nodes of our own for what the rules mean; statements likewise, with
the places a procedure can stop made explicit. Every expression the checker builds carries its
rules type in ``rtype`` (see ``dsl.types``), and every statement the rules line it came from in
``pos``. Passes (``dsl.passes``) rewrite these trees; only ``dsl.emit.writer`` turns them into Python.

Our own nodes:

    K(value)                 a value known when compiling: emitted as a reference into the program's
                             table of constants (or a literal, for None, booleans and integers)
    Local(slot, mode)        a local of the procedure or function being compiled (``dsl.scope``)
    St(which)                one of the state's lists: z (zones), g (globals), pv, cv, loc
    Comp(kind, ...)          list / any / all / count / sum over the items of a source
    Best(kind, ...)          ``highest`` / ``lowest`` item of a source by keys
    Move(card, dest, bottom) move one card (a zone operation)
    Stop(...)                a place a resumable procedure stops: a decision or a call
    Load(label, ...)         where an entry that resumes at a label starts again

User text (names, strings, card names, labels) reaches the generated code only through ``K``.
"""
from __future__ import annotations

import ast
from collections import deque
from typing import Any

__all__ = ["K", "Local", "St", "Comp", "Best", "Fn", "Move", "Reveal", "Stop", "Load", "typed", "name", "call", "sub",
           "compare", "binop", "boolop", "not_", "ifexp", "assign", "augassign", "expr_stmt", "ret",
           "store", "at", "walk", "walk_exprs", "children", "kids", "clone", "COMP_KINDS"]


# ── our nodes ────────────────────────────────────────────────────────────────
class K(ast.expr):
    """A value known when compiling."""
    _fields = ()

    def __init__(self, value: Any = None, rtype: str | None = None):
        super().__init__()
        self.value = value
        self.rtype = rtype

    def __deepcopy__(self, memo):       # the value is shared, never copied (a card table, say)
        return K(self.value, self.rtype)


class Local(ast.expr):
    """A local: mode "L" (an item of the list L, for values worked out while compiling), "py" (a
    Python local of a plain function), "frame" (a resumable procedure's local, kept in its frame
    when it stops) or "temp" (a loop variable inside an expression)."""
    _fields = ()

    def __init__(self, slot: int = 0, mode: str = "py", rtype: str | None = None):
        super().__init__()
        self.slot, self.mode, self.rtype = slot, mode, rtype

    def key(self) -> tuple:
        return (self.mode, self.slot)


class St(ast.expr):
    """One of the state's lists (``S.z`` ...), read once into a local where a procedure uses it often."""
    _fields = ()

    def __init__(self, which: str = "z"):
        super().__init__()
        self.which = which


COMP_KINDS = ("list", "any", "all", "count", "sum")


class Comp(ast.expr):
    """An expression over the items of ``source``: ``list`` [elt for target in source if cond],
    ``any`` / ``all`` (elt is the test), ``count`` (how many pass cond), ``sum`` (of elt)."""
    _fields = ("elt", "source", "cond")

    def __init__(self, kind: str = "list", elt=None, target: Local = None, source=None, cond=None,
                 rtype: str | None = None):
        super().__init__()
        assert kind in COMP_KINDS, kind
        self.kind, self.elt, self.target, self.source, self.cond, self.rtype = kind, elt, target, source, cond, rtype


class Best(ast.expr):
    """The first item of ``source`` (passing ``cond``) with the highest / lowest ``keys``, or None."""
    _fields = ("keys", "source", "cond")

    def __init__(self, kind: str = "highest", keys: list = (), target: Local = None, index: Local = None,
                 source=None, cond=None, rtype: str | None = None):
        super().__init__()
        self.kind, self.keys, self.target, self.index = kind, list(keys), target, index
        self.source, self.cond, self.rtype = source, cond, rtype


class Fn(ast.expr):
    """A function of one argument, for a runtime helper to call: ``lambda param: body``."""
    _fields = ("body",)

    def __init__(self, param: Local = None, body=None, test: bool = False):
        super().__init__()
        self.param, self.body = param, body
        self.test = test        # a yes/no test of a set, its value read only as true or false


class Move(ast.stmt):
    """Move one card to the top (or the bottom) of a zone; a card that is none is a rules error."""
    _fields = ("card", "dest")

    def __init__(self, card=None, dest=None, bottom: bool = False, pos=None):
        super().__init__()
        self.card, self.dest, self.bottom, self.pos = card, dest, bottom, pos


class Reveal(ast.stmt):
    """``reveal``: the values are seen from here on — by every seat, or by the seat ``to`` (for
    ``dsl.analysis.infoflow``); emits nothing (what is noted in ``S.shown`` follows it)."""
    _fields = ("values",)

    def __init__(self, values: list = (), pos=None, to=None):
        super().__init__()
        self.values, self.pos, self.to = list(values), pos, to      # to: the one seat shown, or None


class Stop(ast.stmt):
    """A place where a resumable procedure stops: ``kind`` "decision" (``pre`` opens it and the
    procedure returns STOP; on resuming, the engine passes the chosen value to the entry, whose
    third parameter is ``chosen``) or
    "call" (``pre`` pushes the callee's frame; it is run as a Python call to ``callee``'s first
    entry when the stack is shallow, and the caller carries on if it is done). ``saved``: the
    frame locals kept over the stop, worked out by the liveness pass."""
    _fields = ("pre",)

    def __init__(self, kind: str = "decision", label: int = 0, pre: list = (), pos=None, chosen: Local | None = None,
                 decision=None, callee: int | None = None):
        super().__init__()
        self.kind, self.label, self.pre, self.pos = kind, label, list(pre), pos
        self.chosen, self.decision, self.callee = chosen, decision, callee
        self.saved: list = []
        self.options = None       # a decision's options, as first worked out (for dsl.analysis.facts, dsl.analysis.infoflow)


class Load(ast.stmt):
    """The start of the entry that resumes at ``label``: the saved locals are read back from the
    frame (a decision's chosen value is the entry's argument)."""
    _fields = ()

    def __init__(self, stop: Stop = None):
        super().__init__()
        self.stop, self.pos = stop, getattr(stop, "pos", None)


# ── building Python-shaped nodes ─────────────────────────────────────────────
def typed(node, rtype: str):
    node.rtype = rtype
    return node


def name(ident: str):
    """A name the generated code knows: a runtime helper or a Python builtin, never user text."""
    return ast.Name(id=ident, ctx=ast.Load())


def call(func, *args):
    return ast.Call(func=name(func) if isinstance(func, str) else func, args=list(args), keywords=[])


def sub(value, index):
    return ast.Subscript(value=value, slice=index, ctx=ast.Load())


_CMP = {"==": ast.Eq, "!=": ast.NotEq, "<": ast.Lt, "<=": ast.LtE, ">": ast.Gt, ">=": ast.GtE,
        "in": ast.In, "not in": ast.NotIn, "is": ast.Is, "is not": ast.IsNot}
_BIN = {"+": ast.Add, "-": ast.Sub, "*": ast.Mult, "%": ast.Mod}


def compare(a, op: str, b):
    return ast.Compare(left=a, ops=[_CMP[op]()], comparators=[b])


def binop(a, op: str, b):
    return ast.BinOp(left=a, op=_BIN[op](), right=b)


def boolop(op: str, *values):
    return ast.BoolOp(op=ast.And() if op == "and" else ast.Or(), values=list(values))


def not_(a):
    return ast.UnaryOp(op=ast.Not(), operand=a)


def ifexp(test, a, b):
    return ast.IfExp(test=test, body=a, orelse=b)


def store(target):
    """The same place, to be written."""
    if isinstance(target, (Local, St, K)):
        return target         # emit gives these their context
    target = _copy(target)
    target.ctx = ast.Store()
    return target


def _copy(node):
    return clone(node)


def clone(node):
    """A shallow copy of a node (faster than copy.copy, which goes through __reduce_ex__)."""
    new = node.__class__.__new__(node.__class__)
    new.__dict__.update(node.__dict__)
    return new


def with_fields(node, **fields):
    """A copy of ``node`` with ``fields`` set (the passes copy what they change: entries share statements)."""
    node = clone(node)
    for k, v in fields.items():
        setattr(node, k, v)
    return node


def map_children(node, visit):
    """``node`` with ``visit`` applied to each of its child expressions (a copy if any changed)."""
    changed = {}
    for field in node._fields:
        value = getattr(node, field, None)
        if isinstance(value, ast.expr):
            new = visit(value)
            if new is not value:
                changed[field] = new
        elif isinstance(value, list) and any(isinstance(v, ast.expr) for v in value):
            new = [visit(v) if isinstance(v, ast.expr) else v for v in value]
            if any(a is not b for a, b in zip(new, value)):
                changed[field] = new
    return with_fields(node, **changed) if changed else node


def assign(target, value, pos=None):
    return at(ast.Assign(targets=[store(target)], value=value), pos)


def augassign(target, op: str, value, pos=None):
    return at(ast.AugAssign(target=store(target), op=_BIN[op](), value=value), pos)


def expr_stmt(value, pos=None):
    return at(ast.Expr(value=value), pos)


def ret(value, pos=None):
    return at(ast.Return(value=value), pos)


def at(stmt, pos):
    """A statement, with the rules position it came from."""
    stmt.pos = pos
    return stmt


def children(n) -> list:
    """The nodes directly below ``n``, our nodes' inner expressions too."""
    ours = _OURS.get(n.__class__)
    return kids(n) if ours is None else ours(n)


_OURS = {   # (none of these has a subclass)
    Comp: lambda n: [x for x in (n.elt, n.target, n.source, n.cond) if x is not None],
    Best: lambda n: [*n.keys, n.target, n.index, n.source] + ([n.cond] if n.cond is not None else []),
    Fn: lambda n: [n.param, n.body],
    Move: lambda n: [n.card, n.dest],
    Stop: lambda n: list(n.pre),
}


_AST = ast.AST


def kids(n) -> list:
    """``list(ast.iter_child_nodes(n))``, about twice as fast (the passes walk every tree often)."""
    out = []
    for f in n._fields:
        v = getattr(n, f, None)
        if isinstance(v, _AST):
            out.append(v)
        elif v.__class__ is list:
            out.extend([x for x in v if isinstance(x, _AST)])
    return out


def walk(node):
    """``ast.walk``: ``node`` and every node below it, breadth first (in the same order), faster."""
    todo = deque([node])
    while todo:
        n = todo.popleft()
        todo.extend(kids(n))
        yield n


def walk_exprs(node):
    """Every node below ``node`` (itself included), our nodes' inner expressions too."""
    todo = [node]
    while todo:
        n = todo.pop()
        yield n
        todo.extend(children(n))
