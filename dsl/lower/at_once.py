"""Simultaneous choices: ``for p in SEATS at once: BODY then: THEN``.

Every seat of ``SEATS`` makes the choices of ``BODY`` without seeing any other seat's picks, and
only once all have chosen does ``THEN`` run, for each seat in seat order, with that seat's picks.
The engine asks one seat at a time, so the block is lowered to a sequence of hidden decisions
whose order reveals nothing:

* the body is written out once per seat of the game (the number of players is known when
  compiling), in seat order — never in the order of ``SEATS`` — each copy with the seat as a
  constant and names of its own for what it binds: seat 2's copy cannot name seat 1's pick. A copy
  runs when its seat is among ``SEATS``, worked out once as the block starts;
* the body only chooses (``chooses``, ``chooses subset``, choice blocks whose branches only
  choose, ``let``, ``if`` / loops around them): it changes nothing any seat can see — no move, no
  state, no announcement, no call — so nothing a later seat observes (zones, state, the log, whose
  turn it is, the labels and options of its decisions) can depend on an earlier seat's pick. What
  the picks do is written under ``then:``; this module refuses anything else in the body, saying
  where it goes;
* the state keeps which block is open (``State.at_once``: the web table asks every seat at once,
  ``check``'s twin test and the bridges know the picks are still pending), and every decision of
  a copy knows its block and seat (``Decision.at_once``).

The picks wait in the frame's locals until ``then:``: the bots' determinisation redraws another
seat's pending pick like any frame secret (``dsl.analysis.facts.frame_secrets``, whose knower is
the copy's constant seat), and ``check`` varies them (``interpreter.checking.leaks``).
"""
from __future__ import annotations

import ast

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.ir import K, Stop, assign, at, call, compare, name, sub, typed, walk
from rulesrun.dsl.lower.statements import state_attr

WHERE = "write it under 'then:', which runs for each player once every player has chosen"

_REFUSED = {
    A.Move: "moves a card",
    A.Shuffle: "shuffles a zone",
    A.Deal: "deals cards",
    A.Announce: "announces",
    A.Reveal: "reveals",
    A.EndGame: "ends the game",
    A.Return: "returns from the procedure",
    A.ExprStmt: "calls a procedure",
    A.AtOnce: "opens another 'at once' block",
}


def _binds(body) -> set:
    """The names a body binds (its lets, picks and loop variables, and its choice blocks' own)."""
    out: set = set()
    for s in body:
        if isinstance(s, A.Let):
            out.add(s.name)
        elif isinstance(s, A.Choose):
            out.add(s.var)
        elif isinstance(s, A.ChooseBlock):
            out.add(f"choice@{s.pos.line}:{s.pos.column}")
            for b in s.branches:
                if b.pick is not None:
                    out.add(b.pick.var)
                out |= _binds(b.body)
        elif isinstance(s, A.If):
            for _, b in s.branches:
                out |= _binds(b)
            if s.orelse is not None:
                out |= _binds(s.orelse)
        elif isinstance(s, (A.Repeat, A.While)):
            out |= _binds(s.body)
        elif isinstance(s, A.For):
            out.add(s.var)
            out |= _binds(s.body)
    return out


