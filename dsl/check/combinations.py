"""Combinations when compiling: the shape aggregates (``same``, ``run``, ``run_round``, ``groups``,
``leading``) and the *plan* of a combination choice — what a ``such that`` condition says about the
shape of the chosen set, read from its ``and`` / ``or`` structure (through ``define``s), so that
``dsl.emit.combos._combos`` generates the candidates from the shapes instead of trying every subset.

The plan is only a generator: every candidate is still tested with the whole condition, so a part
of it that the plan does not understand is simply a filter.
"""
from __future__ import annotations

import ast
import copy

import attrs

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.emit.combos import KeyMemo, Plan, Shelf
from rulesrun.dsl.emit.shapes import chosen
from rulesrun.dsl.ir import K, Comp, Fn, Local, St, call, children, compare, ifexp, name, walk_exprs

COMBO_AGGREGATES = ("same", "run", "run_round", "groups", "leading")
COMBO_HELP = {
    "same": "same(c.rank for c in s): every card's key is the same (a pair, three of a kind, a flush)",
    "run": "run(c.rank for c in s): the keys are consecutive numbers, none repeated (a straight)",
    "run_round": "run_round(c.rank for c in s): a run that may go round from the highest key to the lowest",
    "groups": "groups(c.rank for c in s): the sizes of the groups of equal keys, largest first ([3, 2]: a full house)",
    "leading": "leading(c.rank for c in s): the key of the largest group, the highest of equal groups",
}
BEATS_HELP = ("beats(NEW, OLD, KEY) or beats(NEW, OLD, KEY, BOMB): KEY and BOMB are names of defines of one "
              "combination, like 'define strength(s) = max(c.rank for c in s)'")
# calls whose value does not change when the items of their first argument come in another order
_ORDER_FREE = frozenset(("len", "set", "sorted", "max", "min", "_same", "_run", "_run_round", "_groups", "_leading"))
MAX_BRANCHES = 64           # or-branches of a condition's plan (more: every subset is tried)
MAX_DEPTH = 8               # defines written out into the condition, one inside another


def _mentions(e, name: str) -> bool:
    """Whether the expression uses the name (anywhere: a shadowing loop variable counts too)."""
    if isinstance(e, A.Name):
        return e.id == name
    if isinstance(e, (list, tuple)):
        return any(_mentions(x, name) for x in e)
    if attrs.has(type(e)):
        return any(_mentions(getattr(e, f.name), name) for f in attrs.fields(type(e)) if f.name != "pos")
    return False


def _binders(e) -> set:
    out = set()
    if isinstance(e, (list, tuple)):
        for x in e:
            out |= _binders(x)
    elif attrs.has(type(e)):
        if isinstance(e, (A.Aggregate, A.ListComp, A.Best)):
            out.add(e.var)
        for f in attrs.fields(type(e)):
            if f.name != "pos":
                out |= _binders(getattr(e, f.name))
    return out


def _substitute(e, names: dict):
    if isinstance(e, A.Name):
        return names.get(e.id, e)
    if isinstance(e, tuple):
        return tuple(_substitute(x, names) for x in e)
    if attrs.has(type(e)):
        changes = {f.name: _substitute(getattr(e, f.name), names) for f in attrs.fields(type(e)) if f.name != "pos"}
        return attrs.evolve(e, **changes)
    return e


