"""Quantifiers over a few values known when compiling, written out; an empty zone as a truth test.

    any(p in players where empty(p.hand))
        any(len(_z[2 + p]) == 0 for p in [0, 1, 2, 3])       (a generator: a frame, resumed per seat)
        not _z[2] or not _z[3] or not _z[4] or not _z[5]    (written out)

A game is compiled for one player count, so ``players`` (and any constant list) is known: an
``any`` / ``all`` over at most eight such values, whose test is small, becomes an ``or`` / ``and``
of the test at each value, in the same order and stopping at the same place, with the arithmetic
on constants worked out (``2 + 1`` is ``3``). Only tests that are true or false themselves are
written out (comparisons, ``not``, ``and`` / ``or`` of those), so the value is the same ``True`` or
``False`` as before. A ``count`` of such a test becomes ``0 + test + test ...`` (``True`` counts
1; the ``0`` keeps the value a whole number with one value). This runs where a generator would
stay one (a ``while`` condition, behind ``and`` / ``or``) as well as where ``loops`` would write a
loop.

``len(Z) == 0`` of a zone becomes ``not Z`` (a zone is a list or a tuple), and ``len(Z) != 0`` ``not not Z``
(still a truth value).
This pass copies what it changes: the analyses (``dsl.analysis.infoflow`` reads ``len`` of a zone as "how many
cards") and the entries of a resumable procedure share the statements it is given.
"""
from __future__ import annotations

import ast

from rulesrun.dsl.ir import K, Comp, Local, St, boolop, clone, map_children, not_, walk_exprs

MAX_VALUES = 8      # values written out at most
MAX_TEST = 24       # nodes in the test (and its 'where') at most


def _stmts(stmts: list) -> list:
    return [_stmt(s) for s in stmts]


def _stmt(s):
    changed = {}
    for field in s._fields:
        value = getattr(s, field, None)
        if isinstance(value, ast.expr):
            new = _expr(value)
            if new is not value:
                changed[field] = new
        elif isinstance(value, list) and value and isinstance(value[0], (ast.stmt, ast.expr)):
            new = [(_stmt(v) if isinstance(v, ast.stmt) else _expr(v)) if isinstance(v, ast.AST) else v
                   for v in value]
            if any(a is not b for a, b in zip(new, value)):
                changed[field] = new
    if not changed:
        return s
    s = clone(s)
    for k, v in changed.items():
        setattr(s, k, v)
    return s


def _expr(node):
    """``node`` with its children done first, then itself (a copy where anything changed)."""
    node = map_children(node, _expr)
    if isinstance(node, Comp) and (node.kind in ("any", "all") or node.kind == "count" and node.cond is not None):
        return _unrolled(node) or node
    if isinstance(node, ast.Compare):
        return _empty_test(node) or node
    return node


def _empty_test(node: ast.Compare):
    """``len(Z) == 0`` / ``!= 0`` of a zone as ``not Z`` / ``not not Z``."""
    if len(node.ops) != 1 or not isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        return None
    left, right = node.left, node.comparators[0]
    if not (isinstance(right, (K, ast.Constant)) and type(right.value) is int and right.value == 0):
        return None
    if not (isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
            and len(left.args) == 1 and not left.keywords):
        return None
    zone = left.args[0]
    if not (isinstance(zone, ast.Subscript) and isinstance(zone.value, St) and zone.value.which == "z"):
        return None
    test = not_(zone)
    if isinstance(node.ops[0], ast.NotEq):
        test = not_(test)
    test.rtype = getattr(node, "rtype", None)
    return test


def _truth(node) -> bool:
    """A test whose value is True or False itself."""
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return True
    if isinstance(node, ast.BoolOp):
        return all(map(_truth, node.values))
    return isinstance(node, ast.Constant) and type(node.value) is bool


def _unrolled(node: Comp):
    src = node.source
    if not (isinstance(src, K) and isinstance(src.value, (list, tuple)) and 0 < len(src.value) <= MAX_VALUES
            and all(type(v) is int for v in src.value)):
        return None
    parts = ([node.elt] if node.kind != "count" else []) + ([node.cond] if node.cond is not None else [])
    if not all(map(_truth, parts)) or sum(1 for p in parts for _ in walk_exprs(p)) > MAX_TEST:
        return None
    if any(isinstance(n, Local) and n.mode == "temp" and n.key() != node.target.key()
           for p in parts for n in walk_exprs(p)):
        return None         # (a loop's variable of its own inside: left as it is)
    key = node.target.key()
    if node.kind == "count":    # 0 + test + test ...: the number of tests that are True, a whole number
        out = ast.Constant(value=0)
        for v in src.value:
            out = ast.BinOp(left=out, op=ast.Add(), right=_fold(_put(node.cond, key, v)))
        out = _expr(out)
        out.rtype = getattr(node, "rtype", None)
        return out
    terms = []
    for v in src.value:
        test = _fold(_put(node.elt, key, v))
        if node.cond is not None:
            cond = _fold(_put(node.cond, key, v))
            test = boolop("and", cond, test) if node.kind == "any" else boolop("or", not_(cond), test)
        terms.append(test)
    out = terms[0] if len(terms) == 1 else boolop("or" if node.kind == "any" else "and", *terms)
    out = _expr(out)        # the tests written out may read as empty zones now
    out.rtype = getattr(node, "rtype", None)
    return out


def _put(node, key, value):
    """A copy of ``node`` with the local ``key`` replaced by the constant ``value``."""
    if isinstance(node, Local) and node.key() == key:
        return ast.Constant(value=value)
    changed = {}
    for field in node._fields:
        old = getattr(node, field, None)
        if isinstance(old, ast.AST):
            new = _put(old, key, value)
            if new is not old:
                changed[field] = new
        elif isinstance(old, list) and any(isinstance(v, ast.AST) for v in old):
            new = [_put(v, key, value) if isinstance(v, ast.AST) else v for v in old]
            if any(a is not b for a, b in zip(new, old)):
                changed[field] = new
    if not changed:
        return node
    node = clone(node)
    for k, v in changed.items():
        setattr(node, k, v)
    return node


_FOLD = {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__}


def _int(node):
    return isinstance(node, (ast.Constant, K)) and type(node.value) is int


def _fold(node):
    """Arithmetic on whole-number constants worked out (``2 + 1`` -> ``3``; ``(3 + 1) % 4`` -> ``0``)."""
    changed = {}
    for field in node._fields:
        old = getattr(node, field, None)
        if isinstance(old, ast.expr):
            new = _fold(old)
            if new is not old:
                changed[field] = new
        elif isinstance(old, list) and any(isinstance(v, ast.expr) for v in old):
            new = [_fold(v) if isinstance(v, ast.expr) else v for v in old]
            if any(a is not b for a, b in zip(new, old)):
                changed[field] = new
    if changed:
        node = clone(node)
        for k, v in changed.items():
            setattr(node, k, v)
    if isinstance(node, ast.BinOp) and _int(node.left) and _int(node.right):
        a, b = node.left.value, node.right.value
        if type(node.op) in _FOLD:
            return ast.Constant(value=_FOLD[type(node.op)](a, b))
        if isinstance(node.op, ast.Mod) and b != 0:
            return ast.Constant(value=a % b)
    return node


def run(stmts: list) -> list:
    """The statements with their small quantifiers over constants written out (copied where changed)."""
    return _stmts(stmts)
