"""Play a game in the terminal: humans at some seats (hot-seat for several), bots at the others.

What a human sees is built from ``state.observation(seat)`` only, so the terminal shows exactly what
that seat may see. With a terminal, input uses prompt_toolkit (completion of the legal moves and the
commands, history) and output uses rich (colours); with piped input and output, plain lines.
"""
from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path
from typing import Callable, TextIO

from rich.markup import escape

from rulesrun.dsl.check.params import param_texts

from rulesrun.interpreter.bots.agents import make_agent
from rulesrun.interpreter.terminal.command import rulesrun_command
from rulesrun.interpreter.runtime.engine import DECISION_BOUND, Game, GameError, State, never_ended
from rulesrun.interpreter.terminal.hotseat import clear_for_next_player, drawn_since, rewind, undo_point
from rulesrun.interpreter.terminal.options import find_card, hand_order, resolve_input
from rulesrun.interpreter.records.record import RecordError, make_record, open_record, save_record
from rulesrun.interpreter.terminal import layout
from rulesrun.interpreter.terminal.safe_text import SafeConsole, safe
from rulesrun.interpreter.terminal.table import (
    COMPACT_HEIGHT,
    COMPACT_WIDTH,
    CardStyle,
    explain_card,
    final_report,
    option_lines,
    render_view,
)

__all__ = ["Repl", "CardStyle", "render_view", "final_report", "resolve_input"]

HELP = """Commands:
  <number>          choose the option with that number
  <text>            choose an option by any unique run of words in it, in any case
                    (e.g. 'play Red 5', 'red 5', 'blue'); if several fit, they are listed
  state             show the whole table again
  explain CARD      what the rules file says about a card (e.g. 'explain Wine 5')
  log [N]           show the last N announcements (default 20)
  hint              what a bot would choose here
  undo              take back your last decision (and the bots' moves after it)
  save FILE         save the game (a YAML record) to resume it later
  load FILE         load a saved game of the same rules and carry on from there
  rules             the rulebook of this game (made from its rules file)
  help              show this help
  quit              leave the game (offers to save)"""

YES_NO = ("y", "yes", "n", "no")


def default_record_name(game: Game, folder: str | Path = ".") -> str:
    """A file name to save a game to: the rules file's name and today's date (``magi-2026-12-07.yaml``),
    with -2, -3, ... when that file is there already (in ``folder``)."""
    import datetime
    base = f"{Path(game.program.path).stem or 'game'}-{datetime.date.today().isoformat()}"
    name, k = f"{base}.yaml", 1
    while os.path.lexists(Path(folder) / name):
        k += 1
        name = f"{base}-{k}.yaml"
    return name


COMMANDS = ("state", "log", "hint", "explain", "undo", "save", "load", "rules", "help", "quit")


