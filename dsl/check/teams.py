"""Partnerships: teams of seats and what belongs to a team.

    teams North_South shown as "North-South", East_West shown as "East-West"     # or: teams 2
    team state score: number = 0

Seats alternate round the table: seat 1 joins the first team, seat 2 the second, ... and round again,
so the teams are of equal size (4 players, 2 teams: partners sit across). ``p.team`` is a public
player value of type ``team`` (assignable: teams formed during play); ``t.score`` is team state.

Where it lives in the state (no new part of ``State``):

- ``p.team`` is a player value named ``team`` (``S.pv[k][p]``, a team's index); the engine sets each
  seat's team when a game starts (``Program.team_seats``).
- team state is public game state: one global value per team, in consecutive slots
  (``S.g[base + t]``), named ``"score of North-South"`` (``state.var`` reads it by that name). So
  clone, equality, save files, observations and the information-flow check (a public sink) cover it.
"""
from __future__ import annotations

import math

from rulesrun.dsl import types as T
from rulesrun.dsl.errors import did_you_mean
from rulesrun.dsl.ir import K, St, binop, call, compare, ifexp, sub
from rulesrun.dsl.program import VarInfo
from rulesrun.dsl.scope import Scope

TEAM_BUILTINS = {
    "partner": "partner(p): the other member of p's team (a team of exactly two)",
    "members": "members(t): the players of team t, in seat order",
    "opponents": "opponents(p): the players not in p's team, in seat order",
    "other_team": "other_team(t): the other team of a game of two teams (none of none)",
}
NO_TEAMS_HINT = "declare the teams first: 'teams 2', or 'teams North_South, East_West'"


