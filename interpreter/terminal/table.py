"""The table as a seat sees it: card colours, hand order, human names for state, and the layout —
full, or compact when the terminal is small (a turn fits into 80×24).

Everything is drawn from ``state.observation(seat)`` (a dict), so nothing here can show more than
that seat may see. Nothing here knows a particular game: colours come from the card attribute the
file names (``coloured by ATTR``) or from the words of one (``red``, ``blue``, ...), names from the
file's state names.
"""
from __future__ import annotations

from rich.color import Color, ColorParseError
from rich.table import Table
from rich.text import Text

# Colour words a card attribute may use, and the terminal colour each is drawn in; other words
# that rich knows as colours (cyan, magenta, violet, ...) are drawn as themselves.
COLOUR_WORDS = {"red": "red", "blue": "blue", "yellow": "yellow", "green": "green", "white": "white",
                "purple": "magenta", "violet": "magenta", "orange": "dark_orange", "grey": "grey62",
                "gray": "grey62", "silver": "grey82", "black": "bright_black", "pink": "pink1",
                "brown": "orange4", "gold": "gold1", "cyan": "cyan", "teal": "dark_cyan",
                "navy": "blue", "magenta": "magenta"}
# For an attribute whose values are not colour words (suits named Eye, Door, ...): one colour each.
PALETTE = ["red", "green", "blue", "magenta", "cyan", "yellow", "dark_orange", "grey62", "bright_green"]

COMPACT_HEIGHT = 30      # a terminal this high or lower gets the compact layout
COMPACT_WIDTH = 100      # ... and so does one this narrow or narrower


def colour_word(word) -> str | None:
    """The terminal colour a word names (``red`` → red, ``purple`` → magenta), or None."""
    w = str(word).strip().lower()
    if w in COLOUR_WORDS:
        return COLOUR_WORDS[w]
    if not w.isalpha():
        return None
    try:
        Color.parse(w)
    except ColorParseError:
        return None
    return w


def colour_attribute(prog) -> str | None:
    """Which card attribute colours the cards: the file's choice (``coloured by ATTR`` in its cards
    block: ``program.colour_attr``), else the attribute whose values are most often colour words,
    else the first attribute of a kind (a suit), else none."""
    chosen = getattr(prog, "colour_attr", None)
    if chosen in prog.card_attrs:
        return chosen
    best, best_n = None, 1
    for a in prog.attr_types:
        values = {v for v in prog.card_attrs[a] if isinstance(v, str)}
        n = sum(1 for v in values if colour_word(v))
        if n > best_n:
            best, best_n = a, n
    if best:
        return best
    return next((a for a in prog.attr_types if prog.attr_types[a].startswith("enum:")), None)


def display_name(prog, name: str) -> str:
    """How a state's name reads at the table: the file's display name if it gives one
    (``program.display_names``, when the language has it), else the name with spaces for ``_``."""
    names = getattr(prog, "display_names", None) or {}
    return names.get(name) or name.replace("_", " ")


class CardStyle:
    """Colours cards by one attribute (see ``colour_attribute``) and sorts hands by the attributes in order."""

    def __init__(self, game):
        prog = game.program
        self.prog = prog
        self.names = prog.card_names
        attrs = list(prog.attr_types)
        orders: dict[str, dict] = {}
        for a in attrs:
            if prog.attr_types[a].startswith("enum:"):
                orders[a] = {v: i for i, v in enumerate(dict.fromkeys(prog.card_attrs[a]))}
        self.attr = colour_attribute(prog)
        self.style: dict[str, str] = {}
        if self.attr:
            values = list(dict.fromkeys(v for v in prog.card_attrs[self.attr] if v is not None))
            for cid, v in enumerate(prog.card_attrs[self.attr]):
                if v is None:
                    continue
                self.style[prog.card_names[cid]] = colour_word(v) or PALETTE[values.index(v) % len(PALETTE)]
        self.key: dict[str, tuple] = {}
        if self.attr:    # a hand is sorted by colour first, then by the attributes in order
            attrs = [self.attr] + [a for a in attrs if a != self.attr]
        for cid, name in enumerate(prog.card_names):
            k = []
            for a in attrs:
                v = prog.card_attrs[a][cid]
                if a in orders:
                    k.append((0, orders[a][v], ""))
                elif isinstance(v, (int, float)) and not isinstance(v, bool):
                    k.append((0, v, ""))
                else:
                    k.append((1, 0, str(v)))
            self.key[name] = tuple(k)

    def card(self, name: str) -> Text:
        return Text(name, style=self.style.get(name, ""))

    def sort(self, names: list[str]) -> list[str]:
        return sorted(names, key=lambda n: self.key.get(n, ()))

    def cards(self, names: list[str], sort: bool = False, width: int | None = None) -> Text:
        """The cards in a row; with ``width``, on as many lines as needed, never splitting a card's name."""
        if not names:
            return Text("—", style="dim")
        if sort:
            names = self.sort(names)
        out = Text()
        line = 0
        for i, n in enumerate(names):
            if i:
                if width and line + 2 + len(n) > width:
                    out.append("\n")
                    line = 0
                else:
                    out.append("  ")
                    line += 2
            out.append_text(self.card(n))
            line += len(n)
        return out


