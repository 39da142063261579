"""Any ``.rules`` file as a single-agent Gymnasium environment (``pip install 'rulesrun[gym]'``).

    from rulesrun.interpreter.bridges.gym import RulesGymEnv
    env = RulesGymEnv("games/magic_shop.rules", players=4, seat=0, opponents="greedy")
    obs, info = env.reset(seed=7)
    while True:
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated:
            break

The learner sits at ``seat``; every other seat is a rulesrun bot (``interpreter.bots.agents``):
``opponents`` is one seat kind for all of them ("random", "greedy", "ismcts:200"), a list with
one kind per other seat, or a function ``f(seat, seed) -> agent`` whose agent has
``choose(state)``. Actions are ``Discrete(num_actions)`` ids (``actions.ActionSpace``); the
observation is a dict of the seat's tensor (``observation``) and the legal ids
(``action_mask``), which ``info["action_mask"]`` repeats. The reward comes at the end: the
file's returns for the seat (``utility='returns'``) or 1 for a win (``utility='win'``).

An illegal action is not taken: the state stays, the reward is ``illegal_reward`` and
``info["illegal_action"]`` is True (Gymnasium's checker steps with unmasked random actions).
"""
from __future__ import annotations

from rulesrun.interpreter.bridges import require

require("Gymnasium bridge", "gym", "numpy", "gymnasium")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402

from rulesrun.interpreter.bots.agents import make_agent, parse_kind  # noqa: E402

from rulesrun.interpreter.bridges.actions import BridgeError  # noqa: E402
from rulesrun.interpreter.bridges.table import Table  # noqa: E402
from rulesrun.interpreter.bridges.encoding import compiled  # noqa: E402
from rulesrun.interpreter.bridges.spaces import (  # noqa: E402
    RENDER_FPS, RENDER_MODES, Renderer, check_render_mode, final_rewards, mask_of, spaces_for)


class RulesGymEnv(gymnasium.Env):
    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}

    def __init__(self, path, players: int | None = None, variants=(), seat: int = 0,
                 opponents="random", number_bounds: dict | None = None, utility: str = "returns",
                 illegal_reward: float = -1.0, render_mode: str | None = None, params: dict | None = None):
        if utility not in ("returns", "win"):
            raise BridgeError(f"utility must be 'returns' or 'win', not {utility!r}")
        check_render_mode(render_mode)
        self.engine, self.space, self.encoder = compiled(path, players, variants, number_bounds, params)
        n = self.engine.players
        if not 0 <= seat < n:
            raise BridgeError(f"seat {seat} is not a seat of a {n}-player game (0 to {n - 1})")
        self.seat, self.utility, self.illegal_reward = seat, utility, float(illegal_reward)
        self.render_mode = render_mode
        self._render = Renderer(self.engine)
        self._opponent_factory = self._factory(opponents, n)
        self.observation_space, self.action_space = spaces_for(self.space, self.encoder)
        self.table: Table | None = None
        self.opponents: dict = {}

    def _factory(self, opponents, n: int):
        if callable(opponents):
            return opponents
        kinds = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(kinds) != n - 1:
            raise BridgeError(f"opponents names {len(kinds)} seats, but the game has {n - 1} other seats")
        for k in kinds:
            if parse_kind(k)[0] == "human":
                raise BridgeError("an opponent cannot be human here; use random, greedy or ismcts:N")
        others = [p for p in range(n) if p != self.seat]
        by_seat = dict(zip(others, kinds))
        return lambda seat, seed: make_agent(by_seat[seat], seed)

    # ── the Gymnasium API ──────────────────────────────────────────────────
    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        rng = self.np_random
        state = self.engine.new_initial_state(seed=int(rng.integers(2 ** 31)))
        self.table = Table(self.space, state)
        self.opponents = {p: self._opponent_factory(p, int(rng.integers(2 ** 31)))
                          for p in range(self.engine.players) if p != self.seat}
        self._others_play()
        self._shown()
        return self._obs(), self._info()

    def step(self, action):
        t = self.table
        if t is None:
            raise BridgeError("call reset() before step()")
        if t.state.open_decision is None:
            return self._obs(), self._reward(), True, False, self._info()
        try:
            action = int(action)
            legal = action in t.legal_ids()
        except (TypeError, ValueError):
            legal = False
        if not legal:
            return self._obs(), self.illegal_reward, False, False, self._info(illegal=True)
        t.apply_id(action)
        self._others_play()
        done = t.state.open_decision is None
        self._shown()
        return self._obs(), self._reward() if done else 0.0, done, False, self._info()

    def render(self):
        """The table as the learner's seat sees it: printed to the terminal
        (``render_mode="human"``) or returned as text (``"ansi"``)."""
        return self._render(self.table, self.seat, self.render_mode)

    # ── helpers ────────────────────────────────────────────────────────────
    def _shown(self):
        """In ``human`` mode the table is printed as the episode goes (Gymnasium's convention):
        after the reset and after each action taken, once the other seats have played."""
        if self.render_mode == "human":
            self.render()

    def _others_play(self):
        state = self.table.state
        while state.open_decision is not None and state.open_decision[0] != self.seat:
            bot = self.opponents[state.open_decision[0]]
            state.apply_action(bot.choose(state))
            self.table._ids = None

    def _mask(self) -> np.ndarray:
        t = self.table
        if t.state.open_decision is None:
            return np.zeros(self.space.num_actions, np.int8)
        return mask_of(t, self.space.num_actions)

    def _obs(self) -> dict:
        return {"observation": self.encoder.tensor(self.table, self.seat), "action_mask": self._mask()}

    def _info(self, illegal: bool = False) -> dict:
        t = self.table
        info = {"action_mask": self._mask(), "legal": [self.space.text(i) for i in t.legal_ids()]}
        if illegal:
            info["illegal_action"] = True
        if t.state.open_decision is None:
            info["winners"] = t.state.winners()
            info["returns"] = t.state.returns()
        return info

    def _reward(self) -> float:
        return final_rewards(self.table.state, self.utility)[self.seat]


ENV_ID = "rulesrun/Rules-v0"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="rulesrun.interpreter.bridges.gym:RulesGymEnv")