class Teams:
    """Mixed into the compiler (``dsl.compiler``): teams, team state, and the team builtins."""

    # before (or without) a 'teams' line: no teams
    team_names: tuple = ()          # how each team reads
    team_index: dict = {}           # a team's name in the file -> its index
    team_var: int | None = None     # the player value holding each seat's team
    team_seats: list | None = None  # each seat's team at the start
    tvars: dict = {}                # team state name -> (first global slot, VarInfo)
    team_seen: tuple = ()           # (what, where) of each zone and player value seen by a team (``team``)
    team_assigned = None            # where the file first assigns p.team (teams formed during play)

    def _teams(self, td) -> None:
        if td is None:
            return
        n, players = td.count, self.N
        if n < 2:
            self.err(f"a game of teams needs at least 2 teams, not {n}", td.pos)
        if n > players:
            self.err(f"{n} teams need at least {n} players, and the game has {players}", td.pos,
                     f"choose --players {n} or more")
        if players % n:
            self.err(f"{n} teams cannot share {players} players equally", td.pos,
                     f"seats alternate round the table, so the player count must be a multiple of {n}; "
                     f"choose --players {n * (players // n)} or {n * (players // n + 1)}")
        index: dict = {}
        for name, pos in zip(td.names, td.name_pos):
            if name in index:
                self.err(f"team '{name}' is declared twice", pos)
            self._check_free(name, pos)
            index[name] = len(index)
        shown: dict = {}
        for i, text in enumerate(td.shown):
            if text in shown:
                pos = td.name_pos[i] if td.name_pos else td.pos
                self.err(f"two teams read '{text}'", pos, "give each team a name of its own")
            shown[text] = i
        self.team_index = index
        self.team_names = tuple(td.shown)
        self.team_seats = [p % n for p in range(players)]
        self.tvars = {}
        self.team_var = len(self.pvars)
        self.pvars["team"] = (self.team_var, VarInfo("team", T.TEAM, "public", None))

    def _seen_teams(self, visibility: str) -> tuple | None:
        """Each seat's team, for a zone or player value seen by its owner's team (``team``)."""
        return tuple(self.team_seats) if visibility == "team" and self.team_seats else None

    def _team_visibility(self) -> None:
        """After the declarations: a zone or player value seen by a team needs teams; each ``team``
        zone learns each seat's team (who sees it is then known when the game is compiled)."""
        if self.team_seen and not self.team_names:
            what, pos = self.team_seen[0]
            self.err(f"{what} is seen by its owner's team, and this game declares no teams", pos,
                     NO_TEAMS_HINT + ", or use 'owner' (its owner alone sees it)")
        for z in self.zones:
            if z.visibility == "team":
                z.teams = self._seen_teams("team")

    def _teams_stay(self) -> None:
        """After the flow: ``team`` visibility is worked out from the teams as dealt, so a file that
        assigns ``p.team`` cannot have it (who sees the cards would change with the teams)."""
        if self.team_seen and self.team_assigned is not None:
            what, pos = self.team_seen[0]
            kind = "zone" if what.startswith("zone") else "value"
            self.err(f"a {kind} seen by a team needs teams that stay as dealt: {what} (line {pos.line}) is seen "
                     f"by its owner's team, and line {self.team_assigned.line} changes a player's team",
                     self.team_assigned,
                     "keep the teams as 'teams' deals them (seats alternate round the table), or make the "
                     f"{kind} 'owner' and show it with 'reveal ... to'")

    def _team_state(self, s) -> None:
        """'team state NAME: type = value': one public global value per team."""
        if s.owner == "player":
            self.err("'team' is each player's team already: the file declares teams", s.pos,
                     "read it as p.team; choose another name for this value")
        if not self.team_names:
            self.err("team state needs teams, and this game declares none", s.pos, NO_TEAMS_HINT)
        if s.visibility != "public":
            self.err("team state is public: every seat sees each team's values", s.pos,
                     "leave out ', " + s.visibility + "', or keep a secret in 'player state ..., owner'")
        t = self._type(s.type)
        init = self._zero(t)
        if s.default is not None:
            init, dt = self._value(s.default)
            self._expect(dt, t, s.default.pos, f"the starting value of '{s.name}'")
        bounds = self._bounds(s, t, init)
        base = len(self.globals)
        for shown in self.team_names:
            key = f"{s.name} of {shown}"     # never a name in the file (it has spaces)
            self.globals[key] = (len(self.globals), VarInfo(key, t, "public", init, bounds=bounds))
        self.tvars[s.name] = (base, VarInfo(s.name, t, "public", init, bounds=bounds))

    def _team_type(self, tr) -> str:
        if not self.team_names:
            self.err("the type 'team' needs teams, and this game declares none", tr.pos, NO_TEAMS_HINT)
        return T.TEAM

    # ── expressions ──────────────────────────────────────────────────────
    def _e_AllTeams(self, e, scope):
        if not self.team_names:
            self.err("'teams' means every team, and this game declares none", e.pos, NO_TEAMS_HINT)
        return K(list(range(len(self.team_names)))), T.list_of(T.TEAM)

    def _team_attr(self, e, obj):
        """t.NAME: a team's state, read from (or written to) its global slot."""
        if e.name in self.tvars:
            self._no_state(e)
            base, info = self.tvars[e.name]
            if isinstance(obj, K) and isinstance(obj.value, int):
                return sub(St("g"), K(base + obj.value)), info.type
            return sub(St("g"), binop(K(base), "+", obj)), info.type
        self.err(f"teams have no '{e.name}'", e.name_pos or e.pos,
                 did_you_mean(e.name, list(self.tvars)) or "declare it with 'team state NAME: type'")

    def _team_builtin(self, e, scope):
        func = e.func
        if not self.team_names:
            self.err(f"{func}() needs teams, and this game declares none", e.pos,
                     NO_TEAMS_HINT + f" (or define a function of your own named otherwise than {func})")
        self._arity(e, 1)
        row = sub(St("pv"), K(self.team_var))
        node, t = self.expr(e.args[0], scope)
        if func == "partner":
            self._expect(t, T.PLAYER, e.args[0].pos, "partner()'s argument")
            return call("_partner", row, node, K(list(self.team_names)), K(e.pos)), T.PLAYER
        if func == "opponents":
            self._expect(t, T.PLAYER, e.args[0].pos, "opponents()'s argument")
            return call("_opponents", row, node), T.list_of(T.PLAYER)
        if func == "other_team":
            if len(self.team_names) != 2:
                self.err(f"other_team() is for a game of two teams, and this one has {len(self.team_names)}",
                         e.pos, "name the team you mean, or use members(t) and opponents(p)")
            self._expect(t, T.TEAM, e.args[0].pos, "other_team()'s argument")
            return ifexp(compare(node, "is", K(None)), K(None), binop(K(1), "-", node)), t
        self._expect(t, T.TEAM, e.args[0].pos, "members()'s argument")
        return call("_members", row, node), T.list_of(T.PLAYER)

    # ── winners by team ───────────────────────────────────────────────────
    def _team_winner_keys(self, wd) -> list:
        """'winners team t by highest t.score ...': each seat ranked by its team's keys (a seat
        with no team ranks last), so the winners are every member of the best team(s)."""
        if not self.team_names:
            self.err("'winners team' needs teams, and this game declares none", wd.pos, NO_TEAMS_HINT)
        slot = self.team_var
        keys = []
        for kind, e in wd.orders:
            scope = Scope("py")
            ref = scope.ref(scope.bind(wd.var, T.TEAM, e.pos, self), T.TEAM)
            node, t = self.expr(e, scope)
            self._expect(t, T.NUMBER, e.pos, "a winners order")
            fn = self.gen.lambda_(["S", ref], node, e.pos, "a winners order")
            sign = 1 if kind == "highest" else -1
            keys.append((sign, _by_team(fn, slot, -sign * math.inf)))
        return keys

    def _team_fields(self) -> dict:
        """The Program's fields about teams."""
        return {"teams": list(self.team_names), "team_seats": self.team_seats, "team_var": self.team_var,
                "team_state": [(name, info.type, base) for name, (base, info) in self.tvars.items()]}


def _by_team(fn, slot, worst):
    def key(S, p):
        t = S.pv[slot][p]
        return worst if t is None else fn(S, t)
    return key
