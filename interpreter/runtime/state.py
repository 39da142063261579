"""A state of a game: plain data (lists of ints and strings — see ``dsl.program``) run by the run
loop, with OpenSpiel's state API. ``clone`` is a handful of list copies, equality is structural, and
``to_json`` / ``State.from_json`` round-trip exactly (runtime/saved.py)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.dsl.errors import source_of
from rulesrun.dsl.program import MAX_STEPS, STOP, steps_count, steps_list, steps_of
from rulesrun.interpreter.runtime import actions, saved
from rulesrun.interpreter.runtime.actions import Action, option_key
from rulesrun.interpreter.runtime.errors import GameError

if TYPE_CHECKING:
    from rulesrun.interpreter.runtime.game import Game


TERMINAL = -4          # current_player() once the game is over (OpenSpiel's value)
_NO_LOG = object()      # (State.log: nothing kept yet)


class State:
    """One moment of one game. All fields are plain data; ``_game`` is the compiled program."""

    __slots__ = ("_game", "_prog", "seed", "z", "loc", "g", "pv", "cv", "frames", "pending", "rng", "shown",
                 "steps", "ann", "forced", "_legal", "_row", "budget", "ret", "_lookups", "_logs")
    # _legal: the open decision's Actions where they need numbering (else made per call); _row: the
    # lookup legal_actions() used, by which apply_action knows an Action of this decision and seat;
    # _lookups: the game's (Game._lookups), kept on the state to save legal_actions() a step;
    # _logs: the log's texts made so far, for log() (set by its first call: a clone starts without)

    # ── creation ───────────────────────────────────────────────────────────
    @classmethod
    def _start(cls, game: Game, seed: int, forced: list) -> "State":
        prog = game.program
        S = object.__new__(cls)
        S._game, S._prog = game, prog
        S.seed = seed
        ncards = len(prog.card_names)
        S.z = [[] for _ in prog.zones]
        S.z[0] = list(range(ncards))
        S.loc = [0] * ncards
        g0, pv0, cv0, listy = game._initial
        if listy:       # a value that is a list starts as a list of its own in each state
            S.g = [_copy(v) for v in g0] if listy[0] else g0[:]
            S.pv = [[*map(_copy, row)] if lists else row[:] for row, lists in zip(pv0, listy[1])]
            S.cv = [[*map(_copy, row)] if lists else row[:] for row, lists in zip(cv0, listy[2])]
        else:
            S.g = g0[:]
            S.pv = list(map(list.copy, pv0))
            S.cv = list(map(list.copy, cv0))
        S.frames = [[0, 0, [None] * prog.proc_nslots[0]]]
        S.pending = None
        S.rng = seed
        S.steps = None
        S.ann = None
        S.shown = {}             # (part, var, index) -> value, for state values the rules revealed
        S.forced = forced
        S._legal = S._row = None
        S._lookups = game._lookups
        S._run()
        return S

    # ── running ────────────────────────────────────────────────────────────
    def _run(self) -> None:
        """Run the generated procedures until someone must choose or the game ends."""
        self.budget = MAX_STEPS  # loop rounds allowed before the next decision (spent by the loops)
        try:
            self._go_on()
        except Exception as e:
            self._failed(e)

    def _go_on(self) -> None:
        """The run loop: the top frame's entry, until one stops at a decision or no frame is left
        (an entry returns DONE or SWITCH when the frames changed under it: a call, a return)."""
        procs = self._prog.procs
        frames = self.frames
        while frames:
            F = frames[-1]
            if procs[F[0]][F[1]](self, F) == STOP:
                return
        self.pending = None         # the game is over (apply_action leaves the decision taken till now)

    def _failed(self, e: Exception):
        """Raise what went wrong while running the rules, as a RulesRuntimeError naming the line."""
        if isinstance(e, RulesRuntimeError):
            e.source = source_of(self._prog.sources, e.pos)
            raise e
        if isinstance(e, (RulesError, GameError)):
            raise e
        pos = self._prog.code.position(e.__traceback__)
        if isinstance(e, RecursionError):
            raise RulesRuntimeError("procedures call one another without end (too deep for Python)",
                                    pos, self._prog.sources) from None
        if isinstance(e, TypeError) and "NoneType" in str(e) and ("operand" in str(e) or "supported" in str(e)):
            # arithmetic or an order on an unset value: `p.bid + 1` with bid still none
            raise RulesRuntimeError("a value here is none (it has no value yet) where a number is needed; "
                                    "test it first, as in 'if p.bid != none:'", pos, self._prog.sources) from None
        if isinstance(e, TypeError) and "NoneType" in str(e):
            # none (nobody, no card) where a player or a card is needed: p.score with p none
            raise RulesRuntimeError("a value here is none (nobody, or no card), where a player or a card is "
                                    "needed", pos, self._prog.sources) from None
        # a Python error inside generated code: report the rules line it came from
        raise RulesRuntimeError(f"{type(e).__name__}: {e}", pos, self._prog.sources) from None

    # ── the OpenSpiel-shaped API ───────────────────────────────────────────
    @property
    def game(self) -> Game:
        return self._game

    # ── reading the state as data (bots, observations, bridges and checks read these, never the
    # slots: the layout underneath may change). Everything here is read only: change a state only
    # by apply_action / apply_index (or fresh_future, for a bot's imagined copy).
    @property
    def program(self):
        """The compiled program's tables (``dsl.program.Program``): zones, card names, decisions,
        the number of players, the winner keys, the heuristic."""
        return self._prog

    @property
    def open_decision(self) -> list | None:
        """The decision waiting, as ``[seat, decision, options]``: the decision's index in
        ``program.decisions`` and its options as values, in order (``legal_actions()`` makes them
        Actions); None once the game is over."""
        return self.pending

    def option_notes(self) -> list | None:
        """The words said beside each legal action at the table (the decision's ``showing "..."``),
        in the order of ``legal_actions()``, worked out now; None when the decision has no note."""
        pending = self.pending
        if pending is None:
            return None
        note = self._prog.decisions[pending[1]].note
        if note is None:
            return None
        return [self.evaluate(note, o) for o in pending[2]]

    @property
    def zones(self) -> list[list[int]]:
        """The card ids in each zone (by zone index), top first."""
        return self.z

    @property
    def card_zones(self) -> list[int]:
        """The zone index each card (by id) is in."""
        return self.loc

    @property
    def game_values(self) -> list:
        """The game's state values, by index (``program.globals``)."""
        return self.g

    @property
    def player_values(self) -> list[list]:
        """Each player state value (by index) as a list by seat."""
        return self.pv

    @property
    def card_values(self) -> list[list]:
        """Each card state value (by index) as a list by card id."""
        return self.cv

    @property
    def revealed(self) -> dict:
        """What the rules showed (``reveal``): (part, var, index) -> value for state, ("local" | "value" |
        "zone", line, place) for a card, a value, a zone's cards; with the seat appended when shown to
        one player (``reveal ... to``). Read it for one seat through ``observe.revealed_cards``."""
        return self.shown

    @property
    def log_mark(self):
        """The newest announcement (an opaque mark: compare with ``is``; ``observe.announced_cards``
        and the log readers take it as where to read from)."""
        return self.ann

    @property
    def history_mark(self):
        """The newest step of the history (an opaque mark: ``dsl.program.steps_count`` counts it)."""
        return self.steps

    def fresh_future(self, seed: int) -> None:
        """Make this state a start for imagined play: its future chance events drawn from ``seed``
        (no stacked deck), with no history and no log (a bot's determinisation; the rules never
        read either)."""
        self.rng = seed
        self.forced = []
        self.steps = None
        self.ann = None

    def evaluate(self, fn, *args):
        """Call one of the program's functions (the heuristic, a winner key) on this state; a Python
        error inside it is raised as a RulesRuntimeError naming the rules line."""
        try:
            return fn(self, *args)
        except RulesRuntimeError:
            raise
        except Exception as e:
            self._failed(e)

    def current_player(self) -> int:
        return self.pending[0] if self.pending is not None else TERMINAL

    def is_terminal(self) -> bool:
        return self.pending is None

    def legal_actions(self, player: int | None = None) -> list[Action]:
        pending = self.pending
        if pending is None or (player is not None and player != pending[0]):
            return []
        lookups = self._lookups[pending[1]]
        if lookups is not None:     # options that need no numbering: each its seat's cached Action, in C
            get = self._row = lookups[pending[0]]     # apply_action knows these Actions by it
            try:
                return [*map(get, pending[2])]
            except TypeError:       # none among cards (looked up by id): Game._legal makes its Action
                self._row = None
        legal = self._legal
        if legal is None:
            game = self._game
            rows = game._listed[pending[1]]
            if rows is not None:    # sets of cards never reading alike: Game._legal's first case, inline
                row = rows[pending[0]]
                try:
                    legal = [*map(row.get, pending[2])]
                except TypeError:
                    legal = [*map(row.get, map(option_key, pending[2]))]
                if not all(legal):
                    row.fill(legal, pending[2], actions.KEPT)
                self._legal = legal
            else:
                legal = self._legal = game._numbered(pending)
        return legal.copy()

    def decision_label(self) -> str | None:
        if self.pending is None:
            return None
        return self._prog.decisions[self.pending[1]].label

    def apply_action(self, action: Any) -> None:
        """Take an action: one of ``legal_actions()``, its text, or its index."""
        try:                # an Action from legal_actions() of this decision and seat, if legal now
            if action.row is self._row and action.value in self.pending[2]:
                self.steps = (self.steps, action.text)      # the history, a linked list clones share
                # (the open decision stays until the entry opens the next one, or _go_on ends the
                # game; _legal is None here: it is made only where legal_actions() has no lookup)
                self._row = None
                self.budget = MAX_STEPS
                entry = action.entry    # (read into a name: a call of action.entry(...) is a lookup
                # Python 3.11 cannot make fast for a function kept in an attribute)
                try:        # the decision's entry, given the value; the run loop only if the frames changed
                    if entry(self, self.frames[-1], action.value) != STOP:
                        self._go_on()
                except Exception as e:
                    self.pending = None     # the game cannot go on
                    self._failed(e)
                return
        except (AttributeError, TypeError):     # a text, a number, a numbered Action; or the game is over
            pass
        legal = self._legal     # a text, a number, or an action that needed numbering
        if legal is None:
            legal = self._legal_to_apply()
        try:                # one of legal_actions() (found by identity), or its text
            idx = legal.index(action)
        except ValueError:  # a number, or not legal
            idx = self._find(action, legal)
        pending = self.pending
        self.steps = (self.steps, legal[idx].text)
        self.pending = self._legal = self._row = None
        self.budget = MAX_STEPS
        try:                # as above, with the entry the decision resumes at
            if self._game._entries[pending[1]](self, self.frames[-1], pending[2][idx]) != STOP:
                self._go_on()
        except Exception as e:
            self._failed(e)

    def _legal_to_apply(self) -> list:
        if self.pending is None:
            raise GameError("the game is over; no more actions")
        legal = self._legal = self._game._legal(self.pending)
        return legal

    def reseed(self, seed: int) -> None:
        """Give chance a fresh seed: every shuffle from now on is drawn from ``seed``; nothing that
        has happened changes. After an ``undo``, so a draw seen and taken back is not the draw that
        comes again; a record keeps each (decisions so far, seed) so ``Game.replay`` plays it the same."""
        self.rng = int(seed)

    @staticmethod
    def _find(action, legal) -> int:
        if isinstance(action, int) and not isinstance(action, bool):
            if not 0 <= action < len(legal):
                raise GameError(f"action number {action} is out of range (0 to {len(legal) - 1})")
            return action
        try:
            return legal.index(str(action))
        except ValueError:
            shown = ", ".join(f"'{a}'" for a in legal[:8]) + (" ..." if len(legal) > 8 else "")
            raise GameError(f"'{action}' is not a legal action now; legal: {shown}") from None

    def num_legal_actions(self) -> int:
        """How many options the open decision has (0 once the game is over), without making them:
        with ``apply_index``, a playout never builds an action."""
        pending = self.pending
        return 0 if pending is None else len(pending[2])

    def apply_index(self, i: int) -> None:
        """Take the i-th of ``legal_actions()`` (0 <= i < ``num_legal_actions()``) without making
        action texts or recording it in the history, and allocating nothing on the way to the
        rules: for bots and playouts on throw-away copies (``clone()``), where only the outcome
        counts. The game goes on exactly as with ``apply_action(legal_actions()[i])``, but
        ``history()`` and ``replay`` do not see these steps."""
        pending = self.pending
        if pending is None:
            raise GameError("the game is over; no more actions")
        opts = pending[2]
        if not 0 <= i < len(opts):
            raise GameError(f"action number {i} is out of range (0 to {len(opts) - 1})")
        self.pending = self._legal = self._row = None
        self.budget = MAX_STEPS
        try:                             # as in apply_action
            if self._game._entries[pending[1]](self, self.frames[-1], opts[i]) != STOP:
                self._go_on()
        except Exception as e:
            self._failed(e)

    def returns(self) -> list:
        if self.pending is not None:
            raise GameError("the game is not over yet; returns exist only at the end")
        prog = self._prog
        if prog.score is None:
            win = set(self.winners())
            return [1 if p in win else 0 for p in range(prog.players)]
        return [prog.score(self, p) for p in range(prog.players)]

    def winners(self) -> list[int]:
        if self.pending is not None:
            raise GameError("the game is not over yet")
        keys = self._prog.winner_keys
        if not keys:
            return list(range(self._prog.players))
        ranked = [tuple(sign * fn(self, p) for sign, fn in keys) for p in range(self._prog.players)]
        best = max(ranked)
        return [p for p, k in enumerate(ranked) if k == best]

    @property
    def hist(self) -> list:
        """Every step so far as a new list: decision texts, and chance records ["shuffle", zone,
        order] / ["random", text]. Stored in ``steps``, a linked list that clones share
        (``dsl.program.add_step``); assigning a list replaces it."""
        return steps_list(self.steps)

    @hist.setter
    def hist(self, entries) -> None:
        self.steps = steps_of(entries)

    def history(self) -> list[str]:
        """The decisions taken so far, in order: with the seed, they replay the game exactly."""
        return [h for h in steps_list(self.steps) if isinstance(h, str)]

    def events(self) -> list:
        """Every step so far: decision texts, and chance events as ("shuffle", zone, [cards, top first])
        or ("random", text) for a value picked by ``random from``."""
        out = []
        for h in steps_list(self.steps):
            if isinstance(h, str):
                out.append(h)
            elif h[0] == "random":
                out.append(("random", h[1]))
            else:
                names = self._prog.card_names
                out.append(("shuffle", self._prog.zones[h[1]].name, [names[c] for c in reversed(h[2])]))
        return out

    def log(self, seat: int | None = None, everything: bool = False) -> list[str]:
        """The announcements so far, oldest first: the public ones, and with ``seat`` those told
        to that seat alone too; with ``everything``, every one, a private one marked
        ``(to Player 2)`` — the full record, for replays and tests, not for players."""
        # The texts made by the last call for this seat are kept with the announcement they end at:
        # the log is linked tuples never changed, so a log that holds that announcement holds the
        # same ones before it, and only the newer ones are made (a REPL, a table, a bot or a test
        # reading the log at every step made all of it each time: quadratic in a long game).
        try:
            kept = self._logs
        except AttributeError:
            kept = self._logs = {}
        key = (seat, everything)
        end, texts = kept.get(key, (_NO_LOG, ()))
        entries = []
        node = self.ann
        templates = self._prog.templates
        while node is not None and node is not end:       # (earlier, template, values...)
            tid, vals = node[1], node[2:]
            if templates[tid].private:
                if everything:
                    entries.append((tid, vals[1:], f"(to {self._prog.player_names[vals[0]]}) "))
                elif vals[0] == seat and seat is not None:
                    entries.append((tid, vals[1:], ""))
            else:
                entries.append((tid, vals, ""))
            node = node[0]
        entries.reverse()
        out = [*(texts if node is end else ()), *[mark + self.announcement_text((tid, vals)) for tid, vals, mark in entries]]
        kept[key] = (self.ann, out)
        return out.copy()

    def announcement_text(self, entry) -> str:
        """The text of one announcement, given as (template index, values) as the log keeps it."""
        tid, vals = entry
        tpl = self._prog.templates[tid]
        out, i = [], 0
        for part in tpl.parts:
            if isinstance(part, str):
                out.append(part)
            else:
                out.append(part[1](vals[i]))
                i += 1
        return "".join(out)

    # ── reading values by name (scenario tests, tools) ─────────────────────
    def var(self, name: str, player: int | None = None):
        """A state value by name — global, or ``player``'s for a ``player state``. Cards come back as
        names, players as seat numbers (0-based), kinds as their value names."""
        prog = self._prog
        if player is None:
            for i, v in enumerate(prog.globals):
                if v.name == name:
                    return self._plain(v.type, self.g[i])
            raise GameError(f"no game state is called {name!r}")
        for i, v in enumerate(prog.player_vars):
            if v.name == name:
                return self._plain(v.type, self.pv[i][player])
        raise GameError(f"no player state is called {name!r}")

    def card_var(self, name: str, card: str):
        prog = self._prog
        for i, v in enumerate(prog.card_vars):
            if v.name == name:
                return self._plain(v.type, self.cv[i][self._game.card_id(card)])
        raise GameError(f"no card state is called {name!r}")

    def cards(self, zone: str, player: int | None = None) -> list[str]:
        """The names of the cards in a zone, bottom first (the last one is the top)."""
        prog = self._prog
        if player is None:
            if zone not in prog.zone_index:
                hint = " (it is a per-player zone: pass player=)" if zone in prog.families else ""
                raise GameError(f"no shared zone is called {zone!r}{hint}")
            zi = prog.zone_index[zone]
        else:
            if zone not in prog.families:
                raise GameError(f"no per-player zone is called {zone!r}")
            zi = prog.families[zone] + player
        return [prog.card_names[c] for c in self.z[zi]]

    def _plain(self, typ: str, v):
        names = self._prog.card_names
        if typ == "card":
            return None if v is None else names[v]
        if typ == "list:card":
            return [names[c] for c in v]
        return v

    def check_invariants(self) -> list[str]:
        """The texts of the file's invariants that do not hold in this state, and of each number
        declared ``from LOW to HIGH`` that holds a number outside its bounds."""
        broken = [text for text, fn in self._prog.invariants if not fn(self)]
        prog = self._prog
        rows = [(info, [v], None) for info, v in zip(prog.globals, self.g) if info.bounds]
        rows += [(info, row, prog.player_names) for info, row in zip(prog.player_vars, self.pv) if info.bounds]
        rows += [(info, row, prog.card_names) for info, row in zip(prog.card_vars, self.cv) if info.bounds]
        for info, row, names in rows:
            low, high = info.bounds
            for k, v in enumerate(row):
                if v is not None and not (isinstance(v, int) and low <= v <= high):     # (none: not set yet)
                    whose = f"{names[k]}'s {info.name}" if names else "it"
                    broken.append(f"'{info.name}' is from {low} to {high} ({whose} is {v})")
        return broken

    # ── copies, equality, serialisation ────────────────────────────────────
    def clone(self) -> "State":
        S = object.__new__(State)
        S._game, S._prog, S.seed = self._game, self._prog, self.seed
        # zones are shared: each becomes a tuple in both states, and the first move that changes a
        # zone copies it back into a list of the moving state's own (dsl.program.own)
        z = self.z
        z[:] = map(tuple, z)
        S.z = z[:]
        S.loc = self.loc[:]         # changed by nearly every move: a list of its own (faster than a bytearray)
        # values that are lists are never changed in place (a new list is assigned), so the lists
        # holding the values are copied, not the values; the rows of player and card values are
        # shared as tuples, as zones are (the generated code copies a row on its first write)
        S.g = self.g[:]
        pv = self.pv
        pv[:] = map(tuple, pv)
        S.pv = pv[:]
        cv = self.cv
        cv[:] = map(tuple, cv)
        S.cv = cv[:]
        frames = self.frames            # a frame's locals are shared as a tuple (apply_action copies)
        S.frames = copies = frames[:]
        for i, F in enumerate(frames):
            F[2] = tuple(F[2])
            copies[i] = F[:]
        # shared: the open decision and its options are never changed in place (a new one is assigned),
        # nor is the history (persistent chunks), the log (linked tuples) or an empty forced queue
        S.pending = self.pending
        S.rng = self.rng
        S.steps = self.steps
        S.ann = self.ann
        S.shown = self.shown        # never changed in place: 'reveal' assigns a new dict
        forced = self.forced
        S.forced = [f[:] for f in forced] if forced else forced
        S._legal, S._row, S._lookups = self._legal, self._row, self._lookups
        return S

    def _data(self) -> dict:
        """The state as fresh JSON-ready lists."""
        return saved.data(self)

    def __eq__(self, other) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return saved.same(self, other)

    def __hash__(self):
        raise TypeError("states are mutable and cannot be hashed; hash state.to_json() instead")

    def to_json(self) -> dict:
        return saved.to_json(self)

    @classmethod
    def from_json(cls, game: Game, data: dict) -> "State":
        """The state saved in ``data`` (``to_json``); a GameError says what does not fit."""
        return saved.from_json(cls, game, data)

    # ── what one seat may see ──────────────────────────────────────────────
    def observation(self, player: int) -> dict:
        from rulesrun.interpreter.runtime.observe import observe
        return observe(self, player)

    def __repr__(self):
        who = "over" if self.pending is None else f"Player {self.pending[0] + 1} to move"
        return f"<State of {self._prog.title}: {who}, {steps_count(self.steps)} steps>"


def _resume_at_frame(S: "State", F: list, value):
    """The entry of a decision compiled at more than one place: the one the frame's label names."""
    return S._prog.procs[F[0]][F[1]](S, F, value)


def _copy(v):
    return v[:] if isinstance(v, list) else v
