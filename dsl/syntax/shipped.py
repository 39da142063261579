"""The games that travel with rulesrun, found by name: ``rulesrun magi`` and a variant file's
``extends magi`` alike.

In the repository they are ``games/*.rules`` and ``examples/*.rules``; a wheel installs the same
files as the package data ``rulesrun.games`` and ``rulesrun.games.examples`` (pyproject.toml maps the
folders). A path to a file always wins over a name.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]     # the repository, in a source checkout


def _folder(package: str, fallback: str) -> Path | None:
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        spec = None
    for loc in (spec.submodule_search_locations or []) if spec else []:
        if Path(loc).is_dir() and any(Path(loc).glob("*.rules")):
            return Path(loc)
    here = _ROOT / fallback          # a source checkout that is not installed
    return here if here.is_dir() else None


def shipped() -> list[tuple[str, Path]]:
    """(name, path) of every shipped game, then every example, each group by name."""
    out = []
    for package, fallback in (("rulesrun.games", "games"), ("rulesrun.games.examples", "examples")):
        folder = _folder(package, fallback)
        if folder is not None:
            out += [(p.stem, p) for p in sorted(folder.glob("*.rules"))]
    return out


def _key(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def find_game(name: str) -> str:
    """A rules file for ``name``: the path itself when it names a file (or looks like a path), else the
    shipped game of that name ("magi", "magic_shop", "magic-shop", "Magic Shop", "magi.rules")."""
    if Path(name).exists() or "/" in name or "\\" in name:
        return name
    key = _key(name[:-6] if name.endswith(".rules") else name)
    for stem, path in shipped():
        if key and key == _key(stem):
            return str(path)
    return name