class Combinations:
    """Mixed into the compiler (``dsl.compiler``): the shape aggregates and combination plans."""

    # ── the shape aggregates ────────────────────────────────────────────────
    def _combo_aggregate(self, e, scope):
        func = e.func
        if e.expr is None:
            self.err(f"{func}(...) needs a key for each item", e.pos, f"write {COMBO_HELP[func]}")
        src, et, var, cond, (body, t) = self._bind_loop(e.var, e.source, e.cond, scope, e.expr)
        if func in ("run", "run_round", "leading"):
            self._expect(t, T.NUMBER, e.expr.pos, f"the key of {func}(...)")
        keys = Comp("list", body, var, src, cond)
        if func == "same":
            return call("_same", keys), T.BOOL
        if func == "run":
            return call("_run", keys), T.BOOL
        if func == "groups":
            return call("_groups", keys), T.list_of(T.NUMBER)
        if func == "leading":
            return call("_leading", keys, K(e.pos)), t
        return call("_run_round", keys, self._every_key(e, et, scope)), T.BOOL

    def _every_key(self, e, et, scope):
        """The key of every card of the game (the ring of run_round)."""
        if et != T.CARD:
            self.err("run_round(...) goes round the keys of every card: it needs cards", e.source.pos,
                     "use run(...) for other lists")
        slot, saved = scope.push(e.var, T.CARD)
        body, _ = self.expr(e.expr, scope)
        scope.pop(e.var, saved)
        return Comp("list", body, scope.ref(slot, T.CARD), K(list(range(len(self.card_names)))), None)

    # ── beats(NEW, OLD, KEY[, BOMB]) ────────────────────────────────────────
    def _beats(self, e, scope):
        """NEW beats OLD: both bombs or neither, then (unless bombs) as many items, and a higher KEY;
        a bomb beats anything that is not a bomb. KEY and BOMB name defines of one combination."""
        if len(e.args) not in (3, 4):
            self.err(f"beats() takes 3 or 4 arguments, not {len(e.args)}", e.pos, BEATS_HELP)
        sides = []
        for a, which in zip(e.args[:2], ("first", "second")):
            node, t = self._zone_or_list(a, scope)
            if not T.is_list(t):
                self.err(f"beats()'s {which} argument is a combination (a zone or a list), not a {T.describe(t)}",
                         a.pos, BEATS_HELP)
            sides.append((node, t))
        (new, nt), (old, ot) = sides
        if not T.compatible(nt, ot):
            self.err(f"beats() compares two combinations of one kind of item, not a {T.describe(nt)} and a "
                     f"{T.describe(ot)}", e.args[1].pos)
        lt = nt if nt != "list:none" else ot
        key = self._beats_fn(e, e.args[2], lt, T.NUMBER, "KEY", "the key that ranks a combination (a number)")
        bomb = K(None), K(None)
        if len(e.args) == 4:
            bomb = self._beats_fn(e, e.args[3], lt, T.BOOL, "BOMB", "whether a combination is a bomb (yes/no)")
        return call("_beats", name("S"), new, old, *key, *bomb), T.BOOL

    def _beats_fn(self, e, arg, lt, want, role, what):
        """A define named as beats()'s KEY or BOMB: (its function, its memo or None)."""
        if not isinstance(arg, A.Name) or arg.id not in self.defines:
            self.err(f"beats()'s {role} is the name of a define giving {what}", arg.pos, BEATS_HELP)
        d = self.defines[arg.id]
        if len(d.params) != 1:
            self.err(f"beats()'s {role} '{d.name}' takes {len(d.params)} arguments: it must take one, the combination",
                     arg.pos, f"it is defined at line {d.pos.line}")
        fname, bt, body, _ = self._define_instance(d, e, [lt])
        if not T.compatible(bt, want) or bt == T.NONE:
            self.err(f"beats()'s {role} '{d.name}' gives a {T.describe(bt)}: it must give {what}", arg.pos,
                     f"it is defined at line {d.pos.line}")
        # a define that reads only its combination (no state) gives the same value for the same cards:
        # it is worked out once per combination for the whole program
        memos = self.__dict__.setdefault("_beats_memos", {})
        if not self._pure(body):
            return name(fname), K(None)
        memo = memos.get(fname)
        if memo is None:
            memo = memos[fname] = KeyMemo()
            # a define that reads its cards as a set (not their order) is remembered by the set
            memo.sets = lt == T.list_of(T.CARD) and self._order_free(fname)
        return name(fname), K(memo)

    def _pure(self, body, seen=None) -> bool:
        """Whether a define's body reads nothing of the state (only its arguments and constants)."""
        seen = set() if seen is None else seen
        fns = {v[0]: v[2] for v in self.define_cache.values()}
        allowed = set()
        for node in walk_exprs(body):
            if isinstance(node, St):
                return False
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args \
                    and isinstance(node.args[0], ast.Name) and node.args[0].id == "S":
                callee = node.func.id
                if callee not in fns:
                    return False
                allowed.add(id(node.args[0]))
                if callee not in seen:
                    seen.add(callee)
                    if not self._pure(fns[callee], seen):
                        return False
        return not any(isinstance(n, ast.Name) and n.id == "S" and id(n) not in allowed for n in walk_exprs(body))

    def _order_free(self, fname: str, at: int = 0, seen=None) -> bool:
        """Whether the define compiled as ``fname`` gives the same value whatever the order of the
        items of its argument ``at`` (a list): it reads it only through what does not see the order —
        size(s), c in s, any / all / count over it, same / run / groups / leading / max / min of its
        items' values, or another define's argument of that kind. A highest / lowest item is not:
        of two equal items it gives the first."""
        seen = set() if seen is None else seen
        if (fname, at) in seen:
            return True
        seen.add((fname, at))
        found = next((v for v in self.define_cache.values() if v[0] == fname), None)
        if found is None or at >= len(found[3]):
            return False
        _, _, body, params = found
        param = params[at].key()
        parent = {}
        for n in walk_exprs(body):
            for c in children(n):
                parent[id(c)] = n
        return all(self._set_use(n, parent, seen) for n in walk_exprs(body)
                   if isinstance(n, Local) and n.key() == param)

    def _set_use(self, node, parent, seen) -> bool:
        """Whether ``node`` (a list) is used only where the order of its items does not count."""
        par = parent.get(id(node))
        if isinstance(par, Comp):
            if par.source is not node:
                return False
            return par.kind in ("any", "all", "count") or (par.kind == "list" and self._set_use(par, parent, seen))
        if isinstance(par, ast.Compare):        # c in s
            return node in par.comparators and all(isinstance(o, (ast.In, ast.NotIn)) for o in par.ops)
        if not (isinstance(par, ast.Call) and isinstance(par.func, ast.Name)) or par.keywords:
            return False
        f, args = par.func.id, par.args
        if f in _ORDER_FREE:        # (max(a, b) of two lists compares them item by item)
            return args[0] is node and (len(args) == 1 or f in ("_leading", "_run_round"))
        if f in ("list", "map"):    # the same items in the same order, or each one's value by a table
            return ((args == [node] if f == "list" else len(args) == 2 and args[1] is node and isinstance(args[0], K))
                    and self._set_use(par, parent, seen))
        if f == "_pick":            # max(...) / min(...) of values
            return (len(args) > 1 and args[1] is node and isinstance(args[0], ast.Name)
                    and args[0].id in ("max", "min"))
        if args and isinstance(args[0], ast.Name) and args[0].id == "S":     # another define
            at = next((i for i, a in enumerate(args) if a is node), None)
            return at is not None and self._order_free(f, at - 1, seen)
        return False

    # ── the plan of a combination choice ────────────────────────────────────
    def _combo_plan(self, s, scope, et):
        """The plan's entries for ``s``'s ``such that`` (``_combo_call`` makes the call), or None when
        some way it can hold says nothing about the shape (then every subset is tried, as before).
        Each entry generates the sets of one shape and tests them with the rest of the ways that have
        that shape only: the size and the shape it generates from hold for every set it makes, so
        they are not tested again. An entry: (sizes, shapes, test, the test's key), sizes a list of
        (size, key) that must agree; a key (``_akey``) tells the same rules text in two entries."""
        branches = self._dnf(s.such_that, 0)
        if branches is None or not branches:
            return None
        order, rests = [], {}
        for lits in branches:
            lits = self._with_beats_size(lits, s.var)
            shape = tuple(e for e in lits if self._shapely(e, s.var))
            if shape not in rests:      # a way that differs only in a filter generates the same sets
                order.append(shape)
                rests[shape] = []
            rests[shape].append([e for e in lits if e not in shape])
        plan, tests = [], {}
        for shape in order:
            entry = self._plan_branch(shape, s.var, scope, et)
            if entry is None:
                return None
            sizes, shapes, sure = entry
            kept = [e for e in shape if not any(e is x for x in sure)]
            ways = [kept + rest for rest in rests[shape]]
            test, tkey = K(None), None
            if all(ways):               # every way still has something to test
                tkey = _akey(ways)
                if tkey in tests:       # the same test as an entry before (the same rules text)
                    test = tests[tkey]
                else:
                    # a way that says nothing of the set ('not first_play') is tested once, not per set
                    free = [w for w in ways if all(_plain(x, s.var) for x in w)]
                    rest = [w for w in ways if not any(w is f for f in free)]
                    test = self._plan_test(rest, s.var, scope, et)
                    if free:
                        gate = self._cond(_any_of(free), scope, "a 'such that' condition")
                        test = ifexp(gate, K(None), test)
                    tests[tkey] = test
            plan.append((sizes, shapes, test, tkey))
        return plan

    def _combo_call(self, opts, keyfn, plan, kpos):
        """The call listing a combination choice's options. Shapes known when compiling: one
        ``dsl.emit.combos.Plan`` constant (its entries, and the sets it generated for a hand, kept), with
        only the sizes and tests that change between decisions worked out, each once; else the
        plan as a list built at each decision (``_combos``)."""
        if not all(isinstance(shapes, K) for _, shapes, _, _ in plan):
            entries, used = [], set()
            for sizes, shapes, test, _ in plan:
                test = copy.deepcopy(test) if id(test) in used else test     # each node once in the tree
                used.add(id(test))
                size = K(None)
                for n, _ in sizes:      # two sizes: the entry holds only where they agree (below 0: skipped)
                    size = n if isinstance(size, K) and size.value is None else ifexp(compare(size, "==", n), size, K(-1))
                entries.append(ast.Tuple(elts=[size, shapes, test], ctx=ast.Load()))
            return call("_combos", opts, K(None), keyfn, ast.List(elts=entries, ctx=ast.Load()), kpos)
        dsizes, dtests, size_at, test_at, entries = [], [], {}, {}, []
        for sizes, shapes, test, tkey in plan:
            const, dyn = None, []
            for n, nkey in sizes:
                value = getattr(n, "value", None) if isinstance(n, (K, ast.Constant)) else None
                if type(value) is int:
                    if const is not None and const != value:
                        const = -1
                    const = value if const is None else const
                else:
                    if nkey not in size_at:
                        size_at[nkey] = len(dsizes)
                        dsizes.append(n)
                    dyn.append(size_at[nkey])
            if const is not None and const < 0:
                continue                # sizes that never agree (or below 0): the entry makes nothing
            t = None
            if not (isinstance(test, K) and test.value is None):
                key = tkey if tkey is not None else id(test)
                if key not in test_at:
                    test_at[key] = len(dtests)
                    dtests.append(test)
                t = test_at[key]
            entries.append((const, tuple(dyn), shapes.value, t))
        sizes = ast.Tuple(elts=dsizes, ctx=ast.Load())
        shelf = self.__dict__.setdefault("_plan_shelf", Shelf())     # the program's plans keep their sets together
        if entries and len(dtests) == 1 and all(e[3] == 0 for e in entries) and _plain_beats(dtests[0]):
            # every entry tested by beats(s, OLD, KEY) alone, KEY remembered (a follow in a climbing
            # game): its arguments passed as they are, no tuple of tests to build and take apart
            S, old, key, memo = dtests[0].elts[:4]
            return call("_combos_beating", opts, keyfn, K(Plan(tuple(entries), shelf)), sizes, S, old, key, memo, kpos)
        return call("_combos_at", opts, keyfn, K(Plan(tuple(entries), shelf)), sizes,
                    ast.Tuple(elts=dtests, ctx=ast.Load()), kpos)

    def _plan_test(self, ways, var, scope, et):
        """The test of a plan entry's sets: a function of the set, or the arguments of _beater."""
        vt = T.list_of(et)
        slot, saved = scope.push(var, vt)
        cond = self._cond(_any_of(ways), scope, "a 'such that' condition") if ways else K(False)
        scope.pop(var, saved)
        if len(ways) == 1 and len(ways[0]) == 1 and self._beats_of(ways[0][0], var):
            # only 'beats(s, OLD, ...)' to test: OLD's key is worked out once, not for each set
            return ast.Tuple(elts=[*cond.args[:1], *cond.args[2:]], ctx=ast.Load())
        return Fn(scope.ref(slot, vt), cond, test=True)

    def _beats_of(self, e, var) -> bool:
        """``beats(VAR, OLD, ...)``, the built-in, with OLD not using VAR."""
        return isinstance(e, A.Call) and e.func == "beats" and "beats" not in self.defines \
            and len(e.args) in (3, 4) and isinstance(e.args[0], A.Name) and e.args[0].id == var \
            and not _mentions(e.args[1], var)

    def _with_beats_size(self, lits, var):
        """``beats(s, OLD, KEY)`` (no bombs) holds only for as many items as OLD: say so to the plan."""
        out = []
        for e in lits:
            if self._beats_of(e, var) and len(e.args) == 3:
                out.append(A.Compare(op="==", left=A.Call(func="size", args=(e.args[0],), pos=e.pos),
                                     right=A.Call(func="size", args=(e.args[1],), pos=e.pos), pos=e.pos))
            out.append(e)
        return out

    def _dnf(self, e, depth):
        """The condition as ways it can hold (lists of conditions that must all hold), or None."""
        if isinstance(e, A.BoolOp):
            a, b = self._dnf(e.left, depth), self._dnf(e.right, depth)
            if a is None or b is None:
                return None
            out = a + b if e.op == "or" else [x + y for x in a for y in b]
            return out if len(out) <= MAX_BRANCHES else None
        if isinstance(e, A.Call) and e.func in self.defines and depth < MAX_DEPTH:
            d = self.defines[e.func]
            if len(d.params) == len(e.args) and all(isinstance(a, A.Name) for a in e.args):
                args = {p: a for p, a in zip(d.params, e.args)}
                if not (_binders(d.expr) & (set(args) | {a.id for a in e.args})):
                    return self._dnf(_substitute(d.expr, args), depth + 1)
        return [[e]]

    def _plan_branch(self, lits, var, scope, et):
        """(sizes, shapes, the literals every generated set meets), or None if the way says no shape;
        sizes: the (size, its key) the way says, which must all agree."""
        sizes, shapes, sure, made = [], [], [], []      # made: (kind, literal, exact) of each shape
        for e in lits:
            if isinstance(e, A.Call) and e.func == "empty" and len(e.args) == 1 \
                    and isinstance(e.args[0], A.Name) and e.args[0].id == var:
                sizes.append((K(0), ("num", 0)))
                sure.append(e)
            elif isinstance(e, A.Compare) and e.op == "==":
                for a, b in ((e.left, e.right), (e.right, e.left)):
                    if isinstance(a, A.Call) and a.func == "size" and len(a.args) == 1 \
                            and isinstance(a.args[0], A.Name) and a.args[0].id == var and not _mentions(b, var):
                        sizes.append((self.num(b, scope, "a combination's size"), _akey(b)))
                        sure.append(e)
                        break
                    if self._over(a, var, ("groups",)) and not _mentions(b, var):
                        pattern, pt = self.expr(b, scope)
                        self._expect(pt, T.list_of(T.NUMBER), b.pos, "the groups of a combination")
                        shapes.append(ast.Tuple(elts=[K("groups"), self._key_fn(a, scope, et), pattern],
                                                ctx=ast.Load()))
                        made.append(("groups", e, _sorted_sizes(b)))
                        break
            elif self._over(e, var, ("same", "run", "run_round")):
                kind = {"same": "same", "run": "run", "run_round": "round"}[e.func]
                parts = [K(kind), self._key_fn(e, scope, et)]
                if kind == "round":
                    parts.append(self._every_key(e, et, scope))
                shapes.append(ast.Tuple(elts=parts, ctx=ast.Load()))
                made.append((kind, e, kind != "round"))
        if not sizes and not shapes:
            return None
        if made:        # the shape the sets are generated from (dsl.emit.shapes.chosen) holds for each
            kind, e, exact = made[chosen([k for k, _, _ in made])]
            if exact:
                sure.append(e)
        fixed = [_fixed(x) for x in shapes]
        shapes = K(tuple(fixed)) if None not in fixed else ast.List(elts=shapes, ctx=ast.Load())
        return (sizes, shapes, sure)

    def _shapely(self, e, var) -> bool:
        """Whether a condition says something about the shape (the rest only filters)."""
        if isinstance(e, A.Call):
            return e.func == "empty" and len(e.args) == 1 and isinstance(e.args[0], A.Name) and e.args[0].id == var
        if isinstance(e, A.Compare):
            return e.op == "==" and any(
                (isinstance(a, A.Call) and a.func == "size" and len(a.args) == 1 and isinstance(a.args[0], A.Name)
                 and a.args[0].id == var) or self._over(a, var, ("groups",)) for a in (e.left, e.right))
        return self._over(e, var, ("same", "run", "run_round"))

    @staticmethod
    def _over(e, var, funcs) -> bool:
        """``f(KEY for c in VAR)``, f one of funcs, with no 'where'."""
        return isinstance(e, A.Aggregate) and e.func in funcs and e.expr is not None and e.cond is None \
            and isinstance(e.source, A.Name) and e.source.id == var

    def _key_fn(self, e, scope, et):
        slot, saved = scope.push(e.var, et)
        body, _ = self.expr(e.expr, scope)
        scope.pop(e.var, saved)
        param = scope.ref(slot, et)
        if isinstance(body, ast.Subscript) and isinstance(body.value, K) and isinstance(body.slice, Local) \
                and body.slice.key() == param.key():
            # c.rank: the table's own lookup, made once (not a new function every decision)
            return ast.Attribute(value=body.value, attr="__getitem__", ctx=ast.Load())
        return Fn(param, body)


