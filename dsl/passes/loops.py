"""Comprehensions a statement always evaluates, written as loops before it.

On Python 3.11 a comprehension or generator is a function call with a frame of its own, which
costs more than the loop itself over the few cards of a hand or a trick. Where a statement
evaluates one whatever happens (not behind ``and``, ``or``, or one side of ``if ... else``), the
loop is written before the statement into a temporary, which the statement then reads:

    any(T for x in Z [if C])    h = False; for x in Z: (if C:) if T: h = True; break   (all alike)
    count(x in Z where C)       h = 0; for x in Z: if C: h += 1
    sum(E for x in Z [if C])    a running total
    highest x in Z by K         the first item with the largest K (a strictly better key replaces)

``x = A if T else B`` becomes ``if T: x = A`` / ``else: x = B`` first, so that each side is
unconditional in its branch. A list comprehension that stays one gets out of its condition a call
that does not depend on the item (``c.colour in [d.colour for d in trick]``): worked out once
before it, when there is an item at all. Expressions are pure (they only read the state), so
evaluating one earlier in its statement changes nothing; the loops keep the statement's position,
so an error still names its rules line. Statements are copied before they change: the entries of
a resumable procedure share statements.
"""
from __future__ import annotations

import ast
from rulesrun.dsl.ir import (
    K,
    Best,
    Comp,
    Fn,
    Local,
    Move,
    assign,
    clone,
    augassign,
    at,
    compare,
    boolop,
    name,
    not_,
    walk_exprs,
)
from rulesrun.dsl.ir import with_fields as _with
from rulesrun.dsl.passes import tables

_LOWERED = ("any", "all", "count", "sum")


def _lowered(node) -> bool:
    return isinstance(node, Best) or (isinstance(node, Comp) and node.kind in _LOWERED)


class Loops:
    def __init__(self):
        self.n = 0

    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        pos = getattr(s, "pos", None)
        if (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.value, ast.IfExp)
                and any(map(_lowered, walk_exprs(s.value)))):
            v = s.value
            split = ast.If(test=v.test, body=[assign(s.targets[0], v.body, pos)],
                           orelse=[assign(s.targets[0], v.orelse, pos)])
            return self.stmt(at(split, pos))
        s = clone(s)
        for field in ("body", "orelse", "pre"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, self.block(getattr(s, field)))
        pre: list = []
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)) and s.value is not None:
            s.value = self.expr(s.value, pre, pos)
        elif isinstance(s, ast.If):
            s.test = self.expr(s.test, pre, pos)
        elif isinstance(s, ast.For):
            s.iter = self.expr(s.iter, pre, pos)
        elif isinstance(s, Move):
            s.card = self.expr(s.card, pre, pos)
            s.dest = self.expr(s.dest, pre, pos)
        return self.block(pre) + [s] if pre else [s]

    def expr(self, node, pre: list, pos):
        """``node`` with its unconditional comprehensions replaced by temporaries set in ``pre``."""
        def visit(n):
            if _lowered(n):
                return self._lower(n, pre, pos)
            if isinstance(n, Comp) and n.kind == "list" and n.cond is not None:
                return self._hoist(n, pre, pos)
            return None
        return self._walk(node, visit)

    def _walk(self, node, visit):
        """``node`` with ``visit`` applied top-down at the places evaluated whenever ``node`` is:
        ``visit`` gives a replacement, or None to look inside. Nothing inside a function of its
        own (a comprehension, a lambda) is visited."""
        new = visit(node)
        if new is not None:
            return new
        if isinstance(node, (Comp, Best, Fn, ast.Lambda)):
            return node
        if isinstance(node, ast.BoolOp):       # only the first operand always runs
            first = self._walk(node.values[0], visit)
            return node if first is node.values[0] else _with(node, values=[first] + node.values[1:])
        if isinstance(node, ast.IfExp):
            test = self._walk(node.test, visit)
            return node if test is node.test else _with(node, test=test)
        if isinstance(node, ast.Compare):      # a chain stops at the first false link
            left = self._walk(node.left, visit)
            right = self._walk(node.comparators[0], visit)
            if left is node.left and right is node.comparators[0]:
                return node
            return _with(node, left=left, comparators=[right] + node.comparators[1:])
        changed = {}
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, ast.expr):
                new = self._walk(value, visit)
                if new is not value:
                    changed[field] = new
            elif isinstance(value, list) and any(isinstance(v, ast.expr) for v in value):
                new = [self._walk(v, visit) if isinstance(v, ast.expr) else v for v in value]
                if any(a is not b for a, b in zip(new, value)):
                    changed[field] = new
        return _with(node, **changed) if changed else node

    def _temp(self) -> str:
        self.n += 1
        return f"_h{self.n}"

    def _hoist(self, comp: Comp, pre: list, pos):
        """A list comprehension whose condition works out the same call for every item, with that
        call worked out once before it — and only when there is an item, as before. None when
        there is nothing to take out."""
        if isinstance(comp.source, ast.Call):    # a map or an enumerate is true even when empty
            return None
        bound = comp.target.key()
        taken: list = []

        def visit(n):
            if isinstance(n, (ast.Call, Comp, Best)) and not any(
                    isinstance(m, (Fn, ast.Lambda)) or (isinstance(m, Local) and m.key() == bound)
                    for m in walk_exprs(n)):
                h = self._temp()
                taken.append((h, n))
                return name(h)
            return None
        cond = self._walk(comp.cond, visit)
        if not taken:
            return None
        items = self._temp()
        code = [assign(name(items), comp.source, pos),
                at(ast.If(test=name(items), body=[assign(name(h), value, pos) for h, value in taken], orelse=[]), pos)]
        pre.extend(self.block(code))
        return _with(comp, source=name(items), cond=cond)

    def _lower(self, node, pre: list, pos):
        node = tables.in_loop(node)         # what it works out from its item alone: from a table
        if isinstance(node, Best):
            known = _known_best(node)
            if known is not None:           # `lowest c in every card by c.value`: the card itself
                return known
        h = self._temp()
        if isinstance(node, Best):
            keys = node.keys[0] if len(node.keys) == 1 else ast.Tuple(elts=list(node.keys), ctx=ast.Load())
            better = ">" if node.kind == "highest" else "<"
            hk, hb = name(h + "k"), name(h + "b")
            bound = _beyond(node)
            if bound is not None:   # whole-number keys from a card table: start below (above) them all
                test, first = compare(hk, better, hb), _const(bound)
            else:   # 'k is not b' first: equal keys are never ordered (none and none tie, as in a tuple)
                test = boolop("or", compare(hb, "is", name("_FIRST")),
                              boolop("and", compare(hk, "is not", hb), compare(hk, better, hb)))
                first = name("_FIRST")
            take = at(ast.If(test=test, body=[assign(hb, hk, pos), assign(name(h), node.target, pos)], orelse=[]), pos)
            inner = [assign(hk, keys, pos), take]
            start = [assign(name(h), _none(), pos), assign(hb, first, pos)]
        elif node.kind in ("any", "all"):
            found = node.kind == "any"
            test = node.elt if found else not_(node.elt)
            inner = [at(ast.If(test=test, body=[assign(name(h), _const(found), pos), at(ast.Break(), pos)],
                               orelse=[]), pos)]
            start = [assign(name(h), _const(not found), pos)]
        elif node.kind == "count":
            inner, start = [augassign(name(h), "+", _const(1), pos)], [assign(name(h), _const(0), pos)]
        else:   # sum
            inner, start = [augassign(name(h), "+", node.elt, pos)], [assign(name(h), _const(0), pos)]
        if node.cond is not None:
            inner = [at(ast.If(test=node.cond, body=inner, orelse=[]), pos)]
        loop = at(ast.For(target=node.target, iter=node.source, body=inner, orelse=[]), pos)
        pre.extend(start + [loop])
        return name(h)


