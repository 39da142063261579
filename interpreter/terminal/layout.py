"""The table's layout from the file's own words (``program.display``, ``dsl.check.display``): the
label of each value and zone, what is left off, the players table's columns, how a pile is shown
(from its top, how many cards) and under which cards a card's value is shown. The terminal
(``table.py``) and the web page (``web/views.py``) both lay the table out from here, so they say the
same things.

Everything works on an observation (``state.observation(seat)``), so nothing here can show more than
the seat may see; it only chooses and names. Nothing here knows a particular game.
"""
from __future__ import annotations

from rulesrun.dsl.program import TableDisplay

_NONE = TableDisplay()


def _display(prog) -> TableDisplay:
    return getattr(prog, "display", None) or _NONE


def label(prog, section: str, name: str) -> str:
    """How a value or zone reads at the table: the file's words (``shown as "..."``), else its name
    with spaces for ``_``. ``section``: "game" (the game's state and shared zones), "player" or "card"."""
    return _display(prog).labels.get((section, name)) or name.replace("_", " ")


def shown(prog, section: str, name: str) -> bool:
    """Whether the table shows it at all (not ``not shown``)."""
    return (section, name) not in _display(prog).hidden


def holds(v) -> bool:
    """A value that applies now: not nothing, not an empty list, not an empty or unseen zone."""
    if v is None or v == {} or v == []:
        return False
    if isinstance(v, dict):
        return bool(v.get("count") or v.get("cards"))
    return True


def pile(prog, section: str, name: str, view: dict, compact: bool = False) -> dict:
    """A zone's view as the table shows it: ``cards`` in the order shown (from the end the file
    names with ``showing top N`` / ``showing bottom N``: top first, or in the order they came),
    ``top`` whether the first is the pile's top card (to mark it), ``total`` how many the pile
    holds. Without ``showing``, the cards in the order they came — but a long pile in the compact
    layout is shown from its top, three cards of it."""
    cards = list(view.get("cards") or ())
    end, most = _display(prog).piles.get((section, name), (None, None))
    if end is None and compact and len(cards) > 3:
        end, most = "top", 3
    if end == "top":
        cards.reverse()              # the observation lists a zone from its bottom
    if most is not None:
        cards = cards[:most]
    return {"cards": cards, "top": end == "top" and bool(cards), "total": len(view.get("cards") or ())}


def columns(prog, players: list) -> list[tuple[str, list[str]]]:
    """The players table's columns, each (its label, the values and zones it shows in order of
    declaration, the column's own first): a value ``shown in X`` joins X's column; ``not shown``
    ones are left off; a column none of whose values hold anything for anyone is left off."""
    keys: list[str] = []
    for info in players:
        keys += [k for k in info if k != "name" and k not in keys]
    out = []
    for head, members in _groups(prog, tuple(keys)):
        if any(holds(info.get(k)) for info in players for k in members):
            out.append((head, members))
    return out


_GROUPS: dict = {}      # id(program.display) -> (the display, {the players' keys: their columns}); a frame each move


def _groups(prog, keys: tuple) -> list:
    d = _display(prog)
    kept = _GROUPS.get(id(d))
    if kept is None or kept[0] is not d:
        kept = _GROUPS[id(d)] = (d, {})
    if keys not in kept[1]:
        groups: dict[str, list[str]] = {}
        for k in keys:
            if not shown(prog, "player", k):
                continue
            head = d.column.get(k, k)
            groups.setdefault(head, [])
            if head == k:
                groups[head].insert(0, k)
            else:
                groups[head].append(k)
        kept[1][keys] = [(label(prog, "player", head), members) for head, members in groups.items()]
    return kept[1][keys]


def cell(info: dict, members: list[str]):
    """What a column shows for one player: the first of its values this seat sees and that holds
    something (so a column of a secret value and its public counterpart shows the one seen)."""
    for k in members:
        if k in info and holds(info[k]):
            return k, info[k]
    return None, None


def card_notes(prog, card_state: dict, zone: str, cards) -> dict:
    """The card values to show under ``cards``, the cards of ``zone`` (a shared zone's or a
    family's name): value name -> {card name -> value}. A value the file says is ``shown in`` some
    zones is shown under those zones' cards only (elsewhere it is left from before, not current)."""
    where = _display(prog).card_zones
    cards = set(cards)
    out = {}
    for k, values in card_state.items():
        if shown(prog, "card", k) and (k not in where or zone in where[k]):
            mine = {c: v for c, v in values.items() if c in cards}
            if mine:
                out[k] = mine
    return out


def variant_lines(prog) -> list[str]:
    """The variants in force, each with its one line when the file gives one (``described as``)."""
    notes = _display(prog).variants
    return [f"{v}: {notes[v]}" if v in notes else v for v in prog.variants]


def option_notes(state) -> dict:
    """Each legal action's note (``showing "..."``), by its text; empty when the decision has none."""
    notes = state.option_notes()
    if not notes:
        return {}
    return {str(a): n for a, n in zip(state.legal_actions(), notes) if n}
