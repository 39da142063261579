"""Play a game in the terminal: humans at some seats, bots at the others.

The view of a human seat is built from ``state.observation(seat)`` only, so the REPL shows exactly
what that seat may see. Works with piped stdin (one command per line).
"""
from __future__ import annotations

import sys
from typing import Callable, TextIO

from .agents import make_agent
from .engine import Game, GameError, State

HELP = """Commands:
  <number>       choose the option with that number
  <text>         choose an option by its text (or a unique beginning of it)
  state          show the table again
  help           show this help
  quit           leave the game"""


def _fmt_value(v) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) if v else "—"
    return "—" if v is None else str(v)


def _fmt_zone(view: dict) -> str:
    if "cards" in view:
        return ", ".join(view["cards"]) if view["cards"] else "—"
    if "count" in view:
        return f"{view['count']} card{'s' if view['count'] != 1 else ''} (hidden)"
    return "hidden"


def render_view(obs: dict) -> str:
    """A plain-text picture of one seat's observation."""
    seat = obs["seat"]
    lines = [f"── {obs['game']} — you are Player {seat + 1} ──"]
    if obs["state"]:
        lines.append("  " + "   ".join(f"{k}: {_fmt_value(v)}" for k, v in obs["state"].items()))
    for name, view in obs["zones"].items():
        if view and ("cards" in view and view["cards"] or view.get("count")):
            lines.append(f"  {name}: {_fmt_zone(view)}")
    for p, info in enumerate(obs["players"]):
        you = " (you)" if p == seat else ""
        parts = []
        for k, v in info.items():
            if k == "name":
                continue
            if isinstance(v, dict):
                if p == seat or v:
                    if "cards" in v or v.get("count"):
                        parts.append(f"{k}: {_fmt_zone(v)}")
            else:
                parts.append(f"{k}: {_fmt_value(v)}")
        lines.append(f"  {info['name']}{you}: " + "; ".join(parts))
    return "\n".join(lines)


def final_report(state: State) -> str:
    game = state.game
    names = game.program.player_names
    scores = state.returns()
    winners = state.winners()
    lines = ["Final scores:"]
    for p, s in enumerate(scores):
        mark = "  ← winner" if p in winners else ""
        lines.append(f"  {names[p]}: {s}{mark}")
    if len(winners) == 1:
        lines.append(f"{names[winners[0]]} wins.")
    else:
        lines.append("Shared win: " + ", ".join(names[w] for w in winners) + ".")
    return "\n".join(lines)


def resolve_input(text: str, actions: list) -> tuple[object | None, str | None]:
    """Match a typed line to a legal action: a number, the exact text, or a unique beginning."""
    t = " ".join(text.split())
    if t.isdigit():
        n = int(t)
        if 1 <= n <= len(actions):
            return actions[n - 1], None
        return None, f"there is no option {n}; choose 1 to {len(actions)}"
    low = t.lower()
    exact = [a for a in actions if a.lower() == low]
    if exact:
        return exact[0], None
    pref = [a for a in actions if a.lower().startswith(low)]
    if len(pref) == 1:
        return pref[0], None
    if len(pref) > 1:
        shown = ", ".join(f"'{a}'" for a in pref[:6]) + (" ..." if len(pref) > 6 else "")
        return None, f"'{t}' could mean {shown}; type more of it, or its number"
    return None, f"'{t}' is not a legal option or a command; type 'help' for the commands"


class Repl:
    def __init__(self, game: Game, state: State, seats: list[str], seed: int,
                 out: TextIO | None = None, readline: Callable[[], str] | None = None):
        self.game = game
        self.state = state
        self.seats = seats
        self.out = out if out is not None else sys.stdout
        self.readline = readline or self._stdin_line
        self.agents = {p: make_agent(kind, seed * 1000 + p + 1) for p, kind in enumerate(seats) if kind != "human"}
        self.log_seen = 0
        # When input is piped, echo each command so the transcript reads like a session.
        self.echo = readline is None and not sys.stdin.isatty()

    @staticmethod
    def _stdin_line() -> str:
        line = sys.stdin.readline()
        if line == "":
            raise EOFError
        return line

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def flush_log(self) -> None:
        log = self.state.log()
        for line in log[self.log_seen:]:
            self.say(f"  {line}")
        self.log_seen = len(log)

    def run(self) -> int:
        names = self.game.program.player_names
        who = ", ".join(f"{names[p]}: {k}" for p, k in enumerate(self.seats))
        self.say(f"{self.game.title} — {self.game.players} players ({who}); seed {self.state.seed}")
        if "human" in self.seats:
            self.say("Type 'help' for the commands.")
        self.flush_log()
        while not self.state.is_terminal():
            p = self.state.current_player()
            if self.seats[p] == "human":
                if not self.human_turn(p):
                    self.say("Game left unfinished.")
                    return 0
            else:
                action = self.agents[p].choose(self.state)
                if "human" not in self.seats:
                    self.say(f"{names[p]}: {action}")
                self.state.apply_action(action)
            self.flush_log()
        self.say(final_report(self.state))
        return 0

    def replay_moves(self, moves: list[str]) -> bool:
        """Play recorded moves one by one, showing each step and any broken invariant."""
        names = self.game.program.player_names
        self.say(f"Replaying {len(moves)} move{'s' if len(moves) != 1 else ''} from seed {self.state.seed}:")
        self.flush_log()
        for i, move in enumerate(moves, 1):
            if self.state.is_terminal():
                self.say(f"step {i}: the game is already over; '{move}' is not played")
                return False
            p = self.state.current_player()
            try:
                self.state.apply_action(move)
            except GameError as e:
                self.say(f"step {i}: {names[p]} cannot play '{move}': {e}")
                return False
            self.say(f"step {i}: {names[p]}: {move}")
            self.flush_log()
            broken = self.state.check_invariants()
            for text in broken:
                self.say(f"  invariant broken: {text}")
        self.say("End of the recorded moves.")
        return True

    def human_turn(self, p: int) -> bool:
        actions = self.state.legal_actions()
        self.say()
        self.say(render_view(self.state.observation(p)))
        self.show_options(p, actions)
        while True:
            self.out.write(f"Player {p + 1}> ")
            self.out.flush()
            try:
                line = self.readline()
            except (EOFError, KeyboardInterrupt):
                self.say()
                return False
            cmd = line.strip()
            if self.echo:
                self.say(cmd)
            if not cmd:
                continue
            low = cmd.lower()
            if low in ("quit", "exit", "q"):
                return False
            if low in ("help", "?", "h"):
                self.say(HELP)
                continue
            if low == "state":
                self.say(render_view(self.state.observation(p)))
                self.show_options(p, actions)
                continue
            action, problem = resolve_input(cmd, actions)
            if action is None:
                self.say(problem)
                continue
            try:
                self.state.apply_action(action)
            except GameError as e:  # cannot happen for a listed action, but never lose the game
                self.say(str(e))
                continue
            return True

    def show_options(self, p: int, actions: list) -> None:
        label = self.state.decision_label()
        self.say(f"Player {p + 1}, {label}:")
        for i, a in enumerate(actions, 1):
            self.say(f"  {i:>2}. {a}")
