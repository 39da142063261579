"""Picks of several values at once (``q, col from opponents(p), Colour``: the options are tuples)
and choice blocks whose options are tagged by their branch: several picks, a pick of texts beside
moves, a pick offered while its ``if`` holds, a move whose text shows values worked out when the
decision opens (``"stand on {p.total}":``). Mixed into ``dsl.check.decisions.Decisions``.

A tagged block's option is a tuple (branch, value): the branch's number in the text's order, and
the pick's value (a tuple for a pick of several, a tuple of items for a subset) or the move's text.
Its type is ``branches:T0;T1;...`` (``dsl.types``), the value type of each branch; the engine's
action text of an option is its branch's text for the value. A block the old form says (at most
one pick of one value, from no texts beside moves, and moves of plain words) keeps its options as
they were: the pick's values and the moves' texts, type ``choice:T``."""
from __future__ import annotations

import ast

import attrs

from rulesrun.dsl import types as T
from rulesrun.dsl.ir import K, Stop, assign, at, binop, call, compare, expr_stmt, name, not_, sub, typed
from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.lower.statements import state_attr
from rulesrun.dsl.program import Decision
from rulesrun.dsl.scope import Scope


def tagged(block) -> bool:
    """Whether a choice block's options carry their branch: more than one pick, a pick of several
    values or offered under an 'if', or a move whose text shows values."""
    picks = [b.pick for b in block.branches if b.pick is not None]
    moves = [b for b in block.branches if b.pick is None]
    return (len(picks) > 1 or any(b.text_parts is not None for b in moves)
            or any(p.names for p in picks)
            or any(b.cond is not None for b in block.branches if b.pick is not None))
    # (and a pick of texts beside moves: found when its source is typed, dsl.check.decisions)


