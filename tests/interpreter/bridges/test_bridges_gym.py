"""The Gymnasium bridge: Gymnasium's env checker on every shipped game and example (its render
modes too), with rulesrun bots in the other seats; the learning example runs."""
import io
import warnings
from contextlib import redirect_stdout

import pytest

gymnasium = pytest.importorskip("gymnasium", reason="Gymnasium is not installed (pip install 'rulesrun[gym]')")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

from rulesrun.interpreter.bridges import BridgeError  # noqa: E402
from rulesrun.interpreter.bridges.gym import ENV_ID, RulesGymEnv  # noqa: E402

from tests.support import ROOT, RULES_FILES  # noqa: E402

OPPONENTS = {"games/magic_shop.rules": "greedy", "games/magi.rules": "ismcts:5"}   # else random


@pytest.mark.parametrize("path", RULES_FILES)
def test_check_env_at_every_player_count_and_variant(path, capsys):
    """Gymnasium's checker, rendering included: made by its id (so that it makes the env again in
    each render mode), from the file alone."""
    from rulesrun.interpreter.bridges import configurations
    for players, variants in configurations(ROOT / path):
        env = gymnasium.make(ENV_ID, path=str(ROOT / path), players=players, variants=variants,
                             opponents=OPPONENTS.get(path, "random"), render_mode="ansi")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                check_env(env.unwrapped)
            except Exception as e:
                raise AssertionError(f"{path}, {players} players, variants {variants}: {e}") from e
        # only the advice about open bounds (the tensor holds the file's scores as they are)
        assert all("infinity" in str(w.message) for w in caught), [str(w.message) for w in caught]
    assert "you are Player" in capsys.readouterr().out         # 'human' printed the table


def test_an_episode_is_the_seats_decisions_and_ends_with_its_returns():
    env = RulesGymEnv(ROOT / "games/magic_shop.rules", players=3, seat=1, opponents=["random", "greedy"])
    obs, info = env.reset(seed=3)
    assert env.table.state.current_player() == 1
    assert obs["action_mask"].sum() == len(info["legal"]) > 0
    rng = np.random.default_rng(1)
    steps, reward, done = 0, 0.0, False
    while not done:
        assert env.table.state.current_player() == 1
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        assert not truncated
        steps += 1
    assert steps > 20 and reward == float(env.table.state.returns()[1]) == float(info["returns"][1])
    assert obs["action_mask"].sum() == 0


def test_same_seed_same_game():
    a = RulesGymEnv(ROOT / "games/gachapon.rules", players=3, opponents="random")
    b = RulesGymEnv(ROOT / "games/gachapon.rules", players=3, opponents="random")
    for env in (a, b):
        env.reset(seed=5)
        env.action_space.seed(5)
    for _ in range(30):
        oa, ob = a._obs(), b._obs()
        assert np.array_equal(oa["observation"], ob["observation"])
        if a.table.is_terminal():
            break
        act = a.action_space.sample(oa["action_mask"])
        a.step(act)
        b.step(act)
    assert a.table.state == b.table.state


def test_an_illegal_action_is_not_taken():
    env = RulesGymEnv(ROOT / "games/magic_shop.rules", players=3, illegal_reward=-2.0)
    obs, _ = env.reset(seed=1)
    before = env.table.state.clone()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs2, reward, done, _, info = env.step(bad)
    assert reward == -2.0 and not done and info["illegal_action"]
    assert env.table.state == before and np.array_equal(obs2["observation"], obs["observation"])


def test_bad_settings_are_clear_errors():
    with pytest.raises(BridgeError, match="seat 5 is not a seat of a 3-player game"):
        RulesGymEnv(ROOT / "games/magic_shop.rules", players=3, seat=5)
    with pytest.raises(BridgeError, match="opponents names 1 seats, but the game has 2 other seats"):
        RulesGymEnv(ROOT / "games/magic_shop.rules", players=3, opponents=["random"])
    with pytest.raises(ValueError, match="unknown seat kind"):
        RulesGymEnv(ROOT / "games/magic_shop.rules", players=3, opponents="clever")


def test_made_by_id():
    env = gymnasium.make(ENV_ID, path=str(ROOT / "games/magic_shop.rules"), players=3, opponents="random")
    obs, info = env.reset(seed=2)
    assert env.action_space.n == 153 and obs["observation"].shape == (1624,)   # The Magic Shop, with its face_up_bid and bid_made columns


def test_the_learning_example_runs_and_reports_win_rates(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot needs matplotlib (pip install 'rulesrun[plot]')")
    import importlib.util
    spec = importlib.util.spec_from_file_location("learn_magic_shop", ROOT / "examples/learn_magic_shop.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = io.StringIO()
    plot = tmp_path / "plot.png"
    with redirect_stdout(out):
        assert mod.main(["--games", "20", "--block", "10", "--plot", str(plot)]) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("random player's win rate over 10 games: ")
    rows = [line.split() for line in lines if line.strip() and line.split()[0].isdigit()]
    assert [r[0] for r in rows] == ["10", "20"] and all(0.0 <= float(r[1]) <= 1.0 for r in rows)
    assert "learned policy (greedy) over 10 fresh games" in lines[-2]
    assert plot.stat().st_size > 1000


def test_check_env_renders_in_every_render_mode(capsys):
    """Gymnasium's checker makes the env again in each declared render mode (from its spec) and renders."""
    env = gymnasium.make(ENV_ID, path=str(ROOT / "games/gachapon.rules"), players=3, render_mode="human")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # the open bounds, as above
        check_env(env.unwrapped)
    assert "Gachapon Trick — you are Player 1" in capsys.readouterr().out


def test_human_rendering_prints_the_learners_table_and_ansi_returns_the_same_text(capsys):
    human = RulesGymEnv(ROOT / "games/magic_shop.rules", players=3, seat=2, render_mode="human")
    ansi = RulesGymEnv(ROOT / "games/magic_shop.rules", players=3, seat=2, render_mode="ansi")
    for env in (human, ansi):
        env.reset(seed=4)
    capsys.readouterr()
    assert human.render() is None
    printed = capsys.readouterr().out
    assert "you are Player 3" in printed and "your hand" in printed
    assert ansi.render().split() == printed.split()
