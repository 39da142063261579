"""The actions of a game: ``Action`` (a legal action's text, who takes it and, for the fast path,
its option) and ``_Actions`` (one seat's Actions for one decision, made once and shared by every
state of a game). ``interpreter.runtime.engine`` offers them with the rest of the API."""
from __future__ import annotations

from typing import Any


MARKS = 1 << 16         # the marks of sets seen once, per seat and decision (_Actions.fill): 64 KB
KEPT = 20_000          # Actions kept per seat and decision: a choice of a set of cards has more
#                        options than a long run should keep (sets of cards: from the second time
#                        each is offered, _Actions.fill)


class Action(str):
    """A legal action: its text is stable, readable, and unique among the legal actions.
    ``player`` is who takes it; ``text`` is the plain str (what the history keeps). Actions are
    made once per (seat, option) and shared by every state of a game, so an Action does not know
    its place among the legal actions: ``state.legal_actions().index(action)`` tells.
    An Action of a decision whose options need no numbering also knows its option (``value``) and
    the table it was made for (``row``), so that ``apply_action`` takes it without a search."""

    __slots__ = ("player", "text", "value", "row", "entry")

    def __new__(cls, text: str, player: int, value: Any = None, row: Any = False):
        self = str.__new__(cls, text)
        self.player = player
        self.text = text        # the plain str, which the history keeps
        self.value, self.row = value, row
        return self


def option_key(option):
    """What a listed option's Action is kept by (``_Actions.fill``): a set of cards as a tuple (a
    combination's sets are tuples already), a named move by its text."""
    return option if option.__class__ is str else tuple(option)


def deep_key(option):
    """An option that is a tuple (a pick of several values, a choice block's (branch, value)) as
    tuples all the way down: a loaded state holds them as lists."""
    return option if option.__class__ is tuple or not isinstance(option, list) else \
        tuple(deep_key(x) for x in option)


class _Actions(dict):
    """One seat's Actions for one decision: option -> Action, each made the first time it is asked
    for (a list option is looked up as a tuple, by Game._legal)."""

    __slots__ = ("label", "display", "player", "whole", "keyed", "lookup", "entry", "marks")

    def __init__(self, decision, player: int):
        super().__init__()
        self.marks = None       # sets seen once (fill): a bytearray, made when first needed
        self.label, self.display, self.player = decision.label, decision.display, player
        self.whole = decision.whole_text
        self.keyed = False      # options are their own keys and never numbered (Game._lookups)
        self.lookup = self.__getitem__   # option -> Action: this, or a list by card id (Game)
        self.entry = None       # the generated entry the decision resumes at (Game._entries)

    def __missing__(self, option):
        action = self[option] = self.make(option)
        if self.keyed:          # apply_action's fast path: the Action knows its option and table
            action.value, action.row, action.entry = option, self.lookup, self.entry
        return action

    def fill(self, out: list, opts: list, kept: int) -> None:
        """Make the Actions missing (None) from ``out``, the Actions of ``opts``, for a decision whose
        options are sets of cards that never read alike (and named moves): each is kept by its set
        as a tuple (a move by its text: ``option_key``), up to ``kept``
        — from the second time it is asked for: most sets of five cards of a hand are offered once
        in a long run, the single cards and pairs over and over, and each Action kept is one more
        object that every garbage collection of the oldest generation walks (``marks``, a
        bytearray by the set's hash, remembers which were seen; two sets sharing a mark only make
        the second kept sooner). Kept Actions hold no option, for the same reason (apply_action
        finds them among the state's by identity)."""
        marks = self.marks
        if marks is None:
            marks = self.marks = bytearray(MARKS)
        for i, a in enumerate(out):
            if a is None:
                option = opts[i]
                a = out[i] = self.make(option)
                if len(self) < kept:
                    t = option_key(option)
                    h = hash(t) & (MARKS - 1)
                    if marks[h]:
                        self[t] = a
                    else:
                        marks[h] = 1

    def make(self, value) -> Action:
        """The Action of an option: the decision's label, a space, the value's text (or the whole
        label worked out for the option, for a label with {expressions})."""
        if self.whole:
            return Action(self.display(value), self.player)
        return Action(f"{self.label} {self.display(value)}", self.player)