def _plain(e, var) -> bool:
    """A condition that does not use the set and cannot fail: names, numbers, not, and, or, comparisons."""
    if isinstance(e, A.Name):
        return e.id != var
    if isinstance(e, (A.Num, A.Bool, A.NoneLit)):
        return True
    if isinstance(e, A.Not):
        return _plain(e.operand, var)
    if isinstance(e, (A.BoolOp, A.Compare)):
        return _plain(e.left, var) and _plain(e.right, var)
    return False


def _fixed(shape):
    """A shape known when compiling (a key read from the card table, written groups), as a value:
    the plan then holds it once instead of building it at every decision."""
    kind, key, *rest = shape.elts
    if not (isinstance(key, ast.Attribute) and isinstance(key.value, K)):
        return None
    out = [kind.value, getattr(key.value.value, key.attr)]
    for x in rest:
        if not (isinstance(x, ast.List) and all(isinstance(v, K) for v in x.elts)):
            return None
        out.append(tuple(v.value for v in x.elts))
    return tuple(out)


def _plain_beats(test) -> bool:
    """A plan's test that is ``beats(s, OLD, KEY)`` alone (the arguments of ``_beats`` but the set:
    S, OLD, KEY, KEY's memo, BOMB, BOMB's memo) with no BOMB and KEY remembered by the program."""
    if not (isinstance(test, ast.Tuple) and len(test.elts) == 6):
        return False
    memo, bomb = test.elts[3], test.elts[4]
    return isinstance(memo, K) and type(memo.value) is KeyMemo and isinstance(bomb, K) and bomb.value is None


