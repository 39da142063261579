"""What the PettingZoo and Gymnasium bridges share: their spaces, the action mask, the final rewards."""
from __future__ import annotations

from rulesrun.interpreter.bridges import require

require("environments", "gym|pettingzoo", "gymnasium", "numpy")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402


def spaces_for(space, encoder):
    """The observation space (a Dict of the tensor and the action mask) and the action space.
    The tensor's bounds are open: it holds the file's numbers (scores, money) as they are."""
    obs = gymnasium.spaces.Dict({
        "observation": gymnasium.spaces.Box(-np.inf, np.inf, (encoder.size,), np.float32),
        "action_mask": gymnasium.spaces.Box(0, 1, (space.num_actions,), np.int8),
    })
    return obs, gymnasium.spaces.Discrete(space.num_actions)


def mask_of(table, num_actions: int) -> np.ndarray:
    """1 for each legal action id of the open decision."""
    mask = np.zeros(num_actions, np.int8)
    mask[table.legal_ids()] = 1
    return mask


def final_rewards(state, utility: str) -> list[float]:
    """The end-of-game reward of each seat: the file's returns, or 1 for each winner."""
    if utility == "win":
        win = set(state.winners())
        return [1.0 if p in win else 0.0 for p in range(state.game.players)]
    return [float(x) for x in state.returns()]
