"""What each seat has seen during one game under ``check``, for the twin leak test
(``interpreter.checking.leaks.twin_leak``): the cards it has ever seen, and the cards it has seen
since the deck was last shuffled.

A twin deals the cards a seat never saw differently, from the first shuffle on. In a game of many
deals every card has been seen once the first deal is played out, so that twin has nothing left to
swap; the second pool is the one that keeps the test comparing: the cards of the last shuffle (or
of the shuffles made together, between two moments a seat could look) that the seat has not seen
since, swapped in that shuffle and the ones after it only — the game before is played exactly as
it was. Knowing a card from an earlier deal tells nothing of where a fresh shuffle put it.
"""
from __future__ import annotations

from rulesrun.dsl.program import steps_since
from rulesrun.interpreter.runtime.observe import visible_cards


def _is_shuffle(step) -> bool:
    return not isinstance(step, str) and step[0] != "random"


class Sightings:
    """The cards (of ``ncards``) each of ``n`` seats has seen: ``ever``, and ``since`` the last
    shuffle (the step of the state's ``hist`` numbered ``fresh_from``; none before the first
    shuffle) — for each card, the first state (by decisions made) at which the seat saw it."""

    def __init__(self, n: int, ncards: int):
        self.n, self.ncards = n, ncards
        self.ever = [set() for _ in range(n)]
        self.since: list | None = None
        self.fresh_from: int | None = None
        self._head = None               # the newest step looked at: the history is linked, newest first

    def saw(self, state, seat: int, cards, when: int) -> None:
        """``seat`` sees ``cards`` in the state after ``when`` decisions (or on the way to it)."""
        self._shuffled(state, when)
        self.ever[seat] |= cards
        if self.since is not None:
            first = self.since[seat]
            for c in cards:
                first.setdefault(c, when)

    def _shuffled(self, state, when: int) -> None:
        """Start ``since`` afresh when a shuffle was made since the last look (the earliest of the
        new ones, when several were), with what each seat sees now."""
        head = state.history_mark
        new = [k for k, step in steps_since(head, self._head) if _is_shuffle(step)]
        self._head = head
        if new:
            self.fresh_from = new[-1]           # (newest first: the earliest is last)
            self.since = [dict.fromkeys(visible_cards(state, s), when) for s in range(self.n)]

    def pool(self, hist: list, seat: int, upto: int, rng):
        """A twin worth drawing for ``seat`` over the first ``upto`` decisions, as (the first step
        of ``hist`` whose shuffles change, the cards to swap, the decisions to compare): the cards
        it never saw, from the start; else, if fewer than two, the cards of the last shuffle that it
        had not seen by a decision drawn between that shuffle and the last one whose state still
        hides two of them; None when there is none."""
        never = [c for c in range(self.ncards) if c not in self.ever[seat]]
        if len(never) >= 2:
            return 0, never, upto
        if self.fresh_from is None:
            return None
        start = self.fresh_from
        parted = sum(isinstance(e, str) for e in hist[:start])     # the state the shuffle is in
        first = self.since[seat]
        shuffled = sorted({c for e in hist[start:] if _is_shuffle(e) for c in e[2]})
        times = sorted((first.get(c, upto + 1) for c in shuffled), reverse=True)
        if len(times) < 2 or min(upto, times[1] - 1) < parted:
            return None
        until = rng.randint(parted, min(upto, times[1] - 1))
        return start, [c for c in shuffled if first.get(c, upto + 1) > until], until
