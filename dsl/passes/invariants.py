"""Loop invariants: what a list comprehension's condition works out the same for every item,
worked out once before it — also behind ``and`` / ``or``, where an item may never reach it.

    [c for c in hand if c.rank == 8 or c.suit == suit_to_match or c.rank == top(discard).rank]

reads the top of the discard pile, and the row of its rank, once per card of the hand. Evaluated
once before the comprehension, it would also be evaluated when no card reaches it (the cards before
it all eights, say): that is only safe for an expression that cannot fail and changes nothing.
So a part is taken out only in a *form that cannot fail*, with the tests that make it so:

    top(Z) / bottom(Z)     Z[-1] / Z[0], when Z is not empty (a guard)
    table[card]            a card attribute's table at a card from a zone (top / bottom above)
    S.g[2], S.z[1]         the state's lists at a constant place
    locals, constants      as they are
    ==, !=, is, and, or, not, ... if ... else ...   of the above

When there are guards, the statement is written twice (the guards true: the parts worked out
before; else the statement as it was, which fails, if it does, where it always did):

    if _z[1]:
        _e1 = _k12[_z[1][-1]]
        _e2 = _g[2]
        _o = [c for c in _z[2 + l1] if (_k12[c] == 8 or _k13[c] == _e2) or _k12[c] == _e1]
    else:
        _o = [c for c in _z[2 + l1] if (_k12[c] == 8 or _k13[c] == _g[2]) or _k12[c] == _k12[_top(_z[1], ...)]]

Expressions only read the state, and nothing changes the state while a comprehension runs, so a
part worked out before it has the value it would have had at each item. The comprehensions found
are the ones the statement always evaluates (as in ``loops``, which runs before this pass and has
already taken out, under "there is an item", the calls the condition always makes). Statements
are copied before they change: the entries of a resumable procedure share statements.
"""
from __future__ import annotations

import ast
import operator

from rulesrun.dsl.ir import K, Best, Comp, Fn, Local, St, assign, at, boolop, call, clone, walk_exprs
from rulesrun.dsl.ir import map_children as _each_child
from rulesrun.dsl.ir import with_fields as _with
from rulesrun.dsl.passes.loops import Loops


class Invariants:
    def __init__(self):
        self.n = 0
        self.walker = Loops()       # its walk over the places a statement always evaluates

    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        pos = getattr(s, "pos", None)
        inner = {f: getattr(s, f) for f in ("body", "orelse", "pre") if isinstance(getattr(s, f, None), list)}
        if inner:
            s = clone(s)
            for field, stmts in inner.items():
                setattr(s, field, self.block(stmts))
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)) and s.value is not None:
            field = "value"
        elif isinstance(s, ast.If):
            field = "test"
        elif isinstance(s, ast.For):
            field = "iter"
        else:
            return [s]
        taken: list = []         # (temp, its value in a form that cannot fail)
        guards: list = []        # what must hold for those forms to be the values

        def visit(n):
            if isinstance(n, Comp) and n.kind == "list" and n.cond is not None:
                return self._comp(n, taken, guards)
            return None
        old = getattr(s, field)
        new = self.walker._walk(old, visit)
        if new is old:
            return [s]
        changed = clone(s)
        setattr(changed, field, new)
        first = [assign(ast.Name(id=h, ctx=ast.Load()), value, pos) for h, value in taken] + [changed]
        if not guards:
            return first
        test = guards[0] if len(guards) == 1 else boolop("and", *guards)
        return [at(ast.If(test=test, body=first, orelse=[s]), pos)]

    def _comp(self, comp: Comp, taken: list, guards: list):
        """``comp`` with the invariant parts of its condition and its item read from temporaries
        (added to ``taken``), or None when there is none."""
        item = comp.target.key()
        before = len(taken)

        def visit(n):
            if isinstance(n, (ast.Constant, K, Local, St, ast.Name)):
                return n
            if isinstance(n, (Comp, Best, Fn, ast.Lambda)):
                return n            # a function of its own: its items are its own
            if _invariant(n, item) and _worth(n):
                found = safe(n)
                if found is not None:
                    value, need = found[0], found[1]
                    self.n += 1
                    h = f"_e{self.n}"
                    taken.append((h, value))
                    for g in need:
                        if not any(_same(g, old) for old in guards):
                            guards.append(g)
                    return ast.Name(id=h, ctx=ast.Load())
            return _each_child(n, visit)
        cond = visit(comp.cond)
        elt = visit(comp.elt) if comp.elt is not None else None
        passing = _passing(comp, cond, taken)
        if passing is not None:     # a value taken out is read once now, in the key: read it there
            mine = dict(taken[before:])
            del taken[before:]
            return _put_back(passing, mine)
        if len(taken) == before:
            return None
        new = clone(comp)
        new.cond, new.elt = cond, elt
        return new


# ── the cards that pass, by the values the condition reads ───────────────────────
_HASHABLE = ("number", "text", "yes/no", "player", "card")


