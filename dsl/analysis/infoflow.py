"""The information-flow check: a value worked out from what some seat cannot see must not reach
what every seat sees while the game is on.

Secret (for this check): the cards of a zone that is not ``public`` and what is printed on them,
how many cards a ``hidden`` zone holds, ``owner`` and ``hidden`` state, and a decision's choice
when its options are secret (a card chosen from a hand). A card stops being secret where the rules
move it to a ``public`` zone; any value stops being secret after ``reveal`` (the rules show it,
as a bid card turned face up shows the bid).

Public sinks: ``public`` state (game, player or card state) and announcements. Writing a secret
to ``owner`` or ``hidden`` state is fine. ``score``, ``winners``, the heuristic and invariants are
not sinks: scores are public only once the game is over. The check follows values, not the
branches they choose (``if c.suit == trump: announce ...`` passes): what a seat learns from the
course of play — whose turn it is, what is asked — is the designer's to weigh (docs/guides/checking.md).

The analysis runs over the IR of every procedure: flow-sensitive for locals (a card moved to a
public zone is public from then on), following arguments into the procedures and functions they
are passed to.
"""
from __future__ import annotations

import ast

from rulesrun.dsl import types as T
from rulesrun.dsl.analysis.seatview import SeatView
from rulesrun.dsl.analysis.sinks import LISTS, Sinks
from rulesrun.dsl.analysis.taint import (NONE, Leak, asks_of, chosen_text, decision_seat, is_nonempty, join,
                                         option_parts, secret_text, shape_of, state_read)
from rulesrun.dsl.ir import K, Best, Comp, Fn, Local, Move, Reveal, St, Stop


# what decides whether the statement being read runs (a taint), and whether it is inside a loop
_GUARD, _LOOP = ("guard",), ("loop",)

# what a define's body sees of its caller's state of knowledge besides its arguments
_INHERITED = ("shown zone", "shown value", "shown zone to", "shown value to")


