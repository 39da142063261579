"""What a loop works out from its card alone, made a table when compiling.

    sum(penalty_value(c) for c in p.hand)
        penalty_value(c) = 50 if c.rank == 8 else 10 if c.rank >= 11 and c.rank <= 13 else ...
        _h1 += 50 if _k11[t] == 8 else 10 if _k11[t] >= 11 and _k11[t] <= 13 else ...   (per card)
        _h1 += _k60[t]                                                                     (a table)

An expression that reads its loop's item only through tables known when compiling (a card
attribute's row, ``_k11[t]``) and nothing else of the game — constants, comparisons, ``and`` /
``or`` / ``not``, ``... if ... else ...``, ``+ - *`` — has one value per item, the same at every
turn: it is worked out for every index of those tables when the game is compiled and read from
the table it makes. Only where it is worth it (a test of ``if ... else`` or more than one table
read), and only when it can be worked out for every index without failing; a table as long as the
tables it reads fails, for an item out of range, as they did.
"""
from __future__ import annotations

import ast
import operator

from rulesrun.dsl.ir import K, Local, walk as _walk

_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge}
_VALUES = (int, str, bool, type(None))


def in_loop(node):
    """A ``Comp`` or ``Best`` (a copy, if changed) whose item's values and tests read tables."""
    from rulesrun.dsl.ir import Best, with_fields
    item = node.target
    if isinstance(node, Best):
        keys = [of_item(k, item) for k in node.keys]
        cond = of_item(node.cond, item)
        if cond is node.cond and all(a is b for a, b in zip(keys, node.keys)):
            return node
        return with_fields(node, keys=keys, cond=cond)
    elt, cond = of_item(node.elt, item), of_item(node.cond, item)
    if elt is node.elt and cond is node.cond:
        return node
    return with_fields(node, elt=elt, cond=cond)


def of_item(node, item: Local):
    """``node`` with its largest parts that are functions of ``item`` alone read from tables."""
    if node is None:
        return None
    found = _table(node, item.key())
    if found is not None:
        return found
    if isinstance(node, (ast.Constant, K, Local)) or not isinstance(node, ast.expr):
        return node
    from rulesrun.dsl.ir import Best, Comp, Fn
    if isinstance(node, (Comp, Best, Fn, ast.Lambda)):
        return node                 # a loop of its own
    from rulesrun.dsl.ir import map_children
    return map_children(node, lambda n: of_item(n, item))


def _table(node, key):
    sizes: set = set()
    reads = [0]
    branches = [0]
    fn = _build(node, key, sizes, reads, branches)
    if fn is None or len(sizes) != 1 or not (branches[0] or reads[0] > 1):
        return None
    n = sizes.pop()
    try:
        table = [fn(c) for c in range(n)]
    except Exception:               # (a value it cannot work out for some index: leave it)
        return None
    if not all(type(v) in _VALUES for v in table):
        return None
    out = ast.Subscript(value=K(table), slice=_item_of(node, key), ctx=ast.Load())
    out.rtype = getattr(node, "rtype", None)
    return out


def _item_of(node, key):
    for n in _walk(node):
        if isinstance(n, Local) and n.key() == key:
            return n
    return None


def _build(n, key, sizes, reads, branches):
    """A function (index) -> the value of ``n``, or None where ``n`` is not of the shape."""
    if isinstance(n, (ast.Constant, K)):
        v = n.value
        return (lambda c: v) if type(v) in _VALUES else None
    if isinstance(n, ast.Subscript) and isinstance(n.value, K) and isinstance(n.slice, Local) \
            and n.slice.key() == key:
        rows = n.value.value
        if not isinstance(rows, list) or not all(type(v) in _VALUES for v in rows):
            return None
        sizes.add(len(rows))
        reads[0] += 1
        return lambda c: rows[c]
    if isinstance(n, ast.Compare):
        parts = [_build(x, key, sizes, reads, branches) for x in [n.left] + n.comparators]
        ops = [_CMP.get(type(op)) for op in n.ops]
        if any(p is None for p in parts) or any(op is None for op in ops):
            return None

        def compare(c):
            vals = [p(c) for p in parts]
            return all(op(vals[k], vals[k + 1]) for k, op in enumerate(ops))
        return compare
    if isinstance(n, ast.BoolOp):
        parts = [_build(x, key, sizes, reads, branches) for x in n.values]
        if any(p is None for p in parts):
            return None
        is_and = isinstance(n.op, ast.And)

        def boolop(c):
            v = None
            for p in parts:
                v = p(c)
                if bool(v) != is_and:
                    return v
            return v
        return boolop
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.Not, ast.USub)):
        inner = _build(n.operand, key, sizes, reads, branches)
        if inner is None:
            return None
        return (lambda c: not inner(c)) if isinstance(n.op, ast.Not) else (lambda c: -inner(c))
    if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
        a, b = _build(n.left, key, sizes, reads, branches), _build(n.right, key, sizes, reads, branches)
        if a is None or b is None:
            return None
        op = _BIN[type(n.op)]
        return lambda c: op(a(c), b(c))
    if isinstance(n, ast.IfExp):
        t, a, b = (_build(x, key, sizes, reads, branches) for x in (n.test, n.body, n.orelse))
        if t is None or a is None or b is None:
            return None
        branches[0] += 1
        return lambda c: a(c) if t(c) else b(c)
    return None