class Passing(dict):
    """The cards that pass a comprehension's condition, for each of the values it reads besides the
    card: value -> the membership test of that set (a frozenset's bound ``__contains__``), worked
    out the first time the value is met. A condition that reads more than one value is looked up
    one value at a time, ``_k60_passing[_e1][_e2]``: each level but the last maps a value to the
    next level (a ``Passing`` of its own), so no tuple of the values is made and hashed at every
    test. The condition reads the card only through its attribute tables and compares only with
    ``==`` / ``!=`` / ``is`` (``and``, ``or``, ``not``, ``if else``): it cannot fail, so working it
    out for every card is safe."""

    __slots__ = ("test", "ncards", "what", "test_params", "depth", "prefix", "root", "kept")
    const_suffix = "passing"      # its name in the generated code: _k60_passing[_e1][_e2]
    MAX = 4096                    # sets and levels kept at most, all levels together (beyond: worked out, not kept)

    def __init__(self, test, ncards: int, what: str, depth: int = 1, prefix: tuple = (), root=None):
        super().__init__()
        self.test, self.ncards, self.what = test, ncards, what
        self.depth, self.prefix, self.root, self.kept = depth, prefix, root, 0

    def __missing__(self, value):
        values = self.prefix + (value,)
        root = self.root or self
        if len(values) < self.depth:
            found = Passing(self.test, self.ncards, self.what, self.depth, values, root)
        else:
            test = self.test
            found = frozenset(c for c in range(self.ncards) if test(c, values)).__contains__
        if root.kept < self.MAX:
            root.kept += 1
            self[value] = found
        return found

    def __repr__(self):
        return f"<the cards that pass {self.what}, by the values it reads>"


def _passing(comp: Comp, cond, taken: list):
    """``list(filter(PASSING[values], Z))`` for ``[c for c in Z if cond]`` whose condition reads the
    card only through attribute tables: or None."""
    item = comp.target.key()
    if not (isinstance(comp.elt, Local) and comp.elt.key() == item and isinstance(comp.source, ast.Subscript)
            and isinstance(comp.source.value, St) and comp.source.value.which == "z"):
        return None                 # (the items of a zone are its cards' numbers)
    types = {h: getattr(v, "rtype", None) for h, v in taken}
    params: list = []               # the values read besides the card: names of temporaries, locals
    sizes: set = set()
    terms = [0]

    def build(n):
        """A function (card, values) -> the value of ``n``; None where ``n`` is not of the shape."""
        terms[0] += 1
        if isinstance(n, (ast.Constant, K)) and (n.value is None or type(n.value) in (int, str, bool)):
            v = n.value
            return lambda c, env: v
        if isinstance(n, (ast.Name, Local)):
            if isinstance(n, Local) and (n.key() == item or n.mode == "temp"):
                return None
            rtype = types.get(n.id) if isinstance(n, ast.Name) else n.rtype
            if rtype is None or not (rtype in _HASHABLE or rtype.startswith("enum:")):
                return None
            key = ("name", n.id) if isinstance(n, ast.Name) else n.key()
            for i, (k, _) in enumerate(params):
                if k == key:
                    return lambda c, env, i=i: env[i]
            params.append((key, n))
            i = len(params) - 1
            return lambda c, env: env[i]
        if isinstance(n, ast.Subscript) and isinstance(n.value, K) and isinstance(n.value.value, (list, tuple)) \
                and isinstance(n.slice, Local) and n.slice.key() == item:
            table = n.value.value
            sizes.add(len(table))
            return lambda c, env: table[c]
        if isinstance(n, ast.Compare) and all(isinstance(op, _SAFE_OPS) for op in n.ops):
            parts = [build(n.left)] + [build(x) for x in n.comparators]
            if any(p is None for p in parts):
                return None
            ops = [_OPS[type(op)] for op in n.ops]
            if len(ops) == 1:
                a, b, op = parts[0], parts[1], ops[0]
                return lambda c, env: op(a(c, env), b(c, env))
            return lambda c, env: all(op(parts[k](c, env), parts[k + 1](c, env)) for k, op in enumerate(ops))
        if isinstance(n, ast.BoolOp):
            parts = [build(v) for v in n.values]
            if any(p is None for p in parts):
                return None
            if isinstance(n.op, ast.And):
                return lambda c, env: all(p(c, env) for p in parts)
            return lambda c, env: any(p(c, env) for p in parts)
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
            inner = build(n.operand)
            return None if inner is None else (lambda c, env: not inner(c, env))
        if isinstance(n, ast.IfExp):
            t, a, b = build(n.test), build(n.body), build(n.orelse)
            if t is None or a is None or b is None:
                return None
            return lambda c, env: a(c, env) if t(c, env) else b(c, env)
        return None
    test = build(cond)
    if test is None or len(sizes) != 1 or terms[0] < 4:
        return None                 # (one attribute compared with one value: fastpaths' filter)
    shared = comp.__dict__.get("passing")     # the entries of a procedure share the comprehension:
    if shared is None or shared.test_params != len(params):       # and so the sets, once worked out
        shared = comp.passing = Passing(test, sizes.pop(), "a condition", depth=len(params))
        shared.test_params = len(params)
    members = K(shared) if params else K(shared[()])   # (reading no value: the one set, now)
    for _, value in params:                 # one level a value: _k60_passing[_e1][_e2]
        members = ast.Subscript(value=members, slice=value, ctx=ast.Load())
    out = call("list", call("filter", members, comp.source))
    out.rtype = getattr(comp, "rtype", None)
    return out


