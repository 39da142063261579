"""Combinations when compiling: the shape aggregates (``same``, ``run``, ``run_round``, ``groups``,
``leading``) and the *plan* of a combination choice — what a ``such that`` condition says about the
shape of the chosen set, read from its ``and`` / ``or`` structure (through ``define``s), so that
``dsl.combos._combos`` generates the candidates from the shapes instead of trying every subset.

The plan is only a generator: every candidate is still tested with the whole condition, so a part
of it that the plan does not understand is simply a filter.
"""
from __future__ import annotations

import ast

import attrs

from . import ast as A
from . import types as T
from .ir import K, Comp, Fn, call, compare, ifexp

COMBO_AGGREGATES = ("same", "run", "run_round", "groups", "leading")
COMBO_HELP = {
    "same": "same(c.rank for c in s): every card's key is the same (a pair, three of a kind, a flush)",
    "run": "run(c.rank for c in s): the keys are consecutive numbers, none repeated (a straight)",
    "run_round": "run_round(c.rank for c in s): a run that may go round from the highest key to the lowest",
    "groups": "groups(c.rank for c in s): the sizes of the groups of equal keys, largest first ([3, 2]: a full house)",
    "leading": "leading(c.rank for c in s): the key of the largest group, the highest of equal groups",
}
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

    # ── the plan of a combination choice ────────────────────────────────────
    def _combo_plan(self, s, scope, et):
        """The plan (an IR list) for ``s``'s ``such that``, or None when some way it can hold says
        nothing about the shape (then every subset is tried, as before)."""
        branches = self._dnf(s.such_that, 0)
        if branches is None or not branches:
            return None
        plan, seen = [], set()
        for lits in branches:
            shape = tuple(e for e in lits if self._shapely(e, s.var))
            if shape in seen:       # a branch that differs only in a filter generates the same sets
                continue
            seen.add(shape)
            entry = self._plan_branch(shape, s.var, scope, et)
            if entry is None:
                return None
            plan.append(entry)
        return ast.List(elts=plan, ctx=ast.Load())

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
        size, shapes = None, []
        for e in lits:
            if isinstance(e, A.Call) and e.func == "empty" and len(e.args) == 1 \
                    and isinstance(e.args[0], A.Name) and e.args[0].id == var:
                size = K(0) if size is None else ifexp(compare(size, "==", K(0)), size, K(-1))
            elif isinstance(e, A.Compare) and e.op == "==":
                for a, b in ((e.left, e.right), (e.right, e.left)):
                    if isinstance(a, A.Call) and a.func == "size" and len(a.args) == 1 \
                            and isinstance(a.args[0], A.Name) and a.args[0].id == var and not _mentions(b, var):
                        n = self.num(b, scope, "a combination's size")
                        # two sizes: the branch holds only where they agree (a size below 0 is skipped)
                        size = n if size is None else ifexp(compare(size, "==", n), size, K(-1))
                        break
                    if self._over(a, var, ("groups",)) and not _mentions(b, var):
                        pattern, pt = self.expr(b, scope)
                        self._expect(pt, T.list_of(T.NUMBER), b.pos, "the groups of a combination")
                        shapes.append(ast.Tuple(elts=[K("groups"), self._key_fn(a, scope, et), pattern],
                                                ctx=ast.Load()))
                        break
            elif self._over(e, var, ("same", "run", "run_round")):
                kind = {"same": "same", "run": "run", "run_round": "round"}[e.func]
                parts = [K(kind), self._key_fn(e, scope, et)]
                if kind == "round":
                    parts.append(self._every_key(e, et, scope))
                shapes.append(ast.Tuple(elts=parts, ctx=ast.Load()))
        if size is None and not shapes:
            return None
        return ast.Tuple(elts=[size if size is not None else K(None), ast.List(elts=shapes, ctx=ast.Load())],
                         ctx=ast.Load())

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
        return Fn(scope.ref(slot, et), body)
