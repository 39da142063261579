"""What the PettingZoo and Gymnasium bridges share: their spaces, the action mask, the final
rewards, and rendering (the table one seat sees, as the REPL draws it)."""
from __future__ import annotations

import io
import sys

from rulesrun.interpreter.bridges import require

require("environments", "gym|pettingzoo", "gymnasium", "numpy")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

from rulesrun.interpreter.bridges.actions import BridgeError  # noqa: E402

RENDER_MODES = ["human", "ansi"]
RENDER_WIDTH = 110          # the width of the table as text (the REPL's, when not on a terminal)
RENDER_FPS = 4              # what metadata says (Gymnasium asks for it in 'human' mode); the table is text


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


def check_render_mode(mode) -> None:
    if mode is not None and mode not in RENDER_MODES:
        raise BridgeError(f"render_mode must be None, 'human' (the table printed to the terminal) or "
                          f"'ansi' (the table as text), not {mode!r}")


class Renderer:
    """The table as ``seat`` sees it (``state.observation(seat)``: nothing another seat hides),
    drawn by the REPL's ``render_view``: printed to stdout for ``human``, returned as plain text
    for ``ansi``."""

    def __init__(self, engine):
        self.engine = engine
        self._style = None

    def __call__(self, table, seat: int, mode: str | None):
        if mode is None:
            gymnasium.logger.warn("render() needs render_mode='human' or 'ansi'")
            return None
        if table is None:
            raise BridgeError("call reset() before render()")
        from rich.console import Console

        from rulesrun.interpreter.terminal.table import CardStyle, render_view
        if self._style is None:
            self._style = CardStyle(self.engine)
        view = render_view(table.state.observation(seat), self._style, width=RENDER_WIDTH)
        if mode == "human":
            Console(file=sys.stdout, width=RENDER_WIDTH if not sys.stdout.isatty() else None).print(view)
            return None
        out = io.StringIO()
        Console(file=out, width=RENDER_WIDTH, color_system=None, force_terminal=False).print(view)
        return "\n".join(line.rstrip() for line in out.getvalue().splitlines()) + "\n"
