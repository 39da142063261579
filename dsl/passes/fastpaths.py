"""Fast paths: expression shapes rewritten into ones that run in C.

    count(x in Z where x.a == v)   list(map(table.__getitem__, Z)).count(v)
    any(x in Z where x.a == v)     v in map(table.__getitem__, Z)
    [x.a for x in Z]               list(map(table.__getitem__, Z))
    unique(list(map(...)))         the inner list is not made: dict.fromkeys takes the map
    [x for x in Z where x.a == v]  list(filter(by_a[v], Z)): "follow suit if able" as a set test in
                                   C, with by_a[v] the bound __contains__ of the frozenset of the
                                   cards whose a is v (a constant, made when compiling)
    any(x in Z where TEST)         any(map(table.__getitem__, Z)) where TEST reads only the card's
    all(x in Z where TEST)         attributes (``dsl.passes.tables`` makes it one table)

``table.__getitem__`` and the ``__contains__`` tests are bound once, when compiling, and reach the
code as constants (``_k9_getitem``, ``_k29_contains``).

``v`` must not depend on the item; ``table`` is a card attribute's table (a constant).
"""
from __future__ import annotations

import ast

from rulesrun.dsl.ir import K, Comp, Local, St, call, compare, walk_exprs
from rulesrun.dsl.passes import tables


def _attr_of(node, target: Local):
    """The constant table of ``table[target]``, or None."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, K) and isinstance(node.slice, Local) \
            and node.slice.key() == target.key():
        return node.value
    return None


def _steady(node, target: Local) -> bool:
    """A value that is the same for every item: a local, a constant or a global, not the item."""
    if isinstance(node, (K, ast.Constant)):
        return True
    if isinstance(node, Local):
        return node.key() != target.key()
    return (isinstance(node, ast.Subscript) and isinstance(node.value, St) and node.value.which == "g"
            and isinstance(node.slice, (K, ast.Constant)))


def _getter(table: K):
    """``table.__getitem__``, bound when compiling: a constant (``_k9_getitem``), not an attribute
    looked up and a method object made each time it runs."""
    return K(table.value.__getitem__)


def _values(table: K, source):
    return call("map", _getter(table), source)


class FastPaths(ast.NodeTransformer):
    def generic_visit(self, node):
        super().generic_visit(node)
        if isinstance(node, Comp):
            return self._comp(node)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "list" and len(node.args) == 1:
            return self._unique(node)
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "_unique_few" and len(node.args) == 1:
            node.args[0] = _no_list_of_map(node.args[0])
        return node

    def _comp(self, node: Comp):
        rtype = getattr(node, "rtype", None)
        if node.kind == "list" and node.cond is None:
            table = _attr_of(node.elt, node.target)
            if table is not None:           # [x.a for x in Z]
                return _typed(call("list", _values(table, node.source)), rtype)
        if node.kind == "list" and isinstance(node.elt, Local) and node.elt.key() == node.target.key():
            found = self._filter(node)
            if found is not None:
                return _typed(found, rtype)
        if node.kind in ("any", "all") and node.cond is None:
            read = tables.of_item(node.elt, node.target)
            table = _attr_of(read, node.target)
            if table is not None:
                return _typed(call(node.kind, _values(table, node.source)), rtype)
        test = node.cond if node.kind == "count" else node.elt if node.kind == "any" and node.cond is None else None
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
            table, value = _attr_of(test.left, node.target), test.comparators[0]
            if table is not None and _steady(value, node.target):
                values = _values(table, node.source)
                if node.kind == "count":
                    count = ast.Attribute(value=call("list", values), attr="count", ctx=ast.Load())
                    return _typed(call(count, value), rtype)
                return _typed(compare(value, "in", values), rtype)
        return node

    @staticmethod
    def _filter(node: Comp):
        """[x for x in Z if table[x] == v] as list(filter(by_value[v], Z)), keeping Z's
        order. ``by_value`` maps each value of the table to the membership test of the frozenset of
        the items that have it (another value: of the empty set). Dict lookup and ``==`` agree on the values of a card table."""
        test = node.cond
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
            return None
        table, value = _attr_of(test.left, node.target), test.comparators[0]
        if table is None:
            table, value = _attr_of(value, node.target), test.left
        if table is None or not _steady(value, node.target) or not isinstance(table.value, (list, tuple)):
            return None
        try:
            index = _ByValue()
            for item, v in enumerate(table.value):
                index.setdefault(v, set()).add(item)
        except TypeError:           # a value that cannot be a key (a list): no fast path
            return None
        for v in index:
            index[v] = frozenset(index[v]).__contains__     # bound once, when compiling
        members = ast.Subscript(value=K(index), slice=value, ctx=ast.Load())
        return call("list", call("filter", members, node.source))

    @staticmethod
    def _unique(node):
        """list(dict.fromkeys(list(map(...)))): the inner list is iterated once; leave it out."""
        inner = node.args[0]
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute) and inner.func.attr == "fromkeys" \
                and len(inner.args) == 1:
            inner.args[0] = _no_list_of_map(inner.args[0])
        return node


def _no_list_of_map(arg):
    """``map(...)`` for ``list(map(...))`` that is only iterated once; anything else as it is."""
    if isinstance(arg, ast.Call) and getattr(arg.func, "id", "") == "list" and len(arg.args) == 1 \
            and isinstance(arg.args[0], ast.Call) and getattr(arg.args[0].func, "id", "") == "map":
        return arg.args[0]
    return arg


class _ByValue(dict):
    """value -> the test "is an item that has it" (the bound ``__contains__`` of the frozenset of
    those items); a value no item has: the test of the empty set."""

    __slots__ = ()
    const_suffix = "contains"     # its name in the generated code: _k29_contains[v]

    def __missing__(self, value):
        return _NONE


_NONE = frozenset().__contains__


def _typed(node, rtype):
    node.rtype = rtype
    return node


def run(node):
    """The tree with its fast paths taken (changed in place where it can be)."""
    return FastPaths().visit(node)


__all__ = ["run", "walk_exprs"]
