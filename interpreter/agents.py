"""Agents that choose actions. Every agent sees only ``state.legal_actions()`` and what its seat may see."""
from __future__ import annotations

import random


class RandomAgent:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def choose(self, state):
        actions = state.legal_actions()
        return actions[self.rng.randrange(len(actions))]


AGENTS = {"random": RandomAgent}
SEAT_KINDS = ("human",) + tuple(AGENTS)


def parse_seats(spec: str | None, players: int) -> list[str]:
    """'human,random,random' → a list of seat kinds; None → seat 1 human, the others random."""
    if spec is None:
        return ["human"] + ["random"] * (players - 1)
    seats = [s.strip().lower() for s in spec.split(",")]
    if len(seats) != players:
        raise ValueError(f"--seats names {len(seats)} seat{'s' if len(seats) != 1 else ''} but the game has "
                         f"{players} players; give one of {', '.join(SEAT_KINDS)} per player, like "
                         f"{','.join(['human'] + ['random'] * (players - 1))}")
    for s in seats:
        if s not in SEAT_KINDS:
            raise ValueError(f"unknown seat kind {s!r} in --seats; use {', '.join(SEAT_KINDS)}")
    return seats


def make_agent(kind: str, seed: int):
    return AGENTS[kind](seed)