def _of_item(node, best: Best):
    """A key or a test as a function of the item when it reads only tables by the item and
    constants (``c.rank``, ``c.suit != Red``), or None."""
    sizes: set = set()
    fn = tables._build(node, best.target.key(), sizes, [0], [0])
    return fn if fn is not None and len(sizes) <= 1 else None


def _known_best(best: Best):
    """A highest (lowest) known when compiling — its items a constant list, its keys (and test)
    read from tables by the item — as a constant: the first item with the highest (lowest) whole-
    number keys among those passing the test, or none. None if it is not known so."""
    items = best.source.value if isinstance(best.source, K) else None
    if not isinstance(items, (list, tuple)) or not all(type(c) is int for c in items):
        return None
    keys = [_of_item(k, best) for k in best.keys]
    test = None if best.cond is None else _of_item(best.cond, best)
    if not keys or None in keys or (best.cond is not None and test is None):
        return None
    try:
        found = [c for c in items if test is None or test(c)]
        keyed = [tuple(k(c) for k in keys) for c in found]
    except Exception:               # (a value it cannot work out when compiling: the loop stays)
        return None
    if not all(type(v) is int for ks in keyed for v in ks):
        return None
    if not found:
        return _none()
    pick = max if best.kind == "highest" else min
    return _const(found[keyed.index(pick(keyed))])     # the first with the best keys


def _beyond(best: Best):
    """For a highest (lowest) whose one key is an attribute of the item read from a table known when
    compiling, all of whose values are whole numbers: a number below (above) every value, so the
    first item always takes the lead and only a strictly better one takes it over, as with the
    "no candidate yet" marker. None otherwise."""
    if len(best.keys) != 1:
        return None
    key = best.keys[0]
    if not (isinstance(key, ast.Subscript) and isinstance(key.value, K) and isinstance(key.slice, Local)
            and key.slice.key() == best.target.key()):
        return None
    table = key.value.value
    if not isinstance(table, (list, tuple)) or not table or not all(type(v) is int for v in table):
        return None
    return min(table) - 1 if best.kind == "highest" else max(table) + 1


def _const(v):
    return ast.Constant(value=v)


def _none():
    return ast.Constant(value=None)



def lower(stmts: list) -> list:
    """The statements with their unconditional comprehensions written as loops."""
    return Loops().block(stmts)