class AtOnceBlocks:
    """Mixed into the compiler (``dsl.compiler``) beside ``dsl.lower.statements.Statements``."""

    def _only_chooses(self, body, var: str, bound: set, head: str) -> int:
        """Check that ``body`` only chooses (see the module); gives how many decisions it holds."""
        asks = 0
        for s in body:
            what = _REFUSED.get(type(s))
            if isinstance(s, A.Assign) and not (isinstance(s.target, A.Name) and s.target.id in bound):
                what = "changes a value every player might see, or one the other seats' choices share"
            elif isinstance(s, (A.Let, A.Assign)) and isinstance(s.expr, A.RandomPick):
                what = "draws at random"
            elif isinstance(s, (A.Let, A.Assign)) and isinstance(s.expr, A.Call) and s.expr.func in self.proc_decls:
                what = "calls a procedure"
            if what is not None:
                self.err(f"inside '{head}', this line {what}: every player chooses without seeing the "
                         f"others' choices, so nothing may happen until all have chosen", s.pos, WHERE)
            if isinstance(s, (A.Choose, A.ChooseBlock)):
                if not (isinstance(s.player, A.Name) and s.player.id == var):
                    self.err(f"inside '{head}', each player makes their own choices: this one is not "
                             f"made by '{var}'", s.player.pos, f"write '{var} chooses ...'")
                asks += 1
            inner = 0
            if isinstance(s, A.ChooseBlock):
                for b in s.branches:
                    inner += self._only_chooses(b.body, var, bound, head)
            elif isinstance(s, A.If):
                for _, b in s.branches:
                    inner += self._only_chooses(b, var, bound, head)
                if s.orelse is not None:
                    inner += self._only_chooses(s.orelse, var, bound, head)
            elif isinstance(s, (A.Repeat, A.While, A.For)):
                inner += self._only_chooses(s.body, var, bound, head)
            test = {A.If: lambda: [c for c, _ in s.branches], A.While: lambda: [s.cond],
                    A.Repeat: lambda: [s.count], A.For: lambda: [s.source]}.get(type(s))
            read = sorted({n.id for n in A.walk(test()) if isinstance(n, A.Name)} & bound) if test else ()
            if inner and read and not self.allow_leaks and not isinstance(s, A.ChooseBlock):
                self.err(f"inside '{head}', whether (or how often) this asks again depends on '{read[0]}', "
                         f"a pick: the others would learn of it from whose turn it is", s.pos,
                         "ask every player the same questions, and let the options carry the difference")
            asks += inner
        return asks

    def _s_AtOnce(self, s, scope):
        head = f"for {s.var} in ... at once"
        bound = _binds(s.body)
        if not self._only_chooses(s.body, s.var, bound, head):
            self.err(f"nothing is chosen inside '{head}'", s.pos,
                     f"the block holds the players' choices ('{s.var} chooses ...'); what they do goes under 'then:'")
        src, et, _ = self._source(s.source, scope)
        if et != T.PLAYER:
            self.err(f"'{head}' goes round players, and this is a list of {T.describe(et)}", s.source.pos,
                     "write 'for p in players at once:'")
        block = self.at_once_blocks
        self.at_once_blocks += 1
        out: list = []
        every = isinstance(s.source, A.Players) and s.source.start is None
        seats = None
        if not every:       # the seats taking part, worked out once as the block starts
            seats = scope.ref(scope.bind(f"seats@{s.pos.line}:{s.pos.column}", T.list_of(T.PLAYER), s.pos, self),
                              T.list_of(T.PLAYER))
            out.append(assign(seats, call("list", src), s.pos))
        # the block is open: S.at_once counts the blocks opened (negative once the last one closed)
        out.append(assign(state_attr("sim"), ast.BinOp(left=K(1), op=ast.Sub(), right=state_attr("sim")), s.pos))
        pslot = scope.bind(s.var, T.PLAYER, s.pos, self)
        outer = dict(scope.slots)
        base = {k: v for k, v in outer.items() if k not in bound}
        mine = []
        kept: list = []         # each pick's options, kept in the frame until the block closes
        try:
            for seat in range(self.N):
                scope.alias[pslot] = typed(K(seat), T.PLAYER)
                scope.slots = dict(base)
                first = len(self.decisions)
                body = self._keep_options(self.block(s.body, scope), seat, scope, kept)
                for d in self.decisions[first:]:
                    d.at_once = (block, seat)
                mine.append({k: scope.slots[k] for k in bound if k in scope.slots})
                out.extend(self._for_seat(seat, seats, body, s.pos))
            # closed: the picks take effect (the options kept are read here, so they live till now)
            out.append(assign(state_attr("sim"), call(name("_closed"), state_attr("sim"), *kept), s.pos))
            for seat in range(self.N):
                scope.alias[pslot] = typed(K(seat), T.PLAYER)
                scope.slots = {**base, **mine[seat]}
                out.extend(self._for_seat(seat, seats, self.block(s.then, scope), s.pos))
        finally:
            scope.alias.pop(pslot, None)
            scope.slots = outer
        return out

    def _keep_options(self, stmts: list, seat: int, scope, kept: list) -> list:
        """``stmts`` with each plain choice keeping its options in a frame local as it opens: a bot
        imagining another seat's pending pick draws it from them (``Program.pending_picks``,
        ``interpreter.runtime.observe.resample``). A choice block's pick is not kept: the bots
        imagine it as any frame secret (``dsl.analysis.facts.frame_secrets``)."""
        out = []
        for st in stmts:
            for field in ("body", "orelse"):
                inner = getattr(st, field, None)
                if isinstance(inner, list) and not isinstance(st, Stop):
                    setattr(st, field, self._keep_options(inner, seat, scope, kept))
            out.append(st)
            if isinstance(st, Stop) and st.kind == "decision" and st.decision is not None \
                    and not st.decision.type.startswith("choice:"):
                t = T.list_of(st.decision.type)
                opts = scope.ref(scope.bind(f"options@{st.label}", t, st.pos, self), t)
                keep = assign(opts, call("_kept", sub(state_attr("pending"), K(2))), st.pos)
                keep.pick_of = (st.chosen.slot, opts.slot, seat)
                kept.append(opts)
                st.pre.append(keep)         # as the decision opens
                if st.decision.kind == "subset":    # (a subset's option is a tuple: kept as a list,
                    out.append(assign(st.chosen, call("list", st.chosen), st.pos))   # as JSON keeps it)
        return out

    @staticmethod
    def _for_seat(seat: int, seats, body: list, pos) -> list:
        if seats is None:
            return body
        test = compare(typed(K(seat), T.PLAYER), "in", seats)
        return [at(ast.If(test=test, body=body or [at(ast.Pass(), pos)], orelse=[]), pos)] if body else []


def pending_picks(ir_procs: dict) -> dict:
    """{procedure ref: {label: ((pick's index in the frame's kept locals, its options' index,
    seat), ...)}}: at each stop, the picks of an open 'at once' block kept in the frame, with the
    options each was chosen from (``Program.pending_picks``)."""
    out: dict = {}
    for ref, (_, body) in ir_procs.items():
        marks = [n.pick_of for st in body for n in walk(st) if hasattr(n, "pick_of")]
        if not marks:
            continue
        for st in body:
            for n in walk(st):
                if isinstance(n, Stop) and n.saved:
                    here = tuple((n.saved.index(p), n.saved.index(o), seat) for p, o, seat in marks
                                 if p in n.saved and o in n.saved)
                    if here:
                        out.setdefault(ref, {})[n.label] = here
    return out
