"""Whether every way through some statements reaches a decision before it can leave them.

``dsl.lower.statements`` asks this of a ``while`` loop's body: a loop whose every round asks someone cannot
run on without a decision (the engine renews its budget of rounds at each one), so it spends none.

A statement reaches a decision when it is one, when it is an ``if`` / ``else`` whose two sides
both do, or when it is a ``while`` loop that is sure to run its first round — its condition is
true on entry, worked out from the constants just given to the locals it reads — and whose body
reaches a decision in every round:

    turns += 1
    drawn = 0
    turn_over = no
    while not turn_over:          # true on entry: the first round runs, and it asks
        p chooses: ...

A ``return``, ``break`` or ``continue`` met before any decision ends the search (it may leave).
"""
from __future__ import annotations

import ast

from rulesrun.dsl.ir import K, Local, Stop, walk as _walk
from rulesrun.dsl.passes.inline import written

_UNKNOWN = object()


def each_round(stmts: list) -> bool:
    """Whether every way through ``stmts`` reaches a decision before it can leave them."""
    known: dict = {}        # a local's key -> the constant it was last given, here and since
    for s in stmts:
        if isinstance(s, Stop) and s.kind == "decision":
            return True
        if isinstance(s, ast.If) and s.orelse and each_round(s.body) and each_round(s.orelse):
            return True
        if isinstance(s, ast.While) and value(s.test, known) is True and each_round(s.body):
            return True
        if any(isinstance(n, (ast.Return, ast.Break, ast.Continue)) for n in _walk(s)):
            return False
        given = _UNKNOWN
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], Local):
            given = value(s.value, known)
        for key in written([s]):
            known.pop(key, None)
        if given is not _UNKNOWN:
            known[s.targets[0].key()] = given
    return False


def value(node, known: dict):
    """The value of ``node`` from constants and the locals in ``known``, or ``_UNKNOWN``."""
    if isinstance(node, (ast.Constant, K)):
        v = node.value
        return v if v is None or type(v) in (bool, int, str) else _UNKNOWN
    if isinstance(node, Local):
        return known.get(node.key(), _UNKNOWN)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        v = value(node.operand, known)
        return _UNKNOWN if v is _UNKNOWN else not v
    if isinstance(node, ast.BoolOp):
        is_and = isinstance(node.op, ast.And)
        for part in node.values:
            v = value(part, known)
            if v is _UNKNOWN:
                return _UNKNOWN
            if bool(v) != is_and:       # 'and' stops at a false part, 'or' at a true one
                return v
        return v
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
        a, b = value(node.left, known), value(node.comparators[0], known)
        if a is _UNKNOWN or b is _UNKNOWN:
            return _UNKNOWN
        return (a == b) if isinstance(node.ops[0], ast.Eq) else (a != b)
    return _UNKNOWN
