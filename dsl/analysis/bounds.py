"""The least and greatest value a number in a rules file can take, worked out from the file's text.

Used by the compiler (a secret number's domain, which the bots imagine it among:
``dsl.compiler``) and by the bridges (a number choice's action ids: ``interpreter.bridges.actions``).

A number decision needs a fixed block of action ids (actions.py), so the ends of its options
must be bounded even where they change during the game (``p chooses b from 0 to hand_size``).
``Bounds.span(expr)`` is an interval (low, high) that holds every value ``expr`` can have in any
game of one configuration (player count, variants, parameters), by interval arithmetic over the
language:

    a number, a constant, a parameter, ``players``     itself
    state (game, player, card) declared 'from A to B'  A to B
    other state, a local name (let, for, a choice,     every value it is given anywhere in the
    a procedure's or define's parameter)               file (its initial value, each '=', each
                                                       call's argument) — unbounded if it is
                                                       changed by '+=' or '-='
    a card's printed number (c.value)                  the least to the greatest in the card table
    size(Z), count(x in Z ...), len                    0 to the number of cards (a zone), of seats,
                                                       or of the list's items
    sum(e for x in L)                                  the items' count times e's interval
    min(e for x in L), max(...)                        e's interval
    + - * / mod, min, max, abs, -x, a if c else b      interval arithmetic
    a define's call                                    its body, its parameters the arguments'

A binding met again while it is being worked out (``n = n + 1``) is unbounded. Every answer is an
over-approximation: the real values lie inside it (a condition only removes values, so
``where`` is ignored). An expression it cannot bound raises ``Unbounded`` saying what, and where.
"""
from __future__ import annotations

from rulesrun.dsl.syntax import ast as A


class Unbounded(Exception):
    """Its text says which name or expression has no bound, and why (for the person's message);
    ``pos`` is the assignment that defeats the bound, where one does."""

    def __init__(self, text: str, pos=None):
        super().__init__(text)
        self.pos = pos




def _hull(spans) -> tuple:
    spans = list(spans)
    return min(s[0] for s in spans), max(s[1] for s in spans)


