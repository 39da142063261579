"""One table of the web server: a game in progress, who sits where, and the rules for changing it.

Everything here is plain and synchronous — the server (``server.py``) owns the sockets, the bots'
pacing and the timers. A table changes only through ``move``, ``bot_move``, ``rematch`` and
``reload``; each checks first and changes nothing when it refuses, and each move is taken on a copy
of the state that replaces the state only once the engine has accepted it.
"""
from __future__ import annotations

import re
import secrets
import threading
import time
from pathlib import Path

from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.dsl.check.params import param_texts

from rulesrun.interpreter.bots.agents import make_agent
from rulesrun.interpreter.runtime.engine import Game, GameError, State, load_game
from rulesrun.interpreter.records.record import RecordError, make_record, save_record
from rulesrun.interpreter.web.views import Display, Log, frame

SPECTATOR = -1
MAX_ACTION_TEXT = 500


def fresh_seed() -> int:
    """A table's seed: 62 bits from the operating system's randomness, as the REPL's (docs/reference/security.md):
    no seat can find it by trying seeds until one deals the cards it sees."""
    return secrets.randbits(62)


class Refused(Exception):
    """A request the table will not carry out; the message is for the person who made it."""


class Table:
    def __init__(self, tid: str, game: Game, seats: list[str], seed: int, state: State | None = None,
                 settings: dict | None = None):
        self.id = tid
        self.seats = list(seats)
        self.settings = dict(settings or {})      # rules path, players, variants: for reloads
        self.tokens = {secrets.token_urlsafe(24): p for p, kind in enumerate(seats) if kind == "human"}
        self.spectator_token = secrets.token_urlsafe(24)
        self.game_no = 1
        self.version = 0
        self.error: str | None = None             # a compile error shown on the page (--watch)
        self.created = time.time()
        self.touched = time.monotonic()           # the last move or socket: for reclaiming idle tables
        self.creator: str | None = None           # the client address that asked for it (POST /new)
        self.keep = False                         # never reclaimed when idle (the command line's table)
        self.stop = threading.Event()             # set when the table goes away: its bots stop thinking
        self.log = Log()
        # an open 'at once' block: each seat's answers given before its turn, in order, and the step
        # the block opened at (a seat's answer to the view it saw then is still good)
        self.answers: dict[int, list[str]] = {}
        self.block: tuple | None = None           # (the block's mark, its first step)
        self._start(game, seed, state)

    def _start(self, game: Game, seed: int, state: State | None = None) -> None:
        self.game = game
        self.display = Display(game)
        self.seed = seed
        self.state = state if state is not None else game.new_initial_state(seed=seed)
        self.agents = {p: make_agent(kind, seed * 1000 + p + 1, stop=self.stop)
                       for p, kind in enumerate(self.seats) if kind != "human"}
        self.version += 1
        self._note_block()

    # ── simultaneous choices ('for p in players at once', dsl.lower.at_once) ─
    def _note_block(self) -> None:
        mark = self.state.at_once
        if mark is None:
            self.answers, self.block = {}, None
        elif self.block is None or self.block[0] != mark:
            self.answers, self.block = {}, (mark, self.step)

    def asked(self) -> dict:
        """{seat: (decision label, options)}: in an open 'at once' block, every seat that has a
        choice of the block waiting for it now, answered or not — asked at once, whatever the
        engine's order. Found on a copy, each earlier seat's choice stood in for by an answer given
        or any option: a seat's options never depend on another's picks (dsl.lower.at_once)."""
        mark = self.state.at_once
        if mark is None:
            return {}
        out: dict = {}
        given = {p: list(a) for p, a in self.answers.items()}
        s = self.state.clone()
        while s.at_once == mark and not s.is_terminal():
            p = s.current_player()
            if given.get(p):
                s.apply_action(given[p].pop(0))
                continue
            if p not in out:
                out[p] = (s.decision_label(), [str(a) for a in s.legal_actions()])
            s.apply_action(s.legal_actions()[0])
        return out

    def _answer(self, seat: int, action: str) -> None:
        """A seat's answer in an open block: kept, then every answer whose turn has come applied in
        the engine's order."""
        self.answers.setdefault(seat, []).append(action)
        self._drain()

    def _drain(self) -> None:
        while self.block is not None and not self.state.is_terminal() \
                and self.answers.get(self.state.current_player()):
            p = self.state.current_player()
            self._apply(self.answers[p].pop(0))

    # ── who is who ─────────────────────────────────────────────────────────
    def seat_of(self, token) -> int | None:
        """The seat a token opens (SPECTATOR for the spectators' token), or None."""
        if not isinstance(token, str) or not token or len(token) > 100 or not token.isascii():
            return None                           # tokens are ASCII: nothing else can match one
        found = None
        for t, p in self.tokens.items():          # compare every token, in constant time
            if secrets.compare_digest(t.encode(), token.encode()):
                found = p
        if secrets.compare_digest(self.spectator_token.encode(), token.encode()):
            found = SPECTATOR
        return found

    def token_of(self, seat: int) -> str | None:
        return next((t for t, p in self.tokens.items() if p == seat), None)

    @property
    def step(self) -> int:
        return len(self.state.history())

    def names(self) -> list[str]:
        return list(self.game.program.player_names)

    # ── changing the game ──────────────────────────────────────────────────
    def move(self, seat: int, action, step) -> None:
        """A person's move: only at their own turn, for the step they saw, and legal. Else Refused."""
        if seat is None or seat == SPECTATOR:
            raise Refused("spectators cannot move")
        if not isinstance(action, str) or not action or len(action) > MAX_ACTION_TEXT:
            raise Refused("a move needs 'action': the text of one of your legal moves")
        if not isinstance(step, int) or isinstance(step, bool):
            raise Refused("a move needs 'step': the step number of the view it answers")
        if self.state.is_terminal():
            raise Refused("the game is over")
        asked = self.asked() if self.block is not None else {}
        if seat in asked and self.block[1] <= step <= self.step:      # every seat answers at once
            if action not in asked[seat][1]:
                raise Refused(f"'{action[:80]}' is not one of your legal moves now")
            return self._answer(seat, action)
        if self.state.current_player() != seat:
            raise Refused(f"it is not your turn: {self.names()[self.state.current_player()]} is to move")
        if step != self.step:
            raise Refused(f"that move answers step {step}, but the table is at step {self.step}: "
                          "look again and choose")
        legal = [str(a) for a in self.state.legal_actions()]
        if action not in legal:
            raise Refused(f"'{action[:80]}' is not one of your legal moves now")
        self._apply(action)

    def bot_to_move(self) -> int | None:
        if self.error is not None or self.state.is_terminal():
            return None
        p = self.state.current_player()
        return p if self.seats[p] != "human" else None

    def bot_choice(self, seat: int) -> str:
        """What the bot at ``seat`` chooses (on a copy: it may run in a worker thread)."""
        return str(self.agents[seat].choose(self.state.clone()))

    def bot_move(self, seat: int, action: str, version: int) -> bool:
        """Apply a bot's choice made at ``version``; False (and nothing changes) if the table moved on."""
        if version != self.version or self.bot_to_move() != seat:
            return False
        self._apply(action)
        self._drain()       # the answers people gave ahead of their turn, now that it has come
        return True

    def _apply(self, action: str) -> None:
        after = self.state.clone()
        try:
            after.apply_action(action)
        except GameError as e:
            raise Refused(str(e)) from None
        except RulesRuntimeError as e:   # a fault in the rules file itself: show it, keep the table
            self.error = str(e)
            self.version += 1
            raise Refused(f"the rules failed at this move: {e}") from None
        self.state = after
        self.version += 1
        self.touched = time.monotonic()
        self._note_block()

    def rematch(self, seed: int | None = None) -> None:
        if not self.state.is_terminal():
            raise Refused("a rematch can start only when the game is over")
        self.game_no += 1
        self._start(self.game, fresh_seed() if seed is None else seed)

    def reload(self) -> bool:
        """Compile the rules file again; restart the table with the same seed, or keep the game as
        it is and show the compile error (file:line:col). True if the table restarted."""
        s = self.settings
        try:
            game = load_game(s["rules"], players=s["players"], variants=tuple(s.get("variants", ())),
                             params=s.get("params"))
        except RulesError as e:
            self.error = e.render()
            self.version += 1
            return False
        except OSError as e:
            self.error = f"cannot read {s['rules']}: {e.strerror or e}"
            self.version += 1
            return False
        self.error = None
        self.game_no += 1
        self._start(game, self.seed)
        return True

    # ── saving ─────────────────────────────────────────────────────────────
    def record(self) -> dict:
        return make_record(self.game, self.state, self.seats)

    def save(self, folder: str | Path) -> Path:
        slug = re.sub(r"[^a-z0-9]+", "-", self.game.title.lower()).strip("-") or "game"
        path = Path(folder) / f"{slug}-table{self.id}-game{self.game_no}-step{self.step}.yaml"
        try:
            save_record(path, self.record())
        except RecordError as e:
            raise Refused(str(e)) from None
        return path

    # ── what goes over the wire ────────────────────────────────────────────
    def info(self) -> dict:
        return {"table": self.id, "title": self.game.title, "game_no": self.game_no, "step": self.step,
                "names": self.names(), "seats": self.seats, "error": self.error,
                # the seed only once the game is over: before, it would tell every seat the deal
                "seed": str(self.seed) if self.state.is_terminal() else None,
                "settings": param_texts(self.game.params, self.game.program.param_info)}

    def frame(self, seat: int | None) -> dict:
        seat = None if seat in (None, SPECTATOR) else seat
        out = frame(self.state, seat, self.display, self.info(), self.log.of(self.state, seat))
        asked = self.asked().get(seat) if seat is not None and self.block is not None else None
        out["asked"] = asked is not None        # this seat chooses now, with the others, at once
        if asked is not None and self.state.current_player() != seat:
            out["decision"], out["options"] = asked
            out["notes"], out["clickable"] = {}, {}
        return out