class Repl:
    def __init__(self, game: Game, state: State, seats: list[str], seed: int,
                 out: TextIO | None = None, readline: Callable[[], str] | None = None,
                 delay: float = 0.0, interactive: bool | None = None, ask_always: bool = False,
                 max_steps: int = DECISION_BOUND):
        self.game = game
        self.state = state
        self.seats = list(seats)
        self.seed = seed
        self.out = out if out is not None else sys.stdout
        self.tty = (interactive if interactive is not None
                    else readline is None and sys.stdin.isatty() and self.out.isatty())
        # NO_COLOR (https://no-color.org): a terminal without colours, still with its layout
        no_color = not self.tty or bool(os.environ.get("NO_COLOR"))
        self.console = SafeConsole(file=self.out, force_terminal=self.tty, no_color=no_color,
                               highlight=False, width=None if self.tty else 110, soft_wrap=not self.tty)
        self._custom_readline = readline
        self._session = None
        self.delay = delay
        self.style = CardStyle(game)
        self.agents = {p: make_agent(kind, seed * 1000 + p + 1) for p, kind in enumerate(self.seats) if kind != "human"}
        self.log_seen = 0
        self.humans = [p for p, k in enumerate(self.seats) if k == "human"]
        # whose private announcements ('announce to p') the running transcript shows: the one human's;
        # with several humans (hot-seat) each is shown theirs at their own turn, and bots-only none
        self.viewer = self.humans[0] if len(self.humans) == 1 else None
        self.told_seen: dict[int, int] = {}      # hot-seat: private announcements shown to each seat
        self.last_human: int | None = None
        # When input is piped, echo each command so the transcript reads like a session.
        self.echo = readline is None and not sys.stdin.isatty()
        self.moves: list[tuple[int, str]] = []     # (seat, action) of every decision since the start
        self.reseeds: list[list[int]] = []         # [decisions so far, seed] each time chance was re-seeded
        # a human's decision with one legal option is played for them and said in one line
        # (--ask-always asks it); the places in ``moves`` of those, which undo passes over
        self.ask_always = ask_always
        self.max_steps = max_steps      # with bots in every seat: a game that never ends stops there
        self.forced: set[int] = set()

    # ── output ─────────────────────────────────────────────────────────────
    def say(self, text: str = "") -> None:
        self.console.print(escape(text) if text else "", markup=True)

    def show_rules(self) -> None:
        """The rulebook, rendered (headings, lists, tables: rich's Markdown, never the raw marks), in
        a pager when it is longer than the terminal is high."""
        from rich.markdown import Markdown
        from rulesrun.interpreter.authoring.rulebook import rulebook_text
        text = rulebook_text(self.game)
        page = Markdown(text)
        if self.console.is_terminal and len(text.splitlines()) > self.console.height:
            with self.console.pager(styles=True):
                self.console.print(page)
        else:
            self.console.print(page)

    def flush_log(self) -> None:
        log = self.state.log(self.viewer)
        for line in log[self.log_seen:]:
            self.say(f"  {line}")
        self.log_seen = len(log)

    def flush_told(self, p: int) -> None:
        """Hot-seat: what the rules told Player p alone since p last sat here (p is at the screen)."""
        told = told_alone(self.state, p)
        for line in told[min(self.told_seen.get(p, 0), len(told)):]:
            self.say(f"  (to you) {line}")
        self.told_seen[p] = len(told)

    # ── input ──────────────────────────────────────────────────────────────
    def read(self, prompt: str, completions: list[str] = ()) -> str:
        if self._custom_readline is not None:
            self.out.write(prompt)
            self.out.flush()
            return self._custom_readline()
        if self.tty:
            from prompt_toolkit import PromptSession
            from prompt_toolkit.completion import WordCompleter
            if self._session is None:
                self._session = PromptSession()
            words = list(completions) + list(COMMANDS)
            completer = WordCompleter(words, ignore_case=True, sentence=True,
                                      display_dict={w: safe(w) for w in words})
            # a small terminal keeps its rows for the table, not for a completion menu below the prompt
            return self._session.prompt(prompt, completer=completer,
                                        reserve_space_for_menu=0 if self.compact() else 8)
        self.out.write(prompt)
        self.out.flush()
        line = sys.stdin.readline()
        if line == "":
            raise EOFError
        return line

    # ── the game loop ──────────────────────────────────────────────────────
    def run(self) -> int:
        names = self.game.program.player_names
        who = ", ".join(f"{names[p]}: {k}" for p, k in enumerate(self.seats))
        variants = layout.variant_lines(self.game.program)     # each with its line, when the file gives one
        chosen = f"; variant{'s' if len(variants) > 1 else ''} {'; '.join(variants)}" if variants else ""
        prog = self.game.program
        chosen += f"; {param_texts(prog.params, prog.param_info)}" if prog.params else ""
        # no seed on the table while a human plays: it would give away the deck (shown at the end)
        self.say(f"{self.game.title} — {self.game.players} players ({who}){chosen}"
                 + ("" if self.humans else f"; seed {self.seed}"))
        if self.humans:
            self.say("Type 'help' for the commands.")
        self.flush_log()
        while not self.state.is_terminal():
            if not self.humans and len(self.state.history()) >= self.max_steps:
                self.say(f"Stopped: {never_ended(self.max_steps)}.")
                return 1
            p = self.state.current_player()
            if self.seats[p] == "human":
                if not self.human_turn(p):
                    self.say("Game left unfinished.")
                    return 1
            else:
                only = len(self.state.legal_actions()) == 1
                action = self.agents[p].choose(self.state)    # the bot still sees the state (its memory)
                if not self.humans:
                    self.say(f"{names[p]}: {action}" + (" — the only move" if only else ""))
                # nothing to watch in a forced move of all-bot play; with people at the table every
                # bot move waits alike, or the quick ones would tell them that the bot had no choice
                if self.delay and (self.humans or not only):
                    self.flush_log()
                    time.sleep(self.delay)
                self.moves.append((p, str(action)))
                self.state.apply_action(action)
            self.flush_log()
        self.say(final_report(self.state))
        if self.humans:
            self.say(f"The seed was {self.seed}" + (" (chance was re-seeded after each undo; the saved game "
                                                     "keeps every seed)" if self.reseeds else "") + ".")
        return 0

    def pass_screen(self, p: int) -> bool:
        """Hot-seat: hide the table until the next human is at the keyboard."""
        if self.tty:
            clear_for_next_player(self.console)
        self.say(f"Pass to Player {p + 1} — Player {p + 1}, press Enter when you are ready.")
        try:
            self.read("")
        except (EOFError, KeyboardInterrupt):
            self.say()
            return self.offer_save_and_quit()
        if self.tty:
            clear_for_next_player(self.console)
        return True

    def compact(self) -> bool:
        """The small-terminal layout: a turn (table, options, prompt) fits the screen."""
        if not self.tty:
            return False
        size = self.console.size
        return size.height <= COMPACT_HEIGHT or size.width <= COMPACT_WIDTH

    def show(self, p: int, full: bool = False) -> None:
        self.console.print(render_view(self.state.observation(p), self.style, compact=self.compact() and not full,
                                       width=self.console.size.width if self.tty else 110))

    def human_turn(self, p: int) -> bool:
        if len(self.humans) > 1 and self.last_human is not None and self.last_human != p:
            if not self.pass_screen(p):
                return False
            if self.compact():     # the compact table has no 'recent' row: repeat what was cleared
                for line in self.state.log(p)[-3:]:
                    self.say(f"  {line}")
        if len(self.humans) > 1:
            self.flush_told(p)
        self.last_human = p
        actions = hand_order(self.state, self.style)
        if len(actions) == 1 and not self.ask_always:
            return self.play_forced(p, actions[0])
        if not self.compact():
            self.say()
        self.show(p)
        self.show_options(p, actions)
        while True:
            try:
                line = self.read(f"Player {p + 1}> ", [str(a) for a in actions])
            except KeyboardInterrupt:
                self.say()
                return self.offer_save_and_quit()
            except EOFError:          # Ctrl-D (or the end of piped input): leaving, with the offer to save
                self.say()
                return self.offer_save_and_quit()
            cmd = line.strip()
            if self.echo:
                self.say(cmd)
            if not cmd:
                continue
            word, _, rest = cmd.partition(" ")
            low = word.lower()
            if low in ("quit", "exit", "q") and not rest:
                return self.offer_save_and_quit()
            if low in ("help", "?", "h") and not rest:
                self.say(HELP)
                continue
            if low == "state" and not rest:
                self.show(p, full=True)
                self.show_options(p, actions)
                continue
            if low == "explain":
                self.explain(rest)
                continue
            if low == "log" and (not rest or rest.strip().isascii() and rest.strip().isdigit()):
                n = int(rest) if rest.strip() else 20
                log = self.state.log(p)      # the public ones, and those told to p alone
                self.say("\n".join(f"  {line}" for line in log[-n:]) if log else "  (nothing yet)")
                continue
            if low == "rules" and not rest:
                self.show_rules()
                continue
            if low == "hint" and not rest:
                self.say(f"A bot would choose: {self.hint()}")
                continue
            if low == "undo" and not rest:
                if self.undo(p):
                    return True
                continue
            if low == "save":
                self.save(rest.strip())
                continue
            if low == "load":
                if self.load(rest.strip()):
                    return True
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
            self.moves.append((p, str(action)))
            return True

    def play_forced(self, p: int, action) -> bool:
        """A decision with one legal option: played without asking, and said in one line. With
        several humans it comes after the pass screen, as any decision does, so that the others
        do not learn from a missing pass screen that this seat had no choice."""
        self.state.apply_action(action)
        self.moves.append((p, str(action)))
        self.forced.add(len(self.moves) - 1)
        who = "You" if len(self.humans) == 1 else f"Player {p + 1}"
        self.say(f"{who}: {action} — the only move")
        return True

    def show_options(self, p: int, actions: list) -> None:
        label = self.state.decision_label().rstrip(" :")
        self.say(f"Player {p + 1}, {label}:")
        width = self.console.size.width if self.tty else 110
        texts = [str(a) for a in actions]
        prefix = self.state.decision_label().rstrip() + " "
        if self.compact() and all(t.startswith(prefix) and len(t) > len(prefix) for t in texts):
            texts = [t[len(prefix):] for t in texts]    # the label is said once, above
        notes = layout.option_notes(self.state)         # the file's words beside each option
        if notes:
            texts = [f"{t} — {notes[str(a)]}" if str(a) in notes else t for t, a in zip(texts, actions)]
        for line in option_lines(texts, width, self.compact()):
            self.say(line)

    # ── commands ───────────────────────────────────────────────────────────
    def explain(self, text: str) -> None:
        prog = self.game.program
        if not text.strip():
            self.say("Say which card: explain CARD (for example: explain " + prog.card_names[0] + ")")
            return
        name, candidates = find_card(text, prog.card_names)
        if name is None:
            if candidates:
                self.say(f"'{text.strip()}' could be: " + ", ".join(candidates[:10])
                         + (" ..." if len(candidates) > 10 else "") + "; type more of it")
            else:
                self.say(f"There is no card '{text.strip()}' in {self.game.title}.")
            return
        self.say(explain_card(prog, name))

    def hint(self) -> str:
        for kind in ("ismcts:200", "greedy", "random"):
            try:
                agent = make_agent(kind, self.seed + len(self.moves))
            except (KeyError, ValueError):
                continue
            return str(agent.choose(self.state.clone()))
        return str(self.state.legal_actions()[0])

    def undo(self, seat: int) -> bool:
        """Take back ``seat``'s own last decision (and the bots' moves after it); chance is re-seeded
        from there, so a draw seen after it is not the draw that comes again (``hotseat``)."""
        k, problem = undo_point(self.moves, self.seats, seat, self.forced)
        if problem:
            self.say(problem)
            return False
        undone = self.moves[k][1]
        state, reseeds = rewind(self.game, self.state.seed, [a for _, a in self.moves], self.reseeds, k)
        if drawn_since(state, self.state, seat):
            self.say("Cannot undo: since that decision you have seen a card from a face-down pile, and "
                     "undo would take the draw back.")
            return False
        self.state, self.reseeds = state, reseeds
        self.moves = self.moves[:k]
        self.forced = {i for i in self.forced if i < k}
        self.log_seen = len(self.state.log(self.viewer))
        self.say(f"Undone: back before '{undone}'.")
        self.last_human = seat        # the same seat decides again: no pass screen, no other view
        return True

    def save(self, path: str) -> bool:
        if not path:
            self.say("Say where: save FILE (for example: save game.yaml)")
            return False
        try:
            save_record(path, make_record(self.game, self.state, self.seats, [a for _, a in self.moves]
                                          if self.moves else self.state.history(), self.reseeds))
        except RecordError as e:
            self.say(str(e))
            return False
        self.say(f"Saved to {path}. Resume with: {rulesrun_command()} --load {shlex.quote(path)}")
        return True

    def load(self, path: str) -> bool:
        if not path:
            self.say("Say which: load FILE")
            return False
        try:
            game, state, record = open_record(path)
        except RecordError as e:
            self.say(f"{e}; the game goes on.")
            return False
        if game.program.path != self.game.program.path and game.title != self.game.title:
            self.say(f"{path} is a game of {game.title}, not of {self.game.title}; the game goes on.")
            return False
        if game.players != self.game.players or len(record.get("seats") or self.seats) != len(self.seats):
            self.say(f"{path} is a game for {game.players} players, and this one has {self.game.players}; "
                     f"resume it with: {rulesrun_command()} --load {shlex.quote(path)}. The game goes on.")
            return False
        self.game, self.state = game, state
        self.style = CardStyle(game)
        self.moves = [(-1, a) for a in state.history()]
        self.forced = set()
        self.reseeds = [list(r) for r in record.get("reseeds", [])]
        self.seed = record["seed"]
        self.log_seen = len(state.log(self.viewer))
        self.say(f"Loaded {path}: {len(self.moves)} decisions in.")
        return True

    def offer_save_and_quit(self) -> bool:
        """Leaving (``quit``, Ctrl-D, Ctrl-C): in a terminal, a yes/no question, then a file name
        with a default. A yes or no is never taken as a file name; Ctrl-D or Ctrl-C at either
        question leaves without saving. Returns False: the game is left."""
        if not self.tty:
            return False
        while True:
            try:
                answer = self.read("Save before you go? [y/N] ").strip().lower()
            except (EOFError, KeyboardInterrupt):
                self.say()
                return False
            if answer in ("", "n", "no"):
                return False
            if answer in ("y", "yes"):
                break
            self.say("Answer y to save the game, or n (or Enter) to leave without saving.")
        default = default_record_name(self.game)
        while True:
            try:
                name = self.read(f"File name [{default}]: ").strip()
            except (EOFError, KeyboardInterrupt):
                self.say()
                self.say("Not saved.")
                return False
            if name.lower() in YES_NO:
                self.say(f"'{name}' is an answer, not a file name: type a file name, or press Enter for {default}.")
                continue
            if self.save(name or default):
                return False

    def replay_moves(self, moves: list[str]) -> bool:
        """Play recorded moves one by one, showing each step and any broken invariant."""
        names = self.game.program.player_names
        self.say(f"Replaying {len(moves)} move{'s' if len(moves) != 1 else ''}"
                 + ("" if self.humans else f" from seed {self.state.seed}") + ":")
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
            self.moves.append((p, move))
            self.say(f"step {i}: {names[p]}: {move}")
            self.flush_log()
            for text in self.state.check_invariants():
                self.say(f"  invariant broken: {text}")
        self.say("End of the recorded moves.")
        return True


# ── replaying a saved game ──────────────────────────────────────────────────
def told_alone(state: State, seat: int) -> list[str]:
    """The announcements told to ``seat`` alone (``announce to p``), oldest first: its log less the
    public one (a subsequence of it)."""
    public, out, i = state.log(), [], 0
    for line in state.log(seat):
        if i < len(public) and line == public[i]:
            i += 1
        else:
            out.append(line)
    return out
