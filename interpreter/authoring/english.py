"""The rules in plain English: expressions and statements of the AST (dsl.syntax.ast) as rulebook text.

Generic: it knows the language's constructs (zones, players, choices, loops), never a game's words;
a game's own names (zones, states, procedures, kind values) are shown as written, with spaces for
underscores. Used by the rulebook (interpreter/authoring/rulebook.py).
"""
from __future__ import annotations

import attrs

from rulesrun.dsl.syntax import ast as A

_COMPARE = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most", ">": "is more than",
            ">=": "is at least", "in": "is in", "not in": "is not in"}
_BINOP = {"+": "+", "-": "−", "*": "×", "/": "÷", "mod": "mod"}
_TIGHTNESS = {"+": 1, "-": 1, "*": 2, "/": 2, "mod": 2}   # how tightly each operator binds
_AGGREGATE = {"sum": "the sum of", "count": "the number of", "max": "the largest", "min": "the smallest",
              "any": "some", "all": "every"}
# the shapes of a combination (docs/language.md "Combinations"): {each} is "KEY for each x in S"
_SHAPES = {"same": "{each} is the same", "run": "{each} form a run (consecutive numbers, none repeated)",
           "run_round": "{each} form a run (consecutive numbers, none repeated, going round from the highest "
                        "to the lowest)",
           "groups": "the sizes of the groups of equal {each} (largest first)",
           "leading": "the leading {each} (that of the largest group, the highest of equal groups)"}


def words(name: str) -> str:
    """A game's name as words: ``hidden_bid`` -> ``hidden bid``."""
    return name.replace("_", " ")


def title(name: str) -> str:
    w = words(name)
    return w[:1].upper() + w[1:]


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


@attrs.define
class Step:
    """One numbered step of a rulebook: its text, its sub-steps, and the comments on it."""
    text: str
    sub: list = attrs.Factory(list)
    notes: list = attrs.Factory(list)
    line: int = 0


@attrs.define
class Context:
    """What the renderer knows about the names of the file."""
    zones: set = attrs.Factory(set)           # shared zones
    families: set = attrs.Factory(set)        # per-player zones
    globals: set = attrs.Factory(set)         # game state ("the round")
    consts: set = attrs.Factory(set)          # constants, named as they are ("hand size")
    procedures: set = attrs.Factory(set)
    kinds: dict = attrs.Factory(dict)         # kind name -> values
    player: str | None = None                 # the name that stands for "the player" here
    it: str | None = None                     # the name that stands for "it" (a choice's option)
    comments: dict = attrs.Factory(dict)      # (file, line) -> comment text on that line (or above it)

    def but(self, **kw) -> "Context":
        return attrs.evolve(self, **kw)


