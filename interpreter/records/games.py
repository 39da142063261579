"""The games that travel with rulesrun: found by name (``rulesrun magi``) and listed (``rulesrun list``).

In the repository they are ``games/*.rules`` and ``examples/*.rules``; a wheel installs the same
files as the package data ``rulesrun.games`` and ``rulesrun.games.examples`` (pyproject.toml maps the
folders). A path to a file always wins over a name.
"""
from __future__ import annotations

from pathlib import Path

# Finding the files is the compiler's too (a variant file's ``extends magi``): dsl.syntax.shipped.
from rulesrun.dsl.syntax.shipped import find_game, shipped

__all__ = ["find_game", "game_summaries", "missing", "shipped"]


def game_summaries() -> list[tuple[str, str, str, str]]:
    """(name, title, players, where) for ``rulesrun list``, read from each file's declarations."""
    from rulesrun.dsl import RulesError, parse_file
    from rulesrun.dsl.syntax.ast import GameDecl, PlayersDecl
    rows = []
    for stem, path in shipped():
        try:
            items = parse_file(path).items
        except (RulesError, OSError):
            continue
        title = next((i.title for i in items if isinstance(i, GameDecl)), stem)
        decl = next((i for i in items if isinstance(i, PlayersDecl)), None)
        players = "" if decl is None else (f"{decl.low}" if decl.low == decl.high else f"{decl.low}–{decl.high}")
        rows.append((stem, title, players, "example" if path.parent.name in ("examples",) else "game"))
    return rows


def missing(name: str) -> str | None:
    """A message for a FILE that is neither a file nor a shipped game's name (None when it is one)."""
    if Path(find_game(name)).exists():
        return None
    import difflib
    names = [stem for stem, _ in shipped()]
    close = difflib.get_close_matches(name.lower(), names, n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return (f"no such rules file or shipped game: {name}{hint} "
            f"('rulesrun list' names the shipped games: {', '.join(names)})")
