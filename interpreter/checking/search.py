"""How ``check`` chooses the games it plays within its budget of ``--games`` per configuration.

1. **hypothesis** plays the first half: it draws a seed and a list of option numbers, and on a
   violation shrinks them to a short sequence of moves.
2. **guided search** plays the rest, steering toward the branches the games so far never reached:
   * *swarm* games: in each game, each kind of decision either plays uniformly or favours one word
     of its options' texts ("pass", "Eye", "down", "3"), so runs of alike choices — everyone
     passing, every bid with an Eye — that uniform play almost never makes become common;
   * *restarts*: whenever the condition in front of an unreached branch is tested (the line
     closest to it that runs), the moves that led there are saved; a restart replays them but for
     the last few decisions, and plays on with swarm weights.
   A violation found this way is reported with the full sequence of moves (not shrunk). A guided
   game is given up quietly after four times the median length of hypothesis's games, or twice
   their longest if that is less (at least 300 decisions): a swarm player can keep doing one
   thing for ever — always drawing — where no player would, and whether *every* game ends is
   hypothesis's games' question.
"""
from __future__ import annotations

import random

import attrs

from rulesrun.interpreter.checking.properties import GameChecker, Violation
from rulesrun.interpreter.checking.coverage import rules_positions


@attrs.define
class Failure:
    prop: str
    message: str
    players: int
    variants: tuple
    seed: int
    actions: list
    how: str = "shrunk"          # shrunk | guided | full | exhaustive
    params: dict = attrs.Factory(dict)   # the game parameters set (dsl.check.params), for the replay command


def hypothesis_games(checker: GameChecker, cfg, games: int, seed: int, progress=None) -> Failure | None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st
    from hypothesis.errors import HypothesisException

    last: dict = {}
    played = [0]
    failed: set = set()

    @settings(max_examples=games, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck), print_blob=False, report_multiple_bugs=False,
              phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink])
    @given(st.integers(0, 2 ** 31 - 1), st.lists(st.integers(0, 2 ** 16), max_size=400))
    def prop(game_seed, choices):
        if "endless" in last:
            return  # a game that never ends is reported as found: shrinking it would replay it again and again
        trace: list = []
        played[0] += 1
        if progress:
            progress(played[0])
        # a game that failed before is replayed in full: cut short, it would pass and look flaky
        key = (game_seed, tuple(choices))
        cap = None if key in failed else last.get("cap")
        s = (game_seed + seed) % 2 ** 31
        try:
            checker.play(s, choices, trace, cap)
        except Violation as v:
            failed.add(key)
            f = Failure(v.prop, v.message, cfg.players, cfg.variants, s, trace)
            if v.prop == "ends":
                f.how = "full"
                last["endless"] = f
                return
            last["failure"] = f
            last["cap"] = min(last.get("cap", len(trace)), len(trace))
            raise

    try:
        prop()
    except Violation:
        return last["failure"]
    except HypothesisException as e:  # pragma: no cover - hypothesis internals
        raise RuntimeError(f"hypothesis could not run the check: {e}") from None
    return last.get("endless")


class Guide:
    """Guided search toward the unreached branches of one configuration."""

    RESTART = 0.35          # the share of guided games that restart from a saved position
    KEEP = 40               # saved positions per branch

    def __init__(self, checker: GameChecker, seed: int):
        self.checker = checker
        self.rng = random.Random(seed ^ 0x6B1DE)
        self.pool: dict = {}          # watched rules Pos -> [(seed, option numbers so far)]
        self.by_line: dict = {}       # rules Pos -> generated (file, line) keys
        for name, table in rules_positions(checker.game.program).items():
            for line, pos in table.items():
                self.by_line.setdefault(pos, []).append((name, line))
        self.game_seed = 0
        self.targets: dict = {}       # generated key -> rules Pos watched
        # a swarm player may keep doing one thing for ever (always drawing, say) where nobody
        # would: such a game is given up quietly, long after a game of uniform play (those before
        # this search) ends. Measured by the guided games too, the bound grew with every long game
        # such a player dragged out, and so did the time of each (to games of 30,000 decisions and more).
        ended = sorted(checker.lengths) or [0]
        self.cap = min(checker.max_steps, max(300, min(2 * ended[-1], 4 * ended[len(ended) // 2])))

    def retarget(self) -> list:
        """Watch the lines closest to the branches still unreached; the branches."""
        cov = self.checker.coverage
        missing = cov.unreached()
        self.targets = {}
        for b in missing:
            near = b.test or b.pos      # the condition tested before it, or the decision itself
            for key in self.by_line.get(near, ()):
                self.targets[key] = near
        self.checker.tracer.watch = set(self.targets)
        return missing

    def _saw(self, step: int, hits: list) -> None:
        for key in dict.fromkeys(hits):     # in the order they ran: a set's order changes with the hash seed
            pos = self.targets.get(key)
            if pos is None or step < 1:
                continue
            back = self.rng.randint(1, min(step, 12))
            entry = (self.game_seed, self.checker.indices[:step - back])
            saved = self.pool.setdefault(pos, [])
            if len(saved) < self.KEEP:
                saved.append(entry)
            else:
                saved[self.rng.randrange(self.KEEP)] = entry

    def chooser(self):
        """A swarm player for one game. For each kind of decision it either plays uniformly, or
        favours one word of the options' texts — "pass", "Eye", "down", "3" — chosen when the
        decision first comes up, taking an option with that word whenever it can."""
        rng = self.rng
        favour: dict = {}

        def choose(state, texts, _pick):
            label = state.decision_label()
            word = favour.get(label, 0)
            if word == 0:
                words = [set(t.split()) for t in texts]
                common = set.intersection(*words)
                choice = sorted(set.union(*words) - common)
                word = favour[label] = rng.choice(choice) if choice and rng.random() < 0.7 else None
            if word is not None:
                hits = [i for i, t in enumerate(texts) if word in t.split()]
                if hits:
                    return rng.choice(hits)
            return rng.randrange(len(texts))
        return choose

    def games(self, cfg, games: int, base_seed: int, progress=None, done: int = 0) -> Failure | None:
        checker = self.checker
        checker.on_watch = self._saw
        try:
            for k in range(games):
                if progress:
                    progress(done + k + 1)
                missing = self.retarget()
                near = [b.test or b.pos for b in missing if self.pool.get(b.test or b.pos)]
                prefix: list = []
                if near and self.rng.random() < self.RESTART:
                    self.game_seed, prefix = self.rng.choice(self.pool[self.rng.choice(near)])
                else:
                    self.game_seed = (base_seed + self.rng.randrange(2 ** 31)) % 2 ** 31
                trace: list = []
                try:
                    checker.play(self.game_seed, prefix, trace, self.cap, chooser=self.chooser())
                except Violation as v:
                    return Failure(v.prop, v.message, cfg.players, cfg.variants, self.game_seed, trace,
                                   "full" if v.prop == "ends" else "guided")
        finally:
            checker.on_watch = None
            checker.tracer.watch = set()
        return None
