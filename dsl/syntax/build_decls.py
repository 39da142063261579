"""The declarations of a ``.rules`` file, from Lark's tree to the AST: the game, its cards, zones,
state, constants, parameters, procedures, scores, teams, invariants and variants. A part of the
parser's one transformer (``dsl.syntax.parser``), kept in its own module."""
from __future__ import annotations

from lark import Token, Transformer, v_args

from rulesrun.dsl.syntax import ast as A


@v_args(meta=True)
class Declarations(Transformer):
    """Lark callbacks for the declarations (their helpers ``_pos``, ``_fail``, ``_string``... are the
    parser's)."""

    # ── top level ──────────────────────────────────────────────────────────
    def start(self, meta, items):
        return [i for i in items if i is not None]

    def game_decl(self, meta, c):
        return A.GameDecl(pos=self._pos(meta), title=c[0].value[1:-1])

    def about_decl(self, meta, c):
        return A.AboutDecl(pos=self._pos(meta), text=c[0].value[1:-1])

    def extends_decl(self, meta, c):
        base = c[0]
        names = [t for t in c[1:] if t is not None]
        return A.ExtendsDecl(pos=self._pos(meta), base=base.value[1:-1] if base.type == "STRING" else str(base),
                             by_name=base.type != "STRING", selects=tuple(str(t) for t in names),
                             select_pos=tuple(self._tpos(t) for t in names))

    def replace_decl(self, meta, c):
        return A.ReplaceDecl(pos=self._pos(meta), item=c[0])

    def _int(self, tok) -> int:
        if len(tok.value) > 18:
            self._fail("this number is too long", self._tpos(tok), "numbers in rules are small whole numbers")
        return int(tok.value)

    def players_decl(self, meta, c):
        low = self._int(c[0])
        high = self._int(c[1]) if c[1] is not None else low
        if high < low or low < 1:
            self._fail(f"player range {low} to {high} is empty", self._pos(meta))
        return A.PlayersDecl(pos=self._pos(meta), low=low, high=high)

    def kind_decl(self, meta, c):
        vals = c[1:]
        return A.KindDecl(pos=self._pos(meta), name=str(c[0]), values=tuple(str(v[0]) for v in vals),
                          value_pos=tuple(self._tpos(v[0]) for v in vals),
                          shown=tuple(self._plain(v[1]) if v[1] is not None else None for v in vals))

    def kind_value(self, meta, c):
        return (c[0], c[1])

    def cards_decl(self, meta, c):
        attrs_, shown, entries, coloured = [], None, [], None
        for item in c:
            if isinstance(item, A.AttrDecl):
                attrs_.append(item)
            elif isinstance(item, A.ColouredBy):
                if coloured is not None:
                    self._fail("the cards say twice which attribute colours them", item.pos)
                coloured = item
            elif isinstance(item, A.Str):
                if shown is not None:
                    self._fail("the cards say twice how they are shown", item.pos)
                shown = item
            else:
                entries.append(item)
        return A.CardsDecl(pos=self._pos(meta), attrs=tuple(attrs_), shown=shown, entries=tuple(entries),
                           coloured_by=coloured)

    def attr_decl(self, meta, c):
        return A.AttrDecl(pos=self._pos(meta), name=str(c[0]), type=c[1], default=c[2])

    def shown_decl(self, meta, c):
        return self._string(c[0])

    def coloured_decl(self, meta, c):
        return A.ColouredBy(pos=self._tpos(c[0]), name=str(c[0]))

    def card_entry(self, meta, c):
        count, record, binders, cond = c
        return A.CardEntry(pos=self._pos(meta), count=1 if count is None else count,
                           fields=record, binders=binders or (), cond=cond)

    def card_count(self, meta, c):     # a number, or a name worked out when the cards are made
        t = c[0]
        return int(t) if t.type == "INT" else A.Name(pos=self._tpos(t), id=str(t))

    def card_product(self, meta, c):
        count, binders, cond = c
        return A.CardEntry(pos=self._pos(meta), count=1 if count is None else count,
                           fields=None, binders=binders, cond=cond)

    def record(self, meta, c):
        return tuple(f for f in c if f is not None)

    def field(self, meta, c):
        return (str(c[0]), c[1], self._tpos(c[0]))

    def binders(self, meta, c):
        return tuple(c)

    def binder(self, meta, c):
        return (str(c[0]), c[1])

    def t_number(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="number")

    def t_bool(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="bool")

    def t_player(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="player")

    def t_card(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="card")

    def t_text(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="text")

    def t_named(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name=str(c[0]))

    def t_list(self, meta, c):
        return A.TypeRef(pos=self._pos(meta), name="list", elem=c[0])

    def per_player(self, meta, c):
        return True

    def visibility(self, meta, c):
        return str(c[0])

    def on_back(self, meta, c):
        return "on back"

    def owner_kind(self, meta, c):
        return str(c[0])

    def zone_decl(self, meta, c):
        return A.ZoneDecl(pos=self._pos(meta), name=str(c[0]), per_player=bool(c[1]), visibility=c[2],
                          display=tuple(c[3:]))

    def state_decl(self, meta, c):
        owner, name, typ, default, low, high, vis, *display = c
        return A.StateDecl(pos=self._pos(meta), owner=owner, name=str(name), type=typ, default=default,
                           visibility=vis or "public", low=low, high=high, display=tuple(display))

    # how the table shows a zone or a value
    def shown_label(self, meta, c):
        return A.Shown(pos=self._pos(meta), how="label", text=self._plain(c[0]))

    def shown_in(self, meta, c):
        return A.Shown(pos=self._pos(meta), how="in", text=str(c[0]))

    def not_shown(self, meta, c):
        return A.Shown(pos=self._pos(meta), how="hidden")

    def showing(self, meta, c):
        end, count = c
        if count is not None and int(count) < 1:
            self._fail("a pile shows at least 1 card", self._tpos(count),
                       f"write 'showing {end} 1', or 'showing {end}' for every card")
        return A.Shown(pos=self._pos(meta), how="showing", text=end, count=None if count is None else int(count))

    def pile_end(self, meta, c):
        return str(c[0])

    def described(self, meta, c):
        raw = c[0].value[1:-1]
        if not raw.strip():
            self._fail("a variant's description says something", self._tpos(c[0]),
                       'write one line, like described as "each player plays two cards a trick"')
        return raw

    def option_note(self, meta, c):
        return self._string(c[0])

    def const_decl(self, meta, c):
        return A.ConstDecl(pos=self._pos(meta), name=str(c[0]), expr=c[1])

    def param_decl(self, meta, c):
        name, typ, default, low, high = c
        return A.ParamDecl(pos=self._pos(meta), name=str(name), type=typ, default=default, low=low, high=high)

    def params(self, meta, c):
        return tuple(str(t) for t in c)

    def define_decl(self, meta, c):
        return A.DefineDecl(pos=self._pos(meta), name=str(c[0]), params=c[1] or (), expr=c[2])

    def proc_decl(self, meta, c):
        return A.ProcDecl(pos=self._pos(meta), name=str(c[0]), params=c[1] or (), body=c[2])

    def flow_decl(self, meta, c):
        return A.FlowDecl(pos=self._pos(meta), body=c[0])

    def score_decl(self, meta, c):
        return A.ScoreDecl(pos=self._pos(meta), var=str(c[0]), expr=c[1])

    def heuristic_decl(self, meta, c):
        return A.HeuristicDecl(pos=self._pos(meta), var=str(c[0]), expr=c[1])

    def order_kw(self, meta, c):
        return str(c[0])

    def order(self, meta, c):
        return (c[0], c[1])

    def winners_decl(self, meta, c):
        return A.WinnersDecl(pos=self._pos(meta), var=str(c[1]), orders=tuple(c[2:]), team=c[0] is not None)

    def by_team(self, meta, c):
        return True

    def team_entry(self, meta, c):
        return (str(c[0]), self._plain(c[1]) if c[1] is not None else str(c[0]), self._tpos(c[0]))

    def teams_decl(self, meta, c):
        if len(c) == 1 and isinstance(c[0], Token):
            n = self._int(c[0])
            return A.TeamsDecl(pos=self._pos(meta), count=n, names=(),
                               shown=tuple(f"Team {i + 1}" for i in range(n)))
        return A.TeamsDecl(pos=self._pos(meta), count=len(c), names=tuple(e[0] for e in c),
                           shown=tuple(e[1] for e in c), name_pos=tuple(e[2] for e in c))

    def invariant_decl(self, meta, c):
        return A.InvariantDecl(pos=self._pos(meta), text=c[0].value[1:-1], expr=c[2], card=c[1])

    def invariant_card(self, meta, c):
        return str(c[0])

    def variant_decl(self, meta, c):
        return A.VariantDecl(pos=self._pos(meta), name=str(c[0]), when=c[1], description=c[2],
                             items=tuple(i for i in c[3:] if i is not None))
