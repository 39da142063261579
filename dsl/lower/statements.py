"""Check statements and lower procedures to IR: structured statements, with every place a
resumable procedure can stop made an explicit ``Stop``.

A statement is *resumable* when the game can stop inside it: a decision, the end of the game, or
a call of a resumable procedure. A procedure holding one is compiled as a resumable procedure: its
locals live in its frame, its loops that hold a stop keep their counters in the frame too, and a
procedure called from one place only is written into its caller. The others are plain functions.
``dsl.passes.resume`` then cuts a resumable procedure into one entry per place to start from.
"""
from __future__ import annotations

import ast

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.errors import did_you_mean
from rulesrun.dsl.ir import (
    K,
    Local,
    Move,
    Reveal,
    St,
    Stop,
    assign,
    at,
    augassign,
    binop,
    call,
    compare,
    expr_stmt,
    name,
    ret,
    sub,
)
from rulesrun.dsl.analysis import facts
from rulesrun.dsl.ir import typed, walk_exprs
from rulesrun.dsl.passes import asks, inline
from rulesrun.dsl.passes.resume import stops
from rulesrun.dsl.program import DONE, LOOPS_TOO_LONG, SWITCH, Template
from rulesrun.dsl.scope import Scope


def state_attr(attr: str):
    return ast.Attribute(value=name("S"), attr=attr, ctx=ast.Load())


def sub_bodies(s) -> list:
    if isinstance(s, A.If):
        return [b for _, b in s.branches] + ([s.orelse] if s.orelse is not None else [])
    if isinstance(s, (A.While, A.Repeat, A.For)):
        return [s.body]
    if isinstance(s, (A.ChooseBlock, A.Window)):
        return [b.body for b in s.branches]
    if isinstance(s, A.AtOnce):
        return [s.body, s.then]
    return []


def _return_type(comp, types: list, pname: str, pos):
    """The type of what a procedure returns: the one type of its 'return VALUE's (none alone
    fits any), or None when it returns nothing."""
    out = None
    for t, where in types:
        if t == T.NONE and out is not None:
            continue
        j = t if out is None else T.join(out, t)
        if j is None:
            comp.err(f"procedure '{pname}' returns a {T.describe(out)} elsewhere, and a {T.describe(t)} here",
                     where, "return one type of value")
        out = j
    return out


def call_of(s):
    """The call a statement makes to a procedure or a function: a line of its own, or the whole
    right side of ``let`` / an assignment (a procedure that returns a value)."""
    if isinstance(s, A.ExprStmt) and isinstance(s.expr, A.Call):
        return s.expr
    if isinstance(s, (A.Let, A.Assign)) and isinstance(s.expr, A.Call):
        return s.expr
    return None


def has_return(body) -> bool:
    for s in body:
        if isinstance(s, A.Return) or any(has_return(b) for b in sub_bodies(s)):
            return True
    return False


