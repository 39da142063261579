"""The abstract syntax tree: frozen attrs classes, each carrying its source position.

The Lark parse tree never leaves ``dsl/``; everything after parsing works on these nodes.
"""
from __future__ import annotations

from typing import Any

import attrs

from rulesrun.dsl.errors import Pos

node = attrs.frozen(kw_only=True)


# ── expressions ─────────────────────────────────────────────────────────────
@node
class Expr:
    pos: Pos


@node
class Num(Expr):
    value: int


@node
class Str(Expr):
    parts: tuple  # of str and Expr (interpolations written {expr})


@node
class Bool(Expr):
    value: bool


@node
class NoneLit(Expr):
    pass


@node
class Name(Expr):
    id: str


@node
class Players(Expr):
    start: Expr | None


@node
class PlayerLit(Expr):
    number: int  # 1-based, as players count seats


@node
class EveryCard(Expr):
    pass


@node
class AllTeams(Expr):
    pass


@node
class ListLit(Expr):
    items: tuple


@node
class ListComp(Expr):
    expr: Expr
    var: str
    source: Expr
    cond: Expr | None


@node
class Attr(Expr):
    obj: Expr
    name: str
    name_pos: Pos | None = None


@node
class Call(Expr):
    func: str
    args: tuple


@node
class Aggregate(Expr):
    func: str
    expr: Expr | None  # None for the `f(x in E where C)` form
    var: str
    source: Expr
    cond: Expr | None


@node
class Best(Expr):
    kind: str  # highest | lowest
    var: str
    source: Expr
    cond: Expr | None
    keys: tuple


@node
class Ternary(Expr):
    cond: Expr
    then: Expr
    other: Expr


@node
class BoolOp(Expr):
    op: str  # and | or
    left: Expr
    right: Expr


@node
class Not(Expr):
    operand: Expr


@node
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@node
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@node
class Neg(Expr):
    operand: Expr


@node
class Range(Expr):
    low: Expr
    high: Expr


# ── types ───────────────────────────────────────────────────────────────────
@node
class TypeRef:
    pos: Pos
    name: str            # number | bool | player | card | text | list | <kind name>
    elem: Any = None     # for list


# ── statements ──────────────────────────────────────────────────────────────
@node
class Stmt:
    pos: Pos


@node
class RandomPick(Expr):
    """``random from SOURCE``: a value chosen by chance (only as the right side of let / '=')."""
    source: Expr


@node
class Let(Stmt):
    name: str
    expr: Expr


@node
class Assign(Stmt):
    target: Expr
    op: str
    expr: Expr


@node
class Move(Stmt):
    what: Expr
    dest: Expr
    bottom: bool


@node
class Shuffle(Stmt):
    zone: Expr


@node
class Deal(Stmt):
    count: Expr
    source: Expr
    family: str
    family_pos: Pos
    start: Expr | None = None     # who is dealt to first (None: Player 1)


@node
class Choose(Stmt):
    player: Expr
    var: str
    source: Expr
    cond: Expr | None
    if_able: bool
    label: str | None
    subset: bool = False
    such_that: Expr | None = None
    label_text: "Str | None" = None     # a label with {expressions}: the whole action text
    note: "Str | None" = None           # `showing "..."`: said beside each option at the table (not its text)
    # a pick of several values at once (`q, col from opponents(p), Colour`): every name and its
    # source, in order (var and source are the first); empty for a pick of one value
    names: tuple = ()
    sources: tuple = ()


@node
class Branch(Stmt):
    """One branch of a choice block: a pick from a source (``pick``, a Choose without a player) or a
    named move (``text``); either is offered while ``cond`` holds; ``body`` runs when it is chosen.
    A move's text with {expressions} (``"stand on {p.total}"``) is ``text_parts``, worked out when
    the decision opens (``text`` is then its words as written, braces and all)."""
    pick: "Choose | None"
    text: str | None
    cond: Expr | None
    body: tuple
    text_parts: "Str | None" = None


@node
class ChooseBlock(Stmt):
    player: Expr
    branches: tuple


@node
class ExprStmt(Stmt):
    expr: Expr


@node
class Announce(Stmt):
    text: Str
    to: "Expr | None" = None         # a private announcement: only this player is told


@node
class Pass(Stmt):
    pass


@node
class EndGame(Stmt):
    pass


@node
class Return(Stmt):
    value: Expr | None


@node
class VariantTest(Expr):
    """``variant NAME``: yes when the game is played with that variant (known when compiling)."""
    name: str
    name_pos: "Pos | None" = None


@node
class Reveal(Stmt):
    """The rules show these values here (a card shown, a bid turned face up): to every seat, or
    with ``to`` to that player alone (a hand shown to the challenger). For the information-flow
    check; at run time the values shown are noted in the state (``State.revealed``)."""
    exprs: tuple
    to: Expr | None = None


@node
class If(Stmt):
    branches: tuple  # of (cond, body)
    orelse: tuple | None


@node
class Repeat(Stmt):
    count: Expr
    body: tuple


@node
class While(Stmt):
    cond: Expr
    body: tuple


@node
class For(Stmt):
    var: str
    source: Expr
    body: tuple


# ── declarations ────────────────────────────────────────────────────────────
@node
class Decl:
    pos: Pos

    @property
    def key(self):
        return (type(self).__name__, getattr(self, "name", None))


@node
class GameDecl(Decl):
    title: str

    @property
    def key(self):
        return ("GameDecl", None)


@node
class PlayersDecl(Decl):
    low: int
    high: int

    @property
    def key(self):
        return ("PlayersDecl", None)