class English:
    def __init__(self, ctx: Context):
        self.ctx = ctx

    # ── expressions ─────────────────────────────────────────────────────
    def expr(self, e, ctx: Context | None = None) -> str:
        ctx = ctx or self.ctx
        x = lambda v: self.expr(v, ctx)  # noqa: E731
        if isinstance(e, A.Num):
            return str(e.value)
        if isinstance(e, A.Str):
            return "“" + "".join(p if isinstance(p, str) else "‹" + x(p) + "›" for p in e.parts) + "”"
        if isinstance(e, A.Bool):
            return "yes" if e.value else "no"
        if isinstance(e, A.NoneLit):
            return "none"
        if isinstance(e, A.Name):
            return self.name(e.id, ctx)
        if isinstance(e, A.Players):
            return "the players" + (f", starting with {x(e.start)}" if e.start is not None else "")
        if isinstance(e, A.PlayerLit):
            return f"Player {e.number}"
        if isinstance(e, A.EveryCard):
            return "all the cards"
        if isinstance(e, A.AllTeams):
            return "the teams"
        if isinstance(e, A.ListLit):
            return "[" + ", ".join(x(i) for i in e.items) + "]"
        if isinstance(e, A.ListComp):
            cond = f" where {x(e.cond)}" if e.cond is not None else ""
            if isinstance(e.expr, A.Name) and e.expr.id == e.var:
                return f"each {words(e.var)} in {x(e.source)}{cond}"
            return f"{x(e.expr)} for each {words(e.var)} in {x(e.source)}{cond}"
        if isinstance(e, A.Attr):
            owner = self.possessive(e.obj, ctx)
            if owner is None:
                return f"the {words(e.name)} of {x(e.obj)}"
            return owner + " " + words(e.name)
        if isinstance(e, A.Call):
            return self.call(e, ctx)
        if isinstance(e, A.Aggregate) and e.func == "first" and e.expr is None:
            cond = f" where {x(e.cond)}" if e.cond is not None else ""
            return f"the first {words(e.var)} in {x(e.source)}{cond} (none if there is none)"
        if isinstance(e, A.Aggregate):
            head = _AGGREGATE.get(e.func, words(e.func) + " of")
            cond = f" where {x(e.cond)}" if e.cond is not None else ""
            if e.func in _SHAPES and e.expr is not None:
                return _SHAPES[e.func].format(each=f"{x(e.expr)} for each {words(e.var)} in {x(e.source)}{cond}")
            if e.expr is None:
                return f"{head} {words(e.var)} in {x(e.source)}{cond}"
            return f"{head} {x(e.expr)} for each {words(e.var)} in {x(e.source)}{cond}"
        if isinstance(e, A.Best):
            cond = f" where {x(e.cond)}" if e.cond is not None else ""
            keys = ", then by ".join(x(k) for k in e.keys)
            return f"the {e.kind} {words(e.var)} in {x(e.source)}{cond} by {keys}"
        if isinstance(e, A.Ternary):
            # a chain reads on through its 'else'; a choice inside the 'then' keeps its brackets
            then = f"({x(e.then)})" if isinstance(e.then, A.Ternary) else x(e.then)
            return f"{then} if {x(e.cond)}, else {x(e.other)}"
        if isinstance(e, A.BoolOp):
            # "a or (b and c)" keeps its brackets: English does not say which binds first
            return f"{self._operand(e.left, e, False, ctx)} {e.op} {self._operand(e.right, e, True, ctx)}"
        if isinstance(e, A.Not):
            if isinstance(e.operand, A.Call) and e.operand.func == "empty" and len(e.operand.args) == 1:
                return f"{x(e.operand.args[0])} is not empty"
            if isinstance(e.operand, A.Aggregate) and e.operand.func == "any":
                return "no" + self.expr(e.operand, ctx)[len("some"):]
            if isinstance(e.operand, (A.Name, A.Attr)):       # a yes/no value
                return f"{x(e.operand)} is no"
            return f"not {x(e.operand)}"
        if isinstance(e, A.Compare):
            return f"{x(e.left)} {_COMPARE.get(e.op, e.op)} {x(e.right)}"
        if isinstance(e, A.BinOp):
            return (f"{self._operand(e.left, e, False, ctx)} {_BINOP.get(e.op, e.op)} "
                    f"{self._operand(e.right, e, True, ctx)}")
        if isinstance(e, A.Neg):
            return f"−{x(e.operand)}"
        if isinstance(e, A.Range):
            return f"{x(e.low)} to {x(e.high)}"
        return "…"

    def _operand(self, v, parent, right: bool, ctx: Context) -> str:
        """An operand of an arithmetic or and/or expression, in brackets where the file had them
        for the meaning: ``(k - 1) / 5`` is "(k − 1) ÷ 5", never "k − 1 ÷ 5"."""
        text = self.expr(v, ctx)
        if isinstance(v, A.Ternary):
            return f"({text})"
        if isinstance(parent, A.BinOp):
            if isinstance(v, (A.BoolOp, A.Compare)):
                return f"({text})"
            if isinstance(v, A.BinOp):
                inner, outer = _TIGHTNESS.get(v.op, 2), _TIGHTNESS.get(parent.op, 2)
                if inner < outer or (right and inner == outer):
                    return f"({text})"
        elif isinstance(v, A.BoolOp) and v.op != parent.op:
            return f"({text})"
        return text

    def name(self, ident: str, ctx: Context) -> str:
        if ident == ctx.player:
            return "the player"
        if ident == ctx.it:
            return "it"
        if ident in ctx.zones or (ident in ctx.globals and ident not in ctx.consts):
            return "the " + words(ident)
        return words(ident)

    def possessive(self, obj, ctx: Context) -> str:
        if isinstance(obj, A.Name) and obj.id == ctx.player:
            return "their"
        if isinstance(obj, A.Name) and obj.id == ctx.it:
            return "its"
        text = self.expr(obj, ctx)
        if not isinstance(obj, (A.Name, A.PlayerLit)):
            return None          # "the hand of the player to the left of ...": see attr()
        return text + ("’" if text.endswith("s") else "’s")

    def zone(self, e, ctx: Context) -> str:
        """A zone, where a zone is expected: 'the deck', 'their hand', 'winner's gathered'."""
        return self.expr(e, ctx)

    def call(self, e: A.Call, ctx: Context) -> str:
        a = [self.expr(v, ctx) for v in e.args]
        f = e.func
        if f == "size" and len(a) == 1:
            return f"the number of cards in {a[0]}" if self._zoneish(e.args[0], ctx) else f"the size of {a[0]}"
        if f == "empty" and len(a) == 1:
            return f"{a[0]} is empty"
        if f in ("top", "bottom") and len(a) == 1:
            return f"the {f} card of {a[0]}"
        if f in ("top", "bottom") and len(a) == 2:
            return f"the {f} {a[1]} cards of {a[0]}"
        if f == "left" and len(a) == 1:
            return f"the player to the left of {a[0]}"
        if f == "right" and len(a) == 1:
            return f"the player to the right of {a[0]}"
        if f == "player_at" and len(a) == 2:
            return f"the player {a[1]} seats clockwise from {a[0]}"
        if f in ("next", "previous") and len(a) == 2:
            return f"the {a[0]} {'after' if f == 'next' else 'before'} {a[1]}"
        if f == "unique" and len(a) == 1:
            return f"the different values of {a[0]}"
        if f in ("max", "min") and len(a) == 2:
            return f"the {'larger' if f == 'max' else 'smaller'} of {a[0]} and {a[1]}"
        if f == "abs" and len(a) == 1:
            return f"|{a[0]}|"
        if f == "holder" and len(a) == 1:
            return f"the player holding {a[0]}"
        if f == "position" and len(a) == 2:
            return f"the place of {a[0]} in {a[1]}"
        if f == "item" and len(a) == 2:
            return f"item {a[1]} of {a[0]}"
        if f == "beats" and len(a) in (3, 4):     # KEY and BOMB name defines: "a higher strength"
            items = "cards" if any(self._zoneish(v, ctx) for v in e.args[:2]) else "items"
            text = f"{a[0]} beats {a[1]} (as many {items} and a higher {a[2]}"
            if len(a) == 4:
                text += (f"; a {a[3]} beats anything that is not a {a[3]}, whatever its size, and a higher "
                         f"{a[3]} a lower one")
            return text + ")"
        return f"{words(f)}({', '.join(a)})"

    def _zoneish(self, e, ctx) -> bool:
        return (isinstance(e, A.Name) and e.id in ctx.zones) or (isinstance(e, A.Attr) and e.name in ctx.families) \
            or isinstance(e, A.EveryCard)

    # ── statements ──────────────────────────────────────────────────────
    def steps(self, body, ctx: Context | None = None) -> list[Step]:
        ctx = ctx or self.ctx
        out = []
        for s in body:
            step = self.stmt(s, ctx)
            if step is None:
                continue
            step.line = s.pos.line
            step.notes = list(self.ctx.comments.get((s.pos.file, s.pos.line), ())) + step.notes
            out.append(step)
        return out

    def stmt(self, s, ctx: Context) -> Step | None:
        x = lambda v: self.expr(v, ctx)  # noqa: E731
        if isinstance(s, A.Let):
            return Step(f"Let {words(s.name)} be {x(s.expr)}.")
        if isinstance(s, A.Assign):
            target = x(s.target)
            if s.op == "+=":
                return Step(f"Add {x(s.expr)} to {target}.")
            if s.op == "-=":
                return Step(f"Take {x(s.expr)} from {target}.")
            return Step(f"Set {target} to {x(s.expr)}.")
        if isinstance(s, A.Move):
            what = x(s.what)
            if self._zoneish(s.what, ctx) and not isinstance(s.what, A.EveryCard):
                what = "the cards of " + what
            where = "the bottom of " if s.bottom else ""
            return Step(f"Move {what} to {where}{self.zone(s.dest, ctx)}.")
        if isinstance(s, A.Shuffle):
            return Step(f"Shuffle {self.zone(s.zone, ctx)}.")
        if isinstance(s, A.Deal):
            start = f", starting with {x(s.start)}" if s.start is not None else ""
            return Step(f"Deal {x(s.count)} cards from {x(s.source)} to each player’s {words(s.family)}{start}.")
        if isinstance(s, A.Choose):
            return Step(self.choose(s, ctx))
        if isinstance(s, A.ChooseBlock):
            return self.choice_block(s, ctx)
        if isinstance(s, A.Window):
            return self.window(s, ctx)
        if isinstance(s, A.ExprStmt):
            call = s.expr
            if call.func in ctx.procedures:
                args = f" with {', '.join(x(a) for a in call.args)}" if call.args else ""
                return Step(f"[{title(call.func)}](#{anchor(call.func)}){args}.")
            return Step(cap(x(call)) + ".")
        if isinstance(s, A.Announce):
            if getattr(s, "to", None) is not None:
                return Step(f"Tell {x(s.to)} (and nobody else) {x(s.text)}")
            return Step(f"Announce {x(s.text)}")
        if type(s).__name__ == "Reveal":
            if getattr(s, "to", None) is not None:
                return Step(f"Show {x(s.to)} (and nobody else) {', '.join(x(v) for v in s.exprs)}.")
            return Step(f"Show everyone {', '.join(x(v) for v in s.exprs)}.")
        if isinstance(s, A.Pass):
            return None
        if isinstance(s, A.EndGame):
            return Step("The game ends.")
        if isinstance(s, A.Return):
            return Step(f"Stop here, giving back {x(s.value)}." if s.value is not None else "Stop here.")
        if isinstance(s, A.If):
            return self.if_(s, ctx)
        if isinstance(s, A.Repeat):
            return self.loop(f"Repeat {x(s.count)} times", s.body, ctx)
        if isinstance(s, A.While):
            return self.loop(f"As long as {x(s.cond)}", s.body, ctx)
        if isinstance(s, A.For):
            return self.for_(s, ctx)
        if isinstance(s, A.AtOnce):
            return self.at_once(s, ctx)
        return Step("…")

    def loop(self, head: str, body, ctx) -> Step:
        return Step(head + ":", self.steps(body, ctx))

    def if_(self, s: A.If, ctx) -> Step:
        (cond, body), *rest = s.branches
        step = self.loop(f"If {self.expr(cond, ctx)}", body, ctx)
        out = [step]
        for cond, body in rest:
            out.append(self.loop(f"Otherwise, if {self.expr(cond, ctx)}", body, ctx))
        if s.orelse:
            out.append(self.loop("Otherwise", s.orelse, ctx))
        if len(out) == 1:
            return step
        return Step("", out)     # the branches, as one step of sub-steps shown side by side

    def for_(self, s: A.For, ctx) -> Step:
        src = s.source
        if isinstance(src, A.Players):
            inner = ctx.but(player=s.var)
            start = f", starting with {self.expr(src.start, ctx)}" if src.start is not None else ""
            head = f"Each player in turn{start}"
            body = self.steps(s.body, inner)
            if len(body) == 1 and not body[0].sub and body[0].text.startswith("The player "):
                return Step(f"{head}, {body[0].text[len('The player '):]}", notes=body[0].notes)
            return Step(head + ":", body)
        return self.loop(f"For each {words(s.var)} in {self.expr(src, ctx)}", s.body, ctx)

    def at_once(self, s: A.AtOnce, ctx) -> Step:
        """Simultaneous choices: what every player chooses at once, then what each pick does."""
        inner = ctx.but(player=s.var)
        src = s.source
        who = "Every player" if isinstance(src, A.Players) and src.start is None \
            else f"Every player of {self.expr(src, ctx)}"
        return Step("", [
            Step(f"{who} chooses at once, without seeing anyone else's choice:", self.steps(s.body, inner)),
            Step("Once everyone has chosen, for each of them in turn:", self.steps(s.then, inner))])

    def choice_block(self, s: A.ChooseBlock, ctx) -> Step:
        """One decision with branches: each option (the pick, the named moves) and what follows it."""
        subs = []
        for b in s.branches:
            cond = f" (offered when {self.expr(b.cond, ctx)})" if b.cond is not None else ""
            if b.pick is not None:
                head = self.choose(attrs.evolve(b.pick, player=s.player), ctx).rstrip(".") + cond
            elif b.text_parts is not None:      # a move whose text shows values, worked out then
                head = f"{self.expr(b.text_parts, ctx)}{cond}"      # (the text, in quotes)
            else:
                head = f"“{b.text}”{cond}"
            subs.append(Step(head + ":", self.steps(b.body, ctx)))
        return Step(cap(f"{self.expr(s.player, ctx)} makes one choice of these") + ":", subs)

    def window(self, s: A.Window, ctx) -> Step:
        """A window: each player in turn is asked, and may take one of the options or pass."""
        src = s.source
        inner = ctx.but(player=s.var)
        if isinstance(src, A.Players):
            start = f", starting with {self.expr(src.start, ctx)}" if src.start is not None else ""
            who = f"each player in turn{start}"
        else:
            who = f"each {words(s.var)} in {self.expr(src, ctx)} in turn"
        if s.cond is not None:
            who += f" (only those for whom {self.expr(s.cond, inner)})"
        rest = ("the first to take one does so, and nobody after them is asked" if s.mode == "any"
                else "each who takes one does so before the next is asked")
        comma = "," if "," in who or "(" in who else ""
        head = f"{cap(who)}{comma} is asked, and may take one of these or pass ({rest})"
        block = self.choice_block(A.ChooseBlock(pos=s.pos, player=A.Name(pos=s.pos, id=s.var),
                                                branches=s.branches), inner)
        return Step(head + ":", block.sub)

    def choose(self, s: A.Choose, ctx) -> str:
        who = self.expr(s.player, ctx)
        inner = ctx if s.names else ctx.but(it=s.var)      # (several names: each by its name)
        what = self.option(s, ctx, words(s.var))
        cond = ""
        if s.cond is not None:
            cond = f", one where {self.expr(s.cond, inner)}"
            if s.if_able:
                cond += " if they can (otherwise any)"
        such = f", such that {self.expr(s.such_that, inner)}" if s.such_that is not None else ""
        label = s.label or ""
        verb = _third_person(label)
        if verb:
            text = f"{who} {verb} {what}{cond}{such}"
        else:
            text = f"{who} chooses {what}{cond}{such}" + (f" — “{label.rstrip(':')}”" if label else "")
        return cap(text) + "."

    def option(self, s: A.Choose, ctx, var: str) -> str:
        if s.names:     # several values at once: one of each source, every combination
            return " and ".join(self.option(attrs.evolve(s, var=n, source=e, names=(), sources=()), ctx, words(n))
                                for n, e in zip(s.names, s.sources))
        src = s.source
        many = "any number of" if s.subset else None
        if (isinstance(src, A.Attr) and src.name in ctx.families) or (isinstance(src, A.Name) and src.id in ctx.zones):
            return f"{many or 'a'} card{'s' if many else ''} ({var}) from {self.expr(src, ctx)}"
        if isinstance(src, A.Range):
            return f"a number ({var}) from {self.expr(src, ctx)}"
        return f"{var}, " + self._one_of(s, ctx, src, many)

    def _one_of(self, s, ctx, src, many) -> str:
        if isinstance(src, A.Name) and src.id in ctx.kinds:
            return f"{many + ' of' if many else 'one of'} {', '.join(ctx.kinds[src.id])}"
        if isinstance(src, A.ListLit):
            return f"{many + ' of' if many else 'one of'} {', '.join(self.expr(i, ctx) for i in src.items)}"
        return f"{many + ' of' if many else 'one of'} {self.expr(src, ctx)}"


def _third_person(label: str) -> str | None:
    """'play' -> 'plays', 'bid with' -> 'bids with': a label that is a plain verb phrase (two words
    at most, all lowercase letters), in the third person; None for any other label."""
    parts = label.split()
    if not parts or len(parts) > 2 or not all(p.isalpha() and p.islower() for p in parts):
        return None
    if len(parts) == 2 and parts[1] not in ("with", "to", "from", "for", "on", "up", "out", "down", "in"):
        return None
    v = parts[0]
    if v.endswith(("s", "sh", "ch", "x", "z")):
        v += "es"
    elif v.endswith("y") and v[-2:-1] not in "aeiou":
        v = v[:-1] + "ies"
    else:
        v += "s"
    return " ".join([v] + parts[1:])


def anchor(name: str) -> str:
    return "proc-" + name.replace("_", "-")