class Picks:
    """Mixed into ``Decisions``: picks of several values, and choice blocks tagged by branch."""

    # ── a pick of several values ───────────────────────────────────────────
    def _pick_source(self, c, scope):
        """(the options' source, an option's type, whether it is a zone's own list) of a pick; for
        a pick of several values the combinations of its sources, the first outermost, as tuples."""
        if not c.names:
            return self._source(c.source, scope)
        nodes, types = [], []
        for n, e in zip(c.names, c.sources):
            src, et, _ = self._source(e, scope)
            if T.is_tuple(et) or et.startswith("branches:"):
                self.err("a pick of several values picks plain values", e.pos)
            nodes.append(src)
            types.append(et)
        tt = T.tuple_of(types)
        return typed(call("_product", K(c.pos), *nodes), T.list_of(tt)), tt, False

    def _push_pick(self, c, vt, scope):
        """The pick's name(s) bound to one option for its 'where' (a loop's own local): (the
        option's local, undo). For a pick of several values each name is that item of the tuple."""
        if not c.names:
            tslot, saved = scope.push(c.var, vt)
            return tslot, lambda: scope.pop(c.var, saved)
        tslot = scope.temp()
        undo = []
        for i, (n, et) in enumerate(zip(c.names, T.tuple_elems(vt))):
            slot, saved = scope.push(n, et)
            scope.alias[slot] = typed(sub(scope.ref(tslot, vt), K(i)), et)
            undo.append((n, saved))
        return tslot, lambda: [scope.pop(n, saved) for n, saved in reversed(undo)]

    def _bind_picked(self, c, vt, scope) -> list:
        """The procedure's locals the pick binds: [(name's slot, its type)], one a name."""
        if not c.names:
            return [(scope.bind(c.var, vt, c.pos, self), vt)]
        return [(scope.bind(n, et, c.pos, self), et) for n, et in zip(c.names, T.tuple_elems(vt))]

    @staticmethod
    def _unpack(c, bound, value, scope, pos) -> list:
        """The statements that set the pick's names from the chosen ``value``."""
        if not c.names:
            (slot, vt), = bound
            return [assign(scope.ref(slot, vt), value, pos)]
        return [assign(scope.ref(slot, et), typed(sub(value, K(i)), et), pos)
                for i, (slot, et) in enumerate(bound)]

    def _option_scope(self, c, vt):
        """A scope of a function of one option (its label, its note): (the scope, the option's
        local), the pick's name(s) naming the option (or its items)."""
        scope = Scope("py")
        if not c.names:
            return scope, scope.ref(scope.bind(c.var, vt, c.pos, self), vt)
        oslot = scope.bind(f"option@{c.pos.line}:{c.pos.column}", vt, c.pos, self)
        for i, (n, et) in enumerate(zip(c.names, T.tuple_elems(vt))):
            slot = scope.bind(n, et, c.pos, self)
            scope.alias[slot] = typed(sub(scope.ref(oslot, vt), K(i)), et)
        return scope, scope.ref(oslot, vt)

    def _tuple_key(self, vt):
        """How interchangeable tuples are told apart: item by item, a card by its kind (identical
        cards are one option), any other value as it is."""
        cls = self.card_class
        cards = [i for i, et in enumerate(T.tuple_elems(vt)) if et == T.CARD]
        if not cards or len(set(cls)) == len(cls):
            return name("_value_key")
        kinds = dict(enumerate(cls))
        kinds[None] = -1
        return K(lambda t: tuple(kinds[x] if i in cards else x for i, x in enumerate(t)))

    # ── a choice block whose options carry their branch ───────────────────
    def _tagged_block(self, s, scope, p, pre):
        pos = s.pos
        opts, into = name("_o"), name("_t")
        pre.append(assign(opts, ast.List(elts=[], ctx=ast.Load()), pos))
        picked = {n for b in s.branches if b.pick is not None for n in (b.pick.names or (b.pick.var,))}
        types, shows, parts, bound, labels = [], [], [], [], []
        for i, b in enumerate(s.branches):
            for e, what in ((b.cond, "a branch's condition"), (b.text_parts, "a move's text")):
                read = next((n for n in sorted(picked) if e is not None and _reads(e, n)), None)
                if read is not None:
                    self.err(f"{what} reads '{read}', which is chosen by this choice", e.pos,
                             f"a branch is offered, and a move's text is worked out, before anything is chosen; "
                             f"test what '{read}' is chosen from instead")
            if b.pick is not None:
                c = b.pick
                src, et, is_zone = self._pick_source(c, scope)
                if c.subset:
                    slot, listing, options, _ = self._subset_listing(c, scope, src, et, is_zone, into)
                    vt = T.list_of(et)
                    bound.append([(slot, vt)])
                else:
                    vt = et
                    bound.append(self._bind_picked(c, vt, scope))
                    tslot, undo = self._push_pick(c, vt, scope)
                    cond = None if c.cond is None else self._cond(c.cond, scope, "a 'where' condition")
                    undo()
                    key = self._tuple_key(vt) if c.names else self._option_key(et, et, c, is_zone)[0]
                    listing = self._option_list(c, src, cond, None, key, et, scope, tslot, into)
                    options = listing[0].value
                parts.append(options)
                listing.append(expr_stmt(call(ast.Attribute(value=opts, attr="extend", ctx=ast.Load()),
                                              call("_tagged", K(i), into)), b.pos))
                if c.label_text is not None:
                    _, show = self._label_display(c, vt)
                    labels.append((c.label, vt, b, False))
                else:
                    label = c.label or "choose"
                    show = (lambda lab, f: lambda v: f"{lab} {f(v)}")(label, self.display(vt))
                    labels.append((label, vt, b, True))
            else:
                vt = T.TEXT
                bound.append([])
                if b.text_parts is None:
                    text, show = K(b.text), str
                else:
                    text, _ = self.expr(b.text_parts, scope)
                    parts.append(text)
                    show = str
                listing = [expr_stmt(call(ast.Attribute(value=opts, attr="append", ctx=ast.Load()),
                                          ast.Tuple(elts=[K(i), text], ctx=ast.Load())), b.pos)]
            if b.cond is not None:
                test = self._cond(b.cond, scope, "a branch's 'if' condition")
                listing = [at(ast.If(test=test, body=listing, orelse=[]), b.pos)]
            pre.extend(listing)
            types.append(vt)
            shows.append(show)
        self._alike(s, labels)
        who_text = binop(K("Player %d has nothing to choose from"), "%", binop(p, "+", K(1)))
        pre.append(at(ast.If(test=not_(opts), orelse=[], body=[
            expr_stmt(call("fail_no_options", who_text, K(pos)), pos)]), pos))
        did = len(self.decisions)
        ctype = T.branches_of(types)
        cslot = scope.bind(f"choice@{pos.line}:{pos.column}", ctype, pos, self)
        first = next((b.pick for b in s.branches if b.pick is not None), None)
        label = "choose" if first is None else (_literal(first) if first.label_text is not None
                                                  else first.label or "choose")
        display = (lambda fs: lambda o: fs[o[0]](o[1]))(tuple(shows))
        decision = Decision(label, cslot, display, pos, "choice", ctype, False, whole_text=True,
                            moves=tuple(b.text for b in s.branches if b.pick is None and b.text_parts is None))
        self.decisions.append(decision)
        pre.append(assign(state_attr("pending"), ast.List(elts=[p, K(did), opts], ctx=ast.Load()), pos))
        chosen = scope.ref(cslot, ctype)
        stop = Stop("decision", self._label(), pre, pos, chosen, decision)
        stop.options = ast.List(elts=parts, ctx=ast.Load())     # every branch's options, for the analyses
        stop.sure = True                                         # a (branch, value) tuple: never none
        orelse: list = []
        for i, b in reversed(list(enumerate(s.branches))):
            value = sub(scope.ref(cslot, ctype), K(1))
            body = self.block(b.body, scope)
            if b.pick is not None and b.pick.subset:
                (slot, vt), = bound[i]
                body = [assign(scope.ref(slot, vt), call("list", value), b.pos)] + body
            elif b.pick is not None:
                body = self._unpack(b.pick, bound[i], value, scope, b.pos) + body
            orelse = [at(ast.If(test=compare(sub(scope.ref(cslot, ctype), K(0)), "==", K(i)),
                                body=body or [at(ast.Pass(), b.pos)], orelse=orelse), b.pos)]
        return [stop] + orelse

    def _alike(self, s, labels) -> None:
        """Refuse two picks whose options could read alike (the same label, options of one type),
        and a named move that reads as an option of a pick."""
        seen = {}
        for label, vt, b, _ in labels:
            if (label, vt) in seen:
                self.err(f'two picks of this choice offer options that read alike ("{label} ..." from '
                         f'line {seen[(label, vt)].pos.line} and here)', b.pos,
                         'give each pick a label of its own: as "play", as "discard"')
            seen[(label, vt)] = b
        for b in s.branches:
            if b.pick is not None or b.text_parts is not None:
                continue
            for label, vt, other, plain in labels:
                rest = b.text[len(label) + 1:] if plain and b.text.startswith(label + " ") else None
                if rest is not None and self._reads_as(rest, vt):
                    self.err(f'the move "{b.text}" reads as an option of the pick at line {other.pos.line}',
                             b.pos, "give the move other words")

    def _reads_as(self, text: str, vt: str) -> bool:
        """Whether ``text`` is the text of a value of type ``vt`` (where the values are few)."""
        if vt == T.NUMBER:
            return text.lstrip("-").isdigit()
        if vt == T.BOOL:
            return text in ("yes", "no")
        if vt == T.PLAYER:
            return text in {f"Player {i + 1}" for i in range(self.N)}
        if vt == T.CARD:
            return text in set(self.card_names)
        if T.is_enum(vt):
            show = self.display(vt)
            return text in {show(v) for v in self.kinds.get(vt[5:], ())}
        return False


def _literal(c) -> str:
    """The words a label with {expressions} starts with (the decision's label), or "choose"."""
    parts = c.label_text.parts
    return "".join(p for p in parts[:1] if isinstance(p, str)).strip() or "choose"


def _reads(e, var: str) -> bool:
    """Whether the expression ``e`` names ``var`` (not a name of its own that an aggregate, a list
    comprehension or a 'highest' binds: ``[c for c in p.hand]`` does not read a choice's ``c``)."""
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, A.Name) and n.id == var:
            return True
        if isinstance(n, (list, tuple)):
            stack.extend(n)
        elif getattr(n, "var", None) == var and hasattr(n, "source"):
            stack.append(n.source)        # its own 'var' inside; only where it comes from is read here
        elif attrs.has(type(n)):
            stack.extend(getattr(n, f.name) for f in attrs.fields(type(n)) if f.name != "pos")
    return False
