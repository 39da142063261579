"""Check and compile a parsed rules file into a ``Program``.

One pass does both: every expression is resolved and type-checked as it is written out as Python
source, and every procedure becomes the source of one Python function (see ``dsl.codegen``): a
resumable one, cut into labelled blocks at each decision and call, which the engine runs as a state
machine over explicit frames; or a plain one, for procedures that never stop the game. Procedures
and ``define`` functions take untyped parameters; each is compiled once per list of argument types
it is called with, so every call is checked against real types.
"""
from __future__ import annotations

import contextlib
import itertools
import re
from typing import Any, Callable

from . import ast as A
from . import types as T
from .errors import Pos, RulesError, RulesRuntimeError, did_you_mean
from .codegen import Emitter, Namespace, _value_key
from .program import CALL_DEPTH, DONE, STOP, SWITCH, Decision, Program, Template, VarInfo, ZoneInfo


VISIBILITIES = ("public", "owner", "facedown", "hidden")
BUILTINS = {
    "size": "size(zone or list): how many cards or items",
    "left": "left(p): the next player clockwise", "right": "right(p): the next player counter-clockwise",
    "player_at": "player_at(p, k): the player k seats clockwise from p (k < 0: counter-clockwise)",
    "next": "next(Kind, value): the following value of a kind, round the ring",
    "previous": "previous(Kind, value): the preceding value of a kind, round the ring",
    "unique": "unique(list): the list without repeats", "top": "top(zone) or top(zone, n)",
    "bottom": "bottom(zone): the bottom card", "position": "position(x, zone or list): 1 for the first",
    "item": "item(list, i): the i-th item, 1 for the first",
    "holder": "holder(c): the player whose zone holds card c, or none for a shared zone",
    "min": "min(a, b)", "max": "max(a, b)", "abs": "abs(n)", "empty": "empty(zone or list)",
}
AGGREGATES = ("sum", "count", "any", "all", "max", "min")
# a card attribute compared with a value: (table[item] == value), the value a name or an item of one
ATTR_EQ = re.compile(r"\((_k\d+)\[(_t\d+)\] == ([\w\x00]+(?:\[\d+\])?)\)\Z")
INLINE_SIZE = 600     # a define whose body is at most this long is inlined where it is called
# source that is cheap to repeat and has no effect: a local, a constant, a literal number or name
SIMPLE = re.compile(r"(L\[\d+\]|[A-Za-z_]\w*|\d+|'[A-Za-z_ ]*')\Z")


_TEMP_NAMES = itertools.count(1_000_000)


def _unlisted(src: str) -> str:
    """``list(map(...))`` as the bare ``map(...)``, for a caller that iterates it once."""
    if not src.startswith("list(map(") or not src.endswith(")"):
        return src
    depth = 0
    for i, ch in enumerate(src):        # the parenthesis of 'list(' must close at the very end
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ")":
            return src[5:-1] if i == len(src) - 1 else src
    return src


class Scope:
    """The locals of one procedure or function: a flat list of slots. In mode "L" a slot is an item
    of a list ``L`` (``L[3]``, for values worked out while compiling); in mode "py" it is a Python
    local (``v3``); in mode "frame" (a resumable procedure) a Python local ``l3`` that is kept in
    the frame's locals list whenever the procedure stops. Temporary bindings (a loop variable inside
    an expression) are Python names (``_t3``) in every mode."""

    def __init__(self, mode: str = "L"):
        self.slots: dict[str, tuple[int, str]] = {}
        self.n = 0
        self.mode = mode
        self.temps: set[int] = set()
        self.alias: dict[int, str] = {}    # an inlined function's parameters: the arguments' source

    def ref(self, slot: int) -> str:
        if slot in self.alias:
            return self.alias[slot]
        if slot in self.temps:
            return f"_t{slot}"
        return {"L": "L[{}]", "py": "v{}", "frame": "l{}"}[self.mode].format(slot)

    def lookup(self, name):
        return self.slots.get(name)

    def bind(self, name: str, typ: str, pos: Pos, comp: "Compiler") -> int:
        if name in self.slots:
            slot, old = self.slots[name]
            if old != typ and not T.compatible(old, typ):
                comp.err(f"'{name}' is a {T.describe(old)} here already; it cannot now hold a {T.describe(typ)}",
                         pos, "use another name")
            if old == T.NONE or old == "list:none":
                self.slots[name] = (slot, typ)
            return slot
        self.slots[name] = (self.n, typ)
        self.n += 1
        return self.n - 1

    def temp(self) -> int:
        """A Python local for a loop variable, named apart from every other one (so that an inlined
        function's loops never capture the names of the loops around it). It takes no frame slot."""
        slot = next(_TEMP_NAMES)
        self.temps.add(slot)
        return slot

    def push(self, name: str, typ: str):
        """A temporary binding (a loop variable inside an expression); undo with pop()."""
        saved = self.slots.get(name)
        slot = self.temp()
        self.slots[name] = (slot, typ)
        return slot, saved

    def pop(self, name, saved):
        if saved is None:
            del self.slots[name]
        else:
            self.slots[name] = saved