def _plain(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) if v else "—"
    return "—" if v is None else str(v)


def _count(n: int) -> Text:
    return Text(f"{n} card{'s' if n != 1 else ''}", style="dim")


def _zone_text(view: dict, style: CardStyle, annotate: dict | None = None, sort=False,
               top: int | None = None) -> Text:
    """A zone's cards (annotated with who played each), its count, or 'hidden'. With ``top``, a pile
    longer than that shows its count and only its top cards."""
    if "cards" in view:
        cards = view["cards"]
        head = Text()
        if top is not None and len(cards) > top:
            head = Text(f"{len(cards)} cards, top: ", style="dim")
            cards = cards[-top:]
        if annotate and cards and not len(head) and any(c in annotate for c in cards):
            out = head
            for i, c in enumerate(cards):
                if i:
                    out.append(" · ")
                out.append_text(style.card(c))
                if c in annotate:
                    out.append(f" ({annotate[c]})", style="dim")
            return out
        return head + style.cards(cards, sort=sort) if len(head) else style.cards(cards, sort=sort)
    if "count" in view:
        return _count(view["count"])
    return Text("hidden", style="dim")


def _shows(v) -> bool:
    """A value that applies now: not nothing, and not an empty or unseen zone."""
    if v is None or v == {}:
        return False
    if isinstance(v, dict):
        return bool(v.get("count") or v.get("cards"))
    return True


