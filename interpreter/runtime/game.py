"""A game: a rules file compiled for one player count and set of variants (a ``Program``), and what
is the same for every state of it — the seats, the cards' names, each decision's actions, made once
per game. ``new_initial_state`` starts a ``State`` (runtime/state.py)."""
from __future__ import annotations

import secrets
from typing import Iterable

from rulesrun.dsl.check.params import param_texts
from rulesrun.dsl.program import RANDOM, Program
from rulesrun.interpreter.runtime.actions import Action, _Actions, deep_key, option_key
from rulesrun.interpreter.runtime.errors import GameError
from rulesrun.interpreter.runtime import actions
from rulesrun.interpreter.runtime.state import State, _resume_at_frame


class Game:
    """A rules file compiled for one player count and set of variants."""

    def __init__(self, program: Program):
        self.program = program
        self.title = program.title
        self.players = program.players
        self.variants = program.variants
        self.params = program.params      # the game parameters in force (dsl.check.params)
        names: dict[str, list[int]] = {}
        for cid, name in enumerate(program.card_names):
            names.setdefault(name, []).append(cid)
        self._ids_by_name = names
        # Actions are made once per (seat, option) and reused: legal_actions builds no text
        self._acts = [[_Actions(d, p) for p in range(program.players)] for d in program.decisions]
        # options that are lists are looked up as tuples (2: a choice block's subset, beside move texts)
        # (3: tuples, of several values picked at once or of a block's branch and value: lists once loaded)
        self._listy = [1 if d.type.startswith("list:") else 2 if d.type.startswith("choice:list:")
                       else 3 if d.type.startswith(("tuple:", "branches:")) else 0
                       for d in program.decisions]
        self._unique = [d.unique_texts for d in program.decisions]   # known never to read alike
        # for decisions whose options need no numbering and are not lists, each seat's lookup
        # option -> Action (made on first use); else None
        # the generated entry each decision resumes at, called with the chosen value (a subset
        # choice's, offered as a tuple, is made a list of its own by the entry: dsl.emit.namespace._listed)
        self._entries = [d.entry or _resume_at_frame for d in program.decisions]
        ncards = len(program.card_names)
        for d, rows, u, ls, entry in zip(program.decisions, self._acts, self._unique, self._listy, self._entries):
            for row in rows:
                row.keyed, row.entry = bool(u and not ls), entry
                if row.keyed and d.type == "card":   # every card's Action made now, found by its id
                    table = [row[c] for c in range(ncards)]
                    row.lookup = table.__getitem__
                    for a in table:
                        a.row = row.lookup
        self._lookups = [[row.lookup for row in rows] if rows and rows[0].keyed else None for rows in self._acts]
        # options that are sets of cards never reading alike: each seat's Actions kept by the set
        # as a tuple, offered unnumbered (Game._legal, _Actions.fill)
        self._listed = [rows if u and ls else None for rows, u, ls in zip(self._acts, self._unique, self._listy)]
        # the state values a new game starts with (State._start copies them)
        ncards = len(program.card_names)
        g0 = [v.initial for v in program.globals]
        pv0 = [[v.initial] * program.players for v in program.player_vars]
        cv0 = [[v.initial] * ncards for v in program.card_vars]
        if program.team_seats:      # each seat's team, alternating round the table (dsl.check.teams)
            pv0[program.team_var] = list(program.team_seats)
        # which rows hold lists (a `list of` value): each state gets lists of its own there
        listy = (any(isinstance(v, list) for v in g0), [isinstance(v.initial, list) for v in program.player_vars],
                 [isinstance(v.initial, list) for v in program.card_vars])
        self._initial = (g0, pv0, cv0, listy if listy[0] or any(listy[1]) or any(listy[2]) else None)

    def _legal(self, pending) -> list:
        """The Actions of an open decision [seat, decision, options]."""
        p, did, opts = pending
        rows = self._listed[did]
        if rows is not None:    # sets of cards (or moves) never reading alike: each seat's Action by
            row = rows[p]       # the set as a tuple, a move by its text (option_key; State.legal_actions
            try:                # does the same inline). A subset choice offers tuples already
                out = [*map(row.get, opts)]
            except TypeError:   # sets as lists (a loaded state's, an observation's)
                out = [*map(row.get, map(option_key, opts))]
            if not all(out):
                row.fill(out, opts, actions.KEPT)
            return out
        return self._numbered(pending)

    def _numbered(self, pending) -> list:
        """``_legal`` of a decision whose options are not sets never reading alike: each option's
        Action, those reading alike numbered."""
        p, did, opts = pending
        row = self._acts[did][p]        # option -> Action
        listy = self._listy[did]
        keys = (opts if not listy else list(map(tuple, opts)) if listy == 1
                else list(map(deep_key, opts)) if listy == 3
                else [o if o.__class__ is str else tuple(o) for o in opts])
        out = list(map(row.get, keys))
        if not all(out):                # options not seen before at this seat
            for i, a in enumerate(out):
                if a is None:           # keyed by a tuple for a list option, shown from the list
                    a = out[i] = row.make(opts[i])
                    if len(row) < actions.KEPT:    # sets of cards rarely come again: keep the first ones
                        row[keys[i]] = a
        if not self._unique[did] and len(set(out)) < len(out):
            count: dict = {}                  # different options that read alike: number them
            for i, a in enumerate(out):
                count[a] = count.get(a, 0) + 1
                if count[a] > 1:
                    out[i] = Action(f"{a} ({count[a]})", p)
        return out

    def __repr__(self):
        v = f" variants={list(self.variants)}" if self.variants else ""
        v += f" params={self.params}" if self.params else ""
        return f"<Game {self.title!r} players={self.players}{v}>"

    def num_players(self) -> int:
        return self.players

    def card_id(self, name: str) -> int:
        ids = self._ids_by_name.get(name)
        if not ids:
            raise GameError(f"no card is called {name!r}")
        return ids[0]

    def card_name(self, cid: int) -> str:
        return self.program.card_names[cid]

    def summary(self) -> str:
        p = self.program
        nshared = sum(1 for z in p.zones if z.owner is None)
        fams = len(p.families)
        return (f"{p.title}: {p.players} players, {len(p.card_names)} cards, {nshared} shared zones + "
                f"{fams} per player, {len(p.decisions)} kinds of decision, {p.proc_count} procedures"
                + (f", variants {', '.join(p.variants)}" if p.variants else "")
                + (f", parameters {param_texts(p.params, p.param_info)}" if p.params else ""))

    def new_initial_state(self, seed: int | None = None, stack: dict | None = None) -> "State":
        """A new game. ``stack`` stacks the deck for tests: {zone: [card names, top first]} applies
        to the next shuffle of that zone; a list of such lists applies to successive shuffles."""
        if seed is None:
            seed = secrets.randbits(62)
        forced = self._stack_to_forced(stack) if stack else []
        return State._start(self, int(seed), forced)

    def _stack_to_forced(self, stack: dict) -> list:
        prog = self.program
        forced = []
        for zone_name, orders in stack.items():
            if zone_name == "random":          # the values 'random from' picks, in order, by text
                if isinstance(orders, str) or not all(isinstance(t, str) for t in orders):
                    raise GameError("stack 'random' with a list of the texts of the values, like ['Player 3', '7']")
                forced.extend([RANDOM, t] for t in orders)
                continue
            if zone_name not in prog.zone_index:
                raise GameError(f"cannot stack {zone_name!r}: no shared zone has that name")
            zi = prog.zone_index[zone_name]
            if orders and isinstance(orders[0], str):
                orders = [orders]
            for names in orders:
                used: dict[str, int] = {}
                ids = []
                for name in names:
                    pool = self._ids_by_name.get(name)
                    if not pool:
                        raise GameError(f"cannot stack {name!r}: no card is called that")
                    k = used.get(name, 0)
                    if k >= len(pool):
                        raise GameError(f"cannot stack {name!r} {k + 1} times: there are only {len(pool)}")
                    used[name] = k + 1
                    ids.append(pool[k])
                forced.append([zi, ids[::-1]])  # stored bottom→top
        return forced

    def replay(self, seed: int, history: Iterable[str], stack: dict | None = None,
               reseeds: dict | None = None) -> "State":
        """Play ``history`` (decision texts) from a new game with ``seed``: the same game again.
        ``reseeds`` {k: seed} gives chance a fresh seed after k decisions (``State.reseed``), as the
        game being replayed did."""
        state = self.new_initial_state(seed=seed, stack=stack)
        reseeds = reseeds or {}
        i = -1
        for i, a in enumerate(history):
            if i in reseeds:
                state.reseed(reseeds[i])
            try:
                state.apply_action(str(a))
            except GameError as e:
                raise GameError(f"step {i + 1} of the history: {e}") from None
        if i + 1 in reseeds:
            state.reseed(reseeds[i + 1])
        return state