class Compiler:
    def __init__(self, rules: A.RulesFile, players: int, variants: tuple = ()):
        self.rules = rules
        self.src = rules.source
        self.path = rules.path
        self.N = players
        self.requested = tuple(variants)
        self.in_const = False
        self.consts: dict[str, tuple[Any, str]] = {}
        self.kinds: dict[str, tuple] = {}
        self.enum_values: dict[str, str] = {}
        self.attrs: dict[str, str] = {}
        self.card_attrs: dict[str, list] = {}
        self.card_names: list[str] = []
        self.zone_index: dict[str, int] = {}
        self.families: dict[str, int] = {}
        self.zones: list[ZoneInfo] = []
        self.globals: dict[str, tuple[int, VarInfo]] = {}
        self.pvars: dict[str, tuple[int, VarInfo]] = {}
        self.cvars: dict[str, tuple[int, VarInfo]] = {}
        self.defines: dict[str, A.DefineDecl] = {}
        self.define_cache: dict = {}
        self.proc_decls: dict[str, A.ProcDecl] = {}
        self.proc_index: dict = {}
        self.gen = Namespace(rules.path)
        self.procs: list = []            # resumable procedures' functions, by frame index
        self.proc_names: list[str] = []
        self.proc_nslots: list[int] = []
        self.proc_pad: list[list] = []   # the None locals a new frame of each starts with
        self.resumable: set[str] = set()
        self.inline: set[str] = set()
        self.inlined = 0
        self.decisions: list[Decision] = []
        self.templates: list[Template] = []
        self.called: set[str] = set()

    # ── diagnostics ────────────────────────────────────────────────────────
    def err(self, msg: str, pos: Pos | None, hint: str | None = None):
        raise RulesError(msg, pos, hint, self.src)

    # ── the whole file ─────────────────────────────────────────────────────
    def compile(self) -> Program:
        items = self._select_variants()
        by_type: dict[str, list] = {}
        for it in items:
            by_type.setdefault(type(it).__name__, []).append(it)
        first = lambda name: (by_type.get(name) or [None])[0]

        game = first("GameDecl")
        title = game.title if game else self.path
        pl = first("PlayersDecl")
        if pl is None:
            self.err("the rules never say how many players the game is for", None,
                     "add a line like 'players 3 to 5'")
        if not pl.low <= self.N <= pl.high:
            span = f"{pl.low}" if pl.low == pl.high else f"{pl.low} to {pl.high}"
            with_variant = f" with the variant '{self.players_variant}'" if self.players_variant else ""
            raise RulesError(f"{title}{with_variant} is for {span} players, not {self.N}", None,
                             f"choose --players between {pl.low} and {pl.high}" if pl.low != pl.high else
                             f"use --players {pl.low}")

        for k in by_type.get("KindDecl", []):
            self._kind(k)
        # names declared later, so that a constant reading one is told why it cannot
        self.later_state = {s.name for s in by_type.get("StateDecl", []) if s.owner is None} | \
            {z.name for z in by_type.get("ZoneDecl", [])}
        for c in by_type.get("ConstDecl", []):
            self._const(c)
        cards = first("CardsDecl")
        if cards is None:
            self.err("the rules declare no cards", None, "add a 'cards:' block")
        self._cards(cards)
        zones = by_type.get("ZoneDecl", [])
        if not zones:
            self.err("the rules declare no zones", None, "add a line like 'zone deck: facedown'")
        for z in zones:
            self._zone(z)
        if self.zones[0].owner is not None:
            self.err("the first zone holds every card at the start, so it cannot be a per-player zone",
                     zones[0].pos, "declare a shared zone such as 'zone deck: facedown' first")
        for s in by_type.get("StateDecl", []):
            self._state(s)
        for d in by_type.get("DefineDecl", []):
            self._check_free(d.name, d.pos)
            self.defines[d.name] = d
        for p in by_type.get("ProcDecl", []):
            self._check_free(p.name, p.pos)
            self.proc_decls[p.name] = p

        flow = first("FlowDecl")
        if flow is None:
            self.err("the rules have no 'flow:' block, so the game never starts", None,
                     "add 'flow:' with the game's rounds and turns")
        self.resumable = self._find_resumable()
        self.inline = self._find_inline(flow.body)
        self._proc_body("flow", (), (), flow.body, flow.pos, resumable=True)

        score = None
        sd = first("ScoreDecl")
        if sd is not None:
            score = self._player_fn(sd.var, sd.expr, T.NUMBER, "the score")
        winner_keys = []
        wd = first("WinnersDecl")
        if wd is not None:
            for kind, e in wd.orders:
                fn = self._player_fn(wd.var, e, T.NUMBER, "a winners order")
                winner_keys.append((1 if kind == "highest" else -1, fn))
        elif score is not None:
            winner_keys.append((1, score))
        hd = first("HeuristicDecl")
        heuristic = None if hd is None else self._player_fn(hd.var, hd.expr, T.NUMBER, "the heuristic")
        invariants = []
        for inv in by_type.get("InvariantDecl", []):
            src, t = self.expr(inv.expr, Scope("py"))
            self._expect(t, T.BOOL, inv.expr.pos, "an invariant")
            invariants.append((inv.text, self.gen.lambda_("S", src, inv.expr.pos, f"invariant {inv.text!r}")))

        for name, p in self.proc_decls.items():
            if name not in self.called:
                self.err(f"procedure '{name}' is never called", p.pos, "call it from flow or another procedure, or remove it")

        return Program(
            title=title, path=self.path, source=self.src, players=self.N, variants=self.selected,
            available_variants=self.available, card_names=self.card_names, card_attrs=self.card_attrs,
            attr_types=dict(self.attrs), zones=self.zones, zone_index=self.zone_index, families=self.families,
            globals=[v for _, v in sorted(self.globals.values(), key=lambda x: x[0])],
            player_vars=[v for _, v in sorted(self.pvars.values(), key=lambda x: x[0])],
            card_vars=[v for _, v in sorted(self.cvars.values(), key=lambda x: x[0])],
            procs=self.procs, code=self.gen, proc_names=self.proc_names, proc_nslots=self.proc_nslots,
            decisions=self.decisions, templates=self.templates, score=score, winner_keys=winner_keys,
            heuristic=heuristic,
            invariants=invariants, player_names=[f"Player {i + 1}" for i in range(self.N)],
            min_players=pl.low, max_players=pl.high, proc_count=len(self.proc_index) + self.inlined)

    def _select_variants(self) -> list:
        base, variants = [], {}
        for it in self.rules.items:
            if isinstance(it, A.VariantDecl):
                for inner in it.items:
                    if isinstance(inner, A.VariantDecl):
                        self.err("a variant cannot hold another variant", inner.pos)
                if it.name in variants:
                    self.err(f"variant '{it.name}' is declared twice", it.pos)
                variants[it.name] = it
            else:
                base.append(it)
        self.available = tuple(variants)
        for name in self.requested:
            if name not in variants:
                known = ", ".join(variants) or "none"
                hint = did_you_mean(name, variants) or f"this game's variants: {known}"
                raise RulesError(f"unknown variant '{name}'", None, hint)
        chosen = list(dict.fromkeys(self.requested))
        for v in variants.values():
            if v.name not in chosen and v.when is not None:
                value, t = self._value(v.when)
                self._expect(t, T.BOOL, v.when.pos, "a variant's 'when'")
                if value:
                    chosen.append(v.name)
        self.selected = tuple(chosen)
        merged: dict = {}
        for it in base:
            if it.key in merged:
                prev = merged[it.key]
                self.err(f"{it.key[1] or it.key[0].replace('Decl', '').lower()} is declared twice "
                         f"(first at line {prev.pos.line})", it.pos)
            merged[it.key] = it
        self.players_variant = None      # the variant that set the player count, if one did
        for name in chosen:
            for it in variants[name].items:
                if isinstance(it, A.VariantDecl):
                    self.err("a variant cannot hold another variant", it.pos)
                if isinstance(it, A.PlayersDecl):
                    self.players_variant = name
                merged[it.key] = it
        return list(merged.values())

    def _check_free(self, name: str, pos: Pos):
        taken = (name in self.consts or name in self.kinds or name in self.enum_values or name in self.zone_index
                 or name in self.families or name in self.globals or name in self.defines
                 or name in self.proc_decls or name in BUILTINS or name in AGGREGATES)
        if taken:
            self.err(f"the name '{name}' is already taken", pos, "choose another name")

    # ── declarations ───────────────────────────────────────────────────────
    def _kind(self, k: A.KindDecl):
        self._check_free(k.name, k.pos)
        for v, pos in zip(k.values, k.value_pos):
            if v in self.enum_values:
                self.err(f"'{v}' is already a value of kind {self.enum_values[v]}", pos,
                         "each value name may belong to one kind only")
            self.enum_values[v] = k.name
        self.kinds[k.name] = k.values

    def _const_expr(self, e: A.Expr, scope: Scope):
        self.in_const = True
        try:
            return self.expr(e, scope)
        finally:
            self.in_const = False

    def _const(self, c: A.ConstDecl):
        self._check_free(c.name, c.pos)
        self.consts[c.name] = self._value(c.expr)

    def _value(self, e: A.Expr):
        """Work out an expression before the game starts: (value, type)."""
        scope = Scope()
        src, t = self._const_expr(e, scope)
        return self._run_const(self._fn(src, e.pos), [None] * scope.n, e.pos), t

    def _fn(self, src: str, pos) -> Callable:
        """An expression's source as a function f(S, L)."""
        return self.gen.lambda_("S, L", src, pos, "a value worked out before the game")

    def _run_const(self, fn, L, pos):
        try:
            return fn(None, L)
        except RulesError:
            raise
        except RulesRuntimeError as e:  # a division by zero or similar in a constant
            self.err(f"cannot work out this value: {e.message}", e.pos or pos)
        except Exception as e:
            self.err(f"cannot work out this value: {e}", pos)

    def _type(self, tr: A.TypeRef) -> str:
        simple = {"number": T.NUMBER, "bool": T.BOOL, "player": T.PLAYER, "card": T.CARD, "text": T.TEXT}
        if tr.name in simple:
            return simple[tr.name]
        if tr.name == "list":
            return T.list_of(self._type(tr.elem))
        if tr.name in self.kinds:
            return T.enum(tr.name)
        self.err(f"unknown type '{tr.name}'", tr.pos,
                 did_you_mean(tr.name, list(self.kinds) + list(simple)) or
                 "a type is number, yes/no, player, card, text, list of <type>, or a declared kind")

    def _cards(self, cd: A.CardsDecl):
        defaults = {}
        for a in cd.attrs:
            if a.name in self.attrs:
                self.err(f"card attribute '{a.name}' is declared twice", a.pos)
            self.attrs[a.name] = self._type(a.type)
            if a.default is not None:
                value, t = self._value(a.default)
                self._expect(t, self.attrs[a.name], a.default.pos, f"the default of '{a.name}'")
                defaults[a.name] = value
        if not self.attrs:
            self.err("cards need at least one attribute", cd.pos, "for example 'suit: Suit'")
        records = []
        for entry in cd.entries:
            records.extend(self._card_entry(entry, defaults))
        if not records:
            self.err(f"with {self.N} players the game has no cards", cd.pos)
        for name in self.attrs:
            self.card_attrs[name] = [r[name] for r in records]
        classes: dict = {}
        self.card_class = [classes.setdefault(tuple(_value_key(r[a]) for a in self.attrs), len(classes))
                           for r in records]
        # how a card is shown
        if cd.shown is not None:
            scope = Scope()
            slots = {name: scope.bind(name, t, cd.shown.pos, self) for name, t in self.attrs.items()}
            src, _ = self._const_expr(cd.shown, scope)
            fn = self._fn(src, cd.shown.pos)
            for r in records:
                L = [None] * scope.n
                for name, slot in slots.items():
                    L[slot] = r[name]
                self.card_names.append(self._run_const(fn, L, cd.shown.pos))
        else:
            for r in records:
                self.card_names.append(" ".join(self.display(self.attrs[n])(r[n]) for n in self.attrs))

    def _card_entry(self, e: A.CardEntry, defaults: dict) -> list:
        scope = Scope()
        out = []
        binders = []
        for name, source in e.binders:
            src, et, _ = self._source(source, scope, const=True)
            slot = scope.bind(name, et, source.pos, self)
            binders.append((name, self._fn(src, source.pos), slot, source.pos))
        cond = None
        if e.cond is not None:
            src, t = self._const_expr(e.cond, scope)
            self._expect(t, T.BOOL, e.cond.pos, "a card condition")
            cond = self._fn(src, e.cond.pos)
        fields = []
        if e.fields is not None:
            for name, fe, fpos in e.fields:
                if name not in self.attrs:
                    self.err(f"cards have no attribute '{name}'", fpos,
                             did_you_mean(name, self.attrs) or "declare it at the top of the cards block")
                src, t = self._const_expr(fe, scope)
                self._expect(t, self.attrs[name], fe.pos, f"attribute '{name}'")
                fields.append((name, self._fn(src, fe.pos)))
            given = {f[0] for f in fields}
            for name, _, slot, pos in binders:  # 'for colour in Colour' fills the colour attribute
                if name in self.attrs and name not in given:
                    fields.append((name, (lambda s: lambda S, L: L[s])(slot)))
        else:
            for name, _, slot, pos in binders:
                if name not in self.attrs:
                    self.err(f"cards have no attribute '{name}'", pos,
                             "in 'for a in ..., b in ...' each name must be a card attribute")
                fields.append((name, (lambda s: lambda S, L: L[s])(slot)))

        L = [None] * max(scope.n, 1)

        def walk(i):
            if i == len(binders):
                if cond is None or self._run_const(cond, L, e.pos):
                    rec = dict(defaults)
                    for name, fn in fields:
                        rec[name] = self._run_const(fn, L, e.pos)
                    missing = [a for a in self.attrs if a not in rec]
                    if missing:
                        self.err(f"these cards have no value for {', '.join(missing)}", e.pos,
                                 "give every attribute a value, or a default in its declaration")
                    out.extend(dict(rec) for _ in range(e.count))
                return
            _, fn, slot, pos = binders[i]
            for v in self._run_const(fn, L, pos):
                L[slot] = v
                walk(i + 1)
        walk(0)
        return out

    def _zone(self, z: A.ZoneDecl):
        self._check_free(z.name, z.pos)
        if z.per_player:
            self.families[z.name] = len(self.zones)
            for p in range(self.N):
                self.zones.append(ZoneInfo(f"{z.name}", p, z.name, z.visibility))
        else:
            self.zone_index[z.name] = len(self.zones)
            self.zones.append(ZoneInfo(z.name, None, None, z.visibility))

    def _state(self, s: A.StateDecl):
        table = {None: self.globals, "player": self.pvars, "card": self.cvars}[s.owner]
        if s.owner is None:
            self._check_free(s.name, s.pos)
        elif s.name in table:
            self.err(f"{s.owner} state '{s.name}' is declared twice", s.pos)
        if s.owner == "player" and s.name in self.families:
            self.err(f"'{s.name}' is already a per-player zone", s.pos)
        if s.owner == "card" and s.name in self.attrs:
            self.err(f"'{s.name}' is already a card attribute", s.pos)
        if s.visibility == "owner" and s.owner != "player":
            self.err("only a player state has an owner who may see it", s.pos,
                     "use 'public' or 'hidden' here, or declare it as 'player state'")
        if s.visibility == "facedown":
            self.err("'facedown' is for zones; a value is public, owner or hidden", s.pos)
        t = self._type(s.type)
        if s.default is not None:
            init, dt = self._value(s.default)
            self._expect(dt, t, s.default.pos, f"the starting value of '{s.name}'")
            if t == T.PLAYER and init is not None and not 0 <= init < self.N:
                self.err(f"there is no player {init + 1} with {self.N} players", s.default.pos)
        else:
            init = self._zero(t)
        table[s.name] = (len(table), VarInfo(s.name, t, s.visibility, init))

    def _zero(self, t: str):
        if t == T.NUMBER:
            return 0
        if t == T.BOOL:
            return False
        if t == T.TEXT:
            return ""
        if T.is_list(t):
            return []
        if T.is_enum(t):
            return self.kinds[t[5:]][0]
        return None

    def _player_fn(self, var: str, e: A.Expr, want: str, what: str):
        """f(S, p): an expression about one player, such as the score."""
        scope = Scope("py")
        slot = scope.bind(var, T.PLAYER, e.pos, self)
        src, t = self.expr(e, scope)
        self._expect(t, want, e.pos, what)
        return self.gen.lambda_(f"S, {scope.ref(slot)}", src, e.pos, what)

    # ── helpers ────────────────────────────────────────────────────────────
    def _expect(self, got: str, want: str, pos: Pos, what: str):
        if not T.compatible(got, want):
            self.err(f"{what} must be a {T.describe(want)}, but this is a {T.describe(got)}", pos)

    def display(self, t: str) -> Callable[[Any], str]:
        names = self.card_names
        if t == T.CARD:
            return lambda v: "nothing" if v is None else names[v]
        if t == T.PLAYER:
            return lambda v: "nobody" if v is None else f"Player {v + 1}"
        if t == T.BOOL:
            return lambda v: "yes" if v else "no"
        if T.is_list(t):
            inner = self.display(T.elem(t))
            return lambda v: ", ".join(inner(x) for x in v) if v else "nothing"
        if t == T.ZONE:
            zones = self.zones
            return lambda v: zones[v].name if zones[v].owner is None else f"{zones[v].name} of Player {zones[v].owner + 1}"
        return lambda v: "none" if v is None else str(v)

    # ── expressions ────────────────────────────────────────────────────────
    # Each expression becomes Python source (a string) and its type. The source reads the state
    # through ``S``, locals through the scope's names (``L[3]`` or ``v3``), and values known when
    # compiling through constants of the namespace.
    def expr(self, e: A.Expr, scope: Scope) -> tuple[str, str]:
        method = getattr(self, "_e_" + type(e).__name__, None)
        if method is None:
            self.err("this kind of expression is not allowed here", e.pos)
        return method(e, scope)

    def num(self, e: A.Expr, scope: Scope, what: str) -> str:
        """An expression used as a number; a bare 'players' counts the players."""
        if isinstance(e, A.Players) and e.start is None:
            return repr(self.N)
        src, t = self.expr(e, scope)
        self._expect(t, T.NUMBER, e.pos, what)
        return src

    def k(self, value) -> str:
        return self.gen.const(value)

    def _e_Num(self, e, scope):
        return repr(e.value), T.NUMBER

    def _e_Bool(self, e, scope):
        return repr(bool(e.value)), T.BOOL

    def _e_NoneLit(self, e, scope):
        return "None", T.NONE

    def _text(self, parts_in, scope):
        """The parts of a text with {expressions}: (literal str | (source, display, type))."""
        parts = []
        for p in parts_in:
            if isinstance(p, str):
                parts.append(p)
            else:
                src, t = self.expr(p, scope)
                parts.append((src, self.display(t), t))
        return parts

    def _e_Str(self, e, scope):
        parts = self._text(e.parts, scope)
        if all(isinstance(p, str) for p in parts):
            return repr("".join(parts)), T.TEXT
        out = [repr(p) if isinstance(p, str) else f"{self.k(p[1])}({p[0]})" for p in parts]
        return "(" + " + ".join(out) + ")", T.TEXT

    def _e_PlayerLit(self, e, scope):
        if e.number > self.N:
            self.err(f"there is no player {e.number} with {self.N} players", e.pos)
        return repr(e.number - 1), T.PLAYER

    def _e_Players(self, e, scope):
        n = self.N
        if e.start is None:
            return self.k(list(range(n))), T.list_of(T.PLAYER)
        src, t = self.expr(e.start, scope)
        if t != T.PLAYER:
            self.err(f"'players from' needs a player, but this is a {T.describe(t)}", e.start.pos)
        table = [[(s + i) % n for i in range(n)] for s in range(n)]
        return f"{self.k(table)}[{src}]", T.list_of(T.PLAYER)

    def _e_EveryCard(self, e, scope):
        if not self.card_names:
            self.err("'every card' is not known yet: the cards are made after the constants", e.pos,
                     "use it inside procedures, functions or invariants")
        return self.k(list(range(len(self.card_names)))), T.list_of(T.CARD)

    def _e_Name(self, e, scope):
        name = e.id
        hit = scope.lookup(name)
        if hit is not None:
            slot, t = hit
            return scope.ref(slot), t
        if name in self.consts:
            v, t = self.consts[name]
            return self.k(v), t
        if name in self.enum_values:
            return repr(name), T.enum(self.enum_values[name])
        if name in self.kinds:
            return self.k(list(self.kinds[name])), T.list_of(T.enum(name))
        if name in self.globals:
            self._no_state(e)
            return f"\x00g[{self.globals[name][0]}]", self.globals[name][1].type
        if name in self.zone_index:
            self._no_state(e)
            return repr(self.zone_index[name]), T.ZONE
        if name in self.families:
            self.err(f"'{name}' is a per-player zone: say whose", e.pos, f"write p.{name} for player p's {name}")
        if name in self.pvars:
            self.err(f"'{name}' belongs to each player: say whose", e.pos, f"write p.{name}")
        if name in self.proc_decls or name in self.defines or name in BUILTINS:
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
        osrc, ot = self.expr(e.obj, scope)
        name = e.name
        if ot == T.PLAYER:
            if name in self.pvars:
                self._no_state(e)
                i, info = self.pvars[name]
                return f"\x00pv[{i}][{osrc}]", info.type
            if name in self.families:
                self._no_state(e)
                return f"({self.families[name]} + {osrc})", T.ZONE
            self.err(f"players have no '{name}'", e.name_pos or e.pos,
                     did_you_mean(name, list(self.pvars) + list(self.families)) or
                     "declare it with 'player state' or 'zone ... per player'")
        if ot == T.CARD:
            if name in self.attrs:
                table = self.card_attrs.get(name)
                if table is None:  # inside the cards block itself
                    self.err("card attributes cannot be read while the cards are being made", e.pos)
                return f"{self.k(table)}[{osrc}]", self.attrs[name]
            if name in self.cvars:
                self._no_state(e)
                i, info = self.cvars[name]
                return f"\x00cv[{i}][{osrc}]", info.type
            self.err(f"cards have no '{name}'", e.name_pos or e.pos,
                     did_you_mean(name, list(self.attrs) + list(self.cvars)) or
                     (f"'{name}' belongs to players: write p.{name} for a player p"
                      if name in self.pvars or name in self.families else None))
        self.err(f"a {T.describe(ot)} has no attributes, so '.{name}' means nothing here", e.pos)

    def _source(self, e: A.Expr, scope: Scope, const: bool = False) -> tuple[str, str, bool]:
        """Something to choose from or loop over: a zone, a list, a kind, or a range 'a to b'.
        Gives (source, item type, whether it is a zone's own list, which moves may change)."""
        if isinstance(e, A.Range):
            lo = self.num(e.low, scope, "a range's start")
            hi = self.num(e.high, scope, "a range's end")
            return f"list(range({lo}, ({hi}) + 1))", T.NUMBER, False
        src, t = (self._const_expr(e, scope) if const else self.expr(e, scope))
        if t == T.ZONE:
            return f"\x00z[{src}]", T.CARD, True
        if T.is_list(t):
            return src, T.elem(t), False
        self.err(f"cannot take items from a {T.describe(t)}", e.pos,
                 "give a zone, a list, a kind, or a range like 0 to 8")

    def _e_Range(self, e, scope):
        src, t, _ = self._source(e, scope)
        return src, T.list_of(t)

    def _e_ListLit(self, e, scope):
        srcs, t = [], "none"
        for item in e.items:
            src, it = self.expr(item, scope)
            j = T.join(t, it) if t != "none" else it
            if j is None:
                self.err(f"a list holds items of one type; this is a {T.describe(it)} among {T.describe(t)}s", item.pos)
            t = j
            srcs.append(src)
        return "[" + ", ".join(srcs) + "]", T.list_of(t)

    def _bind_loop(self, var, source, cond, scope, body=None):
        """(source, item type, loop variable name, condition source or None, (body source, type) or None)"""
        src, et, _ = self._source(source, scope)
        slot, saved = scope.push(var, et)
        csrc = None
        if cond is not None:
            csrc, ct = self.expr(cond, scope)
            self._expect(ct, T.BOOL, cond.pos, "a 'where' condition")
        extra = None
        if body is not None:
            extra = self.expr(body, scope)
        scope.pop(var, saved)
        return src, et, scope.ref(slot), csrc, extra

    @staticmethod
    def _comp(what, var, src, cond):
        return f"[{what} for {var} in {src}" + (f" if {cond}]" if cond is not None else "]")

    def _e_ListComp(self, e, scope):
        src, et, var, cond, (body, t) = self._bind_loop(e.var, e.source, e.cond, scope, e.expr)
        if cond is None and body.startswith("_k") and body.endswith(f"[{var}]") and body[2:-len(var) - 2].isdigit():
            return f"list(map({body[:-len(var) - 2]}.__getitem__, {src}))", T.list_of(t)   # [x.attr for x in ...]
        return self._comp(body, var, src, cond), T.list_of(t)

    def _e_Aggregate(self, e, scope):
        func = e.func
        if func not in AGGREGATES:
            self.err(f"'{func}(... for ... in ...)' is not an aggregate", e.pos,
                     "the aggregates are " + ", ".join(AGGREGATES))
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

        # 'x in ... where x.attr == v' with v the same for every x: the attributes are compared in C
        m = ATTR_EQ.match(cond or "")
        if m and m.group(2) == var and not re.search(rf"\b{var}\b", m.group(3)) and body is None:
            values = f"map({m.group(1)}.__getitem__, {src})"
            if func == "count":
                return f"list({values}).count({m.group(3)})", T.NUMBER
            if func == "any":
                return f"({m.group(3)} in {values})", T.BOOL
        if func == "count":
            if cond is None:
                return f"len({src})", T.NUMBER
            return f"len({self._comp('None', var, src, cond)})", T.NUMBER
        if func in ("any", "all"):
            test, filt = (body, cond) if body is not None else (cond, None)
            gen = f"({test} for {var} in {src}" + (f" if {filt})" if filt is not None else ")")
            return f"{func}{gen}", T.BOOL
        if func == "sum":
            return f"sum({self._comp(body, var, src, cond)})", T.NUMBER
        return f"_pick({func}, {self._comp(body, var, src, cond)}, {func!r}, {self.k(e.pos)})", T.NUMBER

    def _e_Best(self, e, scope):
        src, et, _ = self._source(e.source, scope)
        slot, saved = scope.push(e.var, et)
        var = scope.ref(slot)
        cond = None
        if e.cond is not None:
            cond, ct = self.expr(e.cond, scope)
            self._expect(ct, T.BOOL, e.cond.pos, "a 'where' condition")
        keys = []
        for k in e.keys:
            ksrc, kt = self.expr(k, scope)
            self._expect(kt, T.NUMBER, k.pos, f"what '{e.kind}' compares")
            keys.append(ksrc)
        scope.pop(e.var, saved)
        # (keys..., -position, item): max() gives the highest, and the first of equals; min() with
        # +position the lowest. The item itself is never compared, as positions differ.
        i = scope.ref(scope.temp())
        order = f"-{i}" if e.kind == "highest" else i
        row = "(" + ", ".join(keys + [order, var]) + ")"
        pick = "max" if e.kind == "highest" else "min"
        rows = f"[{row} for {i}, {var} in enumerate({src})" + (f" if {cond}]" if cond is not None else "]")
        return f"_best({pick}, {rows})", et

    def _e_Ternary(self, e, scope):
        c, ct = self.expr(e.cond, scope)
        self._expect(ct, T.BOOL, e.cond.pos, "the condition of 'if ... else'")
        a, at = self.expr(e.then, scope)
        b, bt = self.expr(e.other, scope)
        t = T.join(at, bt)
        if t is None:
            self.err(f"both sides of 'if ... else' must be of one type, not {T.describe(at)} and {T.describe(bt)}", e.pos)
        return f"({a} if {c} else {b})", t

    def _e_BoolOp(self, e, scope):
        a, at = self.expr(e.left, scope)
        b, bt = self.expr(e.right, scope)
        self._expect(at, T.BOOL, e.left.pos, f"each side of '{e.op}'")
        self._expect(bt, T.BOOL, e.right.pos, f"each side of '{e.op}'")
        return f"({a} {'and' if e.op == 'and' else 'or'} {b})", T.BOOL

    def _e_Not(self, e, scope):
        a, at = self.expr(e.operand, scope)
        self._expect(at, T.BOOL, e.operand.pos, "what 'not' negates")
        return f"(not {a})", T.BOOL

    def _e_Compare(self, e, scope):
        op = e.op
        if op in ("in", "not in"):
            a, at = self.expr(e.left, scope)
            b, bt = self.expr(e.right, scope)
            if bt == T.ZONE:
                bt2 = T.list_of(T.CARD)
                b = f"\x00z[{b}]"
            else:
                bt2 = bt
            if not T.is_list(bt2):
                self.err(f"'{op}' needs a list or a zone on its right, not a {T.describe(bt)}", e.right.pos)
            if not T.compatible(at, T.elem(bt2)) and bt2 != "list:none":
                self.err(f"a {T.describe(at)} is never in a {T.describe(bt2)}", e.pos)
            return f"({a} {op} {b})", T.BOOL
        # 'players' next to a number means how many players there are
        if isinstance(e.left, A.Players) and e.left.start is None or \
                isinstance(e.right, A.Players) and e.right.start is None:
            a = self.num(e.left, scope, f"each side of '{op}'")
            b = self.num(e.right, scope, f"each side of '{op}'")
            at = bt = T.NUMBER
        else:
            a, at = self.expr(e.left, scope)
            b, bt = self.expr(e.right, scope)
        if op in ("==", "!="):
            if not T.compatible(at, bt):
                self.err(f"a {T.describe(at)} is never equal to a {T.describe(bt)}", e.pos)
            return f"({a} {op} {b})", T.BOOL
        self._expect(at, T.NUMBER, e.left.pos, f"each side of '{op}'")
        self._expect(bt, T.NUMBER, e.right.pos, f"each side of '{op}'")
        if op not in ("<", "<=", ">", ">="):
            raise AssertionError(op)
        return f"({a} {op} {b})", T.BOOL

    def _e_BinOp(self, e, scope):
        op = e.op
        if op == "+":
            if (isinstance(e.left, A.Players) and e.left.start is None) or \
                    (isinstance(e.right, A.Players) and e.right.start is None):
                a = self.num(e.left, scope, "each side of '+'")
                b = self.num(e.right, scope, "each side of '+'")
                return f"({a} + {b})", T.NUMBER
            a, at = self.expr(e.left, scope)
            b, bt = self.expr(e.right, scope)
            if T.is_list(at) or at == T.TEXT:
                if not T.compatible(at, bt):
                    self.err(f"cannot add a {T.describe(bt)} to a {T.describe(at)}", e.pos)
                return f"({a} + {b})", T.join(at, bt)
            self._expect(at, T.NUMBER, e.left.pos, "each side of '+'")
            self._expect(bt, T.NUMBER, e.right.pos, "each side of '+'")
            return f"({a} + {b})", T.NUMBER
        a = self.num(e.left, scope, f"each side of '{op}'")
        b = self.num(e.right, scope, f"each side of '{op}'")
        if op in ("-", "*"):
            return f"({a} {op} {b})", T.NUMBER
        helper = "_div" if op == "/" else "_mod"
        return f"{helper}({a}, {b}, {self.k(e.pos)})", T.NUMBER

    def _e_Neg(self, e, scope):
        a = self.num(e.operand, scope, "what '-' negates")
        return f"(-{a})", T.NUMBER

    def _e_Call(self, e, scope):
        name = e.func
        if name in self.defines:
            return self._call_define(e, scope)
        if name in self.proc_decls:
            self.err(f"procedure '{name}' does not give a value", e.pos, "call it on a line of its own")
        if name in AGGREGATES and name not in ("min", "max"):
            self.err(f"{name}(...) takes 'x in ... where ...' or '... for x in ...'", e.pos)
        if name not in BUILTINS:
            known = list(self.defines) + list(BUILTINS)
            self.err(f"unknown function '{name}'", e.pos, did_you_mean(name, known))
        return self._builtin(e, scope)

    @contextlib.contextmanager
    def _called_from(self, call, name, types):
        """Errors in a body compiled for one call's argument types name that call."""
        try:
            yield
        except RulesError as err:
            if types and err.pos is not None and err.pos.line != call.pos.line \
                    and "as called at line" not in (err.hint or ""):
                args = ", ".join(T.describe(t) for t in types)
                where = f"in {name}() as called at line {call.pos.line} with ({args})"
                err.hint = f"{err.hint}; {where}" if err.hint else where
            raise

    def _arity(self, e, *counts):
        if len(e.args) not in counts:
            want = " or ".join(str(c) for c in counts)
            self.err(f"{e.func}() takes {want} argument{'s' if counts != (1,) else ''}, not {len(e.args)}",
                     e.pos, BUILTINS.get(e.func))

    def _zone_or_list(self, e, scope):
        """A builtin's argument that may be a zone (its cards) or a list."""
        src, t = self.expr(e, scope)
        if t == T.ZONE:
            return f"\x00z[{src}]", T.list_of(T.CARD)
        return src, t

    def _builtin(self, e, scope):
        name, n = e.func, self.N
        pos = self.k(e.pos)
        if name in ("size", "empty"):
            self._arity(e, 1)
            src, t = self._zone_or_list(e.args[0], scope)
            if not (T.is_list(t) or t == T.TEXT):
                self.err(f"{name}() needs a zone or a list, not a {T.describe(t)}", e.args[0].pos)
            if name == "empty":
                return f"(len({src}) == 0)", T.BOOL
            return f"len({src})", T.NUMBER
        if name in ("left", "right"):
            self._arity(e, 1)
            src, t = self.expr(e.args[0], scope)
            self._expect(t, T.PLAYER, e.args[0].pos, f"{name}()'s argument")
            return f"(({src} {'+' if name == 'left' else '-'} 1) % {n})", T.PLAYER
        if name == "player_at":
            self._arity(e, 2)
            src, t = self.expr(e.args[0], scope)
            self._expect(t, T.PLAYER, e.args[0].pos, "player_at()'s first argument")
            k = self.num(e.args[1], scope, "player_at()'s second argument")
            return f"(({src} + {k}) % {n})", T.PLAYER
        if name in ("next", "previous"):
            self._arity(e, 2)
            kind = e.args[0]
            if not (isinstance(kind, A.Name) and kind.id in self.kinds):
                self.err(f"{name}()'s first argument is a kind, like Suit", kind.pos)
            values = list(self.kinds[kind.id])
            src, t = self.expr(e.args[1], scope)
            self._expect(t, T.enum(kind.id), e.args[1].pos, f"{name}()'s second argument")
            step = 1 if name == "next" else -1
            table = {v: values[(i + step) % len(values)] for i, v in enumerate(values)}
            return f"{self.k(table)}[{src}]", T.enum(kind.id)
        if name == "unique":
            self._arity(e, 1)
            src, t = self.expr(e.args[0], scope)
            if not T.is_list(t):
                self.err("unique() needs a list", e.args[0].pos)
            return f"list(dict.fromkeys({_unlisted(src)}))", t
        if name in ("top", "bottom"):
            self._arity(e, 1, 2)
            src, t = self.expr(e.args[0], scope)
            if t != T.ZONE:
                self.err(f"{name}() needs a zone, not a {T.describe(t)}", e.args[0].pos)
            if len(e.args) == 2:
                k = self.num(e.args[1], scope, f"how many cards {name}() takes")
                if name == "top":
                    return f"\x00z[{src}][::-1][:{k}]", T.list_of(T.CARD)
                return f"\x00z[{src}][:{k}]", T.list_of(T.CARD)
            return f"_top(\x00z[{src}], {name!r}, {pos})", T.CARD
        if name == "position":
            self._arity(e, 2)
            xsrc, xt = self.expr(e.args[0], scope)
            lsrc, lt = self._zone_or_list(e.args[1], scope)
            if not T.is_list(lt):
                self.err("position()'s second argument is a zone or a list", e.args[1].pos)
            return f"_position({xsrc}, {lsrc}, {pos})", T.NUMBER
        if name == "item":
            self._arity(e, 2)
            lsrc, lt = self._zone_or_list(e.args[0], scope)
            if not T.is_list(lt):
                self.err(f"item() needs a list or a zone, not a {T.describe(lt)}", e.args[0].pos)
            k = self.num(e.args[1], scope, "item()'s position")
            return f"_item({lsrc}, {k}, {pos})", T.elem(lt)
        if name == "holder":
            self._arity(e, 1)
            csrc, ct = self.expr(e.args[0], scope)
            self._expect(ct, T.CARD, e.args[0].pos, "holder()'s argument")
            owners = [z.owner for z in self.zones]
            return f"_holder({self.k(owners)}, \x00loc, {csrc})", T.PLAYER
        if name in ("min", "max"):
            self._arity(e, 2)
            a = self.num(e.args[0], scope, f"{name}()'s arguments")
            b = self.num(e.args[1], scope, f"{name}()'s arguments")
            return f"{name}({a}, {b})", T.NUMBER
        if name == "abs":
            self._arity(e, 1)
            a = self.num(e.args[0], scope, "abs()'s argument")
            return f"abs({a})", T.NUMBER
        raise AssertionError(name)

    def _call_define(self, e, scope):
        d = self.defines[e.func]
        if len(e.args) != len(d.params):
            self.err(f"{d.name}() takes {len(d.params)} argument{'s' if len(d.params) != 1 else ''}, "
                     f"not {len(e.args)}", e.pos, f"it is defined at line {d.pos.line}")
        args = [self.expr(a, scope) for a in e.args]
        key = (d.name, tuple(t for _, t in args))
        if key not in self.define_cache:
            if key in getattr(self, "_defining", set()):
                self.err(f"{d.name}() calls itself", e.pos, "functions cannot be recursive")
            self._defining = getattr(self, "_defining", set()) | {key}
            inner = Scope("py")
            for p, (_, t) in zip(d.params, args):
                inner.bind(p, t, d.pos, self)
            with self._called_from(e, d.name, [t for _, t in args]):
                body, bt = self.expr(d.expr, inner)
            self._defining = self._defining - {key}
            fname = self.gen.fresh("_D")
            params = ", ".join(["S"] + [f"v{i}" for i in range(len(d.params))])
            self.gen.function(fname, params, [(0, f"return {body}", d.expr.pos)], f"define {d.name}")
            self.define_cache[key] = (fname, bt, len(body))
        fname, bt, size = self.define_cache[key]
        if size <= INLINE_SIZE and all(SIMPLE.match(s) for s, _ in args):
            # inline: the body again, its parameters standing for the arguments (checked already)
            inner = Scope("py")
            for p, (src, t) in zip(d.params, args):
                inner.alias[inner.bind(p, t, d.pos, self)] = src
            body, _ = self.expr(d.expr, inner)
            return body, bt
        return f"{fname}(" + ", ".join(["S"] + [s for s, _ in args]) + ")", bt

    # ── procedures and statements ──────────────────────────────────────────
    # A statement is 'resumable' when the game can stop inside it: a decision, the end of the
    # game, or a call of a resumable procedure. Only those need the block-and-label machinery.
    def _find_resumable(self) -> set:
        def direct(body):
            calls, stop = set(), False
            for s in body:
                if isinstance(s, (A.Choose, A.EndGame)):
                    stop = True
                elif isinstance(s, A.ExprStmt) and isinstance(s.expr, A.Call):
                    calls.add(s.expr.func)
                for sub in self._sub_bodies(s):
                    c, st = direct(sub)
                    calls |= c
                    stop = stop or st
            return calls, stop
        info = {name: direct(p.body) for name, p in self.proc_decls.items()}
        out = {name for name, (_, stop) in info.items() if stop}
        changed = True
        while changed:
            changed = False
            for name, (calls, _) in info.items():
                if name not in out and calls & out:
                    out.add(name)
                    changed = True
        return out

    @staticmethod
    def _sub_bodies(s):
        if isinstance(s, A.If):
            return [b for _, b in s.branches] + ([s.orelse] if s.orelse is not None else [])
        if isinstance(s, (A.While, A.Repeat, A.For)):
            return [s.body]
        return []

    def _labels(self, s) -> int:
        """How many places to resume at a statement holds: decisions and resumable calls."""
        if isinstance(s, A.Choose):
            return 1
        if isinstance(s, A.ExprStmt) and isinstance(s.expr, A.Call):
            name = s.expr.func
            if name in self.inline:
                return sum(self._labels(x) for x in self.proc_decls[name].body)
            return int(name in self.resumable)
        return sum(self._labels(x) for b in self._sub_bodies(s) for x in b)

    def _find_inline(self, flow_body) -> set:
        """Resumable procedures written into their caller instead of called: those called from one
        place only and never, even indirectly, from themselves. A call and its return cost about
        as much as a decision; inlined, they cost nothing."""
        calls: dict = {}
        sites: dict = {}

        def walk(body, into):
            for s in body:
                if isinstance(s, A.ExprStmt) and isinstance(s.expr, A.Call):
                    into.add(s.expr.func)
                    sites[s.expr.func] = sites.get(s.expr.func, 0) + 1
                for sub in self._sub_bodies(s):
                    walk(sub, into)
        walk(flow_body, set())
        for name, p in self.proc_decls.items():
            walk(p.body, calls.setdefault(name, set()))

        def reaches_itself(name):
            seen, todo = set(), list(calls.get(name, ()))
            while todo:
                n = todo.pop()
                if n == name:
                    return True
                if n not in seen:
                    seen.add(n)
                    todo.extend(calls.get(n, ()))
            return False
        return {n for n in self.resumable if sites.get(n) == 1 and not reaches_itself(n)}

    def _proc_body(self, name, params, arg_types, body, pos, resumable: bool):
        """Compile one procedure for one list of argument types; gives its index (resumable) or
        the name of its Python function (pure)."""
        key = (name, arg_types)
        scope = Scope("frame" if resumable else "py")
        em = Emitter(resumable)
        if resumable:
            ref = len(self.procs)
            self.procs.append(None)
            self.proc_names.append(name)
            self.proc_nslots.append(0)
            self.proc_pad.append([])
        else:
            ref = self.gen.fresh("_P")
        self.proc_index[key] = ref
        for p, t in zip(params, arg_types):
            scope.bind(p, t, pos, self)
        self.block(body, scope, em)
        lines = em.body(scope.n)
        if not resumable:
            local = [scope.ref(i) for i in range(len(params), scope.n) if i not in scope.temps]
            if local:
                lines = [(0, " = ".join(local) + " = None", None)] + lines
        what = f"procedure {name}" if name != "flow" else "flow"
        if resumable:
            self.procs[ref] = self.gen.resumable(f"_R{ref}", lines, what, em.next_label - 1)
            self.proc_nslots[ref] = scope.n
            self.proc_pad[ref][:] = [None] * (scope.n - len(params))
        else:
            sig = ", ".join(["S"] + [scope.ref(i) for i in range(len(params))])
            self.gen.function(ref, sig, lines, what, hoist=True)
        return ref

    def block(self, stmts, scope, em):
        """A list of statements. In a resumable procedure, the statements without labels that come
        before one with labels are skipped while resuming (``if not pc``)."""
        counts = [self._labels(s) for s in stmts] if em.resumable else [0] * len(stmts)
        last = max((i for i, c in enumerate(counts) if c), default=-1)
        i = 0
        while i < len(stmts):
            if counts[i] or i > last:
                # resuming at the last statement with labels, the label is surely one of its own
                self._last = i == last
                self._stmt(stmts[i], scope, em)
                i += 1
                continue
            j = i
            while not counts[j]:
                j += 1
            em.line("if not pc:")
            with em.nest():
                for s in stmts[i:j]:
                    self._stmt(s, scope, em)
            i = j

    def _stmt(self, s, scope, em):
        getattr(self, "_s_" + type(s).__name__)(s, scope, em)

    def _take_last(self) -> bool:
        """Whether the statement being compiled is the last with labels in its list (read once)."""
        last, self._last = getattr(self, "_last", False), False
        return last

    def _entered(self, em, cond: str, body, only: bool = False) -> str:
        """The test for entering an if-branch or a loop body with labels: fresh and 'cond', or
        resuming inside it. A resume label is never below the next one to be given out here (the
        way in passes the labels in order, and would have gone in at a lower one), so the test is
        only that it is not beyond this body. ``only``: nor can it be beyond."""
        n = sum(self._labels(x) for x in body)
        if not n:
            return "not pc" if cond == "True" else f"not pc and {cond}"
        if only:
            return f"pc or {cond}"
        hi = em.next_label + n - 1
        if cond == "True":
            return f"pc <= {hi}"          # pc is 0 (fresh) or a label
        return f"({cond} if not pc else pc <= {hi})"

    def _stop_here(self, em, lines, ret: int, pos, last: bool, chosen: str | None = None, decision=None,
                   call: str | None = None):
        """A place the procedure stops (a decision, a call): run ``lines`` and leave, unless resuming
        here — then carry on as if just come back. ``chosen``: the local the decision sets.
        ``call``: the entry function of the procedure called (its new frame is ``_G``). The frame
        is saved as for a stop, then the callee runs as a plain Python call; when it comes back
        DONE, this code carries on with its own Python locals, without the run loop. When it
        stopped or switched (a decision, the end of the game, calls deeper than CALL_DEPTH), the
        run loop takes over, and comes back here through the label, as for any stop."""
        back = em.label()
        if chosen is not None:
            em.chosen[str(back)] = chosen
            em.decisions[str(back)] = decision
        em.line("if not pc:", pos)
        with em.nest():
            for text in lines:
                em.line(text, pos)
            em.line(f"{em.SAVE}{back}", pos)
            em.line(f"F[1] = {back}", pos)
            if call is None:
                em.line(f"return {ret}", pos)
            else:
                em.line(f"if len(S.frames) > {CALL_DEPTH}: return {ret}", pos)
                em.line(f"_r = {call}(S, _G)", pos)
                em.line(f"if _r != {DONE}: return _r", pos)
        em.line("else:" if last else f"elif pc == {back}:", pos)
        with em.nest():
            em.line("pc = 0", pos)
            em.line(f"{em.LOAD}{back}", pos)

    def _s_Pass(self, s, scope, em):
        pass

    def _s_Let(self, s, scope, em):
        src, t = self.expr(s.expr, scope)
        if s.name in self.globals or s.name in self.consts or s.name in self.zone_index:
            self.err(f"'{s.name}' is already the name of a {'constant' if s.name in self.consts else 'game value'}",
                     s.pos, "choose another name for the local value")
        slot = scope.bind(s.name, t, s.pos, self)
        em.line(f"{scope.ref(slot)} = {src}", s.pos)

    def _s_Assign(self, s, scope, em):
        src, t = self.expr(s.expr, scope)
        tgt = s.target
        op = s.op
        if isinstance(tgt, A.Name):
            hit = scope.lookup(tgt.id)
            if hit is not None:
                slot, tt = hit
                if tt in (T.NONE, "list:none") and op == "=" and T.compatible(tt, t):
                    scope.bind(tgt.id, t, s.pos, self)   # 'let xs = []' learns its type here
                    tt = t
                place = scope.ref(slot)
            elif tgt.id in self.globals:
                i, info = self.globals[tgt.id]
                tt = info.type
                place = f"\x00g[{i}]"
            elif tgt.id in self.consts:
                self.err(f"'{tgt.id}' is a constant and cannot change", tgt.pos,
                         "declare it with 'state' if it changes during the game")
            else:
                self._e_Name(tgt, scope)  # reports the unknown name, with suggestions
                self.err(f"'{tgt.id}' cannot be assigned to", tgt.pos)
        else:
            osrc, ot = self.expr(tgt.obj, scope)
            if ot == T.PLAYER and tgt.name in self.pvars:
                i, info = self.pvars[tgt.name]
                tt = info.type
                place = f"\x00pv[{i}][{osrc}]"
            elif ot == T.CARD and tgt.name in self.cvars:
                i, info = self.cvars[tgt.name]
                tt = info.type
                place = f"\x00cv[{i}][{osrc}]"
            elif ot == T.CARD and tgt.name in self.attrs:
                self.err(f"'{tgt.name}' is printed on the card and cannot change", tgt.pos,
                         "declare 'card state' for a value that changes")
            else:
                self._e_Attr(tgt, scope)
                self.err(f"'{tgt.name}' cannot be assigned to", tgt.pos)
        if op == "=":
            self._expect(t, tt, s.expr.pos, f"the new value of '{self._target_name(tgt)}'")
            em.line(f"{place} = {src}", s.pos)
        else:
            self._expect(tt, T.NUMBER, tgt.pos, f"'{op}' works on numbers; '{self._target_name(tgt)}'")
            self._expect(t, T.NUMBER, s.expr.pos, f"what '{op}' adds")
            em.line(f"{place} {op} {src}", s.pos)

    @staticmethod
    def _target_name(tgt):
        return tgt.id if isinstance(tgt, A.Name) else tgt.name

    def _zone_expr(self, e, scope, what):
        src, t = self.expr(e, scope)
        if t != T.ZONE:
            self.err(f"{what} must be a zone, not a {T.describe(t)}", e.pos)
        return src

    def _s_Move(self, s, scope, em):
        if isinstance(s.what, A.Name) and s.what.id in self.families:
            self.err(f"'{s.what.id}' is a per-player zone: say whose", s.what.pos, f"write p.{s.what.id}")
        what, wt = self.expr(s.what, scope)
        dest = self._zone_expr(s.dest, scope, "where cards move to")
        bottom = s.bottom
        pos = s.pos
        if wt == T.CARD:
            c, d = what, dest
            if not SIMPLE.match(what):
                em.line(f"_c = {what}", pos)
                c = "_c"
            if not SIMPLE.match(dest):
                em.line(f"_d = {dest}", pos)   # worked out before the card leaves its zone
                d = "_d"
            em.line(f"if {c} is None: fail('there is no card to move', {self.k(pos)})", pos)
            em.line(f"\x00z[\x00loc[{c}]].remove({c})", pos)
            em.line(f"\x00z[{d}].insert(0, {c})" if bottom else f"\x00z[{d}].append({c})", pos)
            em.line(f"\x00loc[{c}] = {d}", pos)
        elif wt == T.ZONE:
            em.line(f"move_zone(S, {what}, {dest}, {bottom})", pos)
        elif wt in (T.list_of(T.CARD), "list:none"):
            em.line(f"move_cards(S, {what}, {dest}, {bottom})", pos)
        else:
            self.err(f"only cards move; this is a {T.describe(wt)}", s.what.pos)

    def _s_Shuffle(self, s, scope, em):
        z = self._zone_expr(s.zone, scope, "what is shuffled")
        em.line(f"shuffle_zone(S, {z})", s.pos)

    def _s_Deal(self, s, scope, em):
        n = self.num(s.count, scope, "how many cards are dealt")
        src = self._zone_expr(s.source, scope, "where cards are dealt from")
        if s.family not in self.families:
            self.err(f"cards are dealt to a per-player zone, and '{s.family}' is not one", s.family_pos,
                     did_you_mean(s.family, self.families) or "declare it with 'zone NAME per player: owner'")
        start = "0"
        if s.start is not None:
            start, st = self.expr(s.start, scope)
            self._expect(st, T.PLAYER, s.start.pos, "who is dealt to first")
        em.line(f"deal(S, {n}, {src}, {self.families[s.family]}, {self.N}, {self.k(s.pos)}, {start})", s.pos)

    def _s_Announce(self, s, scope, em):
        parts = self._text(s.text.parts, scope)
        tid = len(self.templates)
        self.templates.append(Template([p if isinstance(p, str) else (p[0], p[1]) for p in parts], s.pos,
                                       [p[2] for p in parts if not isinstance(p, str)]))
        vals = [p[0] for p in parts if not isinstance(p, str)]
        em.line(f"S.ann = (S.ann, {tid}{''.join(', ' + v for v in vals)})", s.pos)   # (earlier, template, values...)

    def _s_EndGame(self, s, scope, em):
        em.line("del S.frames[:]", s.pos)
        em.line(f"return {SWITCH}", s.pos)

    def _s_ExprStmt(self, s, scope, em):
        last = self._take_last()
        call = s.expr
        if call.func not in self.proc_decls:
            if call.func in self.defines or call.func in BUILTINS:
                self.err(f"{call.func}(...) gives a value, and this line throws it away", call.pos,
                         "use it in a statement, like 'let x = ...'")
            self.err(f"unknown procedure '{call.func}'", call.pos, did_you_mean(call.func, self.proc_decls))
        d = self.proc_decls[call.func]
        self.called.add(d.name)
        if len(call.args) != len(d.params):
            self.err(f"{d.name}() takes {len(d.params)} argument{'s' if len(d.params) != 1 else ''}, "
                     f"not {len(call.args)}", call.pos, f"it is defined at line {d.pos.line}")
        args = [self.expr(a, scope) for a in call.args]
        key = (d.name, tuple(t for _, t in args))
        resumable = d.name in self.resumable
        if d.name in self.inline:
            self._inline_call(s, d, args, scope, em, last)
            return
        if key not in self.proc_index:
            with self._called_from(call, d.name, list(key[1])):
                self._proc_body(d.name, d.params, key[1], d.body, d.pos, resumable)
        ref = self.proc_index[key]
        srcs = [a for a, _ in args]
        if not resumable:
            em.line(f"{ref}(" + ", ".join(["S"] + srcs) + ")", s.pos)
            return
        self._stop_here(em, [
            "if len(S.frames) > 5000: fail('procedures call one another without end "
            f"(more than 5,000 deep)', {self.k(s.pos)})",
            f"_G = [{ref}, 0, [{''.join(a + ', ' for a in srcs)}] + {self.k(self.proc_pad)}[{ref}]]",
            "S.frames.append(_G)"],
            SWITCH, s.pos, last, call=f"_R{ref}_0")

    def _inline_call(self, s, d, args, scope, em, last):
        """A resumable procedure written out in its caller: its locals take the next frame slots
        of the caller, its arguments are assigned to its parameters, and its body follows."""
        inner = Scope("frame")
        inner.n = scope.n
        slots = [inner.bind(p, t, d.pos, self) for p, (_, t) in zip(d.params, args)]
        self.inlined += 1
        test = self._entered(em, 'True', d.body, last)
        # the last place to resume at in its list needs no test: a resume is surely inside it
        wrap = contextlib.nullcontext() if test == "pc or True" else em.nest()
        if test != "pc or True":
            em.line(f"if {test}:", s.pos)
        with wrap:
            if slots:
                em.fresh_only("; ".join(f"{inner.ref(k)} = {a}" for k, (a, _) in zip(slots, args)), s.pos)
            with self._called_from(s.expr, d.name, [t for _, t in args]):
                self.block(d.body, inner, em)
        scope.n = inner.n

    def _cond(self, cond, scope, what) -> str:
        src, t = self.expr(cond, scope)
        self._expect(t, T.BOOL, cond.pos, what)
        return src

    def _budget(self, em, pos):
        """One round of a 'while' loop. Such loops are the only way to run on for ever without a
        decision ('for' and 'repeat' loops end by themselves), so this is where the engine's budget
        of rounds without one is spent (``S.budget``)."""
        em.line("S.budget -= 1", pos)
        em.line("if S.budget < 0: fail('the rules went round loops too long without asking anyone anything; "
                f"is there a loop that never ends?', {self.k(pos)})", pos)

    def _s_If(self, s, scope, em):
        resumable = self._labels(s) > 0
        bodies = [b for _, b in s.branches] + ([s.orelse] if s.orelse is not None else [])
        # the last statement with labels, with labels in one branch only: a resume goes there
        only = self._take_last() and sum(1 for b in bodies if any(self._labels(x) for x in b)) == 1
        for i, (cond, body) in enumerate(s.branches):
            c = self._cond(cond, scope, "an 'if' condition")
            test = self._entered(em, c, body, only) if resumable else c
            em.line(f"{'if' if i == 0 else 'elif'} {test}:", cond.pos)
            with em.nest():
                self.block(body, scope, em)
        if s.orelse is not None:
            if resumable and not only:    # not when resuming after the if
                em.line(f"elif {self._entered(em, 'True', s.orelse)}:", s.pos)
            else:
                em.line("else:", s.pos)
            with em.nest():
                self.block(s.orelse, scope, em)

    def _s_While(self, s, scope, em):
        only = self._take_last()
        c = self._cond(s.cond, scope, "a 'while' condition")
        test = self._entered(em, c, s.body, only) if self._labels(s) else c
        em.line(f"while {test}:", s.cond.pos)
        with em.nest():
            self._budget(em, s.pos)
            self.block(s.body, scope, em)

    def _s_Repeat(self, s, scope, em):
        only = self._take_last()
        n = self.num(s.count, scope, "how many times to repeat")
        if not self._labels(s):
            em.line(f"for {scope.ref(scope.temp())} in range({n}):", s.pos)
            with em.nest():
                self.block(s.body, scope, em)
            return
        count = scope.ref(scope.n)      # rounds left, kept in the frame
        scope.n += 1
        em.fresh_only(f"{count} = {n}", s.pos)
        em.line(f"while {self._entered(em, f'{count} > 0', s.body, only)}:", s.pos)
        with em.nest():
            self.block(s.body, scope, em)
            em.line(f"{count} -= 1", s.pos)

    def _s_For(self, s, scope, em):
        only = self._take_last()
        src, et, is_zone = self._source(s.source, scope)
        var = scope.ref(scope.bind(s.var, et, s.pos, self))
        if not self._labels(s):
            em.line(f"for {var} in {'list(' + src + ')' if is_zone else src}:", s.pos)
            with em.nest():
                self.block(s.body, scope, em)
            return
        items, idx = scope.ref(scope.n), scope.ref(scope.n + 1)    # the items and the next one, in the frame
        scope.n += 2
        em.fresh_only(f"{items} = list({src}); {idx} = 0", s.pos)
        em.line(f"while {self._entered(em, f'{idx} < len({items})', s.body, only)}:", s.pos)
        with em.nest():
            em.fresh_only(f"{var} = {items}[{idx}]", s.pos)
            self.block(s.body, scope, em)
            em.line(f"{idx} += 1", s.pos)

    def _s_Choose(self, s, scope, em):
        last = self._take_last()
        who, pt = self.expr(s.player, scope)
        self._expect(pt, T.PLAYER, s.player.pos, "who chooses")
        src, et, is_zone = self._source(s.source, scope)
        vt = T.list_of(et) if s.subset else et
        if s.subset:
            # the 'where' condition tests one item; the chosen list is bound afterwards
            tslot, saved = scope.push(s.var, et)
            cond = None
            if s.cond is not None:
                cond = self._cond(s.cond, scope, "a 'where' condition")
            scope.pop(s.var, saved)
            slot = scope.bind(s.var, vt, s.pos, self)
            such = None
            if s.such_that is not None:
                sslot, saved = scope.push(s.var, vt)
                such = f"lambda {scope.ref(sslot)}: " + self._cond(s.such_that, scope, "a 'such that' condition")
                scope.pop(s.var, saved)
        else:
            slot = scope.bind(s.var, vt, s.pos, self)
            tslot, saved = scope.push(s.var, vt)
            cond = None
            if s.cond is not None:
                cond = self._cond(s.cond, scope, "a 'where' condition")
            scope.pop(s.var, saved)
        # Interchangeable options are offered once: cards whose printed attributes are all equal,
        # and equal values. (Different cards that merely look alike get distinct action texts.)
        if et == T.CARD:
            cls = self.card_class
            # a card's kind, or -1 for none: a dict's own lookup, so that it runs in C
            kinds = dict(enumerate(cls))
            kinds[None] = -1
            key = self.k(kinds.__getitem__) if len(set(cls)) < len(cls) else None
            # distinct kinds of card have distinct names, and a zone holds each card once
            unique = (not s.subset and len(set(self.card_names)) == len(set(cls))
                      and (is_zone or key is not None))
        else:
            key = "_value_key"
            unique = not s.subset and (vt in (T.NUMBER, T.PLAYER, T.BOOL) or T.is_enum(vt))
        display = self.display(vt)
        label = s.label or "choose"
        did = len(self.decisions)
        self.decisions.append(Decision(label, slot, display, s.pos, "subset" if s.subset else T.describe(vt), vt,
                                       unique))
        kpos = self.k(s.pos)
        tvar = scope.ref(tslot)
        p = who if SIMPLE.match(who) else "_p"
        lines = [] if p == who else [f"_p = {who}"]
        if not p.isdigit():    # a seat written in the rules is never nobody
            lines.append(f"if {p} is None: fail('nobody is there to choose', {kpos})")
        if cond is None:   # the options are a list of their own: a zone's or a constant list is copied
            lines.append(f"_o = {src}" if src.startswith(("[", "list(")) else f"_o = list({src})")
        else:
            lines.append(f"_o = {self._comp(tvar, tvar, src, cond)}")
            if s.if_able:
                lines.append(f"if not _o: _o = list({src})")
        if s.subset:
            lines.append(f"_o = _subsets(_o, {such}, {key or '_value_key'}, {kpos})")
        else:
            if key == "_value_key" and not T.is_list(vt):
                if not src.startswith(("list(dict.fromkeys(", "list(range(")):   # unique(), a range: no repeats
                    lines.append("if len(set(_o)) < len(_o): _o = _dedupe(_o, _value_key)")
            elif key is not None:
                lines.append(f"_o = _dedupe(_o, {key})")
            lines.append(f"if not _o: fail_no_options('Player %d has nothing to choose from' % ({p} + 1), {kpos})")
        lines.append(f"S.pending = [{p}, {did}, _o]")
        self._stop_here(em, lines, STOP, s.pos, last, scope.ref(slot), self.decisions[did])


def compile_rules(rules: A.RulesFile, players: int, variants: tuple = ()) -> Program:
    return Compiler(rules, players, variants).compile()
