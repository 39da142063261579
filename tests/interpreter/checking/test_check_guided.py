"""Coverage-guided search: a runtime error planted in a branch that uniform random play reaches in
under 1 % of games (tests/broken/rare_branch.rules) is found by `rulesrun check FILE` with the
default settings — and is not found by the same budget of games without the guidance."""
from __future__ import annotations

import io
import random

from rulesrun.dsl import RulesRuntimeError
from rulesrun.interpreter import load_game
from rulesrun.interpreter.checking import run_check

from tests.support import ROOT  # noqa: E402
RARE = ROOT / "tests" / "broken" / "rare_branch.rules"


def test_the_planted_branch_is_rare_under_uniform_random_play():
    game = load_game(RARE, players=3)      # the count where it is least rare
    hits, games = 0, 1500
    for seed in range(games):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        try:
            while not state.is_terminal():
                actions = state.legal_actions()
                state.apply_action(actions[rng.randrange(len(actions))])
        except RulesRuntimeError:
            hits += 1
    assert 0 < hits <= games // 100, f"{hits} of {games} games reach the planted branch"


def test_default_check_finds_the_rare_bug():
    out, err = io.StringIO(), io.StringIO()
    code = run_check(str(RARE), out=out, err=err)          # the defaults of `rulesrun check FILE`
    text = out.getvalue()
    assert code == 1, text
    assert "FAILED: the rules never fail at run time" in text
    assert "rare_branch.rules:122" in text and "top() of an empty zone" in text
    assert "Replay it step by step:" in text


def test_without_guidance_the_same_budget_misses_it():
    """3 players, where the branch is least rare: 100 games from hypothesis alone pass; the same
    100 games, half of them guided, do not."""
    out, err = io.StringIO(), io.StringIO()
    code = run_check(str(RARE), players=3, out=out, err=err, coverage=False)
    assert code == 0, "plain random games found it: the planted branch is no longer a test of guidance"
    code = run_check(str(RARE), players=3, out=out, err=err)
    assert code == 1 and "top() of an empty zone" in out.getvalue()


def test_guided_games_are_given_up_by_the_length_of_hypothesiss_games():
    """Four times the median game of uniform play, or twice the longest if less, at least 300:
    and guided games that drag on do not move it (it once grew with each of them, and Magi's
    swarm players dragged games out to 30,000 decisions and more)."""
    from rulesrun.dsl import parse_file
    from rulesrun.interpreter.checking import Config, check_config
    from rulesrun.interpreter.checking.search import Guide
    shop = ROOT / "games" / "magic_shop.rules"
    checker, _ = check_config(str(shop), Config(3, ()), 1, 0, 10_000, rules=parse_file(str(shop)))
    for lengths, cap in (([100, 200, 5000], 800), ([1000, 1100, 1200], 2400), ([10, 20], 300), ([], 300)):
        checker.lengths = lengths
        assert Guide(checker, 0).cap == cap
    checker.lengths, checker.max_steps = [100, 200, 5000], 500
    assert Guide(checker, 0).cap == 500                      # never beyond --max-steps
    checker.max_steps = 10_000
    checker.lengths = [150, 160, 170]
    guide = Guide(checker, 0)
    caps = []
    real = checker.play

    def play(seed, prefix, trace, cap, chooser=None):
        caps.append(cap)
        real(seed, prefix, trace, cap, chooser)
        checker.lengths[-1] = 50_000                         # as if each guided game went on and on
    checker.play = play
    assert guide.games(Config(3, ()), 4, 0) is None
    assert caps == [340] * 4                                 # twice 170: less than 4 x 160
