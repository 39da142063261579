"""Decisions: ``chooses`` (one option, a subset, a combination) and the choice block (``chooses:``
with a pick and named moves) lowered to a ``Stop`` whose ``pre`` works out the options and opens
the decision (``S.pending``). Mixed into the compiler beside ``dsl.lower.statements.Statements``.
"""
from __future__ import annotations

import ast

import attrs

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl import types as T
from rulesrun.dsl.errors import RulesError
from rulesrun.dsl.ir import K, Comp, Fn, Stop, assign, at, binop, call, compare, expr_stmt, name, not_
from rulesrun.dsl.lower.statements import state_attr
from rulesrun.dsl.check.picks import Picks, _reads, tagged
from rulesrun.dsl.passes.inline import simple
from rulesrun.dsl.program import Decision


class Decisions(Picks):
    """Mixed into the compiler (``dsl.compiler``): the statements that ask a player to choose."""

    # ── decisions ──────────────────────────────────────────────────────────
    def _s_Choose(self, s, scope):
        who, pt = self.expr(s.player, scope)
        self._expect(pt, T.PLAYER, s.player.pos, "who chooses")
        src, et, is_zone = self._pick_source(s, scope)
        vt = T.list_of(et) if s.subset else et
        such, bound = None, None
        if s.subset:
            slot, tslot, cond, such = self._subset_conds(s, scope, et)
        else:
            if s.names:     # several values at once: each name bound, the chosen tuple kept apart
                bound = self._bind_picked(s, vt, scope)
                slot = scope.bind(f"pick@{s.pos.line}:{s.pos.column}", vt, s.pos, self)
            else:
                slot = scope.bind(s.var, vt, s.pos, self)
            tslot, undo = self._push_pick(s, vt, scope)
            cond = None if s.cond is None else self._cond(s.cond, scope, "a 'where' condition")
            undo()
        key, unique = (self._tuple_key(vt), False) if s.names else self._option_key(et, vt, s, is_zone)
        did = len(self.decisions)
        if s.label_text is not None:
            label, display = self._label_display(s, vt)
            unique = False      # two options may read alike: the engine numbers them
        else:
            label, display = s.label or "choose", self.display(vt)
        decision = Decision(label, slot, display, s.pos, "subset" if s.subset else T.describe(vt), vt, unique,
                            whole_text=s.label_text is not None)
        if s.note is not None:
            decision.note = self._option_note(s, vt)
        self.decisions.append(decision)
        plan = self._combo_plan(s, scope, et) if such is not None else None
        plan = plan and (plan, _combo_key(key, vt, is_zone))
        pre = self._options(s, who, src, cond, such, key, vt, did, scope, tslot, plan)
        stop = Stop("decision", self._label(), pre, s.pos, scope.ref(slot, vt), decision)
        stop.sure = bool(is_zone or s.subset)    # a zone's card or a list: never none (dsl.passes.nonnull)
        stop.options = pre[next(i for i, a in enumerate(pre) if isinstance(a, ast.Assign)
                                and getattr(a.targets[0], "id", "") == "_o")].value   # for the analyses
        if bound is not None:       # a tuple: never none
            stop.sure = True
            return [stop] + self._unpack(s, bound, scope.ref(slot, vt), scope, s.pos)
        return [stop]

    def _subset_conds(self, s, scope, et) -> tuple:
        """A subset's local (bound to the chosen list), its 'where' (testing one item) and its
        'such that' (a function of the whole list, or None)."""
        vt = T.list_of(et)
        tslot, saved = scope.push(s.var, et)
        cond = None if s.cond is None else self._cond(s.cond, scope, "a 'where' condition")
        scope.pop(s.var, saved)
        slot = scope.bind(s.var, vt, s.pos, self)
        such = None
        if s.such_that is not None:
            sslot, saved = scope.push(s.var, vt)
            such = Fn(scope.ref(sslot, vt), self._cond(s.such_that, scope, "a 'such that' condition"), test=True)
            scope.pop(s.var, saved)
        return slot, tslot, cond, such

    def _subset_listing(self, c, scope, src, et, is_zone, opts) -> tuple:
        """A choice block's subset pick (``subset NAME from SOURCE ... such that ...``): its local,
        the statements listing its options into ``opts`` (combinations generated from their shapes,
        as for ``chooses subset``), the options before the subsets are made (for the analyses), and
        whether two sets can never read alike."""
        slot, tslot, cond, such = self._subset_conds(c, scope, et)
        vt = T.list_of(et)
        key, unique = self._option_key(et, vt, c, is_zone)
        plan = self._combo_plan(c, scope, et) if such is not None else None
        plan = plan and (plan, _combo_key(key, vt, is_zone))
        listing = self._option_list(c, src, cond, such, key, vt, scope, tslot, opts, plan)
        made = listing[-1].value        # _combos(...) or _subsets(...): none leaves the moves
        if isinstance(made.func, ast.Name) and made.func.id in ("_combos_at", "_combos_beating"):
            listing[-1].value = call(made.func.id, *made.args, K(True))     # its own quiet form: no wrapper
        else:
            listing[-1].value = call("_or_none", made.func, *made.args)
        return slot, listing, listing[0].value, unique

    def _s_ChooseBlock(self, s, scope):
        """One decision offering a source's options (at most one branch) and named moves; the
        chosen branch's block runs. The options are the pick's values and the moves' texts, in
        the order the branches are written; a move is offered while its ``if`` holds."""
        who, pt = self.expr(s.player, scope)
        self._expect(pt, T.PLAYER, s.player.pos, "who chooses")
        pos = s.pos
        p, pre = self._who(who, pos)
        if tagged(s):
            return self._tagged_block(s, scope, p, pre)
        opts = name("_o")
        pick = next((b for b in s.branches if b.pick is not None), None)
        et, options = T.TEXT, None
        moves = frozenset(b.text for b in s.branches if b.text is not None)
        unique = True       # (the parser refuses a move written twice)
        if pick is not None:
            c = pick.pick
            src, et, is_zone = self._source(c.source, scope)
            if et == T.TEXT and moves:      # a text could read as a move: each option carries its branch
                return self._tagged_block(s, scope, p, pre)
            if c.subset:    # a combination: the pick's value is a list of items
                slot, listing, options, unique = self._subset_listing(c, scope, src, et, is_zone, opts)
                et = T.list_of(et)
            else:
                slot = scope.bind(c.var, et, c.pos, self)
                tslot, saved = scope.push(c.var, et)
                cond = None if c.cond is None else self._cond(c.cond, scope, "a 'where' condition")
                scope.pop(c.var, saved)
                key, unique = self._option_key(et, et, c, is_zone)
                listing = self._option_list(c, src, cond, None, key, et, scope, tslot, opts)
                options = listing[0].value          # the pick's options, for the analyses
            pre.extend(listing)
            if c.label_text is not None:
                label, show = self._label_display(c, et)
                unique = False      # a worked-out label may read as a move, or as another option
            else:
                label, base = c.label or "choose", self.display(et)
                show = (lambda lab, f: lambda v: f"{lab} {f(v)}")(label, base)
                # a pick's option reads "LABEL ...": a move that does not start so never reads alike
                unique = unique and not any(m.startswith(label + " ") for m in moves)
            if T.is_enum(et):
                for b in s.branches:
                    if b.text in self.kinds[et[5:]]:
                        self.err(f'the move "{b.text}" reads as a value of {et[5:]} offered by this choice', b.pos,
                                 "give the move other words")
            display = (lambda f, m: lambda v: v if v.__class__ is str and v in m else f(v))(show, moves)
        else:
            pre.append(assign(opts, ast.List(elts=[], ctx=ast.Load()), pos))
            label, display = "choose", str
        if pick is not None:
            for b in s.branches:
                if b.cond is not None and _reads(b.cond, pick.pick.var):
                    self.err(f"the move's condition reads '{pick.pick.var}', which is chosen by this choice", b.cond.pos,
                             f"a move is offered or not before anything is chosen; test what '{pick.pick.var}' "
                             f"is chosen from instead")
        at_pick = s.branches.index(pick) if pick is not None else 0
        before, after = s.branches[:at_pick], s.branches[at_pick + (pick is not None):]
        if before:
            pre.append(assign(name("_b"), ast.List(elts=[], ctx=ast.Load()), pos))
            pre.extend(self._move_options(before, name("_b"), scope))
            pre.append(assign(opts, binop(name("_b"), "+", opts), pos))
        pre.extend(self._move_options(after, opts, scope))
        who_text = binop(K("Player %d has nothing to choose from"), "%", binop(p, "+", K(1)))
        pre.append(at(ast.If(test=not_(opts), orelse=[], body=[
            expr_stmt(call("fail_no_options", who_text, K(pos)), pos)]), pos))
        did = len(self.decisions)
        ctype = "choice:" + et
        cslot = scope.bind(f"choice@{pos.line}:{pos.column}", ctype, pos, self)
        kind = "subset" if pick is not None and pick.pick.subset else T.describe(et) if pick else "move"
        # options that never read alike take the engine's fast path (Game._lookups), unnumbered
        self.decisions.append(Decision(label, cslot, display, pos, kind, ctype,
                                       unique, whole_text=True,
                                       moves=tuple(b.text for b in s.branches if b.text is not None)))
        pre.append(assign(state_attr("pending"), ast.List(elts=[p, K(did), opts], ctx=ast.Load()), pos))
        chosen = scope.ref(cslot, ctype)
        stop = Stop("decision", self._label(), pre, pos, chosen, self.decisions[-1])
        stop.options = options
        # a zone's card, a list, or a move's text: never none (dsl.passes.nonnull)
        stop.sure = pick is None or bool(is_zone or pick.pick.subset)
        bodies = [self.block(b.body, scope) for b in s.branches]     # in the order of the text
        orelse: list = []
        if pick is not None:
            orelse = [assign(scope.ref(slot, et), scope.ref(cslot, ctype), pick.pos)] + bodies[at_pick]
        for b, body in reversed(list(zip(s.branches, bodies))):
            if b.pick is None:
                orelse = [at(ast.If(test=compare(scope.ref(cslot, ctype), "==", K(b.text)),
                                    body=body or [at(ast.Pass(), b.pos)], orelse=orelse), b.pos)]
        return [stop] + orelse

    def _s_Window(self, s, scope):
        """A window (``any q in SOURCE [where COND] may:`` / ``each ...``) is the loop that asks each
        seat in turn, written out: every seat of SOURCE that COND lets in is asked one choice block,
        the window's branches and "pass", whether or not it could take any of them — so whose turn
        it is says nothing of who could act (the options are what the asked seat alone sees). With
        'any' the first taker closes the window: a flag, set by taking, leaves the later seats out.
        COND decides who is asked, which every seat sees: the information-flow check refuses a
        secret in it (dsl.analysis.infoflow)."""
        self.windows.add(s.pos)      # (for the information-flow check's messages)
        return self.block(expand_window(s), scope)

    def _move_options(self, branches, into, scope) -> list:
        """Each named move's text added to the list ``into`` (while its 'if' holds)."""
        out = []
        for b in branches:
            add = expr_stmt(call(ast.Attribute(value=into, attr="append", ctx=ast.Load()), K(b.text)), b.pos)
            if b.cond is not None:
                add = at(ast.If(test=self._cond(b.cond, scope, "a move's 'if' condition"), body=[add], orelse=[]),
                         b.pos)
            out.append(add)
        return out

    def _label_display(self, s, vt):
        """A label with {expressions}: its literal start (the decision's label), and the action
        text of an option — the whole label, worked out for that option. The expressions may
        read the option and what is known before the game (card attributes, constants), not the
        game state: an option's text is made once and kept."""
        scope, option = self._option_scope(s, vt)
        self.in_const = True
        try:
            text = self.text_node(self._text(s.label_text.parts, scope))
        except RulesError as err:
            if "depends on the game state" in err.message:
                err.message = "a label can show the option and what is printed on it, not the game state"
                err.hint = f"name the option, like {{{s.var}}}, or announce the rest"
            raise
        finally:
            self.in_const = False
        fn = self.gen.lambda_(["S", option], text, s.pos, f"the label at line {s.pos.line}")
        literal = "".join(p for p in s.label_text.parts[:1] if isinstance(p, str)).strip()
        return literal or "choose", lambda v: fn(None, v)

    def _option_note(self, s, vt):
        """``showing "..."``: f(S, option), the words said beside an option at the table, worked out
        when the options are shown. They may read the option, the game state and defines — what
        everyone sees, as announcements are checked for leaks — but not the procedure's locals:
        the note is worked out outside the procedure."""
        scope, option = self._option_scope(s, vt)
        try:
            text = self.text_node(self._text(s.note.parts, scope))
        except RulesError as err:
            if err.message.startswith("unknown name"):
                err.hint = (f"an option's note may read the option ({{{s.var}}}), the game's state and "
                            "defines, not the procedure's own names")
            raise
        self.option_notes.append((s.note.pos, option, text))     # checked for secrets (dsl.analysis.infoflow)
        return self.gen.lambda_(["S", option], text, s.pos, f"the option note at line {s.pos.line}")

    def _option_key(self, et, vt, s, is_zone):
        """How interchangeable options are told apart (a key function, or None: all differ), and
        whether options can never read alike. Interchangeable options are offered once: cards
        whose printed attributes are all equal, and equal values."""
        if et == T.CARD:
            cls = self.card_class
            kinds = dict(enumerate(cls))       # a card's kind, or -1 for none: a dict's lookup runs in C
            kinds[None] = -1
            key = K(kinds.__getitem__) if len(set(cls)) < len(cls) else None
            # distinct kinds of card have distinct names, and a zone holds each card once
            if not s.subset:
                return key, len(set(self.card_names)) == len(set(cls)) and (is_zone or key is not None)
            # sets of a zone's cards (each there once) read alike only if two cards have one name,
            # or a name reads as two ("A, B" joined) or as none ("nothing")
            names = self.card_names
            return key, (is_zone and len(set(names)) == len(names) and "nothing" not in names
                         and not any(", " in n for n in names))
        unique = not s.subset and (vt in (T.NUMBER, T.PLAYER, T.BOOL) or T.is_enum(vt))
        return name("_value_key"), unique

    def _options(self, s, who, src, cond, such, key, vt, did, scope, tslot, plan=None) -> list:
        """The statements that open a decision: work out the options and set ``S.pending``."""
        pos, kpos = s.pos, K(s.pos)
        p, out = self._who(who, pos)
        opts = name("_o")
        out.extend(self._option_list(s, src, cond, such, key, vt, scope, tslot, opts, plan))
        if not s.subset:
            who_text = binop(K("Player %d has nothing to choose from"), "%", binop(p, "+", K(1)))
            out.append(at(ast.If(test=not_(opts), orelse=[], body=[
                expr_stmt(call("fail_no_options", who_text, kpos), pos)]), pos))
        pending = ast.List(elts=[p, K(did), opts], ctx=ast.Load())
        out.append(assign(state_attr("pending"), pending, pos))
        return out

    def _who(self, who, pos) -> tuple:
        """The seat that chooses, as a simple expression, and the statements that check it is someone."""
        out = []
        p = who
        if not simple(who):
            out.append(assign(name("_p"), who, pos))
            p = name("_p")
        if not isinstance(p, K):    # a seat written in the rules is never nobody
            out.append(at(ast.If(test=compare(p, "is", K(None)), orelse=[], body=[
                expr_stmt(call("fail", K("nobody is there to choose"), K(pos)), pos)]), pos))
        return p, out

    def _option_list(self, s, src, cond, such, key, vt, scope, tslot, opts, plan=None) -> list:
        """The statements that work out a choice's options into ``opts`` (interchangeable ones once)."""
        pos, kpos = s.pos, K(s.pos)
        out = []
        if cond is None:   # the options are a list of their own: a zone's or a constant list is copied
            fresh = isinstance(src, (ast.List, Comp)) or (isinstance(src, ast.Call) and getattr(src.func, "id", "") in ("list", "_range", "_unique_few"))
            # (not for a combination's plan: _combos_at only reads the items, and makes new lists)
            out.append(assign(opts, src if fresh or (s.subset and plan is not None) else call("list", src), pos))
        else:
            tvar = scope.ref(tslot)
            out.append(assign(opts, Comp("list", tvar, scope.ref(tslot), src, cond), pos))
            if s.if_able:
                out.append(at(ast.If(test=not_(opts), orelse=[], body=[assign(opts, call("list", src), pos)]), pos))
        if s.subset and plan is not None:      # a combination: generated from its shapes (dsl/emit/combos.py)
            out.append(assign(opts, self._combo_call(opts, plan[1], plan[0], kpos), pos))  # the plan tests
        elif s.subset:
            out.append(assign(opts, call("_subsets", opts, such or K(None), key or name("_value_key"), kpos), pos))
        else:
            if isinstance(key, ast.Name) and not T.is_list(vt):     # values: _value_key
                if not _no_repeats(src):
                    out.append(at(ast.If(test=compare(call("len", call("set", opts)), "<", call("len", opts)),
                                         orelse=[], body=[assign(opts, call("_dedupe", opts, key), pos)]), pos))
            elif key is not None:
                out.append(assign(opts, call("_dedupe", opts, key), pos))
        return out


