"""The checker's types, written as short strings.

    number  bool  text  player  card  zone  family  none  team
    enum:<Kind>         a value of a declared kind
    list:<type>         a list (a zone's cards are list:card once read)
"""
from __future__ import annotations

NUMBER, BOOL, TEXT, PLAYER, CARD, ZONE, FAMILY, NONE = (
    "number", "bool", "text", "player", "card", "zone", "family", "none")
TEAM = "team"     # a team of seats (dsl.check.teams)


def list_of(t: str) -> str:
    return "list:" + t


def is_list(t: str) -> bool:
    return t.startswith("list:")


def elem(t: str) -> str:
    return t[5:]


def enum(kind: str) -> str:
    return "enum:" + kind


def is_enum(t: str) -> bool:
    return t.startswith("enum:")


def describe(t: str) -> str:
    if t == BOOL:
        return "yes/no"
    if is_enum(t):
        return t[5:]
    if is_list(t):
        return "list of " + describe(elem(t))
    if t == FAMILY:
        return "per-player zone"
    return t


def compatible(a: str, b: str) -> bool:
    """Whether values of types a and b may be compared or assigned to one another."""
    if a == b:
        return True
    if NONE in (a, b):
        return (a if b == NONE else b) in (PLAYER, CARD, NUMBER, TEAM, NONE) or is_enum(a if b == NONE else b)
    if is_list(a) and is_list(b):
        return compatible(elem(a), elem(b)) or "list:none" in (a, b)
    return False


def join(a: str, b: str) -> str | None:
    """The type of a value that is either an a or a b (for if/else), or None."""
    if a == b:
        return a
    if a == NONE and compatible(a, b):
        return b
    if b == NONE and compatible(a, b):
        return a
    if is_list(a) and is_list(b):
        if a == "list:none":
            return b
        if b == "list:none":
            return a
    return None
