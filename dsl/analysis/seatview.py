"""What one seat sees, for the information-flow check: a decision's options read by the seat that
decides, an announcement told to one seat, ``reveal X to SEAT``, and zones and state seen by their
owner, its team, or everyone but their owner. ``InfoFlow`` (``dsl.analysis.infoflow``) is the one
class that uses these checks; they read its tables (``_zone_of``, ``_var``, ``_alias``) and its
record of what was shown."""
from __future__ import annotations

import ast

from rulesrun.dsl.analysis.taint import Leak, shape_of, state_read
from rulesrun.dsl.analysis.teamsight import owner_seat, team_unseen
from rulesrun.dsl.ir import K, St


class SeatView:
    """The seat-view checks of ``InfoFlow`` (a part of that one class, kept in its own module)."""

    def _unseen_in_options(self, node, decider, env, where=None) -> str | None:
        """What a decision's options read that the deciding seat (the expression ``decider``) does
        not see, as a text, or None: the cards of a zone it does not see (another seat's hand, a
        facedown or hidden pile), how many cards a hidden zone holds, another seat's owner state or
        any hidden state. Seats are compared as written (``p`` against ``p``, ``player 1`` against
        ``player 1``); a value already in a local is followed by the value check, not here."""
        mine = shape_of(decider) if decider is not None else None
        counted = set()         # zone reads whose size only is read
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "len" and len(n.args) == 1 \
                    and isinstance(n.args[0], ast.Subscript) and isinstance(n.args[0].value, St) \
                    and n.args[0].value.which == "z":
                info = self._zone_of(n.args[0].slice)
                if info is not None and info.visibility == "hidden" \
                        and not env.get(("shown zone", info.family or info.name)):
                    return f"how many cards {info.name} holds (hidden)"
                counted.add(id(n.args[0]))      # its size is seen; its cards are not read here
            elif isinstance(n, ast.Subscript) and isinstance(n.value, St) and n.value.which == "z" \
                    and id(n) not in counted:
                info = self._zone_of(n.slice)
                if info is None or info.visibility == "public" or env.get(("shown zone", info.family or info.name)) \
                        or self._shown_to(n.slice, mine, env):
                    continue
                if info.visibility == "owner" and self._same_seat(n.slice, info, mine):
                    continue
                if info.visibility == "team":       # seen by every seat of its owner's team
                    unseen = self._team_unseen(owner_seat(n.slice, info), decider, f"cards of the {info.name}")
                    if unseen is None:
                        continue
                    if where is not None:
                        where.append(n.slice)
                    return unseen
                if info.visibility == "others":     # seen by every seat but its owner
                    if not self._same_seat(n.slice, info, mine):
                        continue
                    if where is not None:
                        where.append(n.slice)
                    return f"the cards of its own {info.name} (others)"
                whose = "another seat's" if info.visibility == "owner" else "the"
                if where is not None:
                    where.append(n.slice)
                return f"the cards of {whose} {info.name} ({info.visibility})"
            elif (var := state_read(n)) is not None and var[0] != "z":
                info = self._var(*var)
                if info is None or info.public or env.get(("shown value", *var)) \
                        or self._shown_to(n, mine, env):
                    continue
                if info.visibility == "owner" and var[0] == "pv" and mine is not None \
                        and shape_of(n.slice) == mine:
                    continue
                if info.visibility == "others" and var[0] == "pv":
                    if mine is None or shape_of(n.slice) != mine:
                        continue
                    return f"its own '{info.name}' (others)"
                if info.visibility == "team" and var[0] == "pv":
                    unseen = self._team_unseen(n.slice, decider, f"'{info.name}'")
                    if unseen is None:
                        continue
                    return unseen
                if info.visibility == "hidden" and not self.var_taint.get(var):
                    continue
                return f"'{info.name}' ({info.visibility})"
        return None

    def _team_unseen(self, owner, seat, what: str) -> str | None:
        return team_unseen(self.c.team_seats, owner, seat, what, shape_of)

    @staticmethod
    def _same_seat(zone_expr, info, mine) -> bool:
        """Whether the owner zone ``zone_expr`` is the deciding seat's own."""
        if mine is None:
            return False
        if isinstance(zone_expr, ast.BinOp):            # a per-player zone: family + seat
            return shape_of(zone_expr.right) == mine
        return info.owner is not None and mine == shape_of(K(info.owner))

    def _reveal_to(self, s, env) -> dict:
        """``reveal X to SEAT``: that seat sees X from here — a zone's cards, a state value (as
        written: ``(player 1).hand`` shown to ``player 2``); the others do not, so public sinks
        still refuse it. A local told to one seat is followed no further (what a private
        announcement or a decision of that seat reads of a local is not a leak already)."""
        env = dict(env)
        seat = shape_of(s.to)
        for v in s.values:
            zone, var = self._zone_of(self._alias(v, env)), state_read(v)
            if getattr(v, "rtype", "") == "zone" and zone is not None:
                env[("shown zone to", shape_of(self._alias(v, env)), seat)] = True
            elif var is not None:
                env[("shown value to", *var, shape_of(v.slice), seat)] = True
        return env

    def _shown_to(self, zone_or_read, seat, env) -> bool:
        """Whether the zone (an expression) or the state read was revealed to ``seat`` (a shape)."""
        if seat is None:
            return False
        var = state_read(zone_or_read)
        if var is not None and var[0] != "z":
            return env.get(("shown value to", *var, shape_of(zone_or_read.slice), seat)) is True
        return env.get(("shown zone to", shape_of(self._alias(zone_or_read, env)), seat)) is True

    def _told(self, s, env):
        """``announce to SEAT``: what it shows must be what that seat sees (its own hand and owner
        state, public zones and state, what was revealed), read as written (``p.hand`` told to
        ``p``). Another seat's cards are told honestly only when they are moved, as the zone that
        was read, into that seat's own zone (a card passed to it) before anyone observes again."""
        seat, values = s.value.elts[2], s.value.elts[3:]
        for v in values:
            if self._revealed(v, env):
                continue
            where = []
            if getattr(v, "rtype", "") == "zone" and (info := self._zone_of(self._alias(v, env))) is not None:
                unseen = self._unseen_zone(v, info, seat, env)      # a zone shown whole: "{p.hand}"
                where = [v]
            else:
                unseen = self._unseen_in_options(v, seat, env, where)
            if unseen is None:
                continue
            err = Leak(f"this announcement to one seat shows {unseen}, which that seat cannot see", s.pos,
                       "an announcement 'to' a seat may show what that seat sees: its own hand and owner "
                       "state, public zones and state; tell the owner instead, or move the cards to that "
                       "seat first", self.c.sources)
            zone = shape_of(where[0]) if where and self._zone_of(where[0]) is not None else None
            if zone is None:
                self._found(err)
            else:
                env = {**env, "private": env.get("private", ()) + ((err, zone, shape_of(seat), shape_of(v)),)}
        return env

    def _unseen_zone(self, zone, info, seat, env) -> str | None:
        """What a seat does not see of the zone ``zone`` (``info``), as a text, or None."""
        if info.visibility == "public" or env.get(("shown zone", info.family or info.name)) \
                or self._shown_to(zone, shape_of(seat), env):
            return None
        if info.visibility == "owner" and self._same_seat(zone, info, shape_of(seat)):
            return None
        if info.visibility == "others":
            return f"the cards of its own {info.name} (others)" if self._same_seat(zone, info, shape_of(seat)) else None
        if info.visibility == "team":
            return self._team_unseen(owner_seat(zone, info), seat, f"cards of the {info.name}")
        whose = "another seat's" if info.visibility == "owner" else "the"
        return f"the cards of {whose} {info.name} ({info.visibility})"

    def _told_by_move(self, env, src, dest, public):
        """A zone moved: a private announcement of its cards to the seat it is moved to (into that
        seat's own zone, or a public one) was honest."""
        pend = env.get("private", ())
        if not pend:
            return env
        info = self._zone_of(dest)
        to = shape_of(dest.right) if isinstance(dest, ast.BinOp) and info is not None \
            and info.visibility in ("owner", "team") else None
        moved = shape_of(src)         # the zone told of moved whole, or the very cards told of
        left = tuple(p for p in pend if not ((moved == p[1] or moved == p[3]) and (public or p[2] == to)))
        return {**env, "private": left}
