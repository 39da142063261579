"""Check calls: the builtin functions, the aggregates, ``highest`` / ``lowest``, and ``define``
functions (compiled once per list of argument types, and written out where they are used when
small — ``dsl.passes.inline``)."""
from __future__ import annotations

from pathlib import Path

import ast
import contextlib

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.check.combinations import COMBO_AGGREGATES
from rulesrun.dsl.errors import RulesError
from rulesrun.dsl.ir import K, Best, Comp, St, binop, call, compare, name, sub, typed
from rulesrun.dsl.passes import inline
from rulesrun.dsl.scope import Scope

BUILTINS = {
    "size": "size(zone or list): how many cards or items",
    "left": "left(p): the next player clockwise", "right": "right(p): the next player counter-clockwise",
    "player_at": "player_at(p, k): the player k seats clockwise from p (k < 0: counter-clockwise)",
    "next": "next(Kind, value): the following value of a kind, round the ring",
    "previous": "previous(Kind, value): the preceding value of a kind, round the ring",
    "unique": "unique(list): the list without repeats", "top": "top(zone) or top(zone, n)",
    "bottom": "bottom(zone): the bottom card", "position": "position(x, zone or list): 1 for the first",
    "item": "item(list, i) or list[i]: the i-th item, 1 for the first, -1 for the last",
    "holder": "holder(c): the player whose zone holds card c, or none for a shared zone",
    "min": "min(a, b)", "max": "max(a, b)", "abs": "abs(n)", "empty": "empty(zone or list)",
}
AGGREGATES = ("sum", "count", "any", "all", "max", "min")
FEW_VALUES = 8      # unique() of a kind with at most this many values (and of yes/no) keeps a short list


