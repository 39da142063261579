"""What each resumable procedure's frame keeps over a stop that some seat does not see, and who
does see it (for the bots' determinisation, ``interpreter.runtime.observe.resample``): the
information-flow analysis of ``dsl.analysis.infoflow``, run with each secret's knower."""
from __future__ import annotations

import ast

from rulesrun.dsl.analysis.infoflow import InfoFlow
from rulesrun.dsl.analysis.taint import NONE, decision_seat, join
from rulesrun.dsl.ir import K, Local, St, Stop


def _knower(node):
    """Who sees a secret read through this seat expression: ("local", key) for a seat held in a
    frame local, ("seat", n) for a seat written in the rules, None when the analysis cannot say."""
    if isinstance(node, Local) and node.mode == "frame":
        return "local", node.key()
    if isinstance(node, K) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return "seat", node.value
    return None


def _blind(t):
    """A taint with its knowers forgotten (it crosses into another procedure or into state)."""
    return frozenset(x[:3] + (None,) for x in t) if t else t


class FrameSecrets(InfoFlow):
    """What each resumable procedure's frame holds at each place it stops that not every seat sees,
    and which seat does: a bot imagines the rest afresh (``interpreter.runtime.observe.resample``).

    The information-flow check's analysis, with two differences. A decision's choice is secret
    from the other seats whatever its options (nobody else sees the action taken) until the rules
    show it — an announcement naming it, ``reveal``, a move to a public zone. And each secret
    carries its knower (a fourth item): the seat whose hand, owner state or decision it comes
    from, as a local of the frame (``p`` in ``for p in players: p chooses ...``) or a seat
    written in the rules — forgotten when that local is set again, or the secret reaches state
    or another procedure. Leaks are not reported here (``check`` does that)."""

    def __init__(self, comp):
        super().__init__(comp)
        self.at_stops: dict = {}       # (procedure ref, label) -> {frame slot: taint}

    def _found(self, err):
        pass

    def _new_round(self):
        super()._new_round()
        self.at_stops = {}          # what the last round (the settled one) saw at each stop

    def _zone_cards(self, zone_expr, env):
        t = super()._zone_cards(zone_expr, env)
        if not any(x[0] == "zone" and len(x) == 3 for x in t):
            return t
        info = self._zone_of(zone_expr)
        if info is None or info.visibility not in ("owner", "team"):
            who = None              # a facedown or hidden zone: nobody sees its cards, its owner neither
        elif isinstance(zone_expr, ast.BinOp):
            who = _knower(zone_expr.right)
        else:
            who = None if info.owner is None else ("seat", info.owner)
        return frozenset(x + (who,) if len(x) == 3 else x for x in t)

    def expr(self, n, env):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Subscript) and isinstance(n.value.value, St) \
                and n.value.value.which == "pv" and isinstance(n.value.slice, K):
            info = self._var("pv", n.value.slice.value)
            if info is not None and info.visibility in ("owner", "team") \
                    and not env.get(("shown value", "pv", n.value.slice.value)):
                own = frozenset({("var", info.name, f"'{info.name}' ({info.visibility})", _knower(n.slice))})
                return join(own, self.expr(n.slice, env))
        elif isinstance(n, ast.Call) and getattr(n.func, "id", None) == "len" and len(n.args) == 1:
            t = super().expr(n, env)            # how many cards a hidden zone holds: nobody's secret
            return frozenset(x if len(x) == 4 else x + (None,) for x in t) if t else t
        return super().expr(n, env)

    def _where(self, owners, card, env):
        return NONE         # a seat believes cards where it saw them (observe.resample): not a frame secret

    def _var_taint(self, part: str, i: int, env: dict):
        t = super()._var_taint(part, i, env)
        return frozenset(x if len(x) == 4 else x + (None,) for x in t) if t else t

    def _forget(self, env: dict, key) -> dict:
        """``key`` is set again: a secret it named the knower of is nobody's known secret now."""
        gone = ("local", key)
        out = {}
        for k, v in env.items():
            if isinstance(v, frozenset) and k[0] != "in" and any(x[3] == gone for x in v):
                v = frozenset(x[:3] + (None,) if x[3] == gone else x for x in v)
            out[k] = v
        return out

    def stmt(self, s, env):
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], Local):
            env = self._forget(super().stmt(s, env), s.targets[0].key())
            return env
        if isinstance(s, ast.AugAssign) and isinstance(s.target, Local):
            return self._forget(super().stmt(s, env), s.target.key())
        if isinstance(s, ast.For) and isinstance(s.target, Local):
            key = s.target.key()        # each round sets the loop's local again: forget it each round
            env = self._forget({**env, key: self.expr(s.iter, env)}, key)
            for _ in range(4):
                after = self._merge(env, self._forget(self.block(s.body, env), key))
                if after == env:
                    break
                env = after
            return env
        if isinstance(s, Stop):
            env = self._flush(self.block(s.pre, env))
            self._record(s, env)
            if s.kind == "call":
                self._call(s.callee, getattr(s, "args", []), env)
                return {**env, ("ret",): self.ret_taint.get(s.callee, NONE)}
            if s.chosen is not None:
                key = s.chosen.key()
                env = self._forget(env, key)
                secret = self.expr(s.options, env)
                kind = "chosen" if secret else "decided"
                env[key] = frozenset({(kind, key, "a decision's choice", _knower(decision_seat(s)))})
            return env
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Attribute) and s.targets[0].attr == "ann" \
                and isinstance(s.value, ast.Tuple):
            tid = s.value.elts[1]
            if not (isinstance(tid, K) and self.c.templates[tid.value].private):
                for v in s.value.elts[2:]:        # told to every seat
                    if isinstance(v, Local):
                        env = self._shown(env, v.key())
            return env
        return super().stmt(s, env)

    def _shown(self, env: dict, key, zone=None) -> dict:
        # a card moved to a public zone is seen there (a seat believes cards where it saw them)
        gone = {t[:2] for t in env.get(key, NONE) if t[0] in ("chosen", "decided")}
        gone |= {("chosen", key), ("decided", key)}
        out = {}
        for k, v in env.items():
            if k in ("pending", "private") or isinstance(v, bool) or k[0] == "in":
                out[k] = v
            else:
                out[k] = frozenset(t for t in v if t[:2] not in gone)
        out[key] = NONE
        return out

    # whether cards put in a public zone were seen there is the check's (infoflow), not the frame's
    @staticmethod
    def _arrive(env, zone, taint):
        return env

    @staticmethod
    def _sweep(env, zones):
        return env

    @staticmethod
    def _told(s, env):
        return env

    def _record(self, s, env):
        at = self.at_stops.setdefault((self.cur, s.label), (list(s.saved), {}))[1]
        for slot in s.saved:
            t = env.get(("frame", slot), NONE)
            if t:
                at[slot] = join(at.get(slot), t)

    def _call(self, ref, args, env):
        super()._call(ref, args, {k: _blind(v) if isinstance(v, frozenset) else v for k, v in env.items()})

    def _returned(self, t):
        super()._returned(_blind(t))

    def _store(self, target, t, s, env):
        # state is followed as the check follows it (where a choice among public options is not a
        # secret): hidden state's own secrets are redrawn from its values (dsl.analysis.facts.domains)
        t = frozenset(x for x in t if x[0] != "decided") if t else t
        return super()._store(target, _blind(t), s, env)


def frame_secrets(comp) -> dict:
    """{(procedure ref, label): (the frame slots kept there, {slot: its secrets})} — the locals a
    frame keeps over a stop that hold what some seat does not see; each secret (kind, key, text,
    knower)."""
    flow = FrameSecrets(comp)
    flow.run()
    return flow.at_stops
