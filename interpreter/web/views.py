"""What goes over the wire to one seat or to a spectator: built from ``state.observation(p)`` only.

A seat's frame is its observation (and, on its turn, its own legal actions); a spectator's frame is
the public view — the observation of seat 0 with everything only seat 0 may see taken out again,
decided by the same zone and value visibility the observation uses. Cards are drawn from the file's
own declaration: a card is coloured and hands are sorted as at the terminal (``CardStyle``: the
attribute of ``coloured by``, or the one whose values are colour words). Nothing here knows any
particular game.
"""
from __future__ import annotations

from rulesrun.interpreter.runtime.observe import backs_of, value_display, observe
from rulesrun.interpreter.terminal import layout
from rulesrun.interpreter.terminal.table import CardStyle

# CardStyle speaks rich's colour names; the page speaks CSS.
CSS = {"red": "#c62828", "green": "#2e7d32", "blue": "#1565c0", "magenta": "#8e24aa", "cyan": "#00838f",
       "yellow": "#b58900", "dark_orange": "#e65100", "grey62": "#757575", "bright_green": "#43a047",
       "white": "#9e9e9e", "bright_black": "#212121", "pink1": "#d81b60", "grey82": "#9e9e9e",
       "orange4": "#6d4c41", "gold1": "#c9a000", "dark_cyan": "#00838f"}
LOG_LINES = 30   # announcements sent with each frame (the page shows the last few, and more on request)


class Display:
    """How the cards of one game look: a CSS colour for each card name, and the sorting key.

    The sorting key and the colours are the terminal's (``CardStyle``): the attribute the file names
    with ``coloured by ATTR``, else the one whose values name colours ("red", "blue", ...), else the
    first attribute of a kind with one colour of a palette per value; here in CSS."""

    def __init__(self, game):
        style = CardStyle(game)
        self.key = style.key
        # a colour word rich knows but this table does not (violet, ...) is a CSS name too
        self.colour = {name: CSS.get(rich, rich if rich.isalpha() else "#333") for name, rich in style.style.items()}

    def sort(self, names: list[str]) -> list[str]:
        return sorted(names, key=lambda n: self.key.get(n, ()))


def public_view(state, log: bool = True) -> dict:
    """What everybody at the table sees: seat 0's observation less what only seat 0 may see."""
    prog = state.program
    obs = observe(state, 0, log=False)
    if log:
        obs["log"] = state.log()      # the public announcements only: none told to seat 0 alone
    obs["seat"] = None
    # (what seat 0 sees that not everyone does: its own owner zones, the others' 'others' zones, its team's)
    private_families = {z.family for z in prog.zones if z.visibility in ("owner", "others", "team") and z.owner is not None}
    private_zones = {z.name for z in prog.zones if z.visibility == "owner" and z.owner is None}
    for name in private_zones:          # a shared zone only its owner sees (none, when shared)
        view = obs["zones"].get(name) or {}
        obs["zones"][name] = {"count": view["count"]} if "count" in view else {}
    for p, entry in enumerate(obs["players"]):
        for fam in private_families:
            if isinstance(entry.get(fam), dict) and "count" in entry[fam]:
                # what everyone sees of those cards: how many, and what is on their backs
                view = {"count": entry[fam]["count"]}
                cards = state.zones[prog.families[fam] + p]
                if prog.backs and cards:
                    view["backs"] = backs_of(state, cards)
                entry[fam] = view
        for v in prog.player_vars:
            if v.visibility != "public":
                entry.pop(v.name, None)
    # per-card state of the cards in public zones only, read card by card (a name may be shared by
    # a card in a public zone and another in seat 0's hand)
    public_ids = [c for zi, z in enumerate(prog.zones) if z.visibility == "public" for c in state.zones[zi]]
    card_state = {}
    for i, v in enumerate(prog.card_vars):
        if not v.public:
            continue
        shown = value_display(prog, v.type)
        values = {prog.card_names[c]: shown(state.card_values[i][c]) for c in public_ids if state.card_values[i][c] is not None}
        if values:
            card_state[v.name] = values
    obs["card_state"] = card_state
    if obs.get("decision"):
        obs["decision"] = {"label": obs["decision"]["label"]}
    return obs


def _names_in(obs: dict) -> set[str]:
    out: set[str] = set()
    for view in obs["zones"].values():
        out.update(view.get("cards", ()))
    for info in obs["players"]:
        for v in info.values():
            if isinstance(v, dict):
                out.update(v.get("cards", ()))
    for vals in obs.get("card_state", {}).values():
        out.update(vals)
    return out


class Log:
    """The announcements of a game as each seat may read them (``state.log(seat)``: the public ones
    and those told to that seat alone; ``None``, a spectator: the public ones), each formatted once:
    a table's log only grows between restarts."""

    def __init__(self):
        self.seen: dict = {}          # seat -> (the last announcement read, the lines so far)

    def of(self, state, seat: int | None) -> list[str]:
        last, lines = self.seen.get(seat, (None, []))
        templates = state.program.templates
        node, new = state.log_mark, []
        while node is not None and node is not last:
            tid, vals = node[1], node[2:]
            if not templates[tid].private:
                new.append((tid, vals))
            elif seat is not None and vals[0] == seat:    # told to this seat alone
                new.append((tid, vals[1:]))
            node = node[0]
        if node is not last:          # another game (a rematch, a reload): start again
            lines = []
        lines.extend(state.announcement_text(e) for e in reversed(new))
        self.seen[seat] = (state.log_mark, lines)
        return lines


