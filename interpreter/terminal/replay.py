"""``rulesrun replay``: step through a saved game, as one seat saw it or seeing every seat.

The viewer replays the record's moves (and its re-seeds) from its seed, one state per step, and
shows each with the table's own layout (``table.render_view``), through a ``Repl`` for its output.
"""
from __future__ import annotations

from typing import Callable, TextIO

from rulesrun.interpreter.runtime.engine import Game, GameError, State
from rulesrun.interpreter.runtime.observe import team_slots, value_display
from rulesrun.interpreter.terminal.repl import Repl
from rulesrun.interpreter.terminal.table import final_report, render_view

__all__ = ["ReplayViewer", "observe_all"]


def observe_all(state: State) -> dict:
    """Everything some seat knows, for a replay seen from every seat: each zone's cards and every
    public and owner value, shown as the seats' views show them (names, not numbers). ``hidden``
    values — known to no seat, the rules' own bookkeeping — are left out, as at the table."""
    prog = state.program
    obs = state.observation(0)
    obs["seat"] = -1
    names = prog.card_names
    zones = {}
    for zi, info in enumerate(prog.zones):
        view = {"cards": [names[c] for c in state.zones[zi]], "count": len(state.zones[zi])}
        if info.owner is None:
            zones[info.name] = view
        else:
            obs["players"][info.owner][info.family] = view
    obs["zones"] = zones
    for i, v in enumerate(prog.player_vars):
        if v.visibility != "hidden":
            shown = value_display(prog, v.type)
            for p in range(prog.players):
                obs["players"][p][v.name] = shown(state.var(v.name, p))
    of_teams = team_slots(prog)
    obs["state"] = {v.name: value_display(prog, v.type)(state.var(v.name)) for i, v in enumerate(prog.globals)
                    if i not in of_teams and v.visibility != "hidden"}
    return obs


HELP_REPLAY = """Replay commands: Enter or 'n' next step, 'b' back, 'j N' jump to step N, 'end', 'q' quit"""


class ReplayViewer:
    def __init__(self, game: Game, record: dict, seat: int | None, out: TextIO | None = None,
                 readline: Callable[[], str] | None = None):
        self.game = game
        self.actions = [str(a) for a in record["actions"]]
        self.seed = record["seed"]
        self.seat = seat
        self.repl = Repl(game, game.new_initial_state(seed=self.seed), record.get("seats") or
                         ["random"] * game.players, self.seed, out=out, readline=readline)
        self.step = 0
        self.reseeds = dict(record.get("reseeds") or [])   # chance re-seeded after k decisions
        if 0 in self.reseeds:
            self.repl.state.reseed(self.reseeds[0])
        self.states = [self.repl.state.clone()]

    def state_at(self, k: int) -> State:
        while len(self.states) <= k:
            s = self.states[-1].clone()
            s.apply_action(self.actions[len(self.states) - 1])
            if len(self.states) in self.reseeds:
                s.reseed(self.reseeds[len(self.states)])
            self.states.append(s)
        return self.states[k]

    def log(self, s: State) -> list[str]:
        """The announcements as this replay's seat heard them (its private ones too); seen from every
        seat, all of them, a private one marked '(to Player N)'."""
        return s.log(everything=True) if self.seat is None else s.log(self.seat)

    def show(self) -> None:
        s = self.state_at(self.step)
        r = self.repl
        if self.step:
            before = self.states[self.step - 1]
            who = before.current_player()
            # another seat's decision may be secret: that seat's view shows what was announced instead
            what = self.actions[self.step - 1] if self.seat in (None, who) else "decides"
            r.say(f"step {self.step}/{len(self.actions)}: Player {who + 1}: {what}")
            for line in self.log(s)[len(self.log(before)):]:
                r.say(f"  {line}")
        else:
            r.say(f"start (0/{len(self.actions)})")
        obs = observe_all(s) if self.seat is None else s.observation(self.seat)
        if self.seat is None:
            obs["game"] = obs["game"] + " — every seat's view"
            obs["log"] = self.log(s)
        r.console.print(render_view(obs, r.style))
        if s.is_terminal():
            r.say(final_report(s))

    def run(self, to_end: bool = False) -> int:
        r = self.repl
        r.say(f"Replay of {self.game.title}: {len(self.actions)} decisions, seed {self.seed}"
              + ("" if self.seat is None else f", seen by Player {self.seat + 1}"))
        try:
            self.state_at(len(self.actions))
        except GameError as e:
            r.say(f"The record does not replay: {e}")
            return 1
        if to_end:
            for k in range(len(self.actions) + 1):
                self.step = k
                self.show()
            return 0
        r.say(HELP_REPLAY)
        self.show()
        while True:
            try:
                line = r.read("replay> ").strip().lower()
            except (EOFError, KeyboardInterrupt):
                return 0
            if line in ("", "n", "next"):
                if self.step < len(self.actions):
                    self.step += 1
                else:
                    r.say("That was the last step.")
                    continue
            elif line in ("b", "back"):
                self.step = max(0, self.step - 1)
            elif line.startswith("j"):
                arg = line.split()[1:] or [""]
                if not (arg[0].isascii() and arg[0].isdigit()) or int(arg[0]) > len(self.actions):
                    r.say(f"jump to a step from 0 to {len(self.actions)}: j N")
                    continue
                self.step = int(arg[0])
            elif line == "end":
                self.step = len(self.actions)
            elif line in ("q", "quit", "exit"):
                return 0
            else:
                r.say(HELP_REPLAY)
                continue
            self.show()
