"""A ``define``'s repeated subexpressions worked out once (common subexpression elimination).

A define is one expression of its parameters and the state, and the rules often say the same thing
twice in it: Big Two's ``kind_of`` reads ``groups(c.rank for c in s)`` in two branches and the
list of the cards' ranks in four. This pass runs on the Python function ``dsl.emit.writer`` is about to
compile for a define (``def _D7(S, v0): return ...``): the first time a costly subexpression is
worked out it is kept in a local (``(_e1 := _groups([*map(_k18_getitem, v0)]))``), and a later
place that can only be reached after that one reads the local instead.

What counts as the same, and when it is safe:

- Only subexpressions whose value is a value, not an iterator, and that change nothing: a call of
  another define (``_D*``: it reads the state, which does not change while an expression is worked
  out), of a shape or aggregate helper that does not change its argument (``PURE``), and a list
  display (``[*map(...)]``: a fresh list nobody changes; the helpers here only read it).
  Two are the same when they are written alike (``ast.dump``).
- A later place reads the local only where the first is always worked out before it: ``and`` /
  ``or`` and ``x if c else y`` work out some parts only sometimes, so what one of those parts
  works out is not known after it (``_Avail``); the first is what it was, only named.
- ``(a or b) or c`` is read as ``a or b or c`` (the same), so that ``c`` is known to come after ``b``.
- Nothing inside a lambda or a comprehension is touched (another scope, worked out later or
  never), and a define whose body is more than one ``return`` is left as it is.

So the values, the errors and the order in which things are worked out stay the same: seeded games
are the same at every step (``tests/dsl/emit/test_cse.py``).
"""
from __future__ import annotations

import ast
import re
from collections import Counter

from rulesrun.dsl.ir import walk as _walk

__all__ = ["run", "PURE"]

# helpers that return a value and do not change their arguments (dsl.emit.combos, dsl.emit.helpers, builtins)
PURE = frozenset(("_same", "_run", "_run_round", "_groups", "_leading", "_pick", "len", "list", "max", "min",
                  "sorted", "sum", "any", "all", "abs", "set", "frozenset", "tuple"))
_DEFINE = re.compile(r"_D\d+")         # another define's function (dsl.check.builtins)
_SCOPES = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _costly(node) -> bool:
    """Worth keeping, and safe to read twice: see the module's docstring."""
    if isinstance(node, ast.Call):
        f = node.func
        return isinstance(f, ast.Name) and (f.id in PURE or _DEFINE.fullmatch(f.id) is not None) and not node.keywords
    return isinstance(node, ast.List) and any(isinstance(e, ast.Starred) for e in node.elts)


def run(fn: ast.FunctionDef) -> bool:
    """Rewrite a define's function in place; True if anything was kept in a local."""
    if len(fn.body) != 1 or not isinstance(fn.body[0], ast.Return) or fn.body[0].value is None:
        return False
    ret = fn.body[0]
    ret.value = _Flat().visit(ret.value)
    seen = Counter()
    _count(ret.value, seen)
    if not any(n > 1 for n in seen.values()):
        return False
    walk = _Avail({k for k, n in seen.items() if n > 1})
    walk.visit(ret.value, frozenset())
    reused = {k for k, nodes in walk.reuse.items() if nodes}
    if not reused:
        return False
    names = {k: f"_e{i}" for i, k in enumerate(sorted(reused, key=list(walk.first).index), 1)}
    taken = {n.id for n in _walk(fn) if isinstance(n, ast.Name)} | {a.arg for a in fn.args.args}
    names = {k: v if v not in taken else f"{v}_{len(taken)}" for k, v in names.items()}
    swap = {}
    for k in reused:
        for node in walk.first[k]:
            swap[id(node)] = ("first", names[k])
        for node in walk.reuse[k]:
            swap[id(node)] = ("reuse", names[k])
    ret.value = _Swap(swap).visit(ret.value)
    ast.fix_missing_locations(fn)
    return True


def _count(node, seen: Counter) -> None:
    if isinstance(node, _SCOPES):
        return
    if _costly(node):
        seen[ast.dump(node)] += 1
    for child in ast.iter_child_nodes(node):
        _count(child, seen)


class _Avail:
    """Walks an expression in the order Python works it out, knowing which of the repeated
    subexpressions are surely worked out by then (``avail``, their ``ast.dump``): a place found
    there is a reuse, else it is a first (it is worked out there, and may be kept)."""

    def __init__(self, repeated: set):
        self.repeated = repeated
        self.first: dict = {}       # dump -> the nodes where it is worked out (kept in the local)
        self.reuse: dict = {}       # dump -> the nodes that read the local instead

    def visit(self, node, avail: frozenset) -> frozenset:
        """Visit ``node`` with ``avail`` worked out before it; what is surely worked out after it."""
        if isinstance(node, _SCOPES):
            return avail
        key = ast.dump(node) if _costly(node) else None
        if key is not None and key in self.repeated and key in avail:
            self.reuse.setdefault(key, []).append(node)
            return avail
        if isinstance(node, ast.BoolOp):        # the first part always, the others only sometimes
            after = inner = self.visit(node.values[0], avail)
            for v in node.values[1:]:
                inner = self.visit(v, inner)
            out = after
        elif isinstance(node, ast.IfExp):
            out = self.visit(node.test, avail)
            self.visit(node.body, out)
            self.visit(node.orelse, out)
        elif isinstance(node, ast.Compare):     # a < b < c: c only if a < b
            out = self.visit(node.comparators[0], self.visit(node.left, avail))
            inner = out
            for c in node.comparators[1:]:
                inner = self.visit(c, inner)
        elif isinstance(node, ast.Dict):        # key, value, key, value ...
            out = avail
            for k, v in zip(node.keys, node.values):
                if k is not None:
                    out = self.visit(k, out)
                out = self.visit(v, out)
        else:                                   # every other expression works its parts out in order
            out = avail
            for child in ast.iter_child_nodes(node):
                out = self.visit(child, out)
        if key is not None and key in self.repeated:
            self.first.setdefault(key, []).append(node)
            self.reuse.setdefault(key, [])
            out = out | {key}
        return out


class _Flat(ast.NodeTransformer):
    """``(a or b) or c`` as ``a or b or c`` (the same parts worked out, the same value), so that
    ``c`` is known to come after ``b``."""

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        values = []
        for v in node.values:
            values.extend(v.values if isinstance(v, ast.BoolOp) and type(v.op) is type(node.op) else [v])
        node.values = values
        return node

    def visit_Lambda(self, node):
        return node

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda


class _Swap(ast.NodeTransformer):
    def __init__(self, swap: dict):
        self.swap = swap

    def visit(self, node):
        how = self.swap.get(id(node))
        if how is None:
            return super().visit(node)
        kind, name = how
        if kind == "reuse":
            return ast.Name(id=name, ctx=ast.Load())
        node = self.generic_visit(node)         # (a first may hold reuses of smaller ones)
        return ast.NamedExpr(target=ast.Name(id=name, ctx=ast.Store()), value=node)