class Calls:
    """Mixed into the compiler (``dsl.compiler``): calls of builtins, aggregates and defines."""

    BUILTINS = BUILTINS
    AGGREGATES = AGGREGATES

    def _arity(self, e, *counts):
        if len(e.args) not in counts:
            want = " or ".join(str(c) for c in counts)
            self.err(f"{e.func}() takes {want} argument{'s' if counts != (1,) else ''}, not {len(e.args)}",
                     e.pos, BUILTINS.get(e.func))

    def _zone_or_list(self, e, scope):
        """A builtin's argument that may be a zone (its cards) or a list."""
        node, t = self.expr(e, scope)
        if t == T.ZONE:
            return typed(sub(St("z"), node), T.list_of(T.CARD)), T.list_of(T.CARD)
        return node, t

    def _zone_arg(self, e, scope, func: str):
        node, t = self.expr(e, scope)
        if t != T.ZONE:
            self.err(f"{func}() needs a zone, not a {T.describe(t)}", e.pos)
        return sub(St("z"), node)

    def _builtin(self, e, scope):
        func, n = e.func, self.N
        pos = K(e.pos)
        if func in ("size", "empty"):
            self._arity(e, 1)
            node, t = self._zone_or_list(e.args[0], scope)
            if not (T.is_list(t) or t == T.TEXT):
                self.err(f"{func}() needs a zone or a list, not a {T.describe(t)}", e.args[0].pos)
            if func == "empty":
                return compare(call("len", node), "==", K(0)), T.BOOL
            return call("len", node), T.NUMBER
        if func in ("left", "right"):
            self._arity(e, 1)
            node, t = self.expr(e.args[0], scope)
            self._expect(t, T.PLAYER, e.args[0].pos, f"{func}()'s argument")
            return binop(binop(node, "+" if func == "left" else "-", K(1)), "%", K(n)), T.PLAYER
        if func == "player_at":
            self._arity(e, 2)
            node, t = self.expr(e.args[0], scope)
            self._expect(t, T.PLAYER, e.args[0].pos, "player_at()'s first argument")
            k = self.num(e.args[1], scope, "player_at()'s second argument")
            return binop(binop(node, "+", k), "%", K(n)), T.PLAYER
        if func in ("next", "previous"):
            self._arity(e, 2)
            kind = e.args[0]
            if not (isinstance(kind, A.Name) and kind.id in self.kinds):
                self.err(f"{func}()'s first argument is a kind, like Suit", kind.pos)
            values = list(self.kinds[kind.id])
            node, t = self.expr(e.args[1], scope)
            self._expect(t, T.enum(kind.id), e.args[1].pos, f"{func}()'s second argument")
            step = 1 if func == "next" else -1
            table = {v: values[(i + step) % len(values)] for i, v in enumerate(values)}
            return sub(K(table), node), T.enum(kind.id)
        if func == "unique":
            self._arity(e, 1)
            node, t = self.expr(e.args[0], scope)
            if not T.is_list(t):
                self.err("unique() needs a list", e.args[0].pos)
            et = T.elem(t)
            if et == T.BOOL or (T.is_enum(et) and len(self.kinds.get(et[5:], ())) <= FEW_VALUES):
                return call("_unique_few", node), t     # a kind of few values: no dict made (dsl.emit.helpers)
            fromkeys = ast.Attribute(value=name("dict"), attr="fromkeys", ctx=ast.Load())
            return call("list", call(fromkeys, node)), t
        if func in ("top", "bottom"):
            self._arity(e, 1, 2)
            zone = self._zone_arg(e.args[0], scope, func)
            if len(e.args) == 2:
                k = self.num(e.args[1], scope, f"how many cards {func}() takes")
                if func == "top":
                    zone = sub(zone, ast.Slice(lower=None, upper=None, step=K(-1)))
                # a list of its own: a zone may be a tuple shared by clones (State.clone)
                return call("list", sub(zone, ast.Slice(lower=None, upper=k, step=None))), T.list_of(T.CARD)
            return call("_top", zone, K(func), pos), T.CARD
        if func == "position":
            self._arity(e, 2)
            x, _ = self.expr(e.args[0], scope)
            items, lt = self._zone_or_list(e.args[1], scope)
            if not T.is_list(lt):
                self.err("position()'s second argument is a zone or a list", e.args[1].pos)
            return call("_position", x, items, pos), T.NUMBER
        if func == "item":
            self._arity(e, 2)
            items, lt = self._zone_or_list(e.args[0], scope)
            if not T.is_list(lt):
                self.err(f"item() needs a list or a zone, not a {T.describe(lt)}", e.args[0].pos)
            k = self.num(e.args[1], scope, "item()'s position")
            return call("_item", items, k, pos), T.elem(lt)
        if func == "holder":
            self._arity(e, 1)
            c, ct = self.expr(e.args[0], scope)
            self._expect(ct, T.CARD, e.args[0].pos, "holder()'s argument")
            return call("_holder", K([z.owner for z in self.zones]), St("loc"), c, pos), T.PLAYER
        if func in ("min", "max"):
            self._arity(e, 2)
            a = self.num(e.args[0], scope, f"{func}()'s arguments")
            b = self.num(e.args[1], scope, f"{func}()'s arguments")
            return call(func, a, b), T.NUMBER
        if func == "abs":
            self._arity(e, 1)
            return call("abs", self.num(e.args[0], scope, "abs()'s argument")), T.NUMBER
        raise AssertionError(func)

    # ── aggregates and highest / lowest ────────────────────────────────────
    def _e_Aggregate(self, e, scope):
        func = e.func
        if func in COMBO_AGGREGATES:
            return self._combo_aggregate(e, scope)
        if func == "first":     # `first(x in Z where ...)`: the first that passes, or none (not a reserved name)
            if e.expr is not None or e.cond is None:
                self.err("first(...) picks an item by a condition", e.pos, "write first(x in ... where ...)")
            return self._e_Best(A.Best(pos=e.pos, kind="first", var=e.var, source=e.source, cond=e.cond, keys=()),
                                scope)
        if func not in AGGREGATES:
            self.err(f"'{func}(... for ... in ...)' is not an aggregate", e.pos,
                     "the aggregates are " + ", ".join(AGGREGATES + ("first",) + COMBO_AGGREGATES))
        src, et, var, cond, extra = self._bind_loop(e.var, e.source, e.cond, scope, e.expr)
        body, t = extra if extra else (None, None)
        if func in ("sum", "max", "min"):
            if body is None:
                if et != T.NUMBER:
                    self.err(f"{func}(...) needs numbers", e.pos, f"write {func}(x.points for x in ...)")
                body, t = var, T.NUMBER
            self._expect(t, T.NUMBER, (e.expr or e).pos, f"what {func}(...) adds up")
        elif func in ("any", "all"):
            if body is not None:
                self._expect(t, T.BOOL, e.expr.pos, f"what {func}(...) tests")
            elif cond is None:
                self.err(f"{func}(...) needs a condition", e.pos, f"write {func}(x in ... where ...)")
        elif func == "count" and body is not None:
            self.err("count(...) counts items", e.pos, "write count(x in ... where ...)")
        if func == "count":
            if cond is None:
                return call("len", src), T.NUMBER
            return Comp("count", K(None), var, src, cond), T.NUMBER
        if func in ("any", "all"):
            test, filt = (body, cond) if body is not None else (cond, None)
            return Comp(func, test, var, src, filt), T.BOOL
        if func == "sum":
            return Comp("sum", body, var, src, cond), T.NUMBER
        return call("_pick", name(func), Comp("list", body, var, src, cond), K(func), K(e.pos)), T.NUMBER

    def _e_Best(self, e, scope):
        src, et, _ = self._source(e.source, scope)
        slot, saved = scope.push(e.var, et)
        var = scope.ref(slot, et)
        cond = None
        if e.cond is not None:
            cond = self._cond(e.cond, scope, "a 'where' condition")
        keys = []
        for k in e.keys:
            node, kt = self.expr(k, scope)
            self._expect(kt, T.NUMBER, k.pos, f"what '{e.kind}' compares")
            keys.append(node)
        scope.pop(e.var, saved)
        if e.kind == "first":       # `first x in Z where ...`: the first that passes, as a tie of equals
            return Best("highest", [K(0)], var, scope.ref(scope.temp(), T.NUMBER), src, cond), et
        return Best(e.kind, keys, var, scope.ref(scope.temp(), T.NUMBER), src, cond), et

    # ── define functions ──────────────────────────────────────────────────
    @contextlib.contextmanager
    def _called_from(self, call_, fname, types):
        """Errors in a body compiled for one call's argument types name that call."""
        try:
            yield
        except RulesError as err:
            if types and err.pos is not None and (err.pos.line, err.pos.file) != (call_.pos.line, call_.pos.file) \
                    and "as called at " not in (err.hint or ""):
                args = ", ".join(T.describe(t) for t in types)
                # a variant file's define called from its base: say which file the line is in
                at = f"line {call_.pos.line}" if err.pos.file == call_.pos.file else \
                    f"{Path(call_.pos.file).name} line {call_.pos.line}"
                where = f"in {fname}() as called at {at} with ({args})"
                err.hint = f"{err.hint}; {where}" if err.hint else where
            raise

    def _define_instance(self, d, e, types):
        """The define compiled for these argument types (once): (function name, type, body, params)."""
        key = (d.name, tuple(types))
        if key not in self.define_cache:
            if key in self._defining:
                self.err(f"{d.name}() calls itself", e.pos, "functions cannot be recursive")
            self._defining = self._defining | {key}
            inner = Scope("py")
            params = [inner.ref(inner.bind(p, t, d.pos, self), t) for p, t in zip(d.params, types)]
            with self._called_from(e, d.name, list(types)):
                body, bt = self.expr(d.expr, inner)
            self._defining = self._defining - {key}
            fname = self.gen.fresh("_D")
            self.gen.function(fname, ["S"] + params, [self._return(body, d.expr.pos)], f"define {d.name}",
                              pure=True)
            self.define_cache[key] = (fname, bt, body, params)
        return self.define_cache[key]

    def _call_define(self, e, scope):
        d = self.defines[e.func]
        if len(e.args) != len(d.params):
            self.err(f"{d.name}() takes {len(d.params)} argument{'s' if len(d.params) != 1 else ''}, "
                     f"not {len(e.args)}", e.pos, f"it is defined at line {d.pos.line}")
        args = [self.expr(a, scope) for a in e.args]
        fname, bt, body, params = self._define_instance(d, e, [t for _, t in args])
        nodes = [a for a, _ in args]
        if inline.worth_inlining(body, nodes):
            return inline.substitute(body, params, nodes), bt
        return call(fname, name("S"), *nodes), bt
