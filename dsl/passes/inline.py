"""Inlining: a small ``define`` is written out where it is called, its parameters replaced by the
arguments, when each argument is cheap to repeat and has no effect (a local, a constant).

A call and its return cost more than the few operations of a typical ``define``; written out,
they cost nothing. The copy's own loop variables are renumbered, so that a function written out
inside a loop of its own body's kind never shares a loop variable with it.
"""
from __future__ import annotations

import ast
import copy

from ..ir import K, Local, walk_exprs
from ..scope import _TEMP_NAMES

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
                new.slot = temps.setdefault(node.slot, next(_TEMP_NAMES))
                return new
            return node

        def generic_visit(self, node):
            super().generic_visit(node)
            for attr in ("target", "index"):       # our nodes' loop variables are not fields
                if isinstance(getattr(node, attr, None), Local):
                    setattr(node, attr, self.visit_Local(getattr(node, attr)))
            return node

    return Swap().visit(copy.deepcopy(body))
