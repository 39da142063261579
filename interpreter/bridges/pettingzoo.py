"""Any ``.rules`` file as a PettingZoo AEC environment (``pip install 'rulesrun[pettingzoo]'``).

    from rulesrun.interpreter.bridges.pettingzoo import env
    e = env("games/gachapon.rules", players=3)
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are ``player_0`` ... ``player_{N-1}`` (seat order). Each observation is a dict: the
seat's tensor (``encoding.Encoder``, relative seats) as ``observation`` and the legal action ids
as ``action_mask``; ``infos[agent]`` holds ``legal`` (the readable texts of the legal ids) when
the agent is to move. Rewards come once, at the end: the file's returns (``utility='returns'``)
or 1 for each winner (``utility='win'``). The same seed deals the same game.
"""
from __future__ import annotations

import random

from rulesrun.interpreter.bridges import require

require("PettingZoo bridge", "pettingzoo", "numpy", "gymnasium", "pettingzoo")

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from pettingzoo import AECEnv  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

from rulesrun.interpreter.bridges.actions import BridgeError  # noqa: E402
from rulesrun.interpreter.bridges.table import Table  # noqa: E402
from rulesrun.interpreter.bridges.encoding import compiled  # noqa: E402
from rulesrun.interpreter.bridges.spaces import (  # noqa: E402
    RENDER_FPS, RENDER_MODES, Renderer, check_render_mode, final_rewards, mask_of, spaces_for)


class RulesEnv(AECEnv):
    """One rules file, player count and set of variants as an AEC environment."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS, "name": "rulesrun_v0",
                "is_parallelizable": False}

    def __init__(self, path, players: int | None = None, variants=(), number_bounds: dict | None = None,
                 utility: str = "returns", render_mode: str | None = None, params: dict | None = None):
        super().__init__()
        if utility not in ("returns", "win"):
            raise BridgeError(f"utility must be 'returns' or 'win', not {utility!r}")
        check_render_mode(render_mode)
        self.engine, self.space, self.encoder = compiled(path, players, variants, number_bounds, params)
        self.utility = utility
        self.render_mode = render_mode
        self._render = Renderer(self.engine)
        n = self.engine.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        obs, act = spaces_for(self.space, self.encoder)
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: act for a in self.possible_agents}
        self.table: Table | None = None
        self.metadata = dict(self.metadata, name=f"rulesrun_{self.engine.program.title}")

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        seat = self._index[agent]
        t = self.table
        mask = np.zeros(self.space.num_actions, np.int8)
        if t.state.open_decision is not None and t.state.open_decision[0] == seat:
            mask = mask_of(t, self.space.num_actions)
        return {"observation": self.encoder.tensor(t, seat), "action_mask": mask}

    def reset(self, seed=None, options=None):
        if seed is None:
            seed = random.randrange(2 ** 31)
        self.table = Table(self.space, self.engine.new_initial_state(seed=int(seed)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._select()
        self._shown()

    def _select(self):
        t = self.table
        if t.state.open_decision is None:
            return
        self.agent_selection = self.possible_agents[t.state.open_decision[0]]
        for a in self.agents:
            self.infos[a] = {}
        self.infos[self.agent_selection] = {"legal": [self.space.text(i) for i in t.legal_ids()]}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise BridgeError(f"{agent} must choose an action: the game is not over")
        t = self.table
        self._cumulative_rewards[agent] = 0.0
        try:
            t.apply_id(int(action))
        except BridgeError as e:
            raise BridgeError(f"{agent}: {e}") from None
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if t.state.open_decision is None:
            final = final_rewards(t.state, self.utility)
            for a in self.agents:
                self.rewards[a] = final[self._index[a]]
                self.terminations[a] = True
                self.infos[a] = {"winners": [self.possible_agents[w] for w in t.state.winners()]}
            self._accumulate_rewards()
            self._shown()
            return
        self._select()
        self._accumulate_rewards()
        self._shown()

    def _shown(self):
        """In ``human`` mode the table is printed as the game goes (Gymnasium's and PettingZoo's
        convention): after the reset and after each step, as the agent to move next sees it."""
        if self.render_mode == "human":
            self.render()

    def render(self):
        """The table as the agent to move sees it (the last to move, once the game is over): printed
        to the terminal (``render_mode="human"``) or returned as text (``"ansi"``); never what
        that seat may not see."""
        seat = self._index[self.agent_selection] if self.table is not None else 0
        return self._render(self.table, seat, self.render_mode)

    def close(self):
        pass


def raw_env(path, players: int | None = None, variants=(), **kwargs) -> RulesEnv:
    return RulesEnv(path, players, variants, **kwargs)


def env(path, players: int | None = None, variants=(), **kwargs):
    """The environment, wrapped so that it is used in order (PettingZoo's OrderEnforcingWrapper)."""
    return wrappers.OrderEnforcingWrapper(RulesEnv(path, players, variants, **kwargs))
