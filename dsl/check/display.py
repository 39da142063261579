"""How the table shows the game: the display options of zones and state (``shown as "label"``,
``shown in NAME``, ``not shown``, ``showing top N``) and the variants' descriptions, checked and
gathered into ``program.display`` (``dsl.program.TableDisplay``).

None of it changes the play or what a seat may see: the observations are the same with or without
it; the terminal and the web page read it to lay the table out (``interpreter.terminal.layout``).
"""
from __future__ import annotations

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.program import TableDisplay


def table_display(comp, zones: list, states: list, rules: A.RulesFile) -> TableDisplay:
    """The table's display, from the zone and state declarations in force (``comp``: the compiler,
    its tables declared) and every variant's description in the file."""
    out = TableDisplay()
    families = set(comp.families)
    shared = set(comp.zone_index)
    player_names = {s.name for s in states if s.owner == "player"} | families
    grouped: dict = {}          # a player column -> the declaration that names it (to refuse chains)
    for z in zones:
        section = "player" if z.per_player else "game"
        _options(comp, out, z, section, z.display, "zone", player_names, families, shared, grouped)
    for s in states:
        if not s.display:
            continue
        if s.owner == "team":
            comp.err("a team's values are shown as they are: 'shown' and 'not shown' are for zones and "
                     "the game's, the players' and the cards' state", s.display[0].pos)
        section = {None: "game", "player": "player", "card": "card"}[s.owner]
        _options(comp, out, s, section, s.display, "state", player_names, families, shared, grouped)
    for name, head in out.column.items():
        if head in out.column:
            comp.err(f"'{name}' is shown in '{head}', which is itself shown in '{out.column[head]}'",
                     grouped[name].pos, f"write 'shown in {out.column[head]}' instead")
        if ("player", head) in out.hidden:
            comp.err(f"'{name}' is shown in '{head}', which is not shown", grouped[name].pos,
                     f"show '{head}', or write 'not shown' for '{name}' too")
    for it in rules.items:
        if isinstance(it, A.VariantDecl) and it.description:
            out.variants[it.name] = it.description
    score = next((it for it in rules.items if isinstance(it, A.ScoreDecl)), None)
    for it in rules.items:           # a variant's score is the one in force when chosen
        if isinstance(it, A.VariantDecl) and it.name in (comp.selected or ()):
            score = next((i for i in it.items if isinstance(i, A.ScoreDecl)), score)
    e = score.expr if score is not None else None
    if isinstance(e, A.Attr) and isinstance(e.obj, A.Name) and e.obj.id == score.var and e.name in comp.pvars:
        out.score = out.labels.get(("player", e.name))  # score(p) = p.penalty, shown as "...": said in its words
    return out


def _options(comp, out: TableDisplay, decl, section: str, options: tuple, what: str,
             player_names: set, families: set, shared: set, grouped: dict):
    key = (section, decl.name)
    seen: dict = {}
    for o in options:
        # one way of being shown (its words, another's column or none) and one 'showing'; a card
        # value may be shown in several zones
        kind = "showing" if o.how == "showing" else "zones" if section == "card" and o.how == "in" else "shown"
        if kind in seen and kind != "zones":
            comp.err(f"'{decl.name}' says twice how it is shown (first at column {seen[kind].pos.column})", o.pos)
        seen[kind] = o
        if o.how == "label":
            out.labels[key] = o.text
        elif o.how == "hidden":
            out.hidden.add(key)
        elif o.how == "showing":
            if what != "zone":
                comp.err(f"only a zone is a pile of cards to show from one end; '{decl.name}' is a value", o.pos,
                         "remove 'showing ...'")
            out.piles[key] = (o.text, o.count)
        elif o.how == "in":
            _shown_in(comp, out, decl, section, o, player_names, families, shared, grouped)


def _shown_in(comp, out, decl, section, o, player_names, families, shared, grouped):
    target = o.text
    if section == "card":
        if target not in shared and target not in families:
            comp.err(f"a card's value is shown in a zone, and there is no zone '{target}'", o.pos,
                     "name the zone whose cards show it, like 'shown in trick'")
        out.card_zones[decl.name] = out.card_zones.get(decl.name, ()) + (target,)
        return
    if section != "player":
        comp.err("only a player's value or per-player zone can be shown in another's column", o.pos,
                 "give it its own words instead: shown as \"...\"")
    if target == decl.name:
        comp.err(f"'{decl.name}' cannot be shown in its own column", o.pos)
    if target not in player_names:
        comp.err(f"there is no player state or per-player zone '{target}' to show '{decl.name}' in", o.pos,
                 "name a column of the players table: a player state or a per-player zone")
    out.column[decl.name] = target
    grouped[decl.name] = o