def _akey(e):
    """A key of rules text that ignores where it is written: equal keys, the same expression."""
    if isinstance(e, (list, tuple)):
        return tuple(_akey(x) for x in e)
    if attrs.has(type(e)):
        return (type(e).__name__,) + tuple(_akey(getattr(e, f.name)) for f in attrs.fields(type(e)) if f.name != "pos")
    return (type(e).__name__, e)


def _any_of(ways):
    """The ways (lists of conditions that must all hold) as one condition: w1 or w2 or ..."""
    def all_of(lits):
        out = lits[0]
        for e in lits[1:]:
            out = A.BoolOp(op="and", left=out, right=e, pos=e.pos)
        return out
    out = all_of(ways[0])
    for w in ways[1:]:
        out = A.BoolOp(op="or", left=out, right=all_of(w), pos=out.pos)
    return out


def _sorted_sizes(e) -> bool:
    """Whether groups(...) is compared with a written list of sizes, largest first, none below 1
    (then the groups generated are exactly those; otherwise the comparison is tested as well)."""
    if not isinstance(e, A.ListLit) or not e.items or not all(isinstance(x, A.Num) for x in e.items):
        return False
    sizes = [x.value for x in e.items]
    return all(v >= 1 for v in sizes) and sizes == sorted(sizes, reverse=True)
