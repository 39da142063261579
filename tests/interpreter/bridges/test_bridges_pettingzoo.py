"""The PettingZoo bridge: PettingZoo's own API, seed and render tests on every shipped game and
example, at every player count and variant."""

import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install 'rulesrun[pettingzoo]')")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

from rulesrun.interpreter.bridges import BridgeError, configurations  # noqa: E402
from rulesrun.interpreter.bridges.pettingzoo import env, raw_env  # noqa: E402

from tests.support import ROOT, RULES_FILES  # noqa: E402


@pytest.mark.filterwarnings("ignore")      # PettingZoo's advice about Dict observations (as its own card games)
@pytest.mark.parametrize("path", RULES_FILES)
def test_api_seed_and_render_tests_at_every_player_count_and_variant(path, capsys):
    """Long enough to cross several decisions of every kind; the first configuration of each file
    is played to its end (PettingZoo's default number of cycles). The file alone: no parameters."""
    for i, (players, variants) in enumerate(configurations(ROOT / path)):
        cycles = 1000 if i == 0 else 60
        make = lambda **kw: env(ROOT / path, players, variants, **kw)  # noqa: E731
        try:
            api_test(make(), num_cycles=cycles)
            seed_test(make, num_cycles=cycles)
            render_test(make)
        except Exception as e:
            raise AssertionError(f"{path}, {players} players, variants {variants}: {e}") from e
    assert "you are Player" in capsys.readouterr().out         # 'human' printed the table


def test_a_game_played_through_the_env_ends_with_the_files_returns():
    e = raw_env(ROOT / "games/gachapon.rules", 3)
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        mask = obs["action_mask"]
        assert info["legal"] and len(info["legal"]) == mask.sum()
        e.step(int(rng.choice(np.flatnonzero(mask))))
    state = e.table.state
    assert state.is_terminal()
    assert [total[a] for a in e.possible_agents] == [float(x) for x in state.returns()]


def test_seeds_deal_games_and_only_the_mover_has_a_mask():
    a, b = raw_env(ROOT / "games/magic_shop.rules", 4), raw_env(ROOT / "games/magic_shop.rules", 4)
    a.reset(seed=1)
    b.reset(seed=2)
    mover = a.agent_selection
    assert not np.array_equal(a.observe(mover)["observation"], b.observe(mover)["observation"])
    for agent in a.possible_agents:
        assert a.observe(agent)["action_mask"].any() == (agent == mover)


def test_an_illegal_action_is_a_clear_error():
    e = raw_env(ROOT / "games/magic_shop.rules", 3)
    e.reset(seed=1)
    bad = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(BridgeError, match=r"player_\d: action id \d+ \(.*\) is not legal now"):
        e.step(bad)


def test_human_rendering_prints_the_seats_table_and_ansi_returns_the_same_text(capsys):
    human = raw_env(ROOT / "games/magic_shop.rules", 3, render_mode="human")
    ansi = raw_env(ROOT / "games/magic_shop.rules", 3, render_mode="ansi")
    for e in (human, ansi):
        e.reset(seed=1)
    capsys.readouterr()
    assert human.render() is None
    printed = capsys.readouterr().out
    assert "The Magic Shop — you are Player 1" in printed and "your hand" in printed
    text = ansi.render()
    assert isinstance(text, str) and text.split() == printed.split()
    assert capsys.readouterr().out == ""          # ansi prints nothing
    for e in (human, ansi):                       # human mode prints as the game goes, as the next to move sees it
        e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
    assert capsys.readouterr().out.split() == ansi.render().split()
    assert f"you are Player {human._index[human.agent_selection] + 1}" in ansi.render()


def test_the_rendered_table_shows_nothing_the_seat_cannot_see():
    """The cards the seat to move cannot see, dealt again (observe.resample; the announcements
    as they were: what a seat was told is the engine's to keep per seat), leave its table as it was."""
    import random

    from rulesrun.interpreter.runtime.observe import resample
    e = raw_env(ROOT / "games/magi.rules", 4, render_mode="ansi")
    e.reset(seed=3)
    rng = np.random.default_rng(0)
    for step in range(40):
        seat = e._index[e.agent_selection]
        text = e.render()
        real = e.table.state
        e.table.state = resample(real, seat, random.Random(step), relabel_log=False)
        assert e.render() == text, f"step {step}"
        e.table.state = real
        e.step(int(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]))))
        if e.table.is_terminal():
            break


def test_render_test_passes_in_every_render_mode():
    render_test(lambda **kw: env(ROOT / "games/gachapon.rules", 3, **kw))


def test_an_unknown_render_mode_is_a_clear_error():
    with pytest.raises(BridgeError, match="render_mode must be None, 'human' .* or 'ansi' .*, not 'rgb_array'"):
        raw_env(ROOT / "games/gachapon.rules", 3, render_mode="rgb_array")