@node
class KindDecl(Decl):
    name: str
    values: tuple
    value_pos: tuple
    shown: tuple = ()          # per value: its text when written with `shown as "..."`, else None

    @property
    def texts(self) -> tuple:
        """The values as every text shows them (and as they are held at run time)."""
        return tuple(s or v for v, s in zip(self.values, self.shown or (None,) * len(self.values)))


@node
class AttrDecl(Decl):
    name: str
    type: TypeRef
    default: Expr | None


@node
class CardEntry(Decl):
    count: int | Expr      # a number, or a constant's or parameter's Name
    fields: tuple | None   # of (name, Expr, Pos)
    binders: tuple         # of (name, Expr)
    cond: Expr | None


@node
class ColouredBy(Decl):
    """`coloured by ATTR` in the cards block: the attribute whose value colours a card at the table."""
    name: str


@node
class CardsDecl(Decl):
    attrs: tuple
    shown: Str | None
    entries: tuple
    coloured_by: "ColouredBy | None" = None   # `coloured by ATTR`: the attribute that colours a card

    @property
    def key(self):
        return ("CardsDecl", None)


@node
class Shown(Decl):
    """How the table shows a zone or a state value (display only: nothing of the play, nothing more
    seen): ``shown as "label"`` (how = "label", text), ``shown in NAME`` (how = "in", text = NAME: a
    player value in NAME's column; a card value under the cards of zone NAME only), ``not shown``
    (how = "hidden"), ``showing top N`` / ``showing bottom N`` (how = "showing", text = the end
    shown first, count = how many cards at most, or None: all)."""
    how: str
    text: str | None = None
    count: int | None = None


@node
class ZoneDecl(Decl):
    name: str
    per_player: bool
    visibility: str
    display: tuple = ()      # of Shown


@node
class StateDecl(Decl):
    owner: str | None  # None (global) | player | card | team
    name: str
    type: TypeRef
    default: Expr | None
    visibility: str
    low: Expr | None = None     # 'from LOW to HIGH': the whole numbers a number may hold
    high: Expr | None = None
    display: tuple = ()         # of Shown: how the table shows it

    @property
    def key(self):   # a team's value may share its name with a player's (team and player 'tricks')
        return ("TeamStateDecl" if self.owner == "team" else "StateDecl", self.name)


@node
class TeamsDecl(Decl):
    count: int               # how many teams
    names: tuple             # the names in the file (() for 'teams N')
    shown: tuple             # how each team reads in texts
    name_pos: tuple = ()

    @property
    def key(self):
        return ("TeamsDecl", None)


@node
class ConstDecl(Decl):
    name: str
    expr: Expr


@node
class ParamDecl(Decl):
    """``param NAME: type = default [from low to high]``: a setting of the game, read like a const."""
    name: str
    type: TypeRef
    default: Expr
    low: Expr | None
    high: Expr | None


@node
class DefineDecl(Decl):
    name: str
    params: tuple
    expr: Expr


@node
class ProcDecl(Decl):
    name: str
    params: tuple
    body: tuple


@node
class FlowDecl(Decl):
    body: tuple

    @property
    def key(self):
        return ("FlowDecl", None)


@node
class ScoreDecl(Decl):
    var: str
    expr: Expr

    @property
    def key(self):
        return ("ScoreDecl", None)


@node
class HeuristicDecl(Decl):
    var: str
    expr: Expr

    @property
    def key(self):
        return ("HeuristicDecl", None)


@node
class WinnersDecl(Decl):
    var: str
    orders: tuple  # of (highest|lowest, Expr)
    team: bool = False   # 'winners team t by ...': the orders rank teams; every member wins

    @property
    def key(self):
        return ("WinnersDecl", None)


@node
class InvariantDecl(Decl):
    text: str
    expr: Expr
    card: str | None = None      # 'for every card c': a property of each card alone (bots deal by it too)

    @property
    def key(self):
        return ("InvariantDecl", self.text)


@node
class VariantDecl(Decl):
    name: str
    when: Expr | None
    items: tuple
    description: str | None = None   # `described as "..."`: its one line, said at the table


def walk(node):
    """Every node under ``node`` (itself first; statements, expressions, declarations; tuples and
    lists looked into), positions left out."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(n)
        elif attrs.has(type(n)):
            yield n
            for f in attrs.fields(type(n)):
                if f.name != "pos":
                    stack.append(getattr(n, f.name))


@node
class ExtendsDecl(Decl):
    """``extends magi`` / ``extends "../base.rules"``, the first line of a variant file
    (dsl.syntax.extend): the base game, and the base's variants it selects (``with catastrophe``)."""
    base: str
    by_name: bool             # a shipped game's name, not a path
    selects: tuple = ()        # the base's variants this file plays with
    select_pos: tuple = ()

    @property
    def key(self):
        return ("ExtendsDecl", None)


@node
class ReplaceDecl(Decl):
    """``replace <declaration>`` in a variant file: the base's declaration of that name, replaced."""
    item: Any


@node
class AboutDecl(Decl):
    """``about "..."``: the game's (or, in a variant block, the variant's) one-line description."""
    text: str

    @property
    def key(self):
        return ("AboutDecl", None)


@node
class RulesFile:
    path: str
    source: str
    items: tuple
    # A variant file (dsl.syntax.extend) once its base is merged in: every file it is made of as
    # (path, text), the base first and itself last, and the base itself, resolved. A plain file: ().
    files: tuple = ()
    base: "RulesFile | None" = None

    @property
    def sources(self) -> dict:
        """Each file's text by its path, for diagnostics that point into the base."""
        return dict(self.files) if self.files else {self.path: self.source}
