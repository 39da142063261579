"""Declarations: variants, kinds, constants, the cards, zones and state — the names a rules file
declares, each checked as it is added to the compiler's tables, and the values known before the
game starts worked out (through generated functions, as every expression is)."""
from __future__ import annotations

from typing import Any, Callable

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.errors import Pos, RulesError, RulesRuntimeError, did_you_mean
from rulesrun.dsl.program import VarInfo, ZoneInfo
from rulesrun.dsl.emit.helpers import value_key
from rulesrun.dsl.scope import Scope
from rulesrun.dsl.check.teams import TEAM_BUILTINS

MAX_BOUNDED = 10_000        # a bounded number holds at most this many values plus one


class Declarations:
    """Mixed into the compiler (``dsl.compiler``): the declarations of a rules file."""

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
        self.selected = None          # known once every variant's 'when' is worked out
        for name in self.requested:
            if name not in variants:
                known = ", ".join(variants) or "none"
                hint = did_you_mean(name, variants) or f"this game's variants: {known}"
                raise RulesError(f"unknown variant '{name}'", None, hint)
        chosen = list(dict.fromkeys(self.requested))
        for v in variants.values():
            if v.name not in chosen and v.when is not None:
                value, t = self._when_value(v.when)
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
        for v in variants.values():      # `about` describes the game; a variant has `described as`
            for it in v.items:
                if isinstance(it, A.AboutDecl):
                    self.err("'about' describes the whole game, not a variant", it.pos,
                             f'give the variant its one line on its first line: variant {v.name} described as "..."')
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
                 or name in self.proc_decls or name in self.BUILTINS or name in self.AGGREGATES
                 or name in self.team_index or (self.team_names and name in TEAM_BUILTINS))
        if taken:
            what = ("the aggregate " + f"{name}(...)" if name in self.AGGREGATES
                    else f"the builtin {name}()" if name in self.BUILTINS
                    else f"the team builtin {name}()" if self.team_names and name in TEAM_BUILTINS else None)
            if what:
                self.err(f"the name '{name}' is taken by {what}", pos,
                         f"choose another name, like '{name}s' or 'the_{name}'")
            self.err(f"the name '{name}' is already taken", pos, "choose another name")

    # ── declarations ───────────────────────────────────────────────────────
    def _kind(self, k: A.KindDecl):
        self._check_free(k.name, k.pos)
        shown = {}
        for v, text, pos in zip(k.values, k.texts, k.value_pos):
            if v in self.enum_values:
                self.err(f"'{v}' is already a value of kind {self.enum_values[v]}", pos,
                         "each value name may belong to one kind only")
            if text in shown:
                self.err(f"'{v}' of kind {k.name} would read '{text}', as '{shown[text]}' does", pos,
                         "give each value its own text")
            shown[text] = v
            self.enum_values[v] = k.name
            self.enum_text[v] = text
        self.kinds[k.name] = k.texts

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

    def _fn(self, node, pos) -> Callable:
        """An expression as a function f(S, L)."""
        return self.gen.lambda_(["S", "L"], node, pos, "a value worked out before the game")

    def _run_const(self, fn, L, pos):
        try:
            return fn(self.const_budget, L)
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
        if tr.name == "team":
            return self._team_type(tr)
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
        self._coloured_by(cd.coloured_by)
        records = []
        for entry in cd.entries:
            records.extend(self._card_entry(entry, defaults))
        if not records:
            self.err(f"with {self.N} players the game has no cards", cd.pos)
        for name in self.attrs:
            self.card_attrs[name] = [r[name] for r in records]
        classes: dict = {}
        self.card_class = [classes.setdefault(tuple(value_key(r[a]) for a in self.attrs), len(classes))
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

    def _coloured_by(self, cb: "A.ColouredBy | None"):
        """`coloured by ATTR`: the table colours each card by that attribute (program.colour_attr)."""
        self.colour_attr = None
        if cb is None:
            return
        if cb.name not in self.attrs:
            self.err(f"cards have no attribute '{cb.name}' to be coloured by", cb.pos,
                     did_you_mean(cb.name, self.attrs)
                     or f"the attributes are: {', '.join(self.attrs)}")
        if T.is_list(self.attrs[cb.name]):
            self.err(f"cards cannot be coloured by '{cb.name}': it is a list, and a card has one colour",
                     cb.pos, "colour them by an attribute with one value, such as a kind")
        self.colour_attr = cb.name

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
        count = e.count if isinstance(e.count, int) else self._card_count(e.count)

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
                    out.extend(dict(rec) for _ in range(count))
                return
            _, fn, slot, pos = binders[i]
            for v in self._run_const(fn, L, pos):
                L[slot] = v
                walk(i + 1)
        walk(0)
        return out

    def _card_count(self, e: A.Expr) -> int:
        """'copies x {...}': the number a constant or parameter holds."""
        value, t = self._value(e)
        self._expect(t, T.NUMBER, e.pos, "a number of copies")
        if value is None or value < 0:
            self.err(f"a number of copies cannot be {value}", e.pos)
        return value

    def _zone(self, z: A.ZoneDecl):
        self._check_free(z.name, z.pos)
        if z.visibility == "others" and not z.per_player:
            self.err("only a per-player zone has an owner for 'others' to leave out", z.pos,
                     "write 'zone NAME per player: others' (every seat sees the cards but the owner), "
                     "or 'public' for a shared zone everyone sees")
        if z.visibility == "team":
            if not z.per_player:
                self.err("only a per-player zone has an owner whose team may see it", z.pos,
                         "write 'zone NAME per player: team' (its owner and the owner's partners see the "
                         "cards), or 'public' for a shared zone everyone sees")
            self.team_seen += ((f"zone '{z.name}'", z.pos),)
        if z.per_player:
            self.families[z.name] = len(self.zones)
            for p in range(self.N):
                self.zones.append(ZoneInfo(f"{z.name}", p, z.name, z.visibility))
        else:
            self.zone_index[z.name] = len(self.zones)
            self.zones.append(ZoneInfo(z.name, None, None, z.visibility))

    def _state(self, s: A.StateDecl):
        if s.owner == "team" or (s.owner == "player" and s.name == "team" and self.team_names):
            return self._team_state(s)
        table = {None: self.globals, "player": self.pvars, "card": self.cvars}[s.owner]
        if s.owner is None:
            self._check_free(s.name, s.pos)
        elif s.name in table:
            self.err(f"{s.owner} state '{s.name}' is declared twice", s.pos)
        if s.owner == "player" and s.name in self.families:
            self.err(f"'{s.name}' is already a per-player zone", s.pos)
        if s.owner == "card" and s.name in self.attrs:
            self.err(f"'{s.name}' is already a card attribute", s.pos)
        if s.visibility in ("owner", "others", "team") and s.owner != "player":
            self.err(f"only a player state has an owner who {'may be left out' if s.visibility == 'others' else 'may see it'}",
                     s.pos, "use 'public' or 'hidden' here, or declare it as 'player state'")
        if s.visibility == "team":
            self.team_seen += ((f"player state '{s.name}'", s.pos),)
        if s.visibility == "on back" and s.owner != "card":
            self.err("only a card has a back to show a value on", s.pos,
                     "declare it as 'card state ...', or use 'public', 'owner', 'others' or 'hidden'")
        if s.visibility == "facedown":
            self.err("'facedown' is for zones; a value is public, owner, others, team or hidden", s.pos)
        t = self._type(s.type)
        if s.default is not None:
            init, dt = self._value(s.default)
            self._expect(dt, t, s.default.pos, f"the starting value of '{s.name}'")
            if t == T.PLAYER and init is not None and not 0 <= init < self.N:
                self.err(f"there is no player {init + 1} with {self.N} players", s.default.pos)
        else:
            init = self._zero(t)
        table[s.name] = (len(table), VarInfo(s.name, t, s.visibility, init, bounds=self._bounds(s, t, init),
                                             teams=self._seen_teams(s.visibility)))

    def _bounds(self, s: A.StateDecl, t: str, init):
        """A number's declared bounds ('from 0 to 4'), checked: what the bots imagine another seat's
        value among, and what ``rulesrun check`` holds the value to."""
        if s.low is None:
            return None
        if t != T.NUMBER:
            self.err(f"only a number has bounds, and '{s.name}' is a {T.describe(t)}", s.low.pos,
                     "remove 'from ... to ...'")
        low, high = self._bound_numbers(s.low, s.high, "a bound must be a number known before the game")
        if low > high:
            self.err(f"the bounds of '{s.name}' are the wrong way round: {low} is more than {high}", s.low.pos)
        if high - low > MAX_BOUNDED:
            self.err(f"'{s.name}' may hold {high - low + 1:,} numbers: bounds are for at most "
                     f"{MAX_BOUNDED + 1:,}", s.low.pos, "leave the bounds out: the compiler infers them where it can")
        if init is not None and not low <= init <= high:     # (none: not set yet)
            self.err(f"the starting value of '{s.name}', {init}, is not from {low} to {high}",
                     (s.default or s.low).pos)
        return low, high

    def _bound_numbers(self, low, high, must: str) -> tuple:
        """The values of the two bounds of 'from LOW to HIGH' (a parameter's, a number's)."""
        out = []
        for e in (low, high):
            v, bt = self._value(e)
            if bt != T.NUMBER or v is None:
                self.err(f"{must}, but this is a {T.describe(bt)}", e.pos)
            out.append(v)
        return tuple(out)

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
        return self._item_fn(var, T.PLAYER, e, want, what)

    def _item_fn(self, var: str, typ: str, e: A.Expr, want: str, what: str):
        """f(S, x): an expression about one player (the score) or one card (an invariant of each card)."""
        scope = Scope("py")
        slot = scope.bind(var, typ, e.pos, self)
        src, t = self.expr(e, scope)
        self._expect(t, want, e.pos, what)
        return self.gen.lambda_(["S", scope.ref(slot)], src, e.pos, what)

    # ── helpers ────────────────────────────────────────────────────────────
    def display(self, t: str) -> Callable[[Any], str]:
        names = self.card_names
        if t == T.CARD:
            return lambda v: "nothing" if v is None else names[v]
        if t == T.PLAYER:
            return lambda v: "nobody" if v is None else f"Player {v + 1}"
        if t == T.BOOL:
            return lambda v: "yes" if v else "no"
        if t == T.TEAM:
            teams = self.team_names
            return lambda v: "no team" if v is None else teams[v]
        if T.is_tuple(t):       # several values picked at once: each shown, a space between
            shows = [self.display(e) for e in T.tuple_elems(t)]
            return lambda v: " ".join(f(x) for f, x in zip(shows, v))
        if T.is_list(t):
            inner = self.display(T.elem(t))
            if T.elem(t) == T.CARD:     # (a set of cards offered: names joined in C; "nothing" among them below)
                def cards(v):
                    if not v:
                        return "nothing"
                    try:
                        return ", ".join(map(names.__getitem__, v))
                    except TypeError:
                        return ", ".join(map(inner, v))
                return cards
            return lambda v: ", ".join(inner(x) for x in v) if v else "nothing"
        if t == T.ZONE:
            zones = self.zones
            return lambda v: zones[v].name if zones[v].owner is None else f"{zones[v].name} of Player {zones[v].owner + 1}"
        return lambda v: "none" if v is None else str(v)

