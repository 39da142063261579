"""The rulesrun Python API in one page: load a game, play random games, read the results,
clone a state, and save / restore a state as JSON.

Run it from anywhere:

    .venv/bin/python examples/api_random_playout.py
"""
from __future__ import annotations

import json
import random
import sys
import tempfile
from pathlib import Path

# Paths are resolved from this file, so the script works from any directory.
HERE = Path(__file__).resolve().parent
RULES = HERE / "hearts.rules"

try:
    from rulesrun.interpreter import load_game
except ImportError:  # rulesrun is not installed: use the checkout this script sits in
    sys.path.insert(0, str(HERE.parent))
    from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.engine import State


def random_playout(state: State, rng: random.Random) -> State:
    """Play random legal actions until the game is over (mutates and returns ``state``)."""
    while not state.is_terminal():
        actions = state.legal_actions()          # readable strings, e.g. "play Q of Spades"
        state.apply_action(rng.choice(actions))  # an action's text, or its index, is accepted
    return state


def main() -> None:
    # 1. Compile a rules file for a number of players (and optionally some variants).
    game = load_game(RULES, players=4)
    print(game.summary())

    # 2. A new game: the seed fixes every shuffle, so the same seed + the same actions
    #    give the same game.
    state = game.new_initial_state(seed=2024)
    print(f"Player {state.current_player() + 1} to move; "
          f"{len(state.legal_actions())} options, e.g. {state.legal_actions()[0]!r}")

    # 3. Clone before experimenting: the clone is independent of the original.
    probe = state.clone()
    probe.apply_action(probe.legal_actions()[0])
    assert probe != state and len(state.history()) == 0

    # 4. Play a few random games and read the results.
    rng = random.Random(7)
    for seed in range(3):
        end = random_playout(game.new_initial_state(seed=seed), rng)
        winners = ", ".join(f"Player {p + 1}" for p in end.winners())
        print(f"seed {seed}: {len(end.history())} decisions, returns {end.returns()}, won by {winners}")
        assert not end.check_invariants()
        # The seed and the decision history replay the game exactly.
        assert game.replay(seed, end.history()) == end

    # 5. Save a half-played game as JSON and restore it.
    state = game.new_initial_state(seed=5)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hearts_state.json"
        path.write_text(json.dumps(state.to_json()))
        restored = State.from_json(game, json.loads(path.read_text()))
    assert restored == state
    print(f"saved and restored a state after {len(state.history())} decisions; "
          f"the last thing that happened: {state.log()[-1]!r}")

    # 6. What one seat may see (hidden cards are only counted).
    seen = restored.observation(0)
    print(f"Player 1 sees {seen['players'][0]['hand']['count']} cards in hand and "
          f"{seen['players'][1]['hand']} of Player 2's")


if __name__ == "__main__":
    main()
