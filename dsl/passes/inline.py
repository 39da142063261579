"""Inlining: a small ``define`` is written out where it is called, its parameters replaced by the
arguments, when each argument is cheap to repeat and has no effect (a local, a constant).

A call and its return cost more than the few operations of a typical ``define``; written out,
they cost nothing. The copy's own loop variables are renumbered, so that a function written out
inside a loop of its own body's kind never shares a loop variable with it.
"""
from __future__ import annotations

import ast
import copy

from rulesrun.dsl.ir import K, Local, walk_exprs
from rulesrun.dsl.scope import TEMP_NAMES

MAX_NODES = 90      # a define whose body has at most this many nodes is written out where called


def simple(node) -> bool:
    """Cheap to repeat and without effect: a local, a constant or a fixed name."""
    return isinstance(node, (Local, K, ast.Constant, ast.Name))


def size(node) -> int:
    return sum(1 for _ in walk_exprs(node))


def worth_inlining(body, args) -> bool:
    return size(body) <= MAX_NODES and all(map(simple, args))


def substitute(body, params: list, args: list):
    """A copy of ``body`` with each parameter (a Local) replaced by a copy of its argument, and
    its loop variables renumbered."""
    by_slot = {p.key(): a for p, a in zip(params, args)}
    temps: dict = {}

    class Swap(ast.NodeTransformer):
        def visit_Local(self, node):
            if node.key() in by_slot:
                return copy.copy(by_slot[node.key()])
            if node.mode == "temp":
                new = copy.copy(node)
                new.slot = temps.setdefault(node.slot, next(TEMP_NAMES))
                return new
            return node

        def generic_visit(self, node):
            super().generic_visit(node)
            for attr in ("target", "index"):       # our nodes' loop variables are not fields
                if isinstance(getattr(node, attr, None), Local):
                    setattr(node, attr, self.visit_Local(getattr(node, attr)))
            return node

    return Swap().visit(copy.deepcopy(body))


# ── a procedure written out in its caller (dsl.lower.statements._inline_call) ───────────────
_BACK_REFS = ("decision", "stop", "pos")     # attributes that point elsewhere, not to inner expressions


def written(stmts: list) -> set:
    """The keys of the locals that ``stmts`` assign (a loop variable, a chosen value included)."""
    out: set = set()
    seen: set = set()

    def targets(t):
        if isinstance(t, Local):
            out.add(t.key())
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                targets(e)

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        if isinstance(node, ast.Assign):
            for t in node.targets:
                targets(t)
        elif isinstance(node, (ast.AugAssign, ast.For, ast.comprehension)):
            targets(node.target)
        if getattr(node, "chosen", None) is not None:
            targets(node.chosen)
        for value in _children(node):
            visit(value)

    for s in stmts:
        visit(s)
    return out


def _children(node):
    for attr, value in vars(node).items():
        if attr in _BACK_REFS:
            continue
        if isinstance(value, ast.AST):
            yield value
        elif isinstance(value, list):
            yield from (v for v in value if isinstance(v, ast.AST))


def replace_locals(stmts: list, by_key: dict) -> None:
    """Each Local whose key is in ``by_key`` replaced, in place, by a copy of its value there."""
    seen: set = set()

    def swap(value):
        if isinstance(value, Local) and value.key() in by_key:
            return copy.copy(by_key[value.key()])
        visit(value)
        return value

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for attr, value in list(vars(node).items()):
            if attr in _BACK_REFS:
                continue
            if isinstance(value, ast.AST):
                setattr(node, attr, swap(value))
            elif isinstance(value, list):
                value[:] = [swap(v) if isinstance(v, ast.AST) else v for v in value]

    for s in stmts:
        visit(s)