def _put_back(node, values: dict):
    """``node`` with the temporaries named in ``values`` replaced by their values."""
    if isinstance(node, ast.Name) and node.id in values:
        return values[node.id]
    return _each_child(node, lambda n: _put_back(n, values))


_OPS = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Is: operator.is_, ast.IsNot: operator.is_not}


def _invariant(node, item) -> bool:
    """Whether ``node`` is the same for every item: it reads neither the item nor any loop's
    variable, and holds no function of its own."""
    for n in walk_exprs(node):
        if isinstance(n, Local) and (n.mode == "temp" or n.key() == item):
            return False
        if isinstance(n, (Comp, Best, Fn, ast.Lambda, ast.NamedExpr)):
            return False
    return True


def _worth(node) -> bool:
    """More than a name to read: a call or an index."""
    return any(isinstance(n, (ast.Call, ast.Subscript)) for n in walk_exprs(node))


_SAFE_OPS = (ast.Eq, ast.NotEq, ast.Is, ast.IsNot)


def safe(node):
    """``node`` in a form that cannot fail, and the guards it needs: (form, guards), or None.
    (``_safe`` also says whether the value is a card from a zone.)"""
    found = _safe(node)
    return None if found is None else found[:2]


def _safe(node):
    if isinstance(node, (ast.Constant, K, St)):
        return node, [], False
    # (a name is not: a temporary of ``loops`` is set only when there is an item)
    if isinstance(node, Local):
        return (node, [], False) if node.mode != "temp" else None
    if isinstance(node, ast.Subscript):
        if isinstance(node.value, St) and _const_int(node.slice):
            return node, [], False          # the state's lists are as long as the rules made them
        if isinstance(node.value, K) and isinstance(node.value.value, (list, tuple)):
            inner = _safe(node.slice)
            if inner is not None and inner[2]:  # a card attribute's table has a row per card
                return _with(node, slice=inner[0]), inner[1], False
        return None
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name) and f.id == "_top" and len(node.args) == 3 and isinstance(node.args[1], K):
            zone = _safe(node.args[0])
            if zone is None or zone[1]:
                return None
            end = -1 if node.args[1].value == "top" else 0
            return ast.Subscript(value=zone[0], slice=ast.Constant(value=end), ctx=ast.Load()), [zone[0]], True
        return None
    if isinstance(node, ast.Compare):
        if not all(isinstance(op, _SAFE_OPS) for op in node.ops):
            return None
        parts = [_safe(node.left)] + [_safe(c) for c in node.comparators]
        if any(p is None for p in parts):
            return None
        return _with(node, left=parts[0][0], comparators=[p[0] for p in parts[1:]]), _guards(parts), False
    if isinstance(node, ast.BoolOp):
        parts = [_safe(v) for v in node.values]
        if any(p is None for p in parts):
            return None
        return _with(node, values=[p[0] for p in parts]), _guards(parts), False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _safe(node.operand)
        return None if inner is None else (_with(node, operand=inner[0]), inner[1], False)
    if isinstance(node, ast.IfExp):
        parts = [_safe(node.test), _safe(node.body), _safe(node.orelse)]
        if any(p is None for p in parts):
            return None
        return (_with(node, test=parts[0][0], body=parts[1][0], orelse=parts[2][0]), _guards(parts),
                parts[1][2] and parts[2][2])
    return None


def _guards(parts) -> list:
    out: list = []
    for p in parts:
        for g in p[1]:
            if not any(_same(g, old) for old in out):
                out.append(g)
    return out


def _const_int(node) -> bool:
    return isinstance(node, (ast.Constant, K)) and type(node.value) is int


def _same(a, b) -> bool:
    """The same expression (guards are read twice at most; K compared by its value)."""
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, (K, ast.Constant)):
        return type(a.value) is type(b.value) and isinstance(a.value, (int, str)) and a.value == b.value
    if isinstance(a, St):
        return a.which == b.which
    if isinstance(a, Local):
        return a.key() == b.key()
    if isinstance(a, ast.Name):
        return a.id == b.id
    if isinstance(a, ast.Subscript):
        return _same(a.value, b.value) and _same(a.slice, b.slice)
    return False



def lower(stmts: list) -> list:
    """The statements with the invariant parts of their list comprehensions worked out before them."""
    return Invariants().block(stmts)
