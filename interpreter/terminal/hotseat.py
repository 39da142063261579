"""Keeping secrets at a shared keyboard: what ``undo`` may take back, how chance is re-seeded after
it, the pass screen's clearing, and when the seed may be shown.

- ``undo`` takes back only the decisions of the seat at the keyboard: its last one, with the bots'
  moves after it (a move that was the only legal one, played for the seat, is no decision of its
  own: undo goes back past it). If another human has decided since, it refuses (taking that back would show the
  keyboard's seat a position it never had, and undo someone else's secret choice).
- ``undo`` refuses when, since that decision, the seat has seen a card that nobody could see at
  the decision (drawn from a face-down pile, turned up from a hidden one): taking the decision back
  would let it keep the knowledge and take the draw back. A deck shuffled before the decision holds
  its order, so re-seeding alone could not hide such a card.
- After an undo, chance gets a fresh seed (``State.reseed``): the shuffles still to come are not the
  ones that came before the undo. What had happened before the decision replays exactly; the record
  keeps each fresh seed with the number of decisions it came after (``reseeds``), so the game still
  replays exactly.
- The seed is not shown while a human plays (it would let them work out the deck); it is shown
  when the game ends, and the record holds it.
"""
from __future__ import annotations

import secrets

from rulesrun.interpreter.runtime.engine import Game, State

# ESC[3J: erase the scrollback, where a previous player's hand would still be a scroll away
CLEAR_SCROLLBACK = "\x1b[3J"


def fresh_seed() -> int:
    """A seed of 62 bits from the operating system's randomness: not guessable from the time."""
    return secrets.randbits(62)


def undo_point(moves: list[tuple[int, str]], seats: list[str], seat: int,
               forced: set[int] = frozenset()) -> tuple[int | None, str | None]:
    """The index in ``moves`` of ``seat``'s last decision, which ``undo`` takes back with every move
    after it; or None and the reason it may not. A move at a place in ``forced`` was the only legal
    one and was played for the seat: undo passes over it (it would only be played again)."""
    mine = [i for i, (s, _) in enumerate(moves) if s == seat and i not in forced]
    if not mine:
        return None, "Nothing to undo: you have not decided anything yet."
    k = mine[-1]
    others = sorted({s for s, _ in moves[k + 1:] if s != seat and 0 <= s < len(seats) and seats[s] == "human"})
    if others:
        who = ", ".join(f"Player {s + 1}" for s in others)
        return None, (f"Cannot undo: {who} decided after your last decision, and undo takes back only your "
                      f"own decisions.")
    return k, None


def unseen_cards(state: State) -> set[int]:
    """The cards no seat can see and no announcement has named: face-down and hidden piles."""
    from rulesrun.interpreter.runtime.observe import announced_cards, visible_cards
    seen = set(announced_cards(state) or ())
    for q in range(state.game.players):
        seen |= visible_cards(state, q)
    return set(range(len(state.game.program.card_names))) - seen


def drawn_since(before: State, now: State, seat: int) -> set[int]:
    """The cards ``seat`` knows in ``now`` that nobody could see in ``before``."""
    from rulesrun.interpreter.runtime.observe import announced_cards, visible_cards
    known = visible_cards(now, seat) | set(announced_cards(now) or ())
    return unseen_cards(before) & known


def rewind(game: Game, seed: int, actions: list[str], reseeds: list, k: int) -> tuple[State, list]:
    """The game after its first ``k`` actions, replayed exactly, with chance re-seeded from there on;
    and the reseeds to record (those before ``k``, and the fresh one at ``k``)."""
    kept = [[step, s] for step, s in reseeds if step < k]
    state = game.replay(seed, actions[:k], reseeds=dict(kept))
    new = fresh_seed()
    state.reseed(new)
    return state, kept + [[k, new]]


def clear_for_next_player(console) -> None:
    """Clear the screen and the scrollback (on a terminal), so nothing of the last seat's view
    remains to scroll back to."""
    console.clear()
    console.file.write(CLEAR_SCROLLBACK)
    console.file.flush()
