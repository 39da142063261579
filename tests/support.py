"""What the tests share: the repository's root, checks of the random-game tests of every shipped
game, and small games to compile."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from rulesrun.interpreter import State

# The repository: tests/ sits right under it, whatever folder a test file is in.
ROOT = Path(__file__).resolve().parent.parent
# Every shipped game and every example, as paths from ROOT ("games/magi.rules", "examples/hearts.rules").
RULES_FILES = [p.relative_to(ROOT).as_posix() for p in sorted(ROOT.glob("games/*.rules")) + sorted(ROOT.glob("examples/*.rules"))]


def check_cards(state, where):
    """Every card id is in exactly one zone, and ``loc`` names that zone."""
    ncards = len(state.loc)
    seen = [0] * ncards
    for zi, zone in enumerate(state.z):
        for c in zone:
            seen[c] += 1
            assert state.loc[c] == zi, f"{where}: card {c} is in zone {zi} but loc says {state.loc[c]}"
    assert all(k == 1 for k in seen), \
        f"{where}: cards not in exactly one zone: {[c for c, k in enumerate(seen) if k != 1]}"


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield from strings(k)
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)


def check_clone(state, action, other, where):
    before = json.dumps(state.to_json(), sort_keys=True)
    twin = state.clone()
    assert twin == state, f"{where}: clone differs"
    stray = state.clone()
    stray.apply_action(other)
    assert json.dumps(state.to_json(), sort_keys=True) == before, f"{where}: acting on a clone changed the original"
    return twin


def check_json(game, state, where):
    data = state.to_json()
    assert State.from_json(game, data) == state, f"{where}: State.from_json(to_json()) differs"
    restored = State.from_json(game, json.loads(json.dumps(data)))
    assert restored == state, f"{where}: a JSON round trip through text differs"
    assert [str(a) for a in restored.legal_actions()] == [str(a) for a in state.legal_actions()]
    assert restored.current_player() == state.current_player()
    return restored


# A small game whose players are each told, alone, the card they draw (the tests of private
# announcements add the decision that ends it).
WHISPER = """\
game "Whisper"
players 3
kind Suit: Red, Blue
cards:
    suit: Suit
    rank: number
    shown as "{suit} {rank}"
    for suit in Suit, rank in 1 to 3
zone deck: facedown
zone hand per player: owner
flow:
    shuffle deck
    for p in players:
        move top(deck) to p.hand
        announce to p "You draw {top(p.hand)}."
        announce "{p} draws a card."
"""


SMALL_CARDS = """\
kind Suit: Red, Blue
cards:
    suit: Suit
    rank: number
    {suit: s, rank: r} for s in Suit, r in 1 to 6
zone deck: facedown
zone pile: public
zone hand per player: owner
"""


def small_game(title: str, players: int, rest: str) -> str:
    """A rules text for tests of the compiler: twelve cards (Red and Blue, 1 to 6), a deck, a
    pile and a hand each; ``rest`` (indented as it likes) holds the state, procedures and flow."""
    return f'game "{title}"\nplayers {players}\n{SMALL_CARDS}' + textwrap.dedent(rest)


def wins(game, seats: list, games: int = 40) -> list:
    """How many of ``games`` seeded games (seeds 0, 1, ...) of a loaded ``game`` each seat ends with
    a positive return, seat i played by ``make_agent(seats[i], seed + 1000 * i)``."""
    from rulesrun.interpreter.bots.agents import make_agent
    total = [0] * len(seats)
    for seed in range(games):
        s = game.new_initial_state(seed=seed)
        bots = [make_agent(kind, seed + 1000 * i) for i, kind in enumerate(seats)]
        while not s.is_terminal():
            s.apply_action(bots[s.current_player()].choose(s))
        total = [t + (r > 0) for t, r in zip(total, s.returns())]
    return total


# ── Tiny games: the rules texts the tests of one construct write inline ─────────────────────────
def tiny_header(title: str = "Test", players: str | int = "2 to 4", suits: str = "Red, Green, Blue",
                ranks: int = 4, shown: str = "{suit} {rank}",
                zones: tuple = ("deck: facedown", "pile: public", "hand per player: owner"),
                extra: str = "") -> str:
    """The opening of a tiny rules text: the game's name and players, one card a suit and rank
    (from 1 to ``ranks``) shown as ``shown``, the zones in this order, then ``extra`` (state,
    defines). It starts with a blank line, so that the body's first line is the header's last + 1."""
    return (f'\ngame "{title}"\nplayers {players}\nkind Suit: {suits}\ncards:\n    suit: Suit\n'
            f'    rank: number\n    shown as "{shown}"\n    for suit in Suit, rank in 1 to {ranks}\n'
            + "".join(f"zone {z}\n" for z in zones) + textwrap.dedent(extra))


# Three suits of four ranks, a deck, a pile and a hand each, for 2 to 4 players.
TINY = tiny_header()


def tiny_game(body: str = "", players: int = 2, *, header: str = TINY, variants=(), path: str = "t.rules",
              allow_leaks: bool = True):
    """The game of ``header`` followed by ``body`` (dedented), compiled for ``players``. Leaks are
    allowed by default: most tiny games test a construct, not secrets (the leak check has tests
    of its own)."""
    from rulesrun.interpreter import load_game_text
    return load_game_text(header + textwrap.dedent(body), players, tuple(variants), path=path,
                          allow_leaks=allow_leaks)


def feed(lines, end=EOFError):
    """A ``readline`` for the REPL that gives ``lines`` one by one, then raises ``end`` (EOFError:
    the end of input; KeyboardInterrupt: Ctrl-C)."""
    it = iter(lines)

    def readline():
        try:
            return next(it)
        except StopIteration:
            raise end from None
    return readline
