"""The last touch on the generated Python, after every pass: idioms CPython runs faster.

Unlike the other passes, this one rewrites the Python functions ``dsl.emit.writer`` is about to compile,
not the IR (the passes before it recognise ``list(...)`` and must see it as written):

- ``list(x)`` becomes ``[*x]``: the same list, without looking up and calling the type. On
  CPython 3.11 ``list(filter(f, z))`` takes about 40 % longer than ``[*filter(f, z)]`` (the call
  asks the iterator for a length hint it does not have), and ``list(z)`` of a short list about a
  fifth longer. The generated code never names anything ``list`` but the built-in.
- ``C is None`` (or ``is not``) of a constant ``C`` becomes its answer, ``True`` or ``False``: a
  value the passes worked out before the game (``highest c in every card by c.n`` is one card, or
  none) left a none-check that CPython would warn of (``SyntaxWarning: "is" with a literal``).
"""
from __future__ import annotations

import ast

__all__ = ["run"]


def _rewritten(node):
    """``[*x]`` for a call ``list(x)``, the answer of a constant's none-check, else ``node`` itself."""
    if (node.__class__ is ast.Compare and len(node.ops) == 1 and node.ops[0].__class__ in (ast.Is, ast.IsNot)
            and node.left.__class__ is ast.Constant and node.comparators[0].__class__ is ast.Constant
            and None in (node.left.value, node.comparators[0].value)):
        same = node.left.value is node.comparators[0].value
        return ast.copy_location(ast.Constant(value=same if node.ops[0].__class__ is ast.Is else not same), node)
    if (node.__class__ is ast.Call and isinstance(node.func, ast.Name) and node.func.id == "list"
            and len(node.args) == 1 and not node.keywords and not isinstance(node.args[0], ast.Starred)):
        out = ast.List(elts=[ast.Starred(value=node.args[0], ctx=ast.Load())], ctx=ast.Load())
        if getattr(node, "pos", None) is not None:
            out.pos = node.pos          # the rules position, for errors
        return out
    return node


def run(fns: list) -> list:
    """The generated functions (Python ``ast``), rewritten in place; returned for convenience.
    (A walk from the top, each node replaced before its children are seen: ``list(list(x))``
    becomes ``[*[*x]]``, as rewriting from the leaves up would make it.)"""
    todo = list(fns)
    while todo:
        n = todo.pop()
        for f in n._fields:
            v = getattr(n, f, None)
            if isinstance(v, ast.AST):
                new = _rewritten(v)
                if new is not v:
                    setattr(n, f, new)
                todo.append(new)
            elif v.__class__ is list:
                for i, x in enumerate(v):
                    if isinstance(x, ast.AST):
                        new = _rewritten(x)
                        if new is not x:
                            v[i] = new
                        todo.append(new)
    return fns
