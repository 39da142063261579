"""The checker's types, written as short strings.

    number  bool  text  player  card  zone  family  none  team
    enum:<Kind>         a value of a declared kind
    list:<type>         a list (a zone's cards are list:card once read)
    tuple:<t1>,<t2>...  several values picked at once (``q, col from opponents(p), Colour``): a tuple
    branches:<t0>;<t1>  a choice block's option with several picks (or a move worked out when the
                        decision opens): a tuple (branch, value), the branch's value of type t<branch>
                        (a named move's: its text)
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


def tuple_of(types) -> str:
    return "tuple:" + ",".join(types)


def is_tuple(t: str) -> bool:
    return t.startswith("tuple:")


def tuple_elems(t: str) -> list:
    return t[6:].split(",")


def branches_of(types) -> str:
    return "branches:" + ";".join(types)


def branch_types(t: str) -> list:
    """The value type of each branch of a ``branches:`` type."""
    return t[9:].split(";")


def describe(t: str) -> str:
    if is_tuple(t):
        return " and ".join(describe(e) for e in tuple_elems(t))
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
