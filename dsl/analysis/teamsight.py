"""Who of a team sees a ``team`` zone's cards or value, as the information-flow check reads seats
(``dsl.analysis.infoflow``): the teams never change in a game that has one (dsl.check.teams), so two
seats written as numbers are compared by the teams as dealt, a seat is of its own team, and
``partner(p)`` of p's; any other pair of seats the check cannot tell apart is refused."""
from __future__ import annotations

import ast

from rulesrun.dsl.ir import K

UNSURE = ("whose owner the check cannot tell is in the deciding seat's team (it knows a seat's own, "
          "partner(p)'s and the seats written as numbers)")


def owner_seat(zone_expr, info):
    """The seat expression of the player who holds the zone ``zone_expr`` (``info``), or None."""
    if isinstance(zone_expr, ast.BinOp):            # a per-player zone: family + seat
        return zone_expr.right
    return None if info.owner is None else K(info.owner)


def teammates(team_seats, a, b, shape) -> bool:
    """Whether the seats written ``a`` and ``b`` are surely of one team: the same seat as written
    (``shape``: infoflow's comparable form), two seats written as numbers of one team, or one the
    partner() of the other."""
    if a is None or b is None:
        return False
    if shape(a) == shape(b):
        return True
    if team_seats and isinstance(a, K) and isinstance(b, K) and all(type(x.value) is int for x in (a, b)):
        return team_seats[a.value] == team_seats[b.value]
    return any(isinstance(x, ast.Call) and getattr(x.func, "id", None) == "_partner" and len(x.args) > 1
               and shape(x.args[1]) == shape(y) for x, y in ((a, b), (b, a)))


def team_unseen(team_seats, owner, seat, what: str, shape) -> str | None:
    """What ``seat`` does not see of the ``team`` zone's cards or value ``what`` of the player
    ``owner`` (seat expressions), as a text, or None when they are surely of one team."""
    if teammates(team_seats, owner, seat, shape):
        return None
    known = isinstance(owner, K) and isinstance(seat, K)
    return f"the {what} (team) of another team's seat" if known else f"the {what} (team) of a seat {UNSURE}"