class Statements:
    """Mixed into the compiler (``dsl.compiler``): statements and procedures."""

    # ── which procedures stop, and which are written into their caller ─────
    def _find_resumable(self) -> set:
        def direct(body):
            calls, stop = set(), False
            for s in body:
                if isinstance(s, (A.Choose, A.ChooseBlock, A.Window, A.EndGame)):
                    stop = True
                elif call_of(s) is not None:
                    calls.add(call_of(s).func)
                for part in sub_bodies(s):
                    c, st = direct(part)
                    calls |= c
                    stop = stop or st
            return calls, stop
        info = {pname: direct(p.body) for pname, p in self.proc_decls.items()}
        out = {pname for pname, (_, stop) in info.items() if stop}
        changed = True
        while changed:
            changed = False
            for pname, (calls, _) in info.items():
                if pname not in out and calls & out:
                    out.add(pname)
                    changed = True
        return out

    def _labels(self, s) -> int:
        """How many places to resume at a statement holds: decisions and resumable calls."""
        if isinstance(s, A.Choose):
            return 1
        if isinstance(s, (A.ChooseBlock, A.Window)):      # (a window: one choice block in a loop)
            return 1 + sum(self._labels(x) for b in sub_bodies(s) for x in b)
        if call_of(s) is not None:
            pname = call_of(s).func
            if pname in self.inline:
                return sum(self._labels(x) for x in self.proc_decls[pname].body)
            return int(pname in self.resumable)
        if isinstance(s, A.AtOnce):        # written out once for each seat (dsl.lower.at_once)
            return self.N * sum(self._labels(x) for b in sub_bodies(s) for x in b)
        return sum(self._labels(x) for b in sub_bodies(s) for x in b)

    def _find_inline(self, flow_body) -> set:
        """Resumable procedures written into their caller instead of called: those called from one
        place only and never, even indirectly, from themselves."""
        calls: dict = {}
        sites: dict = {}

        def walk(body, into):
            for s in body:
                c = call_of(s)
                if c is not None:
                    into.add(c.func)
                    sites[c.func] = sites.get(c.func, 0) + 1
                for part in sub_bodies(s):
                    walk(part, into)
        walk(flow_body, set())
        for pname, p in self.proc_decls.items():
            walk(p.body, calls.setdefault(pname, set()))

        def reaches_itself(pname):
            seen, todo = set(), list(calls.get(pname, ()))
            while todo:
                n = todo.pop()
                if n == pname:
                    return True
                if n not in seen:
                    seen.add(n)
                    todo.extend(calls.get(n, ()))
            return False
        return {n for n in self.resumable if sites.get(n) == 1 and not reaches_itself(n)
                and not has_return(self.proc_decls[n].body)}

    # ── procedures ─────────────────────────────────────────────────────────
    def _proc_body(self, pname, params, arg_types, body, pos, resumable: bool):
        """Compile one procedure for one list of argument types; gives its index (resumable) or
        the name of its Python function (plain)."""
        key = (pname, arg_types)
        scope = Scope("frame" if resumable else "py")
        if resumable:
            ref = len(self.procs)
            self.procs.append(None)
            self.proc_names.append(pname)
            self.proc_nslots.append(0)
            self.proc_pad.append([])
        else:
            ref = self.gen.fresh("_P")
        self.proc_index[key] = ref
        scope.params = set(range(len(params)))     # the first slots: what the caller passes
        args = [scope.ref(scope.bind(p, t, pos, self), t) for p, t in zip(params, arg_types)]
        saved_label, saved_ret = self.next_label, getattr(self, "returning", None)
        self.next_label = 1
        self.returning = (pname, [], resumable)
        stmts = self.block(body, scope)
        labels = self.next_label - 1
        self.next_label = saved_label
        self.proc_rtype[key] = _return_type(self, self.returning[1], pname, pos)
        self.returning = saved_ret
        what = f"procedure {pname}" if pname != "flow" else "flow"
        self.ir_bodies.append(stmts)
        self.ir_procs[ref] = (args, stmts)
        if resumable:
            self.procs[ref] = self.gen.resumable(ref, stmts, scope.n, labels, what)
            slot_types = {n.slot: n.rtype for s in stmts for n in walk_exprs(s)
                          if isinstance(n, Local) and n.mode == "frame" and n.rtype not in (None, T.NONE)}
            self.frame_types[ref] = facts.frame_types(stops(stmts), slot_types)
            self.frame_types[ref][0] = [slot_types.get(i, T.NONE) for i in range(scope.n)]
            self.proc_nslots[ref] = scope.n
            self.proc_pad[ref][:] = [None] * (scope.n - len(params))
        else:
            local = [Local(i, "py") for i in range(len(params), scope.n) if i not in scope.temps]
            if local:
                stmts = [at(ast.Assign(targets=local, value=K(None)), None)] + stmts
            self.gen.function(ref, ["S"] + args, stmts, what, hoist=True)
        return ref

    def block(self, stmts, scope) -> list:
        out: list = []
        for s in stmts:
            out.extend(getattr(self, "_s_" + type(s).__name__)(s, scope))
        return out

    # ── simple statements ──────────────────────────────────────────────────
    def _s_Pass(self, s, scope):
        return []

    def _rhs(self, s, scope) -> tuple:
        """The right side of let / an assignment: (statements first, value, type) — a procedure's
        value is worked out by calling it first."""
        if isinstance(s.expr, A.Call) and s.expr.func in self.proc_decls:
            return self._value_call(s, scope)
        if isinstance(s.expr, A.RandomPick):
            return self._random_pick(s.expr, scope)
        node, t = self.expr(s.expr, scope)
        return [], node, t

    def _s_Let(self, s, scope):
        pre, node, t = self._rhs(s, scope)
        if s.name in self.globals or s.name in self.consts or s.name in self.zone_index:
            self.err(f"'{s.name}' is already the name of a {'constant' if s.name in self.consts else 'game value'}",
                     s.pos, "choose another name for the local value")
        slot = scope.bind(s.name, t, s.pos, self)
        return pre + [assign(scope.ref(slot, t), node, s.pos)]

    def _s_Assign(self, s, scope):
        pre, node, t = self._rhs(s, scope)
        tgt = s.target
        op = s.op
        if isinstance(tgt, A.Name):
            hit = scope.lookup(tgt.id)
            if hit is not None:
                slot, tt = hit
                if tt in (T.NONE, "list:none") and op == "=" and T.compatible(tt, t):
                    scope.bind(tgt.id, t, s.pos, self)   # 'let xs = []' learns its type here
                    tt = t
                place = scope.ref(slot, tt)
            elif tgt.id in self.globals:
                i, info = self.globals[tgt.id]
                tt = info.type
                place = sub(St("g"), K(i))
            elif tgt.id in self.consts:
                self.err(f"'{tgt.id}' is a constant and cannot change", tgt.pos,
                         "declare it with 'state' if it changes during the game")
            else:
                self._e_Name(tgt, scope)  # reports the unknown name, with suggestions
                self.err(f"'{tgt.id}' cannot be assigned to", tgt.pos)
        else:
            obj, ot = self.expr(tgt.obj, scope)
            if ot == T.PLAYER and tgt.name in self.pvars:
                i, info = self.pvars[tgt.name]
                if i == self.team_var and self.team_assigned is None:
                    self.team_assigned = s.pos      # teams formed during play (dsl.check.teams)
                tt = info.type
                place = sub(sub(St("pv"), K(i)), obj)
            elif ot == T.CARD and tgt.name in self.cvars:
                i, info = self.cvars[tgt.name]
                tt = info.type
                place = sub(sub(St("cv"), K(i)), obj)
            elif ot == T.TEAM:
                place, tt = self._team_attr(tgt, obj)
            elif ot == T.CARD and tgt.name in self.attrs:
                self.err(f"'{tgt.name}' is printed on the card and cannot change", tgt.pos,
                         "declare 'card state' for a value that changes")
            else:
                self._e_Attr(tgt, scope)
                self.err(f"'{tgt.name}' cannot be assigned to", tgt.pos)
        target = tgt.id if isinstance(tgt, A.Name) else tgt.name
        if op == "=":
            self._expect(t, tt, s.expr.pos, f"the new value of '{target}'")
            return pre + [assign(place, node, s.pos)]
        self._expect(tt, T.NUMBER, tgt.pos, f"'{op}' works on numbers; '{target}'")
        self._expect(t, T.NUMBER, s.expr.pos, f"what '{op}' adds")
        return pre + [augassign(place, op[0], node, s.pos)]

    def _zone_expr(self, e, scope, what):
        node, t = self.expr(e, scope)
        if t != T.ZONE:
            self.err(f"{what} must be a zone, not a {T.describe(t)}", e.pos)
        return node

    def _s_Move(self, s, scope):
        if isinstance(s.what, A.Name) and s.what.id in self.families:
            self.err(f"'{s.what.id}' is a per-player zone: say whose", s.what.pos, f"write p.{s.what.id}")
        what, wt = self.expr(s.what, scope)
        dest = self._zone_expr(s.dest, scope, "where cards move to")
        if wt == T.CARD:
            return [Move(what, dest, s.bottom, s.pos)]
        if wt == T.ZONE:
            return [expr_stmt(call("move_zone", name("S"), what, dest, K(s.bottom)), s.pos)]
        if wt in (T.list_of(T.CARD), "list:none"):
            if isinstance(s.what, A.EveryCard) and not s.bottom:     # gathering the cards: no list to read
                return [expr_stmt(call("move_every", name("S"), dest), s.pos)]
            return [expr_stmt(call("move_cards", name("S"), what, dest, K(s.bottom)), s.pos)]
        self.err(f"only cards move; this is a {T.describe(wt)}", s.what.pos)

    def _s_Shuffle(self, s, scope):
        z = self._zone_expr(s.zone, scope, "what is shuffled")
        return [expr_stmt(call("shuffle_zone", name("S"), z), s.pos)]

    def _s_Deal(self, s, scope):
        n = self.num(s.count, scope, "how many cards are dealt")
        src = self._zone_expr(s.source, scope, "where cards are dealt from")
        if s.family not in self.families:
            self.err(f"cards are dealt to a per-player zone, and '{s.family}' is not one", s.family_pos,
                     did_you_mean(s.family, self.families) or "declare it with 'zone NAME per player: owner'")
        start = K(0)
        if s.start is not None:
            start, st = self.expr(s.start, scope)
            self._expect(st, T.PLAYER, s.start.pos, "who is dealt to first")
        return [expr_stmt(call("deal", name("S"), n, src, K(self.families[s.family]), K(self.N), K(s.pos), start),
                          s.pos)]

    def _s_Announce(self, s, scope):
        # a zone in braces ("You hold {p.hand}.") tells its cards, as they are now
        parts = [p if isinstance(p, str) or p[2] != T.ZONE else
                 (typed(call("list", sub(St("z"), p[0])), T.list_of(T.CARD)), self.display(T.list_of(T.CARD)),
                  T.list_of(T.CARD)) for p in self._text(s.text.parts, scope)]
        tid = len(self.templates)
        types = [p[2] for p in parts if not isinstance(p, str)]
        vals = [p[0] for p in parts if not isinstance(p, str)]
        if s.to is not None:       # told to one seat: the seat is stored first
            who, wt = self.expr(s.to, scope)
            self._expect(wt, T.PLAYER, s.to.pos, "who an announcement is told to")
            types, vals = [T.PLAYER] + types, [who] + vals
        self.templates.append(Template([p if isinstance(p, str) else (p[0], p[1]) for p in parts], s.pos,
                                       types, private=s.to is not None))
        # the announcements are a linked list: (earlier, template, values...)
        entry = ast.Tuple(elts=[state_attr("ann"), K(tid), *vals], ctx=ast.Load())
        return [assign(state_attr("ann"), entry, s.pos)]

    def _s_Reveal(self, s, scope):
        """For the information-flow check, the values are seen from here: by every seat, or with
        ``to`` by that player. At run time what was shown is noted in ``S.shown`` (a new dict each
        time): a state value by its (part, var, index); a local by ("local", line, place) for a card
        or cards, ("value", line, place) for any other value; a zone's cards by ("zone", line,
        place) — each key with the seat appended when shown to one player. A bot imagining what it
        cannot see keeps what the rules showed its seat (``interpreter.runtime.observe.resample``),
        and ``check``'s twin test compares it (two deals part where the rules show different
        things)."""
        typed = [self.expr(e, scope) for e in s.exprs]
        values = [v for v, _ in typed]
        seat = None
        if s.to is not None:
            seat, st = self.expr(s.to, scope)
            self._expect(st, T.PLAYER, s.to.pos, "who a reveal shows the values to")
        out: list = [Reveal(values, s.pos, to=seat)]
        for i, (v, t) in enumerate(typed):
            key = _state_key(v)
            if key is None and s.pos is not None and t != T.FAMILY:
                part = "zone" if t == T.ZONE else "local" if t in (T.CARD, T.list_of(T.CARD)) else "value"
                key = (K(part), K(s.pos.line), K(i))
                if part == "zone":
                    v = call("list", sub(St("z"), v))
            if key is not None:
                if seat is not None:
                    key = (*key, seat)
                shown = ast.Dict(keys=[None, ast.Tuple(elts=list(key), ctx=ast.Load())], values=[state_attr("shown"), v])
                out.append(assign(state_attr("shown"), shown, s.pos))
        return out

    def _s_EndGame(self, s, scope):
        clear = at(ast.Delete(targets=[ast.Subscript(value=state_attr("frames"), slice=ast.Slice(), ctx=ast.Del())]), s.pos)
        return [clear, ret(K(SWITCH), s.pos)]

    # ── calls ──────────────────────────────────────────────────────────────
    def _s_Return(self, s, scope):
        ctx = getattr(self, "returning", None)
        if ctx is None or ctx[0] == "flow":
            self.err("'return' ends a procedure, and this is not in one", s.pos,
                     "use 'end game' to end the game")
        pname, types, resumable = ctx
        if s.value is None:
            value, t = K(None), T.NONE
        else:
            value, t = self.expr(s.value, scope)
        types.append((t, s.pos))
        if not resumable:
            return [ret(value, s.pos)]
        return [assign(state_attr("ret"), value, s.pos), expr_stmt(call(ast.Attribute(value=state_attr("frames"), attr="pop",
                ctx=ast.Load())), s.pos), ret(K(DONE), s.pos)]

    def _random_pick(self, e, scope) -> tuple:
        """``random from SOURCE``: a chance event. The options are worked out as for a choice;
        the engine picks one with the game's seeded generator (or the next value stacked for a
        test) and records it in the history."""
        src, et, _ = self._source(e.source, scope)
        if T.is_list(et) or et in (T.ZONE, T.FAMILY):
            self.err(f"'random from' picks one value; this gives a {T.describe(et)} each time", e.source.pos)
        opts = scope.ref(scope.temp())
        value = call("pick_random", name("S"), opts, K(self.display(et)), K(e.pos))
        return [assign(opts, call("list", src), e.pos)], typed(value, et), et

    def _value_call(self, s, scope) -> tuple:
        """``let x = proc(...)`` / ``x = proc(...)``: the call, then the value it returned. Gives
        (statements before the value is read, the value's node, its type)."""
        c = s.expr
        d = self.proc_decls[c.func]
        if not has_return(d.body):
            self.err(f"procedure '{c.func}' does not give a value (it has no 'return VALUE')", c.pos,
                     "call it on a line of its own, or give it a 'return VALUE'")
        stmts, key = self._call_proc(s, c, scope)
        rtype = self.proc_rtype.get(key)
        if rtype is None:
            self.err(f"procedure '{c.func}' uses its own value before its type is known", c.pos,
                     "a procedure that returns a value cannot take its own value (directly or through others)")
        if c.func in self.resumable:
            return [assign(state_attr("ret"), K(None), s.pos)] + stmts, state_attr("ret"), rtype
        call_node = stmts[-1].value            # a plain procedure: a Python function's value
        return stmts[:-1], call_node, rtype

    def _s_ExprStmt(self, s, scope):
        c = s.expr
        return self._call_proc(s, c, scope)[0]

    def _call_proc(self, s, c, scope) -> tuple:
        """The statements that call procedure ``c`` (a Stop for one that may stop), and the key
        of the procedure compiled for these argument types."""
        if c.func not in self.proc_decls:
            if c.func in self.defines or c.func in self.BUILTINS:
                self.err(f"{c.func}(...) gives a value, and this line throws it away", c.pos,
                         "use it in a statement, like 'let x = ...'")
            self.err(f"unknown procedure '{c.func}'", c.pos, did_you_mean(c.func, self.proc_decls))
        d = self.proc_decls[c.func]
        self.called.add(d.name)
        if len(c.args) != len(d.params):
            self.err(f"{d.name}() takes {len(d.params)} argument{'s' if len(d.params) != 1 else ''}, "
                     f"not {len(c.args)}", c.pos, f"it is defined at line {d.pos.line}")
        args = [self.expr(a, scope) for a in c.args]
        key = (d.name, tuple(t for _, t in args))
        if d.name in self.inline:
            return self._inline_call(s, d, args, scope), key
        resumable = d.name in self.resumable
        if key not in self.proc_index:
            with self._called_from(c, d.name, list(key[1])):
                self._proc_body(d.name, d.params, key[1], d.body, d.pos, resumable)
        ref = self.proc_index[key]
        nodes = [a for a, _ in args]
        if not resumable:
            return [expr_stmt(call(ref, name("S"), *nodes), s.pos)], key
        kpos = K(s.pos)
        too_deep = ast.If(test=compare(call("len", state_attr("frames")), ">", K(5000)), orelse=[], body=[expr_stmt(
            call("fail", K("procedures call one another without end (more than 5,000 deep)"), kpos), s.pos)])
        frame = ast.List(elts=[K(ref), K(0), binop(ast.List(elts=nodes, ctx=ast.Load()), "+",
                                                   sub(K(self.proc_pad), K(ref)))], ctx=ast.Load())
        pre = [at(too_deep, s.pos), assign(name("_G"), frame, s.pos),
               expr_stmt(call(ast.Attribute(value=state_attr("frames"), attr="append", ctx=ast.Load()), name("_G")), s.pos)]
        stop = Stop("call", self._label(), pre, s.pos, callee=ref)
        stop.args = nodes
        return [stop], key

    def _label(self) -> int:
        self.next_label += 1
        return self.next_label - 1

    def _inline_call(self, s, d, args, scope):
        """A resumable procedure written out in its caller: its locals take the next frame slots
        of the caller, its arguments are assigned to its parameters, and its body follows."""
        inner = Scope("frame")
        inner.n = scope.n
        slots = [inner.bind(p, t, d.pos, self) for p, (_, t) in zip(d.params, args)]
        self.inlined += 1
        with self._called_from(s.expr, d.name, [t for _, t in args]):
            body = self.block(d.body, inner)
        scope.n = inner.n
        # a parameter the body never assigns is its argument (a local or a constant), not a copy
        written = inline.written(body)
        same = {inner.ref(k, t).key(): a for k, (a, t) in zip(slots, args)
                if inline.simple(a) and not isinstance(a, ast.Name) and inner.ref(k, t).key() not in written}
        inline.replace_locals(body, same)
        return [assign(inner.ref(k, t), a, s.pos) for k, (a, t) in zip(slots, args)
                if inner.ref(k, t).key() not in same] + body

    # ── control flow ───────────────────────────────────────────────────────
    def _budget(self, pos) -> list:
        """One round of a 'while' loop. Such loops are the only way to run on for ever without a
        decision ('for' and 'repeat' loops end by themselves), so this is where the engine's budget
        of rounds without one is spent (``S.budget``)."""
        return [augassign(state_attr("budget"), "-", K(1), pos), self._over_budget(pos)]

    def _s_If(self, s, scope):
        tests = [(self._cond(cond, scope, "an 'if' condition"), cond.pos, self.block(body, scope))
                 for cond, body in s.branches]
        orelse = self.block(s.orelse, scope) if s.orelse is not None else []
        for test, pos, body in reversed(tests):
            orelse = [at(ast.If(test=test, body=body or [at(ast.Pass(), pos)], orelse=orelse), pos)]
        return orelse

    def _s_While(self, s, scope):
        test = self._cond(s.cond, scope, "a 'while' condition")
        body = self.block(s.body, scope)
        if not _asks_each_round(body):      # a round that always asks someone spends nothing
            body = self._budget(s.pos) + body
        return [at(ast.While(test=test, body=body, orelse=[]), s.cond.pos)]

    def _spend(self, rounds, pos) -> list:
        """A loop's rounds spent from the budget at once, before the loop (``for`` and ``repeat``
        end by themselves, but a huge count must not hang the game either)."""
        spent = augassign(state_attr("budget"), "-", rounds, pos)
        return [spent, self._over_budget(pos)]

    def _over_budget(self, pos):
        return at(ast.If(test=compare(state_attr("budget"), "<", K(0)), orelse=[], body=[expr_stmt(call(
            "fail", K(LOOPS_TOO_LONG), K(pos)), pos)]), pos)

    def _s_Repeat(self, s, scope):
        n = self.num(s.count, scope, "how many times to repeat")
        if not self._labels(s):
            body = self.block(s.body, scope)
            if isinstance(n, K) and isinstance(n.value, int) and n.value <= 1000:
                return [at(ast.For(target=scope.ref(scope.temp()), iter=call("range", n),
                                   body=body or [at(ast.Pass(), s.pos)], orelse=[]), s.pos)]
            rounds = scope.ref(scope.temp(), T.NUMBER)
            return [assign(rounds, n, s.pos)] + self._spend(rounds, s.pos) + [
                at(ast.For(target=scope.ref(scope.temp()), iter=call("range", rounds),
                           body=body or [at(ast.Pass(), s.pos)], orelse=[]), s.pos)]
        count = Local(scope.n, scope.mode, T.NUMBER)      # rounds left, kept in the frame
        scope.n += 1
        body = self.block(s.body, scope) + [augassign(count, "-", K(1), s.pos)]
        return [assign(count, n, s.pos)] + self._spend(count, s.pos) + [
            at(ast.While(test=compare(count, ">", K(0)), body=body, orelse=[]), s.pos)]

    def _s_For(self, s, scope):
        src, et, is_zone = self._source(s.source, scope)
        var = scope.ref(scope.bind(s.var, et, s.pos, self), et)
        if not self._labels(s):
            body = self.block(s.body, scope)
            if isinstance(src, K):             # a list known when compiling: its size is fixed
                return [at(ast.For(target=var, iter=src, body=body or [at(ast.Pass(), s.pos)], orelse=[]), s.pos)]
            items = scope.ref(scope.temp(), T.list_of(et))
            return [assign(items, call("list", src) if is_zone else src, s.pos)] + \
                self._spend(call("len", items), s.pos) + \
                [at(ast.For(target=var, iter=items, body=body or [at(ast.Pass(), s.pos)], orelse=[]), s.pos)]
        items, idx = Local(scope.n, scope.mode, T.list_of(et)), Local(scope.n + 1, scope.mode, T.NUMBER)   # in the frame
        scope.n += 2
        body = [assign(var, sub(items, idx), s.pos)] + self.block(s.body, scope) + [augassign(idx, "+", K(1), s.pos)]
        fixed = _fixed_length(src)
        if fixed is not None:       # a row of a table known when compiling: never changed, never copied
            return [assign(items, src, s.pos), assign(idx, K(0), s.pos),
                    at(ast.While(test=compare(idx, "<", K(fixed)), body=body, orelse=[]), s.pos)]
        return [assign(items, call("list", src), s.pos), assign(idx, K(0), s.pos)] + \
            self._spend(call("len", items), s.pos) + \
            [at(ast.While(test=compare(idx, "<", call("len", items)), body=body, orelse=[]), s.pos)]


def _fixed_length(src):
    """The length of every list ``src`` can be, when it is a list known when compiling or a row of
    such a table whose rows are all as long (the players from a seat) — at most 1,000, so that a
    loop over it needs no budget, as a 'repeat' of a constant count — else None."""
    if isinstance(src, ast.Subscript) and isinstance(src.value, K):
        rows = src.value.value
        if isinstance(rows, list) and rows and all(isinstance(r, list) for r in rows):
            sizes = {len(r) for r in rows}
            if len(sizes) == 1 and sizes.pop() <= 1000:
                return len(rows[0])
    return None


def _state_key(node):
    """(part, var, index) nodes of a read of state: ("g", i, None), ("pv", i, player), ("cv", i, card)."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, St) and node.value.which == "g":
        return K("g"), node.slice, K(None)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Subscript) \
            and isinstance(node.value.value, St) and node.value.value.which in ("pv", "cv"):
        return K(node.value.value.which), node.value.slice, node.slice
    return None


def _asks_each_round(stmts: list) -> bool:
    """Whether every way through ``stmts`` reaches a decision before it can leave them: a loop with
    such a body cannot run on without one (the engine's budget is renewed at each decision)."""
    return asks.each_round(stmts)
