"""What the tests share: the repository's root, checks of the random-game tests of every shipped
game, and small games to compile."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from rulesrun.interpreter import State

# The repository: tests/ sits right under it, whatever folder a test file is in.
ROOT = Path(__file__).resolve().parent.parent


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
