"""Checks for none that cannot fire: ``if x is None: fail(...)`` (who chooses is nobody) and a
moved card's check are dropped where the local can never be none.

A local (of a plain function or a resumable procedure's frame) can never be none when every
statement that writes it writes a value that is never none, and the first place it appears in the
text is such a write (so it is no parameter, whose value comes from the caller). Such values: a
list, a number worked out, the item of a list whose items are never none (the seats of a list of
players known when compiling, a zone's cards), the value chosen at a decision whose options are
a zone's cards or a subset (``Stop.sure``), or another such local. Locals that read one another
are settled together (the largest set that holds: a none has to come from somewhere else).
"""
from __future__ import annotations

import ast

from rulesrun.dsl.ir import K, Local, Move, St, Stop, walk_exprs

_MODES = ("py", "frame")


def _local(node):
    return node.key() if isinstance(node, Local) and node.mode in _MODES else None


def _param(node) -> bool:
    return getattr(node, "param", False)


def _no_none(value) -> bool:
    """Whether a value known when compiling is a sequence with no none in it."""
    return isinstance(value, (list, tuple)) and all(v is not None for v in value)


def _items_sure(node, items: set) -> bool:
    """Whether every item of the list ``node`` is never none."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list" \
            and len(node.args) == 1 and not node.keywords:
        return _items_sure(node.args[0], items)
    if isinstance(node, K):
        return _no_none(node.value)
    if isinstance(node, ast.Subscript) and isinstance(node.value, St) and node.value.which == "z":
        return True                                     # a zone holds cards
    if isinstance(node, ast.Subscript) and isinstance(node.value, K):
        table = node.value.value
        rows = table.values() if isinstance(table, dict) else table if isinstance(table, (list, tuple)) else None
        return rows is not None and all(_no_none(r) for r in rows)
    return _local(node) in items


def _sure(node, sure: set, items: set) -> bool:
    """Whether the value of ``node`` is never none (or working it out fails)."""
    if isinstance(node, (ast.List, ast.BinOp)):
        return True
    if isinstance(node, K):
        return node.value is not None
    if isinstance(node, ast.Constant):
        return node.value is not None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "len"):
        return True
    if isinstance(node, ast.Subscript):
        return _items_sure(node.value, items)
    return _local(node) in sure


def _writes(stmts: list):
    """(local key, kind, node) for each write, and the keys whose first appearance is a read, in
    the order of the text."""
    writes, seen, read_first = [], set(), set()

    def read(node):
        for n in walk_exprs(node):
            k = _local(n)
            if k is not None and k not in seen:
                seen.add(k)
                read_first.add(k)

    def write(target, kind, node):
        k = _local(target)
        if k is None:
            if isinstance(target, (ast.Tuple, ast.List)):
                for t in target.elts:
                    write(t, "other", None)
            else:
                read(target)
            return
        if k not in seen and _param(target):
            read_first.add(k)                           # a parameter: the caller's value comes first
        seen.add(k)
        writes.append((k, kind, node))

    def block(body):
        for s in body:
            stmt(s)

    def stmt(s):
        if isinstance(s, ast.Assign):
            read(s.value)
            for t in s.targets:
                write(t, "value" if len(s.targets) == 1 else "other", s.value)
        elif isinstance(s, ast.AugAssign):
            read(s.value)
            read(s.target)      # read first: x += 1 on a none fails before it writes
        elif isinstance(s, ast.For):
            read(s.iter)
            write(s.target, "item", s.iter)
            block(s.body)
            block(s.orelse)
        elif isinstance(s, (ast.If, ast.While)):
            read(s.test)
            block(s.body)
            block(s.orelse)
        elif isinstance(s, Stop):
            block(s.pre)
            for a in getattr(s, "args", None) or ():
                read(a)
            if s.chosen is not None:
                write(s.chosen, "chosen", s)
        elif isinstance(s, ast.Try):
            block(s.body)
            for h in s.handlers:
                block(h.body)
            block(s.orelse)
            block(s.finalbody)
        else:
            read(s)

    block(stmts)
    return writes, read_first


def settle(stmts: list) -> set:
    """The keys of the locals in ``stmts`` that can never be none."""
    writes, read_first = _writes(stmts)
    sure = {k for k, _, _ in writes} - read_first
    items = set(sure)
    while True:
        bad, bad_items = set(), set()
        for k, kind, node in writes:
            if kind == "value":
                ok = _sure(node, sure, items)
                ok_items = _items_sure(node, items)
            elif kind == "item":
                ok, ok_items = _items_sure(node, items), False
            elif kind == "chosen":
                ok, ok_items = bool(getattr(node, "sure", False)), False
            else:
                ok = ok_items = False
            if not ok:
                bad.add(k)
            if not ok_items:
                bad_items.add(k)
        if not (bad & sure or bad_items & items):
            return sure
        sure -= bad
        items -= bad_items


def _is_none_check(s, sure: set) -> bool:
    if not (isinstance(s, ast.If) and not s.orelse and len(s.body) == 1 and isinstance(s.body[0], ast.Expr)):
        return False
    call, test = s.body[0].value, s.test
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "fail" \
        and isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is) \
        and isinstance(test.comparators[0], (K, ast.Constant)) and test.comparators[0].value is None \
        and _local(test.left) in sure


def _drop(stmts: list, sure: set) -> list:
    out = []
    for s in stmts:
        if _is_none_check(s, sure):
            continue
        if isinstance(s, Move) and _local(s.card) in sure:
            s.card_sure = True                          # dsl.emit.writer leaves out its check
        for attr in ("body", "orelse", "pre", "finalbody"):
            inner = getattr(s, attr, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], ast.stmt):
                kept = _drop(inner, sure)
                if not kept and attr == "body":
                    kept = [ast.Pass()]
                    kept[0].pos = getattr(s, "pos", None)
                setattr(s, attr, kept)
        for h in getattr(s, "handlers", ()) or ():
            h.body = _drop(h.body, sure) or [ast.Pass()]
        out.append(s)
    return out


def run(stmts: list) -> list:
    """``stmts`` without the checks for none that cannot fire."""
    return _drop(stmts, settle(stmts))