def _pack(items: list[str], width: int, gap: str = "   ") -> str:
    """Items on as few lines as fit ``width``, never breaking one in two."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(gap) + len(item) <= width:
            lines[-1] += gap + item
        else:
            lines.append(item)
    return "\n".join(lines)


def render_view(obs: dict, style: CardStyle, recent: int = 6, compact: bool = False,
                width: int | None = None) -> Table:
    """One seat's observation as a rich renderable (printed as plain text when not a terminal).

    ``compact`` is the small-terminal layout: state on as few lines as fit, long piles as their count
    and top cards, long per-player piles as counts, and no repeat of the recent announcements (they
    were printed just above)."""
    prog = style.prog
    seat = obs["seat"]
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    everyone = seat < 0        # a replay's view of every seat: no "you", every hand laid out
    title = Text(obs["game"] + ("" if everyone else f" — you are Player {seat + 1}"), style="bold")
    grid.add_row(Text("──"), title)
    values = [f"{display_name(prog, k)}: {_plain(v)}" for k, v in obs["state"].items() if v is not None]
    if values:
        grid.add_row("state", Text(_pack(values, width - 12) if width else "   ".join(values)))
    for team in obs.get("teams") or ():
        grid.add_row(team["name"], Text(team_line(prog, team)))
    who_played = next((v for v in obs.get("card_state", {}).values()
                       if all(isinstance(x, str) and x.startswith("Player ") for x in v.values())), None)
    for name, view in obs["zones"].items():
        if view and (view.get("cards") or view.get("count")):
            grid.add_row(display_name(prog, name),
                         _zone_text(view, style, who_played, top=3 if compact else None))
    keys = [k for k in obs["players"][0] if k != "name"]
    for info in obs["players"][1:]:
        keys += [k for k in info if k != "name" and k not in keys]
    shown_keys = [k for k in keys if any(_shows(info.get(k)) for info in obs["players"])]
    longest = 2 if compact else 3
    rows = []
    for p, info in enumerate(obs["players"]):
        row = [Text(info["name"] + (" (you)" if p == seat else ""), style="bold" if p == seat else "")]
        for k in shown_keys:
            v = info.get(k)
            if isinstance(v, dict):
                if "cards" in v and len(v["cards"]) > longest and (p == seat or compact and not everyone):
                    row.append(_count(len(v["cards"])))
                else:
                    row.append(_zone_text(v, style, sort=True) if v else Text(""))
            else:
                row.append(Text(_plain(v)) if k in info and v is not None else Text(""))
        rows.append(row)

    def table(part):
        t = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold")
        t.add_column("player", no_wrap=True)
        for k in shown_keys:
            t.add_column(display_name(prog, k))
        for row in part:
            t.add_row(*row)
        return t
    half = (len(rows) + 1) // 2
    heads = ["player"] + [display_name(prog, k) for k in shown_keys]
    narrow = sum(max([len(h)] + [max(len(x) for x in r[i].plain.split("\n")) for r in rows[:1] + rows[1:]]) + 1
                 for i, h in enumerate(heads))
    if compact and len(rows) > 4 and width and 2 * narrow + 14 <= width:
        side = Table.grid(padding=(0, 3))   # many players on a small screen: two tables side by side
        side.add_row(table(rows[:half]), table(rows[half:]))
        grid.add_row("players", side)
    else:
        grid.add_row("players", table(rows))
    me = {} if everyone else obs["players"][seat]
    for k, v in me.items():
        if isinstance(v, dict) and "cards" in v and len(v["cards"]) > longest:
            grid.add_row(f"your {display_name(prog, k)}",
                         style.cards(v["cards"], sort=True, width=width - 14 if width else None))
    log = obs.get("log") or []
    if recent and log and not compact:
        grid.add_row("recent", Text("\n".join(log[-recent:]), style="italic"))
    return grid


def team_line(prog, team: dict) -> str:
    """A team in a line: its members, then its values (``Player 1, Player 3 · score: 20``)."""
    values = [f"{display_name(prog, k)}: {_plain(v)}" for k, v in team.items() if k not in ("name", "members")]
    return " · ".join([", ".join(team["members"]) or "no players"] + values)


def final_report(state) -> str:
    prog = state.game.program
    names = prog.player_names
    scores = state.returns()
    winners = state.winners()
    lines = ["Final scores:"]
    for p, s in enumerate(scores):
        mark = "  ← winner" if p in winners else ""
        lines.append(f"  {names[p]}: {s}{mark}")
    if prog.teams:
        from rulesrun.interpreter.runtime.observe import teams_view
        lines.append("Teams:")
        for team in teams_view(state):
            lines.append(f"  {team['name']}: {team_line(prog, team)}")
    won = _winning_teams(state, winners) if prog.teams else None
    if won:
        lines.append(f"{won[0]} wins." if len(won) == 1 else "Shared win: " + ", ".join(won) + ".")
    elif len(winners) == 1:
        lines.append(f"{names[winners[0]]} wins.")
    else:
        lines.append("Shared win: " + ", ".join(names[w] for w in winners) + ".")
    return "\n".join(lines)


def _winning_teams(state, winners) -> list | None:
    """The teams that won, when the winners are exactly the members of whole teams; else None."""
    prog = state.game.program
    row = state.player_values[prog.team_var]
    won = {row[p] for p in winners}
    if None in won or set(winners) != {p for p, t in enumerate(row) if t in won}:
        return None
    return [prog.teams[t] for t in sorted(won)]


def option_lines(actions: list, width: int, compact: bool) -> list[str]:
    """The numbered options; in the compact layout, in as many columns as fit the width."""
    items = [f"{i:>2}. {a}" for i, a in enumerate(actions, 1)]
    if not compact or len(items) <= 4:
        return ["  " + s for s in items]
    cell = max(len(s) for s in items) + 3
    cols = max(1, min(4, (width - 2) // cell))
    rows = -(-len(items) // cols)
    out = []
    for r in range(rows):
        parts = [items[c * rows + r] for c in range(cols) if c * rows + r < len(items)]
        out.append("  " + "".join(s.ljust(cell) for s in parts).rstrip())
    return out


def explain_card(prog, name: str) -> str | None:
    """What the file says about a card: its attributes (and its description, when the language gives
    cards one — ``program.card_descriptions``), or None when no card has that name."""
    ids = [i for i, n in enumerate(prog.card_names) if n.lower() == name.lower()]
    if not ids:
        return None
    cid = ids[0]
    lines = [f"{prog.card_names[cid]}" + (f" ({len(ids)} copies)" if len(ids) > 1 else "")]
    for a in prog.attr_types:
        v = prog.card_attrs[a][cid]
        if v is None or v == [] or (isinstance(v, str) and v == prog.card_names[cid]):
            continue
        lines.append(f"  {display_name(prog, a)}: {_plain(v)}")
    descriptions = getattr(prog, "card_descriptions", None) or {}
    text = descriptions.get(prog.card_names[cid]) if isinstance(descriptions, dict) else None
    if text:
        lines.append(f"  {text}")
    return "\n".join(lines)
