"""Check expressions and build their typed IR (``dsl.ir``).

``expr(e, scope)`` resolves every name of an expression, checks its types and gives ``(node,
type)``: an IR expression whose ``rtype`` is that type. Values known when compiling become ``K``
constants; the state is read through ``St`` lists; locals are the scope's ``Local`` slots.
Calls of builtins and aggregates are in ``dsl.check.builtins``.
"""
from __future__ import annotations

import ast
from functools import reduce

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.errors import did_you_mean
from rulesrun.dsl.ir import K, Comp, St, binop, boolop, call, compare, ifexp, name, not_, sub, typed
from rulesrun.dsl.scope import Scope
from rulesrun.dsl.check.teams import TEAM_BUILTINS


class Expressions:
    """Mixed into the compiler (``dsl.compiler``): the expression half of checking."""

    def expr(self, e: A.Expr, scope: Scope):
        method = getattr(self, "_e_" + type(e).__name__, None)
        if method is None:
            self.err("this kind of expression is not allowed here", e.pos)
        node, t = method(e, scope)
        node.rtype = t
        return node, t

    def num(self, e: A.Expr, scope: Scope, what: str):
        """An expression used as a number; a bare 'players' counts the players."""
        if isinstance(e, A.Players) and e.start is None:
            return typed(K(self.N), T.NUMBER)
        node, t = self.expr(e, scope)
        self._expect(t, T.NUMBER, e.pos, what)
        return node

    def _expect(self, got: str, want: str, pos, what: str):
        if not T.compatible(got, want):
            self.err(f"{what} must be a {T.describe(want)}, but this is a {T.describe(got)}", pos)

    def _cond(self, cond, scope, what):
        node, t = self.expr(cond, scope)
        self._expect(t, T.BOOL, cond.pos, what)
        return node

    # ── literals and names ────────────────────────────────────────────────
    def _e_Num(self, e, scope):
        return K(e.value), T.NUMBER

    def _e_Bool(self, e, scope):
        return K(bool(e.value)), T.BOOL

    def _e_NoneLit(self, e, scope):
        return K(None), T.NONE

    def _text(self, parts_in, scope):
        """The parts of a text with {expressions}: (literal str | (node, display, type))."""
        parts = []
        for p in parts_in:
            if isinstance(p, str):
                parts.append(p)
            else:
                node, t = self.expr(p, scope)
                parts.append((node, self.display(t), t))
        return parts

    def text_node(self, parts):
        """A text's parts joined: the literal, or the parts added up with each value shown."""
        if all(isinstance(p, str) for p in parts):
            return K("".join(parts))
        out = [K(p) if isinstance(p, str) else call(K(p[1]), p[0]) for p in parts]
        return reduce(lambda a, b: binop(a, "+", b), out)

    def _e_Str(self, e, scope):
        return self.text_node(self._text(e.parts, scope)), T.TEXT

    def _e_PlayerLit(self, e, scope):
        if e.number > self.N:
            self.err(f"there is no player {e.number} with {self.N} players", e.pos)
        return K(e.number - 1), T.PLAYER

    def _e_Players(self, e, scope):
        n = self.N
        if e.start is None:
            return K(list(range(n))), T.list_of(T.PLAYER)
        node, t = self.expr(e.start, scope)
        if t != T.PLAYER:
            self.err(f"'players from' needs a player, but this is a {T.describe(t)}", e.start.pos)
        table = [[(s + i) % n for i in range(n)] for s in range(n)]
        return sub(K(table), node), T.list_of(T.PLAYER)

    def _e_VariantTest(self, e, scope):
        """Known when compiling: the branches of a variant cost nothing when it is not chosen."""
        if e.name not in self.available:
            known = ", ".join(self.available) or "none"
            self.err(f"unknown variant '{e.name}'", e.name_pos or e.pos,
                     did_you_mean(e.name, self.available) or f"this game's variants: {known}")
        if self.selected is None:
            self.err("a variant's 'when' cannot ask which variants are chosen", e.pos,
                     "'when' may depend on the player count and constants")
        return K(e.name in self.selected), T.BOOL

    def _e_EveryCard(self, e, scope):
        if not self.card_names:
            self.err("'every card' is not known yet: the cards are made after the constants", e.pos,
                     "use it inside procedures, functions or invariants")
        return K(list(range(len(self.card_names)))), T.list_of(T.CARD)

    def _e_Name(self, e, scope):
        name = e.id
        hit = scope.lookup(name)
        if hit is not None:
            slot, t = hit
            return scope.ref(slot, t), t
        if name in self.consts:
            v, t = self.consts[name]
            return K(v), t
        if name in self.enum_values:
            return K(self.enum_text[name]), T.enum(self.enum_values[name])
        if name in self.team_index:
            return K(self.team_index[name]), T.TEAM
        if name in self.kinds:
            return K(list(self.kinds[name])), T.list_of(T.enum(name))
        if name in self.globals:
            self._no_state(e)
            return sub(St("g"), K(self.globals[name][0])), self.globals[name][1].type
        if name in self.zone_index:
            self._no_state(e)
            return K(self.zone_index[name]), T.ZONE
        if name in self.families:
            self.err(f"'{name}' is a per-player zone: say whose", e.pos, f"write p.{name} for player p's {name}")
        if name in self.pvars:
            self.err(f"'{name}' belongs to each player: say whose", e.pos, f"write p.{name}")
        if name in self.proc_decls or name in self.defines or name in self.BUILTINS:
            self.err(f"'{name}' must be called", e.pos, f"write {name}(...)")
        if name in self.attrs or name in self.cvars:
            self.err(f"'{name}' belongs to a card: say which", e.pos, f"write c.{name}")
        if self.in_const and name in getattr(self, "later_state", ()):
            self._no_state(e)
        known = (list(scope.slots) + list(self.consts) + list(self.enum_values) + list(self.kinds)
                 + list(self.globals) + list(self.zone_index))
        self.err(f"unknown name '{name}'", e.pos, did_you_mean(name, known))

    def _no_state(self, e):
        if self.in_const:
            self.err("this value must be known before the game starts, but it depends on the game state", e.pos)

    def _e_Attr(self, e, scope):
        obj, ot = self.expr(e.obj, scope)
        name = e.name
        if ot == T.PLAYER:
            if name in self.pvars:
                self._no_state(e)
                i, info = self.pvars[name]
                return sub(sub(St("pv"), K(i)), obj), info.type
            if name in self.families:
                self._no_state(e)
                return binop(K(self.families[name]), "+", obj), T.ZONE
            self.err(f"players have no '{name}'", e.name_pos or e.pos,
                     did_you_mean(name, list(self.pvars) + list(self.families)) or
                     "declare it with 'player state' or 'zone ... per player'")
        if ot == T.CARD:
            if name in self.attrs:
                table = self.card_attrs.get(name)
                if table is None:  # inside the cards block itself
                    self.err("card attributes cannot be read while the cards are being made", e.pos)
                return sub(K(table), obj), self.attrs[name]
            if name in self.cvars:
                self._no_state(e)
                i, info = self.cvars[name]
                return sub(sub(St("cv"), K(i)), obj), info.type
            self.err(f"cards have no '{name}'", e.name_pos or e.pos,
                     did_you_mean(name, list(self.attrs) + list(self.cvars)) or
                     (f"'{name}' belongs to players: write p.{name} for a player p"
                      if name in self.pvars or name in self.families else None))
        if ot == T.TEAM:
            return self._team_attr(e, obj)
        self.err(f"a {T.describe(ot)} has no attributes, so '.{name}' means nothing here", e.pos)

    # ── lists and things to take items from ───────────────────────────────
    def _source(self, e: A.Expr, scope: Scope, const: bool = False):
        """Something to choose from or loop over: a zone, a list, a kind, or a range 'a to b'.
        Gives (node, item type, whether it is a zone's own list, which moves may change)."""
        if isinstance(e, A.Range):
            lo = self.num(e.low, scope, "a range's start")
            hi = self.num(e.high, scope, "a range's end")
            return typed(call("_range", lo, hi, name("S"), K(e.pos)), T.list_of(T.NUMBER)), T.NUMBER, False
        node, t = (self._const_expr(e, scope) if const else self.expr(e, scope))
        if t == T.ZONE:
            return typed(sub(St("z"), node), T.list_of(T.CARD)), T.CARD, True
        if T.is_list(t):
            return node, T.elem(t), False
        self.err(f"cannot take items from a {T.describe(t)}", e.pos,
                 "give a zone, a list, a kind, or a range like 0 to 8")

    def _e_Range(self, e, scope):
        node, t, _ = self._source(e, scope)
        return node, T.list_of(t)

    def _e_ListLit(self, e, scope):
        nodes, t = [], "none"
        for item in e.items:
            node, it = self.expr(item, scope)
            j = T.join(t, it) if t != "none" else it
            if j is None:
                self.err(f"a list holds items of one type; this is a {T.describe(it)} among {T.describe(t)}s", item.pos)
            t = j
            nodes.append(node)
        return ast.List(elts=nodes, ctx=ast.Load()), T.list_of(t)

    def _bind_loop(self, var, source, cond, scope, body=None):
        """(source, item type, loop variable, condition or None, (body, type) or None)"""
        src, et, _ = self._source(source, scope)
        slot, saved = scope.push(var, et)
        cnode = None
        if cond is not None:
            cnode = self._cond(cond, scope, "a 'where' condition")
        extra = None
        if body is not None:
            extra = self.expr(body, scope)
        scope.pop(var, saved)
        return src, et, scope.ref(slot, et), cnode, extra

    def _e_ListComp(self, e, scope):
        src, et, var, cond, (body, t) = self._bind_loop(e.var, e.source, e.cond, scope, e.expr)
        return Comp("list", body, var, src, cond), T.list_of(t)

    # ── operators ─────────────────────────────────────────────────────────
    def _e_Ternary(self, e, scope):
        c = self._cond(e.cond, scope, "the condition of 'if ... else'")
        a, at = self.expr(e.then, scope)
        b, bt = self.expr(e.other, scope)
        t = T.join(at, bt)
        if t is None:
            self.err(f"both sides of 'if ... else' must be of one type, not {T.describe(at)} and {T.describe(bt)}", e.pos)
        return ifexp(c, a, b), t

    def _e_BoolOp(self, e, scope):
        a, at = self.expr(e.left, scope)
        b, bt = self.expr(e.right, scope)
        self._expect(at, T.BOOL, e.left.pos, f"each side of '{e.op}'")
        self._expect(bt, T.BOOL, e.right.pos, f"each side of '{e.op}'")
        return boolop("and" if e.op == "and" else "or", a, b), T.BOOL

    def _e_Not(self, e, scope):
        return not_(self._cond(e.operand, scope, "what 'not' negates")), T.BOOL

    @staticmethod
    def _counts_players(e) -> bool:
        return isinstance(e, A.Players) and e.start is None

    def _e_Compare(self, e, scope):
        op = e.op
        if op in ("in", "not in"):
            a, at = self.expr(e.left, scope)
            b, bt = self.expr(e.right, scope)
            if bt == T.ZONE:
                bt2 = T.list_of(T.CARD)
                b = typed(sub(St("z"), b), bt2)
            else:
                bt2 = bt
            if not T.is_list(bt2):
                self.err(f"'{op}' needs a list or a zone on its right, not a {T.describe(bt)}", e.right.pos)
            if not T.compatible(at, T.elem(bt2)) and bt2 != "list:none":
                self.err(f"a {T.describe(at)} is never in a {T.describe(bt2)}", e.pos)
            return compare(a, op, b), T.BOOL
        # 'players' next to a number means how many players there are
        if self._counts_players(e.left) or self._counts_players(e.right):
            a = self.num(e.left, scope, f"each side of '{op}'")
            b = self.num(e.right, scope, f"each side of '{op}'")
            at = bt = T.NUMBER
        else:
            a, at = self.expr(e.left, scope)
            b, bt = self.expr(e.right, scope)
        if op in ("==", "!="):
            if not T.compatible(at, bt):
                self.err(f"a {T.describe(at)} is never equal to a {T.describe(bt)}", e.pos)
            return compare(a, op, b), T.BOOL
        self._expect(at, T.NUMBER, e.left.pos, f"each side of '{op}'")
        self._expect(bt, T.NUMBER, e.right.pos, f"each side of '{op}'")
        if op not in ("<", "<=", ">", ">="):
            raise AssertionError(op)
        return compare(a, op, b), T.BOOL

    def _e_BinOp(self, e, scope):
        op = e.op
        if op == "+":
            if self._counts_players(e.left) or self._counts_players(e.right):
                a = self.num(e.left, scope, "each side of '+'")
                b = self.num(e.right, scope, "each side of '+'")
                return binop(a, "+", b), T.NUMBER
            a, at = self.expr(e.left, scope)
            b, bt = self.expr(e.right, scope)
            if T.is_list(at) or at == T.TEXT:
                if not T.compatible(at, bt):
                    self.err(f"cannot add a {T.describe(bt)} to a {T.describe(at)}", e.pos)
                return binop(a, "+", b), T.join(at, bt)
            self._expect(at, T.NUMBER, e.left.pos, "each side of '+'")
            self._expect(bt, T.NUMBER, e.right.pos, "each side of '+'")
            return binop(a, "+", b), T.NUMBER
        a = self.num(e.left, scope, f"each side of '{op}'")
        b = self.num(e.right, scope, f"each side of '{op}'")
        if op in ("-", "*"):
            return binop(a, op, b), T.NUMBER
        return call("_div" if op == "/" else "_mod", a, b, K(e.pos)), T.NUMBER

    def _e_Neg(self, e, scope):
        return ast.UnaryOp(op=ast.USub(), operand=self.num(e.operand, scope, "what '-' negates")), T.NUMBER

    def _e_Call(self, e, scope):
        name = e.func
        if name in self.defines:
            return self._call_define(e, scope)
        if name in self.proc_decls:
            from rulesrun.dsl.lower.statements import has_return
            if has_return(self.proc_decls[name].body):
                self.err(f"procedure '{name}' gives its value only as the whole right side of 'let' or '='",
                         e.pos, f"write 'let x = {name}(...)' on a line of its own, then use x")
            self.err(f"procedure '{name}' does not give a value", e.pos, "call it on a line of its own")
        if name in self.AGGREGATES and name not in ("min", "max"):
            self.err(f"{name}(...) takes 'x in ... where ...' or '... for x in ...'", e.pos)
        if name in TEAM_BUILTINS:
            return self._team_builtin(e, scope)
        if name == "beats":             # a define of the same name takes its place
            return self._beats(e, scope)
        if name not in self.BUILTINS:
            known = list(self.defines) + list(self.BUILTINS)
            self.err(f"unknown function '{name}'", e.pos, did_you_mean(name, known))
        return self._builtin(e, scope)
