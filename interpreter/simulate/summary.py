"""The statistics of ``rulesrun simulate``, gathered a game at a time.

``Summary.add(record)`` takes each game's record as it comes back, in index order, so the parent
process does this work while the workers are still playing rather than after the last game;
``Summary.result()`` then only sorts and divides. ``summarise(records, ...)`` does both at once.
The figures know nothing of any particular game: win rates per seat and per agent (Wilson 95%
intervals), the distribution of ``returns()`` per seat, game length in decisions, every numeric
state value, the sizes of the per-player zones, and how often each option of each decision was
chosen.
"""
from __future__ import annotations

import math
from collections import Counter


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson score interval for k successes in n trials (95% by default)."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (max(0.0, mid - half), min(1.0, mid + half))


def _quantile(xs: list, q: float) -> float:
    if len(xs) == 1:
        return float(xs[0])
    pos = q * (len(xs) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def describe(values) -> dict:
    """mean, sd (sample), min, quartiles, max of a list of numbers (in any order)."""
    xs = sorted(float(v) for v in values)
    if not xs:
        return {"n": 0}
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return {"n": n, "mean": mean, "sd": sd, "min": xs[0], "q1": _quantile(xs, 0.25),
            "median": _quantile(xs, 0.5), "q3": _quantile(xs, 0.75), "max": xs[-1]}


def _rate(k: int, n: int) -> dict:
    lo, hi = wilson(k, n)
    return {"wins": k, "games": n, "rate": k / n if n else 0.0, "low": lo, "high": hi}


def _most_common(counts: dict) -> list:
    """(option, count) by count, most first; equal counts in the order first seen (as Counter's)."""
    return sorted(counts.items(), key=lambda kv: kv[1], reverse=True)


class _Kind:
    """One kind of bot over every seat it held: wins, seats, moves, thinking time, scores."""
    __slots__ = ("wins", "seats", "moves", "think", "scores")

    def __init__(self):
        self.wins = self.seats = self.moves = 0
        self.think = 0.0
        self.scores: list = []


class Summary:
    """The statistics of the games added so far. Add the records in index order: the order in
    which kinds, options and equal counts are listed is the order they were first seen."""

    def __init__(self, players: int, teams: list | None = None):
        n = self.n = players
        self.teams = teams
        self.games = self.shared = 0
        self.seat_wins = [0] * n
        self.seat_agents: list[dict] = [{} for _ in range(n)]
        self.seat_scores: list[list] = [[] for _ in range(n)]
        self.kinds: dict[str, _Kind] = {}
        self.decisions: list = []
        self.times: list = []
        self.state: dict | None = None           # name -> (finals, means, maxima)
        self.player_state: dict | None = None    # name -> [values by seat]
        self.zones: dict | None = None           # family -> (means, maxima)
        self.choices: dict = {}                  # label -> option -> count, over every seat
        self.by_agent: dict = {}                 # kind -> label -> option -> count
        self.team_games: list = []               # (each seat's team, winners) per game

    def add(self, r: dict) -> None:
        n = self.n
        self.games += 1
        winners = r["winners"]
        agents = r["agents"]
        returns = r["returns"]
        for p in range(n):
            kind = agents[p]
            won = p in winners
            if won:
                self.seat_wins[p] += 1
            here = self.seat_agents[p]
            here[kind] = here.get(kind, 0) + 1
            self.seat_scores[p].append(returns[p])
            k = self.kinds.get(kind)
            if k is None:
                k = self.kinds[kind] = _Kind()
            k.seats += 1
            k.wins += won
            k.moves += r["moves"][p]
            k.think += r["time"]["think"][p]
            k.scores.append(returns[p])
        if len(winners) > 1:
            self.shared += 1
        self.decisions.append(r["decisions"])
        self.times.append(r["time"]["game"])
        if self.state is None:
            self.state = {name: ([], [], []) for name in r["state"]}
            self.player_state = {name: [[] for _ in range(n)] for name in r["player_state"]}
            self.zones = {fam: ([], []) for fam in r["zone_mean"]}
        for name, (finals, means, maxima) in self.state.items():
            finals.append(r["state"][name])
            means.append(r["state_mean"][name])
            maxima.append(r["state_max"][name])
        for name, by_seat in self.player_state.items():
            for p, v in enumerate(r["player_state"][name]):
                by_seat[p].append(v)
        for fam, (means, maxima) in self.zones.items():
            means.append(r["zone_mean"][fam])
            maxima.append(r["zone_max"][fam])
        for p, seat_choices in enumerate(r["choices"]):
            if not seat_choices:
                continue
            mine = self.by_agent.get(agents[p])
            if mine is None:
                mine = self.by_agent[agents[p]] = {}
            for label, opts in seat_choices.items():
                every = self.choices.get(label)
                if every is None:
                    every = self.choices[label] = {}
                theirs = mine.get(label)
                if theirs is None:
                    theirs = mine[label] = {}
                for o, k in opts.items():
                    every[o] = every.get(o, 0) + k
                    theirs[o] = theirs.get(o, 0) + k
        if self.teams:
            self.team_games.append({"teams": r["teams"], "winners": winners})

    def result(self) -> dict:
        """Everything the table, the JSON and the plot show."""
        n, games = self.n, self.games
        seats = [{"seat": p + 1, **_rate(self.seat_wins[p], games), "agents": dict(self.seat_agents[p]),
                  "score": describe(self.seat_scores[p])} for p in range(n)]
        agents = {kind: {**_rate(k.wins, k.seats), "seats": k.seats, "score": describe(k.scores),
                         "seconds_per_move": k.think / k.moves if k.moves else 0.0}
                  for kind, k in self.kinds.items()}
        state = {name: {"final": describe(f), "mean": describe(m), "max": describe(x)}
                 for name, (f, m, x) in (self.state or {}).items()}
        player_state = {name: {"final": describe(v for seat in by_seat for v in seat),
                               "by_seat": [describe(seat) for seat in by_seat]}
                        for name, by_seat in (self.player_state or {}).items()}
        zones = {fam: {"mean": describe(m), "max": describe(x)} for fam, (m, x) in (self.zones or {}).items()}
        choice_out = {}
        for label, cnt in self.choices.items():
            total = sum(cnt.values())
            by_kind = {}
            for kind in self.kinds:
                theirs = self.by_agent.get(kind, {}).get(label)
                if theirs is not None:
                    count = sum(theirs.values())
                    by_kind[kind] = {"count": count, "options": {o: k / count for o, k in _most_common(theirs)}}
            choice_out[label] = {
                "count": total, "per_game": total / games if games else 0.0,
                "options": {o: {"count": k, "share": k / total} for o, k in _most_common(cnt)},
                "by_agent": by_kind,
            }
        # what each seat would win if the seats were alike: 1/n, raised by shared wins (each counts for every winner)
        fair = sum(s["wins"] for s in seats) / (n * games) if games else 1 / n
        for s in seats:
            s["vs_fair"] = "above" if s["low"] > fair else "below" if s["high"] < fair else "within"
        return {"games": games, "fair_share": fair, "shared_wins": self.shared, "seats": seats, "agents": agents,
                "length": {"decisions": describe(self.decisions)}, "state": state, "player_state": player_state,
                "zones": zones, "choices": choice_out, "time": {"game": describe(self.times)},
                **({"teams": team_wins(self.team_games, n, self.teams)} if self.teams else {})}


def summarise(records: list[dict], players: int, teams: list | None = None) -> dict:
    """The statistics of ``records`` at once (``teams``: the names of the game's teams, if it has
    teams: then wins per team too)."""
    s = Summary(players, teams)
    for r in records:
        s.add(r)
    return s.result()


def team_wins(records: list[dict], n: int, names: list) -> list[dict]:
    """Per team: the games it won (a member among the winners), and the seats it held at the end
    (the same in every game unless the rules form teams during play)."""
    out = []
    for t, name in enumerate(names):
        wins = sum(1 for r in records if any(r["teams"][p] == t for p in r["winners"]))
        held = Counter(tuple(p + 1 for p in range(n) if r["teams"][p] == t) for r in records)
        out.append({"team": name, **_rate(wins, len(records)),
                    "seats": list(next(iter(held))) if len(held) == 1 else None})
    return out