def table_layout(prog, obs: dict, seat: int | None, mine: dict) -> dict:
    """The table laid out in the file's words, as at the terminal (``terminal.layout``): the game's
    values ``[label, value]``; the shared zones ``{name, label, cards, top, total}`` (a pile from
    its top when the file says so, or a count); the players table's column labels and each row's
    cells (the value each column shows for that player); the card values to show under each
    zone's cards (``notes``: zone -> card name -> text); the variants in force with their lines."""
    state = [[layout.label(prog, "game", k), v] for k, v in obs["state"].items()
             if v is not None and layout.shown(prog, "game", k)]
    card_state = obs.get("card_state", {})
    zones, notes = [], {}
    for name, view in obs["zones"].items():
        if not layout.shown(prog, "game", name) or not layout.holds(view):
            continue
        entry = {"name": name, "label": layout.label(prog, "game", name)}
        if "cards" in view:
            entry.update(layout.pile(prog, "game", name, view))
        else:
            entry["count"] = view.get("count")
            if view.get("backs"):
                entry["backs"] = view["backs"]          # what is on the cards' backs, by place
        zones.append(entry)
    zone_cards: dict = {z["name"]: z.get("cards", ()) for z in zones}
    for k, cards in (mine or {}).items():
        zone_cards[k] = list(cards)
    for info in obs["players"]:
        for k, v in info.items():
            if isinstance(v, dict) and v.get("cards"):
                zone_cards[k] = list(zone_cards.get(k, ())) + list(v["cards"])
    for zone, cards in (zone_cards.items() if card_state else ()):
        shown = layout.card_notes(prog, card_state, zone, cards)
        texts: dict = {}
        for values in shown.values():
            for card, v in values.items():
                texts.setdefault(card, []).append(_plain(v))
        if texts:
            notes[zone] = {card: " · ".join(t) for card, t in texts.items()}
    cols = layout.columns(prog, obs["players"])
    rows = []
    for p, info in enumerate(obs["players"]):
        cells = []
        for _, members in cols:
            k, v = layout.cell(info, members)
            if isinstance(v, dict) and v.get("cards"):
                pile = layout.pile(prog, "player", k, v)
                v = {**v, "cards": pile["cards"], "zone": k} if pile["top"] else {**v, "zone": k}
            cells.append(v)
        rows.append(cells)
    return {"state": state, "zones": zones, "notes": notes, "columns": [c for c, _ in cols], "rows": rows,
            "variants": layout.variant_lines(prog), "score": prog.display.score,
            "mine_labels": {k: layout.label(prog, "player", k) for k in (mine or {})}}


def _plain(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) if v else "—"
    return "—" if v is None else str(v)


def frame(state, seat: int | None, display: Display, table: dict, log: list[str] | None = None) -> dict:
    """The frame one connection receives: ``seat`` None for a spectator. Its observation is
    ``state.observation(seat)``, with the announcements in ``log`` when given (the same lines)."""
    obs = public_view(state, log=log is None) if seat is None else observe(state, seat, log=log is None)
    log = obs.pop("log", []) if log is None else log
    decision = obs.pop("decision", None) or {}
    options = decision.get("options", []) if seat is not None else []
    mine = {}
    if seat is not None:    # this seat's own cards, sorted as the file declares its attributes
        for fam, view in obs["players"][seat].items():
            if isinstance(view, dict) and view.get("cards"):
                mine[fam] = display.sort(view["cards"])
    mine = {fam: cards for fam, cards in mine.items() if layout.shown(state.program, "player", fam)}
    label = decision.get("label")
    names = _names_in(obs)
    clickable = {}           # a card whose click is a move: "<label> <card name>" among the options
    if label and options:
        opts = set(options)
        for name in names:
            text = f"{label} {name}"
            if text in opts:
                clickable[name] = text
    return {
        "type": "view",
        **table,
        "seat": seat,
        "players": obs["players"],
        "to_move": obs["to_move"],
        "decision": label,
        "options": options,
        "notes": layout.option_notes(state) if seat is not None and options else {},
        "clickable": clickable,
        "terminal": obs["terminal"],
        "returns": obs.get("returns"),
        "winners": obs.get("winners"),
        "state": obs["state"],
        "teams": obs.get("teams", []),
        "zones": obs["zones"],
        "card_state": obs.get("card_state", {}),
        "mine": mine,
        "layout": table_layout(state.program, obs, seat, mine),
        "log": log[-LOG_LINES:],
        "log_total": len(log),
        "colours": {n: display.colour[n] for n in sorted(names) if n in display.colour},
    }