class InfoFlow(SeatView, Sinks):
    def __init__(self, comp):
        self.c = comp
        self.zones = comp.zones
        self.procs = comp.ir_procs            # ref -> (params, body)
        self.defines = {fname: (params, body) for fname, _, body, params in comp.define_cache.values()}
        self.param_taint: dict = {}            # (ref, i) -> taint from the call sites
        self.var_taint: dict = {}              # (part, i) of a hidden value -> what was written to it
        self.ret_taint: dict = {}              # procedure ref -> what its 'return VALUE's come from
        self.cur = None                        # the procedure being read
        self.found: list = []

    # ── what is secret ────────────────────────────────────────────────────
    def _zone_of(self, node):
        """The ZoneInfo an expression names, when known."""
        if isinstance(node, K) and isinstance(node.value, int) and 0 <= node.value < len(self.zones):
            return self.zones[node.value]
        if isinstance(node, ast.BinOp) and isinstance(node.left, K) and isinstance(node.left.value, int):
            return self.zones[node.left.value]       # a per-player zone: family + seat
        return None

    @staticmethod
    def _alias(node, env):
        """The zone a define's parameter stands for (its argument), else ``node``."""
        while isinstance(node, Local) and ("zone", node.key()) in env:
            node = env[("zone", node.key())]
        return node

    def _zone_cards(self, zone_expr, env):
        zone_expr = self._alias(zone_expr, env)
        info = self._zone_of(zone_expr)
        if info is not None and info.visibility == "public":
            return join(self.expr(zone_expr, env), env.get(("fresh", info.name), NONE))
        if info is None or env.get(("shown zone", info.family or info.name)):
            return self.expr(zone_expr, env)
        whose = "each player's" if info.owner is not None else "the"
        return frozenset({("zone", info.name, f"the cards of {whose} {info.name} ({info.visibility})")})

    def _var(self, part: str, i: int):
        table = {"g": self.c.globals, "pv": self.c.pvars, "cv": self.c.cvars}[part]
        for slot, info in table.values():
            if slot == i:
                return info
        return None

    def _var_taint(self, part: str, i: int, env: dict):
        info = self._var(part, i)
        if info is None or info.public or env.get(("shown value", part, i)):
            return NONE
        if info.visibility in ("owner", "others", "team"):     # a secret of (or from) its player, by declaration
            return frozenset({("var", info.name, f"'{info.name}' ({info.visibility})")})
        return self.var_taint.get((part, i), NONE)   # hidden: what was written to it

    def expr(self, n, env):
        if n is None or isinstance(n, (K, ast.Constant, ast.Name, St)):
            return NONE
        if isinstance(n, ast.Attribute) and n.attr == "ret":     # the value the procedure called returned
            return env.get(("ret",), NONE)
        if isinstance(n, Local):
            return env.get(n.key(), NONE)
        if isinstance(n, ast.Subscript):
            base = n.value
            if isinstance(base, St) and base.which == "z":
                return self._zone_cards(n.slice, env)
            if isinstance(base, St) and base.which == "g" and isinstance(n.slice, K):
                return self._var_taint("g", n.slice.value, env)
            if isinstance(base, ast.Subscript) and isinstance(base.value, St) and base.value.which in ("pv", "cv") \
                    and isinstance(base.slice, K):
                return join(self._var_taint(base.value.which, base.slice.value, env), self.expr(n.slice, env))
            return join(self.expr(base, env), self.expr(n.slice, env))
        if isinstance(n, ast.Call):
            f = getattr(n.func, "id", None)
            if f == "len" and len(n.args) == 1 and isinstance(n.args[0], ast.Subscript) \
                    and isinstance(n.args[0].value, St) and n.args[0].value.which == "z":
                info = self._zone_of(self._alias(n.args[0].slice, env))   # how many: seen but for hidden zones
                if info is not None and info.visibility == "hidden":
                    return frozenset({("count", info.name, f"how many cards {info.name} holds (hidden)")})
                return self.expr(n.args[0].slice, env)
            if f == "_holder":                   # who holds a card: where it lies
                return join(self.expr(n.args[2], env), self._where(n.args[0], n.args[2], env))
            args = [self.expr(a, env) for a in n.args]
            if f in self.defines:
                params, body = self.defines[f]
                inner = {k: v for k, v in env.items() if isinstance(k, tuple) and k[0] in _INHERITED}
                inner.update({p.key(): t for p, t in zip(params, args[1:])})
                for p, a in zip(params, n.args[1:]):
                    if self._zone_of(self._alias(a, env)) is not None:     # a zone passed: its cards are read
                        inner[("zone", p.key())] = self._alias(a, env)
                return join(self.expr(body, inner), *args)
            if f in self.procs:                  # a procedure's value: what it returns
                return join(self.ret_taint.get(f, NONE), *args)
            return join(*args, self.expr(n.func, env) if not isinstance(n.func, ast.Name) else NONE)
        if isinstance(n, (Comp, Best)):
            src = self.expr(n.source, env)
            inner = dict(env)
            inner[n.target.key()] = src
            inner[("placed", n.target.key())] = self._in_public_zone(n.source, env)
            parts = [self.expr(x, inner) for x in
                     ([n.elt] if isinstance(n, Comp) else list(n.keys)) + [n.cond]]
            return join(src, *parts)
        if isinstance(n, Fn):
            return self.expr(n.body, env)
        return join(*(self.expr(x, env) for x in ast.iter_child_nodes(n) if isinstance(x, ast.expr)))

    def _in_public_zone(self, node, env=None) -> bool:
        """Whether the cards ``node`` gives are known to lie in public zones (so each card's place is
        seen): the cards of a public zone, a card of one (``top(trick)``), the items of a list or
        comprehension made of such cards, a local holding one."""
        env = env or {}
        if isinstance(node, Best):
            return self._in_public_zone(node.source, env)
        if isinstance(node, Comp):
            if node.kind != "list":
                return False
            if isinstance(node.elt, Local) and node.elt.key() == node.target.key():
                return self._in_public_zone(node.source, env)
            return self._in_public_zone(node.elt, {**env, ("placed", node.target.key()):
                                                   self._in_public_zone(node.source, env)})
        if isinstance(node, Local):
            return env.get(("placed", node.key())) is True
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("list", "_top", "_item") and node.args:
            return self._in_public_zone(node.args[0], env)
        if isinstance(node, ast.Subscript) and isinstance(node.value, St) and node.value.which == "z":
            info = self._zone_of(node.slice)
            return info is not None and info.visibility == "public"
        return False

    def _where(self, owners, card, env):
        """The secret of where ``card`` lies (``holder(card)``, the owner of the zone it lies in):
        none for a card held in a local that came from a public zone or was moved to one, nor when
        every zone a player holds (``owners``: each zone's holder) is seen by every seat — public, or
        revealed; else who holds it — which the seats that do not see that hand do not know."""
        if self._in_public_zone(card, env):
            return NONE
        holders = owners.value if isinstance(owners, K) and isinstance(owners.value, list) else None
        if holders is not None and all(
                who is None or self.zones[i].visibility == "public"
                or env.get(("shown zone", self.zones[i].family or self.zones[i].name))
                for i, who in enumerate(holders)):
            return NONE
        return frozenset({("where", "holder", "who holds a card (holder())")})

    # ── statements ────────────────────────────────────────────────────────
    def block(self, stmts, env) -> dict:
        for s in stmts:
            env = self.stmt(s, env)
        return env

    def stmt(self, s, env) -> dict:
        if isinstance(s, ast.Assign):
            t = self.expr(s.value, env)
            target = s.targets[0]
            if isinstance(target, Local):
                env = {**env, target.key(): t, ("placed", target.key()): self._in_public_zone(s.value, env),
                       ("in", target.key()): NONE, ("nonempty", target.key()): is_nonempty(s.value)}
                if env.get(_LOOP) and getattr(target, "rtype", None) == T.PLAYER \
                        and isinstance(s.value, ast.Subscript) and isinstance(s.value.value, Local):
                    env[("seat", target.key())] = True      # the seats a loop goes through, one a round
            elif isinstance(target, ast.Attribute) and target.attr == "ann" and isinstance(s.value, ast.Tuple):
                env = self._announce(s, env)
            elif isinstance(target, ast.Attribute) and target.attr == "ret":
                self._returned(t)
            else:
                env = self._store(target, t, s, env)
            return env
        if isinstance(s, ast.AugAssign):
            t = join(self.expr(s.value, env), self.expr(s.target, env) if isinstance(s.target, Local) else NONE)
            if isinstance(s.target, Local):
                return {**env, s.target.key(): t}
            return self._store(s.target, t, s, env)
        if isinstance(s, Move):
            env = self._moved_out(s.card, env)
            info = self._zone_of(s.dest)
            env = self._told_by_move(env, s.card, s.dest, info is not None and info.visibility == "public")
            if info is not None and info.visibility == "public":
                if isinstance(s.card, Local):
                    env = self._shown(env, s.card.key(), info.name)       # shown to everyone, if seen there
                else:
                    env = self._arrive(env, info.name, self.expr(s.card, env))
            elif isinstance(s.card, Local):
                env = {**env, ("placed", s.card.key()): False,      # no longer known to lie in a public zone
                       ("in", s.card.key()): frozenset({shape_of(s.dest)})}
            return env
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
            call = s.value
            f = getattr(call.func, "id", None)
            if f in ("move_cards", "move_zone"):
                env = self._moved_out(call.args[1], env)
                info = self._zone_of(call.args[2])
                public = info is not None and info.visibility == "public"
                if f == "move_cards" and isinstance(call.args[1], Local):
                    if public:
                        env = self._shown(env, call.args[1].key(), info.name)
                    else:
                        env = {**env, ("in", call.args[1].key()): frozenset({shape_of(call.args[2])})}
                elif public:
                    if f == "move_zone":        # the locals put in that zone go with it
                        src = shape_of(call.args[1])
                        for k in [k for k, v in env.items() if isinstance(k, tuple) and k[0] == "in"
                                  and src in v]:
                            env = self._shown(env, k[1], info.name)
                    env = self._arrive(env, info.name, self.expr(call.args[1], env))
                env = self._told_by_move(env, call.args[1], call.args[2], public)
            elif f == "move_every":
                dest = self._zone_of(call.args[1])
                env = self._sweep(env, [k[1] for k in env if isinstance(k, tuple) and len(k) == 2
                                        and k[0] == "fresh" and (dest is None or k[1] != dest.name)])
            elif f in self.procs:
                self._call(f, call.args[1:], env)
            return env
        if isinstance(s, Reveal) and s.to is not None:
            return self._reveal_to(s, env)
        if isinstance(s, Reveal):
            env = dict(env)
            for v in s.values:
                zone, var = self._zone_of(v), state_read(v)
                if isinstance(v, Local) and getattr(v, "rtype", "") != "zone":
                    env = self._shown(env, v.key())
                elif getattr(v, "rtype", "") == "zone" and zone is not None:
                    env[("shown zone", zone.family or zone.name)] = True     # 'reveal p.hand'
                elif var is not None:
                    env[("shown value", *var)] = True                         # 'reveal p.bid'
                else:
                    env[("revealed", ast.dump(v))] = True
            return env
        if isinstance(s, ast.Return) and not isinstance(s.value, (K, ast.Constant)):
            self._returned(self.expr(s.value, env))       # a plain procedure's 'return VALUE'
            return env
        if isinstance(s, Stop):
            env = self.block(s.pre, env)
            env = self._flush(env, keep_fresh=True) if s.kind == "call" else self._observe(env)
            if s.kind == "call":
                self._call(s.callee, getattr(s, "args", []), env)
                env = {**env, ("ret",): self.ret_taint.get(s.callee, NONE)}
            if s.kind == "decision":
                self._asked(s, env)
            if s.kind == "decision" and s.options is not None:
                unseen = next((u for part in [s.options, *option_parts(s.pre)]
                               for u in [self._unseen_in_options(part, decision_seat(s), env)] if u), None)
                if unseen is not None:
                    self._found(Leak(f"this decision's options show {unseen} to the deciding seat, which "
                                     f"cannot see them", s.pos,
                                     "a decision's options (their texts and how many there are) are what the "
                                     "deciding seat sees: offer what that seat sees, or write 'reveal ...' "
                                     "first where the rules show it", self.c.sources))
            if s.kind != "call" and s.chosen is not None:
                secret = self.expr(s.options, env)
                text = chosen_text(secret, getattr(s.chosen, "rtype", None)) if secret else ""
                env = {**env, s.chosen.key(): frozenset({("chosen", s.chosen.key(), text)}) if secret else NONE}
            return env
        if isinstance(s, ast.If):
            inner = self._guarded(env, s.test) if asks_of(s.body) != asks_of(s.orelse) else env
            a, b = self.block(s.body, inner), self.block(s.orelse, inner)
            return self._unguarded(self._merge(a, b), env)
        if isinstance(s, (ast.While, ast.For)):
            outer = env
            env = {**env, _LOOP: True}
            if isinstance(s, ast.For) and isinstance(s.target, Local):
                env = {**env, s.target.key(): self.expr(s.iter, env),
                       ("placed", s.target.key()): self._in_public_zone(s.iter, env)}
                if getattr(s.target, "rtype", None) == T.PLAYER:
                    env[("seat", s.target.key())] = True
            if self._runs(s, env):          # a loop over the players runs at least once
                env = self.block(s.body, env)
            for _ in range(4):              # round the loop until the locals settle
                after = self._merge(env, self.block(s.body, env))
                if after == env:
                    break
                env = after
            env = self._unguarded(env, outer)
            env[_LOOP] = outer.get(_LOOP, False)
            return env
        return env

    # ── who is asked: whose turn it is is seen by every seat ──────────────
    def _guarded(self, env: dict, test) -> dict:
        """``env`` inside a branch on ``test`` whose two ways ask differently: what decides whether
        the statements in it run is joined into the guard — the secrets of where cards lie and what
        they are, owner and hidden state; not a seat's own choice, whose outcome the rules play out
        in the open (what a seat learns from the course of play is the designer's to weigh)."""
        t = frozenset(x for x in self.expr(test, env) if x[0] not in ("chosen", "fresh"))
        return {**env, _GUARD: join(env.get(_GUARD), t)} if t else env

    @staticmethod
    def _unguarded(env: dict, outer: dict) -> dict:
        out = dict(env)
        out[_GUARD] = outer.get(_GUARD, NONE)
        return out

    def _asked(self, s, env):
        """A decision asked of a seat that changes round a loop (``for q in players``), in a branch
        a secret decides: which seats are asked — seen by every seat, as whose turn it is — tells
        the secret. A window (``any q in players may:``) asks every seat, with "pass"."""
        guard = env.get(_GUARD)
        seat = decision_seat(s)
        if not guard or not isinstance(seat, Local) or not env.get(("seat", seat.key())):
            return
        if s.pos in getattr(self.c, "windows", ()):
            self._found(Leak(f"this window's 'where' reads {secret_text(guard)}, which other seats cannot see: "
                             f"every seat sees who is asked", s.pos,
                             "leave the secret to the options (a move's 'if', a pick's 'where'): every "
                             "seat the window asks may \"pass\", so asking tells nothing", self.c.sources))
            return
        self._found(Leak(f"which seats are asked here depends on {secret_text(guard)}, which other seats "
                         f"cannot see: every seat sees whose turn it is", s.pos,
                         "ask every seat the same question, letting the options differ: a window "
                         "('any q in players may:') asks each seat, with \"pass\" when it cannot act; "
                         "or skip seats only by what everyone sees", self.c.sources))

    @staticmethod
    def _runs(s, env) -> bool:
        """Whether a loop's body is sure to run at least once: a loop over a constant list of
        players (``for p in players``; with a stop in it, a round counter over such a list)."""
        if isinstance(s, ast.For):
            return is_nonempty(s.iter)
        t = s.test
        return isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Lt) \
            and isinstance(t.left, Local) and isinstance(t.comparators[0], ast.Call) \
            and getattr(t.comparators[0].func, "id", None) == "len" and len(t.comparators[0].args) == 1 \
            and isinstance(t.comparators[0].args[0], Local) \
            and env.get(("nonempty", t.comparators[0].args[0].key())) is True

    @staticmethod
    def _merge(a: dict, b: dict) -> dict:
        out = dict(a)
        for k, v in b.items():
            if k in LISTS:
                out[k] = tuple(dict.fromkeys(out.get(k, ()) + v))
            elif k[0] == "placed":          # seen where it lies only if so on both ways
                out[k] = out.get(k, False) and v
            else:
                out[k] = v if isinstance(v, bool) else join(out.get(k), v)
        return out

    @staticmethod
    def _map(env: dict, secret, pending) -> dict:
        """``env`` with each secret of a value replaced by ``secret(t)`` (a set of secrets) and each
        pending leak's sources by ``pending(srcs)``; a pending leak left with no source is dropped."""
        out = {}
        for k, v in env.items():
            if k == "pending":
                out[k] = tuple((e, left) for e, srcs in v for left in [pending(srcs)] if left)
            elif k in LISTS or isinstance(v, bool) or k[0] in ("in", "fresh"):
                out[k] = v
            else:
                out[k] = frozenset(x for t in v for x in secret(t))
        return out

    def _shown(self, env: dict, key, zone: str | None = None) -> dict:
        """The card in the local ``key`` is shown: revealed (``zone`` None), public from here with
        what was worked out from it; or moved to the public ``zone``, where it is seen only if it is
        still there when some seat next observes: what was worked out from it is pending on that."""
        mine = env.get(key, NONE)
        gone = {t[:2] for t in mine if t[0] == "chosen"} | {("chosen", key)}
        if zone is None:
            out = self._map(env, lambda t: () if t[:2] in gone else (t,), lambda srcs: srcs - gone)
            out[key] = NONE
        else:
            seen = frozenset({("fresh", zone, f"{secret_text(mine)}, moved to {zone} and moved on before any seat "
                                              f"observed it")}) if mine else NONE
            fresh = lambda t: (("fresh", zone, f"{t[2]}, moved to {zone} and moved on before any seat observed it"),) \
                if t[:2] in gone else (t,)
            out = self._map(env, fresh, lambda srcs: frozenset(("fresh", zone) if x in gone else x for x in srcs))
            out[key] = seen
            if seen:
                out[("fresh", zone)] = join(env.get(("fresh", zone)), seen)
        out[("placed", key)] = True
        out[("in", key)] = NONE
        return out

    @staticmethod
    def _arrive(env: dict, zone: str, taint) -> dict:
        """Cards worked out from ``taint`` arrive in the public ``zone``: seen if still there when some
        seat next observes."""
        moved = frozenset(t for t in taint if t[0] != "fresh" or t[1] != zone)
        if not moved:
            return env
        text = f"{secret_text(moved)}, moved to {zone} and moved on before any seat observed it"
        return {**env, ("fresh", zone): join(env.get(("fresh", zone)), frozenset({("fresh", zone, text)}))}

    def _moved_out(self, what, env: dict) -> dict:
        """Cards moved from where ``what`` says: a public zone they arrived in unseen is swept."""
        if not any(isinstance(k, tuple) and k[0] == "fresh" for k in env):
            return env
        zones = set()
        for n in ast.walk(what):
            if isinstance(n, ast.Subscript) and isinstance(n.value, St) and n.value.which == "z":
                info = self._zone_of(self._alias(n.slice, env))
                if info is not None:
                    zones.add(info.name)
            elif isinstance(n, Local) and getattr(n, "rtype", "") == "zone":
                info = self._zone_of(self._alias(n, env))
                if info is not None:
                    zones.add(info.name)
        info = self._zone_of(what)
        if info is not None:
            zones.add(info.name)
        if isinstance(what, Local):       # a card moved on from the public zone it was put in
            zones |= {t[1] for t in env.get(what.key(), NONE) if t[0] == "fresh"}
        return self._sweep(env, [z for z in zones if ("fresh", z) in env])

    def _sweep(self, env: dict, zones) -> dict:
        """The cards that arrived unseen in these public zones leave them unseen: what was worked
        out from them is a secret again, and the pending leaks that waited on their being seen are
        leaks."""
        gone = {("fresh", z) for z in zones}
        if not gone:
            return env
        for err, srcs in env.get("pending", ()):
            if srcs & gone:
                self._found(err)
        out = self._map(env, lambda t: (("unseen", t[1], t[2]),) if t[:2] in gone else (t,),
                        lambda srcs: srcs - gone)
        for k in gone:
            out.pop(k, None)
        return out

    def _observe(self, env: dict) -> dict:
        """Some seat observes the state (a decision, a public announcement, the end of a procedure):
        the cards lying in public zones are seen, what is still pending otherwise is a leak."""
        fresh = lambda t: () if t[0] == "fresh" else (t,)
        env = self._map(env, fresh, lambda srcs: frozenset(x for x in srcs if x[0] != "fresh"))
        env = {k: v for k, v in env.items() if not (isinstance(k, tuple) and k[0] == "fresh")}
        return self._flush(env)

    def _call(self, ref, args, env):
        for i, a in enumerate(args):
            # (cards in a public zone are followed within a procedure only: public in the callee)
            t = frozenset(x for x in self.expr(a, env) if x[0] != "fresh")
            old = self.param_taint.get((ref, i), NONE)
            if not t <= old:
                self.param_taint[(ref, i)] = old | t
                self.changed = True




    def _returned(self, t):
        t = frozenset(x for x in t if x[0] != "fresh")
        old = self.ret_taint.get(self.cur, NONE)
        if t and not t <= old:
            self.ret_taint[self.cur] = old | t
            self.changed = True



    def _revealed(self, node, env) -> bool:
        return env.get(("revealed", ast.dump(node))) is True

    # ── the whole program ─────────────────────────────────────────────────
    def run(self) -> list:
        for _ in range(12):              # arguments flow into procedures, values into state: until settled
            self._new_round()
            for ref, (params, body) in self.procs.items():
                self.cur = ref
                env = {p.key(): self.param_taint.get((ref, i), NONE) for i, p in enumerate(params)}
                self._observe(self.block(body, env))
            if not self.changed:
                break
        self._notes()
        return self.found

    def _notes(self):
        """An option's note (``showing "..."``) is shown to the seat choosing: it may read what
        everyone sees — any secret in it (even the chooser's own) is refused, as in an announcement."""
        for pos, option, node in getattr(self.c, "option_notes", ()):
            t = self.expr(node, {option.key(): NONE})
            if t:
                self._found(Leak(f"this option's note shows {secret_text(t)}, which not everyone sees", pos,
                                 "a note may show the option, card attributes and what every seat sees", self.c.src))

    def _new_round(self):
        self.changed = False
        self.found = []

def analyse(comp) -> tuple[list, set]:
    """(the leaks, as RulesErrors first by position; the state values that hold secrets: every
    ``owner`` value, and the ``hidden`` ones something secret is written to)."""
    flow = InfoFlow(comp)
    leaks = sorted(flow.run(), key=lambda e: (e.pos.line, e.pos.column) if e.pos else (0, 0))
    # (cards that lay in a public zone when written are seen there: not a secret of the value)
    secret = {key for key, t in flow.var_taint.items() if any(x[0] != "fresh" for x in t)}
    for part, table in (("g", comp.globals), ("pv", comp.pvars), ("cv", comp.cvars)):
        secret |= {(part, i) for i, info in table.values() if info.visibility in ("owner", "others", "team")}
    return leaks, secret


def check(comp) -> list:
    """The leaks in a compiled program, as RulesErrors (first by position)."""
    return analyse(comp)[0]
