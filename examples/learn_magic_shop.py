"""Learn to play The Magic Shop from the bridges' tensors alone: a linear softmax policy, trained
with REINFORCE against random seats, in plain numpy.

    .venv/bin/python examples/learn_magic_shop.py                  # about three minutes of CPU
    .venv/bin/python examples/learn_magic_shop.py --games 300 --plot none   # a quick look

It prints the learner's win rate block by block beside a random player's (measured on the same
number of games) and saves a plot of the win rate (``--plot``; needs ``rulesrun[plot]``). The
policy sees only ``Encoder.tensor`` (what its seat may see) and the action mask: a rising win rate
is evidence that the tensors carry the game. Needs ``rulesrun[gym]``.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rulesrun.interpreter.bridges.gym import RulesGymEnv  # noqa: E402


def features(obs: np.ndarray) -> np.ndarray:
    """The tensor squashed to a small range (it holds raw counts and scores), plus a bias."""
    x = np.sign(obs) * np.log1p(np.abs(obs))
    return np.append(x, 1.0).astype(np.float32)


class LinearPolicy:
    """logit(a) = W[a] · x over the legal actions; trained by REINFORCE with a running baseline."""

    def __init__(self, num_actions: int, size: int, lr: float, rng: np.random.Generator):
        self.W = np.zeros((num_actions, size), np.float32)
        self.lr = lr
        self.rng = rng
        self.baseline = 0.0

    def probs(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        z = self.W[legal] @ x
        z -= z.max()
        p = np.exp(z)
        return p / p.sum()

    def act(self, x: np.ndarray, mask: np.ndarray, greedy: bool = False):
        legal = np.flatnonzero(mask)
        p = self.probs(x, legal)
        i = int(np.argmax(p)) if greedy else int(self.rng.choice(len(legal), p=p))
        return int(legal[i]), (x, legal, i, p)

    def learn(self, trail: list, reward: float) -> None:
        advantage = reward - self.baseline
        self.baseline += 0.01 * (reward - self.baseline)
        for x, legal, i, p in trail:
            grad = -p
            grad[i] += 1.0
            self.W[legal] += (self.lr * advantage) * np.outer(grad, x)


def play(env, seed: int, choose) -> float:
    obs, info = env.reset(seed=seed)
    while True:
        obs, reward, done, _, info = env.step(choose(obs))
        if done:
            return reward


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--games", type=int, default=0, help="training games (default: as many as --minutes allow)")
    ap.add_argument("--minutes", type=float, default=3.0, help="training time when --games is not given")
    ap.add_argument("--block", type=int, default=1000, help="games per reported block")
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plot", default=str(ROOT / "docs" / "learn_magic_shop.png"),
                    help="where to save the plot, or 'none'")
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    env = RulesGymEnv(ROOT / "games" / "magic_shop.rules", players=args.players, opponents="random",
                      utility="win")
    size = env.encoder.size + 1
    policy = LinearPolicy(env.space.num_actions, size, args.lr, rng)

    # a random player's win rate at seat 1 of the same table, on as many games as a block
    def random_choice(obs):
        return int(rng.choice(np.flatnonzero(obs["action_mask"])))

    baseline = np.mean([play(env, 10_000_000 + g, random_choice) for g in range(args.block)])
    print(f"random player's win rate over {args.block} games: {baseline:.3f}")
    print(f"{'games':>7}  {'win rate':>8}  {'seconds':>7}")

    start = time.process_time()
    blocks, rates = [], []
    wins = 0
    games = 0
    while True:
        if args.games and games >= args.games:
            break
        if not args.games and time.process_time() - start >= args.minutes * 60:
            break
        trail = []

        def learner(obs):
            a, step = policy.act(features(obs["observation"]), obs["action_mask"])
            trail.append(step)
            return a

        reward = play(env, args.seed * 1_000_000 + games, learner)
        policy.learn(trail, reward)
        wins += reward
        games += 1
        if games % args.block == 0:
            rates.append(wins / args.block)
            blocks.append(games)
            print(f"{games:>7}  {rates[-1]:>8.3f}  {time.process_time() - start:>7.0f}", flush=True)
            wins = 0
    # the learned policy, played greedily on fresh deals
    def greedy(obs):
        return policy.act(features(obs["observation"]), obs["action_mask"], greedy=True)[0]

    final = np.mean([play(env, 20_000_000 + g, greedy) for g in range(args.block)])
    print(f"learned policy (greedy) over {args.block} fresh games: {final:.3f}; random: {baseline:.3f}")

    if args.plot != "none" and blocks:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.plot(blocks, rates, marker="o", label="learner (sampling while it learns)")
        ax.axhline(baseline, color="grey", linestyle="--", label="random player")
        ax.axhline(final, color="green", linestyle=":", label="learned policy, greedy")
        ax.set_xlabel("training games")
        ax.set_ylabel(f"win rate (blocks of {args.block} games)")
        ax.set_title(f"The Magic Shop, {args.players} players: a linear policy vs random seats")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"plot saved to {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
