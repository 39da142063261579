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

from rulesrun.interpreter.terminal import layout

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


def display_name(prog, name: str, section: str | None = None) -> str:
    """How a value's or zone's name reads at the table: the file's words for it (``shown as "..."``:
    ``layout.label``, in ``section`` "game", "player" or "card"; any section when not given),
    else the name with spaces for ``_``."""
    names = getattr(prog, "display_names", None) or {}
    if name in names:
        return names[name]
    sections = (section,) if section else ("game", "player", "card")
    labels = prog.display.labels if hasattr(prog, "display") else {}
    return next((labels[(s, name)] for s in sections if (s, name) in labels), name.replace("_", " "))


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
               pile: dict | None = None, width: int | None = None) -> Text:
    """A zone's cards (annotated with who played each), its count, or 'hidden'. With ``pile``
    (``layout.pile``), the cards in the order shown: the top card first and marked, as many as the
    file says and as fit ``width``, and how many the pile holds when some are left out."""
    if "cards" in view:
        if pile is not None and (pile["top"] or len(pile["cards"]) < pile["total"]):
            return _pile_text(pile, style, width)
        cards = pile["cards"] if pile is not None else view["cards"]
        if annotate and cards and any(c in annotate for c in cards):
            out = Text()
            line = 0
            for i, c in enumerate(cards):
                note = f" ({annotate[c]})" if c in annotate else ""
                if i:                   # a card and its note are never split over two lines
                    if width and line + 3 + len(c) + len(note) > width:
                        out.append(" ·\n")
                        line = 0
                    else:
                        out.append(" · ")
                        line += 3
                out.append_text(style.card(c))
                if note:
                    out.append(note, style="dim")
                line += len(c) + len(note)
            return out
        return style.cards(cards, sort=sort, width=width)
    if "count" in view:
        out = _count(view["count"])
        out.append(backs_text(view))
        return out
    return Text("hidden", style="dim")


def backs_text(view: dict) -> str:
    """What is shown on the backs of cards whose faces are not (``on back`` card state), by place:
    `` — told: 1 Red, 3 Red`` (places from 1, bottom first); empty when nothing is."""
    parts = []
    for name, values in view.get("backs", {}).items():
        marked = [f"{i} {v}" for i, v in enumerate(values, 1) if v is not None]
        if marked:
            parts.append(f"{name.replace('_', ' ')}: {', '.join(marked)}")
    return f" — {'; '.join(parts)}" if parts else ""


def _pile_text(pile: dict, style: CardStyle, width: int | None) -> Text:
    """``red Hourglass (top)  red Scales  grey Witch  · 13 cards``: the first card, marked when it is
    the top, always on the line; the others while they fit ``width``; the count when any is left out."""
    cards, total = pile["cards"], pile["total"]
    out = Text()
    used = 0
    shown = 0
    for i, c in enumerate(cards):
        mark = " (top)" if i == 0 and pile["top"] else ""
        more = f"  · {total} cards" if total > i + 1 else ""
        piece = ("  " if i else "") + c + mark
        if i and width and used + len(piece) + len(more) > width:
            break
        if i:
            out.append("  ")
        out.append_text(style.card(c))
        if mark:
            out.append(mark, style="bold")
        used += len(piece)
        shown += 1
    if shown < total:
        out.append(f"  · {total} cards", style="dim")
    return out


def _pack(items: list[str], width: int, gap: str = "   ") -> str:
    """Items on as few lines as fit ``width``, never breaking one in two."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(gap) + len(item) <= width:
            lines[-1] += gap + item
        else:
            lines.append(item)
    return "\n".join(lines)


def _annotations(prog, card_state: dict, zone: str, cards) -> dict | None:
    """Who played each card of a zone, when the file's card values say so: the first card value
    shown under this zone's cards (``layout.card_notes``) whose values are all players."""
    notes = layout.card_notes(prog, card_state, zone, cards)
    return next((v for v in notes.values()
                 if all(isinstance(x, str) and x.startswith("Player ") for x in v.values())), None)


def render_view(obs: dict, style: CardStyle, recent: int = 6, compact: bool = False,
                width: int | None = None) -> Table:
    """One seat's observation as a rich renderable (printed as plain text when not a terminal).

    The file's words label each value, zone and column (``layout``); ``compact`` is the
    small-terminal layout: state on as few lines as fit, long piles as their count and top cards,
    long per-player piles as counts, and no repeat of the recent announcements (they were printed
    just above)."""
    prog = style.prog
    seat = obs["seat"]
    grid = Table.grid(padding=(0, 1))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column()
    everyone = seat < 0        # a replay's view of every seat: no "you", every hand laid out
    title = Text(obs["game"] + ("" if everyone else f" — you are Player {seat + 1}"), style="bold")
    grid.add_row(Text("──"), title)
    variants = layout.variant_lines(prog)
    if variants:
        grid.add_row("variant" + ("s" if len(variants) > 1 else ""), Text("\n".join(variants)))
    values = [f"{display_name(prog, k, 'game')}: {_plain(v)}" for k, v in obs["state"].items()
              if v is not None and layout.shown(prog, "game", k)]
    if values:
        grid.add_row("state", Text(_pack(values, width - 12) if width else "   ".join(values)))
    for team in obs.get("teams") or ():
        grid.add_row(team["name"], Text(team_line(prog, team)))
    card_state = obs.get("card_state", {})
    for name, view in obs["zones"].items():
        if view and (view.get("cards") or view.get("count")) and layout.shown(prog, "game", name):
            head = display_name(prog, name, "game")
            pile = layout.pile(prog, "game", name, view, compact) if "cards" in view else None
            grid.add_row(Text(head), _zone_text(view, style, _annotations(prog, card_state, name, view.get("cards", ())), pile=pile,
                                          width=width - max(len(head), 9) - 2 if width else None))
    cols = layout.columns(prog, obs["players"])
    longest = 2 if compact else 3
    rows = []
    for p, info in enumerate(obs["players"]):
        row = [Text(info["name"] + (" (you)" if p == seat else ""), style="bold" if p == seat else "")]
        for _, members in cols:
            k, v = layout.cell(info, members)
            if isinstance(v, dict):
                if "cards" in v and len(v["cards"]) > longest and (p == seat or compact and not everyone):
                    row.append(_count(len(v["cards"])))
                else:
                    pile = layout.pile(prog, "player", k, v) if "cards" in v else None
                    row.append(_zone_text(v, style, sort=pile is None or not pile["top"], pile=pile) if v else Text(""))
            else:
                row.append(Text(_plain(v)) if v is not None else Text(""))
        rows.append(row)

    def table(part):
        t = Table(box=None, padding=(0, 1), show_edge=False, header_style="bold",
                  collapse_padding=compact, pad_edge=not compact)   # a small screen: one space between columns
        t.add_column("player", no_wrap=True)
        for head, _ in cols:
            t.add_column(Text(head))             # the file's words: never read as markup
        for row in part:
            t.add_row(*row)
        return t
    half = (len(rows) + 1) // 2
    heads = ["player"] + [head for head, _ in cols]
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
        if isinstance(v, dict) and "cards" in v and len(v["cards"]) > longest and layout.shown(prog, "player", k):
            grid.add_row(Text(f"your {display_name(prog, k, 'player')}"),
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
    words = getattr(getattr(prog, "display", None), "score", None)    # the file's word for the score
    lines = ["Final scores:"]
    for p, s in enumerate(scores):
        mark = "  ← winner" if p in winners else ""
        lines.append(f"  {names[p]}: {s}{' ' + words if words else ''}{mark}")
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