class Bounds:
    """The intervals of one configuration's numbers. ``items``: the file's declarations with the
    active variants' after them (a later const or define replaces an earlier); ``static`` the
    evaluator of expressions that are the same in every game (ActionSpace._static)."""

    MAX_DEPTH = 60

    def __init__(self, items: list, static, players: int, ncards: int, zones: set, families: set,
                 card_numbers: dict):
        self.static, self.players, self.ncards = static, players, ncards
        self.zones, self.families = zones, families
        self.card_numbers = card_numbers       # a card attribute that is a number -> (least, greatest)
        self.defines: dict = {}
        self.state: dict = {}        # (owner, name) -> StateDecl
        for item in items:
            if isinstance(item, A.DefineDecl):
                self.defines[item.name] = item
            elif isinstance(item, A.StateDecl):
                self.state[(item.owner, item.name)] = item
        # every value a name is given in the statements: name -> [(op, expression, pos)], op "=" or
        # "+=" or "-=", or "in" for an item of the expression (a for loop, a choice)
        self.names: dict = {}
        self.attrs: dict = {}        # attribute name -> [(op, expr, pos)] of 'X.name = expr'
        self.params: dict = {}       # procedure or define name -> its parameter names
        for item in items:
            if isinstance(item, (A.ProcDecl, A.DefineDecl)):
                self.params[item.name] = tuple(item.params)
        # the variants in ``items`` are those of the configuration (their declarations follow the
        # file's); a variant that is not played gives nothing
        for node in A.walk([i for i in items if not isinstance(i, A.VariantDecl)]):
            if isinstance(node, A.Let):
                self._bind(node.name, ("=", node.expr, node.pos))
            elif isinstance(node, A.Assign):
                if isinstance(node.target, A.Name):
                    self._bind(node.target.id, (node.op, node.expr, node.pos))
                elif isinstance(node.target, A.Attr):
                    self.attrs.setdefault(node.target.name, []).append((node.op, node.expr, node.pos))
            elif isinstance(node, (A.For, A.AtOnce)):
                self._bind(node.var, ("in", node.source, node.pos))
            elif isinstance(node, A.Choose) and not node.subset:
                self._bind(node.var, ("in", node.source, node.pos))
            elif isinstance(node, A.Call) and node.func in self.params:
                for name, arg in zip(self.params[node.func], node.args):
                    self._bind(name, ("=", arg, node.pos))
        self._busy: set = set()

    def _bind(self, name: str, binding) -> None:
        self.names.setdefault(name, []).append(binding)

    # ── numbers ─────────────────────────────────────────────────────────
    def span(self, e, env: dict | None = None, depth: int = 0) -> tuple:
        """(low, high) holding every value of the number ``e``; ``env`` the intervals of the names
        bound around it (a comprehension's item, a define's parameters)."""
        env = env or {}
        if depth > self.MAX_DEPTH:
            raise Unbounded("an expression nested too deeply to bound")
        s = lambda x: self.span(x, env, depth + 1)  # noqa: E731
        if isinstance(e, A.Name) and e.id in env:
            if env[e.id] is None:          # a card, a player, ...: not a number it can bound
                raise Unbounded(f"'{e.id}' (line {e.pos.line})")
            return env[e.id]
        try:
            v = self.static(e)
        except Exception:
            v = None
        if isinstance(v, int) and not isinstance(v, bool):
            return v, v
        if isinstance(e, A.Name):
            return self._name(e, depth)
        if isinstance(e, A.Attr):
            return self._attr(e, depth)
        if isinstance(e, A.Neg):
            lo, hi = s(e.operand)
            return -hi, -lo
        if isinstance(e, A.Ternary):
            return _hull([s(e.then), s(e.other)])
        if isinstance(e, A.BinOp):
            return self._binop(e, s(e.left), s(e.right))
        if isinstance(e, A.Call):
            if e.func in ("min", "max") and e.args:
                spans = [s(a) for a in e.args] if len(e.args) > 1 else [self.elements(e.args[0], env, depth + 1)]
                pick = min if e.func == "min" else max
                return pick(x[0] for x in spans), pick(x[1] for x in spans)
            if e.func == "abs" and len(e.args) == 1:
                lo, hi = s(e.args[0])
                return (0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
            if e.func in ("size", "len", "count") and len(e.args) == 1:
                return 0, self.length(e.args[0], env, depth + 1)
            if e.func == "sum" and len(e.args) == 1:
                lo, hi = self.elements(e.args[0], env, depth + 1)
                n = self.length(e.args[0], env, depth + 1)
                return min(0, n * lo), max(0, n * hi)
            if e.func in self.defines:
                return self._define(e, env, depth, self.span)
        if isinstance(e, A.Aggregate):
            n = self.length(e.source, env, depth + 1)
            if e.func == "count":
                return 0, n
            if e.func in ("sum", "min", "max"):
                if e.expr is None:              # sum(x in L where ...): L's items
                    lo, hi = self.elements(e.source, env, depth + 1)
                else:
                    lo, hi = self.span(e.expr, {**env, e.var: self._item(e.source, env, depth)}, depth + 1)
                return (min(0, n * lo), max(0, n * hi)) if e.func == "sum" else (lo, hi)
        raise Unbounded(f"'{_text(e)}' (line {e.pos.line})" if getattr(e, "pos", None) else "an expression")

    def _item(self, source, env, depth):
        """The interval of an item of ``source`` where it is a number; else an empty stand-in
        that makes any number worked out from it unbounded."""
        try:
            return self.elements(source, env, depth + 1)
        except Unbounded:
            return None

    @staticmethod
    def _binop(e, a, b) -> tuple:
        if a is None or b is None:
            raise Unbounded(f"'{_text(e)}' (line {e.pos.line})")
        if e.op == "+":
            return a[0] + b[0], a[1] + b[1]
        if e.op == "-":
            return a[0] - b[1], a[1] - b[0]
        if e.op == "*":
            ends = [x * y for x in a for y in b]
            return min(ends), max(ends)
        if e.op == "/" and (b[0] > 0 or b[1] < 0):
            ends = [x // y for x in a for y in b]
            return min(ends), max(ends)
        if e.op == "mod" and b[0] > 0:
            return 0, b[1] - 1
        raise Unbounded(f"'{_text(e)}' (line {e.pos.line})")

    def _name(self, e: A.Name, depth: int) -> tuple:
        decl = self.state.get((None, e.id))
        if decl is not None:
            declared = self._declared(decl)
            if declared is not None:
                return declared
        bindings = self.names.get(e.id, [])
        if decl is None and not bindings:
            raise Unbounded(f"'{e.id}' (line {e.pos.line})")
        return self._bindings(e.id, decl, bindings, depth)

    def _attr(self, e: A.Attr, depth: int) -> tuple:
        if e.name in self.card_numbers:        # printed on the cards: from the least to the greatest
            return self.card_numbers[e.name]
        decl = self.state.get(("player", e.name)) or self.state.get(("card", e.name)) \
            or self.state.get(("team", e.name))
        if decl is None:
            raise Unbounded(f"'{_text(e)}' (line {e.pos.line})")
        declared = self._declared(decl)
        if declared is not None:
            return declared
        return self._bindings(f".{e.name}", decl, self.attrs.get(e.name, []), depth)

    def _declared(self, decl) -> tuple | None:
        if decl.low is None or decl.high is None:
            return None
        try:
            return int(self.static(decl.low)), int(self.static(decl.high))
        except Exception:
            return None

    def _bindings(self, key: str, decl, bindings: list, depth: int) -> tuple:
        """The hull of every value a name is given: the state's initial value and each binding."""
        name = key.lstrip(".")
        what = f"{'state' if decl is not None else 'the name'} '{name}'"
        if key in self._busy:
            raise Unbounded(f"{what}, which is worked out from itself")
        self._busy.add(key)
        try:
            spans = []
            if decl is not None:
                spans.append(self.span(decl.default, {}, depth + 1) if decl.default is not None else (0, 0))
            for op, expr, pos in bindings:
                if op in ("+=", "-="):
                    raise Unbounded(f"{what}, which '{op}' changes at line {pos.line} with no bounds declared", pos)
                try:
                    spans.append(self.span(expr, {}, depth + 1) if op == "=" else self.elements(expr, {}, depth + 1))
                except Unbounded as why:
                    raise Unbounded(f"{what}, given {why} at line {pos.line}", why.pos or pos) from None
            return _hull(spans)
        finally:
            self._busy.discard(key)

    def _define(self, call: A.Call, env: dict, depth: int, how) -> tuple:
        d = self.defines[call.func]
        inner = {}
        for name, arg in zip(d.params, call.args):
            try:
                inner[name] = self.span(arg, env, depth + 1)
            except Unbounded:
                inner[name] = None         # not a number (a card, a player), or no bound: unbounded if used
        key = f"define {call.func}"
        if key in self._busy:
            raise Unbounded(f"'{call.func}', which calls itself")
        self._busy.add(key)
        try:
            return how(d.expr, inner, depth + 1)
        finally:
            self._busy.discard(key)

    # ── lists ───────────────────────────────────────────────────────────
    def elements(self, e, env: dict | None = None, depth: int = 0) -> tuple:
        """(low, high) holding every item of the list of numbers ``e``."""
        env = env or {}
        if depth > self.MAX_DEPTH:
            raise Unbounded("an expression nested too deeply to bound")
        if isinstance(e, A.Range):
            return self.span(e.low, env, depth + 1)[0], self.span(e.high, env, depth + 1)[1]
        if isinstance(e, A.ListLit):
            items = [i for i in e.items if not isinstance(i, A.NoneLit)]
            if items:
                return _hull(self.span(i, env, depth + 1) for i in items)
        if isinstance(e, A.BinOp) and e.op == "+":
            return _hull([self.elements(e.left, env, depth + 1), self.elements(e.right, env, depth + 1)])
        if isinstance(e, A.Ternary):
            return _hull([self.elements(e.then, env, depth + 1), self.elements(e.other, env, depth + 1)])
        if isinstance(e, A.ListComp):
            return self.span(e.expr, {**env, e.var: self._item(e.source, env, depth)}, depth + 1)
        if isinstance(e, A.Call) and e.func in self.defines:
            return self._define(e, env, depth, self.elements)
        raise Unbounded(f"the items of '{_text(e)}' (line {e.pos.line})" if getattr(e, "pos", None)
                        else "a list's items")

    def length(self, e, env: dict | None = None, depth: int = 0) -> int:
        """The most items the list or zone ``e`` can hold."""
        env = env or {}
        if depth > self.MAX_DEPTH:
            raise Unbounded("an expression nested too deeply to bound")
        if isinstance(e, A.Name) and e.id in self.zones:
            return self.ncards
        if isinstance(e, A.Attr) and e.name in self.families:
            return self.ncards
        if isinstance(e, A.EveryCard):
            return self.ncards
        if isinstance(e, A.Players):
            return self.players
        if isinstance(e, A.ListLit):
            return len(e.items)
        if isinstance(e, A.Range):
            lo = self.span(e.low, env, depth + 1)[0]
            hi = self.span(e.high, env, depth + 1)[1]
            return max(0, hi - lo + 1)
        if isinstance(e, (A.ListComp, A.Aggregate)):
            return self.length(e.source, env, depth + 1)
        if isinstance(e, A.BinOp) and e.op == "+":
            return self.length(e.left, env, depth + 1) + self.length(e.right, env, depth + 1)
        if isinstance(e, A.Ternary):
            return max(self.length(e.then, env, depth + 1), self.length(e.other, env, depth + 1))
        if isinstance(e, A.Call) and e.func in self.defines:
            return self._define(e, env, depth, lambda x, inner, d: (0, self.length(x, inner, d)))[1]
        raise Unbounded(f"the length of '{_text(e)}' (line {e.pos.line})" if getattr(e, "pos", None)
                        else "a list's length")


def _text(e) -> str:
    """The expression as the file wrote it, near enough for a message."""
    if isinstance(e, A.Name):
        return e.id
    if isinstance(e, A.Num):
        return str(e.value)
    if isinstance(e, A.Attr):
        return f"{_text(e.obj)}.{e.name}"
    if isinstance(e, A.BinOp):
        return f"{_text(e.left)} {e.op} {_text(e.right)}"
    if isinstance(e, A.Neg):
        return f"-{_text(e.operand)}"
    if isinstance(e, A.Call):
        return f"{e.func}({', '.join(_text(a) for a in e.args)})"
    if isinstance(e, A.Range):
        return f"{_text(e.low)} to {_text(e.high)}"
    if isinstance(e, A.Players):
        return "players"
    return type(e).__name__.lower()


def static_value(consts: dict, players: int):
    """An evaluator of the expressions that are the same in every game of one configuration, for
    ``Bounds``: numbers, constants and parameters (``consts``: name -> (value, type)), ``players``,
    and arithmetic of them; anything else raises ``LookupError``."""
    def static(e, depth: int = 0):
        if depth > 50:
            raise LookupError("too deep")
        s = lambda x: static(x, depth + 1)  # noqa: E731
        if isinstance(e, A.Num):
            return e.value
        if isinstance(e, A.Players) and e.start is None:
            return players
        if isinstance(e, A.Name) and e.id in consts and isinstance(consts[e.id][0], int):
            return consts[e.id][0]
        if isinstance(e, A.Neg):
            return -s(e.operand)
        if isinstance(e, A.BinOp) and e.op in ("+", "-", "*", "/", "mod"):
            a, b = s(e.left), s(e.right)
            if e.op in ("/", "mod") and b == 0:
                raise LookupError("division by zero")
            return {"+": a + b, "-": a - b, "*": a * b, "/": a // b if b else 0, "mod": a % b if b else 0}[e.op]
        if isinstance(e, A.Call) and e.func in ("min", "max") and len(e.args) > 1:
            return (min if e.func == "min" else max)(s(a) for a in e.args)
        raise LookupError("not static")
    return static