def _combo_key(key, vt, is_zone):
    """Cards that all differ need no key when they come from a zone (it holds each card once)."""
    if key is None and vt == T.list_of(T.CARD) and is_zone:
        return K(None)
    return key or name("_value_key")


def _no_repeats(src) -> bool:
    """unique(...), ranges and a written list of different texts (or of different numbers) never
    repeat a value."""
    if isinstance(src, ast.Call) and getattr(src.func, "id", "") in ("_range", "_unique_few"):
        return True
    if isinstance(src, ast.List) and src.elts and all(isinstance(e, K) for e in src.elts):
        values = [e.value for e in src.elts]
        kinds = {type(v) for v in values}
        return (kinds == {str} or kinds == {int}) and len(set(values)) == len(values)
    if not (isinstance(src, ast.Call) and getattr(src.func, "id", "") == "list" and src.args):
        return False
    inner = src.args[0]
    if not isinstance(inner, ast.Call):
        return False
    f = inner.func
    return getattr(f, "id", "") == "range" or (isinstance(f, ast.Attribute) and f.attr == "fromkeys")


def expand_window(s: A.Window) -> tuple:
    """The statements a window stands for, in the rules' own terms (its flag named so that no
    rules name can be the same): ``let taken = no`` / ``for q in SOURCE:`` / ``if not taken and
    COND:`` / ``q chooses:`` the branches, each setting ``taken`` first, and ``"pass"``."""
    pos = s.pos
    flag = f"taken@{pos.line}:{pos.column}"
    first = s.mode == "any"
    mark = (A.Assign(pos=pos, target=A.Name(pos=pos, id=flag), op="=", expr=A.Bool(pos=pos, value=True)),) \
        if first else ()
    branches = tuple(attrs.evolve(b, body=mark + tuple(b.body)) if b.text != A.PASS else b for b in s.offered())
    ask: tuple = (A.ChooseBlock(pos=pos, player=A.Name(pos=pos, id=s.var), branches=branches),)
    guard = s.cond
    if first:
        open_ = A.Not(pos=pos, operand=A.Name(pos=pos, id=flag))
        guard = open_ if guard is None else A.BoolOp(pos=pos, op="and", left=open_, right=guard)
    if guard is not None:
        ask = (A.If(pos=pos, branches=((guard, ask),), orelse=None),)
    loop = A.For(pos=pos, var=s.var, source=s.source, body=ask)
    return ((A.Let(pos=pos, name=flag, expr=A.Bool(pos=pos, value=False)),) if first else ()) + (loop,)
