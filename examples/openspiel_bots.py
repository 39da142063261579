"""An OpenSpiel bot against rulesrun's own bots on any .rules file, through the OpenSpiel bridge.

    .venv/bin/python examples/openspiel_bots.py                          # The Magic Shop, 3 players
    .venv/bin/python examples/openspiel_bots.py --games 20 --sims 100 --rival ismcts:200
    .venv/bin/python examples/openspiel_bots.py games/magi.rules --players 4 --bot mcts

OpenSpiel's ISMCTSBot (or MCTSBot, which searches the true state: it cheats, and is here only to
show that the game runs under it) takes one seat, moving round the table from game to game; the
other seats are rulesrun agents (``interpreter.bots.agents``: random, greedy, ismcts:N). It prints each
side's wins (a shared first place counts for every winner) and mean returns. Needs
``rulesrun[openspiel]``.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from rulesrun.interpreter.bots.agents import make_agent  # noqa: E402
from rulesrun.interpreter.bridges.openspiel import load_game  # noqa: E402


def make_bot(kind: str, game, sims: int, rng):
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    if kind == "ismcts":
        return ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=sims, random_state=rng)
    return mcts.MCTSBot(game, uct_c=2.0, max_simulations=sims, evaluator=evaluator, random_state=rng)


def play_one(game, bot, bot_seat: int, rivals: dict, deal: int) -> list[float]:
    state = game.new_initial_state()
    state.apply_action(deal)                       # the chance node: which deal
    while not state.is_terminal():
        seat = state.current_player()
        if seat == bot_seat:
            state.apply_action(bot.step(state))
        else:
            engine_state = state.table().state
            for a in state.ids_of(rivals[seat].choose(engine_state)):
                state.apply_action(a)
    return state.returns()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("rules", nargs="?", default=str(ROOT / "games" / "magic_shop.rules"))
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--bot", choices=["ismcts", "mcts"], default="ismcts", help="the OpenSpiel bot")
    ap.add_argument("--sims", type=int, default=50, help="the OpenSpiel bot's simulations a move")
    ap.add_argument("--rival", default="ismcts:50", help="the rulesrun seats: random, greedy or ismcts:N")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    game = load_game(args.rules, players=args.players, utility="win")
    n = game.num_players()
    rng = np.random.RandomState(args.seed)
    wins = {"openspiel": 0.0, "rulesrun": 0.0}
    seats = {"openspiel": 0, "rulesrun": 0}
    print(f"{game.get_type().long_name}, {n} players: OpenSpiel {args.bot}({args.sims}) against rulesrun {args.rival}")
    for g in range(args.games):
        bot_seat = g % n
        bot = make_bot(args.bot, game, args.sims, rng)
        rivals = {p: make_agent(args.rival, args.seed * 1000 + g * n + p) for p in range(n) if p != bot_seat}
        returns = play_one(game, bot, bot_seat, rivals, deal=int(rng.randint(game.max_chance_outcomes())))
        for p, r in enumerate(returns):
            side = "openspiel" if p == bot_seat else "rulesrun"
            wins[side] += r
            seats[side] += 1
        won = [p + 1 for p, r in enumerate(returns) if r > 0]
        print(f"game {g + 1}: OpenSpiel bot in seat {bot_seat + 1}; winners: seats {won}")
    for side in ("openspiel", "rulesrun"):
        print(f"{side:>9}: won {wins[side]:.0f} of {seats[side]} seat-games "
              f"({wins[side] / seats[side]:.2f} a seat; an even share is {1 / n:.2f} or more with ties)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
