"""The OpenSpiel bridge: every shipped game and example passes OpenSpiel's own random-simulation
test at every player count and variant, and OpenSpiel's search bots play a game to the end."""
import io
import random
from contextlib import redirect_stdout

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'rulesrun[openspiel]')")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from rulesrun.interpreter.bridges import BridgeError, configurations  # noqa: E402
from rulesrun.interpreter.bridges.openspiel import load_game  # noqa: E402

from tests.support import ROOT, RULES_FILES  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("path", RULES_FILES)
def test_random_sim_test_at_every_player_count_and_variant(path):
    """OpenSpiel's generic checks (legal actions, clone, serialize/deserialize, observation and
    information-state strings and tensors, returns) on one random game of each configuration of
    every shipped game and example, loaded with no parameters but the file (about 25 s in all)."""
    for players, variants in configurations(ROOT / path):
        game = load_game(ROOT / path, players=players, variants=variants)
        try:
            pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
        except Exception as e:     # name the configuration that failed
            raise AssertionError(f"{path}, {players} players, variants {variants}: {e}") from e


def test_loaded_by_name_with_its_parameters():
    game = pyspiel.load_game("rulesrun", {"file": str(ROOT / "games/magic_shop.rules"), "players": 4})
    assert game.num_players() == 4 and game.num_distinct_actions() == 193
    assert game.max_chance_outcomes() == 1000
    assert game.observation_tensor_shape() == [2579]   # with the face_up_bid and bid_made columns
    t = game.get_type()
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    again = pyspiel.load_game(str(game))           # the game's own string names it again
    assert again.num_distinct_actions() == 193
    two = load_game(ROOT / "examples/oh_hell.rules", players=3, variants=("no_hook", "up_and_down"),
                    number_bounds={"bid": (0, 10)})
    assert pyspiel.load_game(str(two)).num_distinct_actions() == two.num_distinct_actions()


def test_a_file_it_cannot_express_is_a_clear_error(tmp_path):
    from tests.support import tiny_header
    path = tmp_path / "t.rules"
    path.write_text(tiny_header(extra="state total: number = 0\n")
                    + "flow:\n    total += 1\n    player 1 chooses n from 0 to total as \"bid\"\n")
    with pytest.raises(BridgeError, match=r"t.rules:\d+:\d+.*'bid'.*cannot bound state 'total'.*number_bounds"):
        load_game(path, players=2)
    assert load_game(path, players=2, number_bounds={"bid": (0, 1)}).num_distinct_actions() == 2
    with pytest.raises(BridgeError, match="needs a rules file"):
        pyspiel.load_game("rulesrun", {"players": 4})


def test_chance_is_one_deal_then_the_game_replays_exactly():
    game = load_game(ROOT / "games/magic_shop.rules", players=3, deals=50)
    s = game.new_initial_state()
    assert s.is_chance_node() and len(s.chance_outcomes()) == 50
    assert s.chance_outcomes()[0] == (0, 1 / 50)
    s.apply_action(7)
    assert s.table().state.seed == 7
    rng = random.Random(1)
    for _ in range(40):
        s.apply_action(rng.choice(s.legal_actions()))
    # texts are the engine's
    ids = s.legal_actions()
    assert sorted(s.action_to_string(a) for a in ids) == sorted(map(str, s.table().state.legal_actions()))
    # serialize / deserialize and clone give the same state, and a clone is independent
    copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, s))[1]
    assert str(copy) == str(s) and copy.table().state == s.table().state
    assert copy.information_state_string(1) == s.information_state_string(1)
    twin = s.clone()
    twin.apply_action(twin.legal_actions()[0])
    assert twin.table().state != s.table().state and len(s.history()) == 41


def test_an_information_state_tensor_is_refused_as_the_game_type_says_like_openspiels_own_games():
    """The type says no information-state tensor: asking for one raises SpielError (as gin_rummy,
    skat or crazy_eights do), from Python and through OpenSpiel's C++ alike — not an empty list."""
    game = load_game(ROOT / "games/magic_shop.rules", players=3)
    assert not game.get_type().provides_information_state_tensor
    s = game.new_initial_state()
    s.apply_action(0)
    for ask in (lambda: s.information_state_tensor(0), lambda: s.information_state_tensor(),
                lambda: pyspiel.State.information_state_tensor(s, 0),
                game.information_state_tensor_shape, game.information_state_tensor_size,
                lambda: pyspiel.Game.information_state_tensor_shape(game)):
        with pytest.raises(pyspiel.SpielError, match="InformationStateTensor unimplemented.*information_state_string"):
            ask()
    assert s.information_state_string(0) and len(s.observation_tensor(0)) == game.observation_tensor_size()


def test_information_state_remembers_what_the_observation_forgets():
    """Two histories that end in the same view for a seat but differ in what it saw on the way have
    the same observation string and different information-state strings."""
    game = load_game(ROOT / "games/magic_shop.rules", players=3)
    s = game.new_initial_state()
    s.apply_action(3)
    seen = {}
    rng = random.Random(2)
    while not s.is_terminal():
        for p in range(3):
            info = s.information_state_string(p)
            obs = s.observation_string(p)
            assert info.startswith(obs + " #")
            seen.setdefault(info, set()).add(len(s.history()))
        s.apply_action(rng.choice(s.legal_actions()))
    # each information state of a seat is one moment of this game (perfect recall: no repeats)
    assert all(len(v) == 1 for v in seen.values())


def test_resampled_states_look_the_same_to_the_seat():
    game = load_game(ROOT / "games/magic_shop.rules", players=4)
    s = game.new_initial_state()
    s.apply_action(11)
    rng = random.Random(3)
    for _ in range(25):
        s.apply_action(rng.choice(s.legal_actions()))
    p = s.current_player()
    r = s.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0., 1.))
    assert r.information_state_string(p) == s.information_state_string(p)
    assert r.observation_tensor(p) == s.observation_tensor(p)
    assert r.legal_actions() == s.legal_actions()
    assert r.table().state.z != s.table().state.z       # the hidden cards were dealt again


def test_openspiel_ismcts_bot_plays_the_magic_shop_to_the_end():
    game = load_game(ROOT / "games/magic_shop.rules", players=3, utility="win")
    rng = np.random.RandomState(4)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, uct_c=2.0, max_simulations=8, random_state=rng)
    s = game.new_initial_state()
    s.apply_action(int(rng.randint(game.max_chance_outcomes())))
    moves = 0
    while not s.is_terminal():
        if s.current_player() == 0:
            a = bot.step(s)
            moves += 1
        else:
            a = int(rng.choice(s.legal_actions()))
        assert a in s.legal_actions()
        s.apply_action(a)
    assert moves > 20
    assert sorted(s.returns()) in ([0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 1.0, 1.0])
    assert s.returns() == [1.0 if p in s.table().state.winners() else 0.0 for p in range(3)]


def test_the_openspiel_bots_example_runs():
    import importlib.util
    spec = importlib.util.spec_from_file_location("openspiel_bots", ROOT / "examples/openspiel_bots.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = io.StringIO()
    with redirect_stdout(out):
        assert mod.main(["--games", "2", "--sims", "3", "--rival", "random", "--players", "3"]) == 0
    text = out.getvalue()
    assert "game 2: OpenSpiel bot in seat 2" in text
    assert "openspiel: won" in text and "of 2 seat-games" in text and "of 4 seat-games" in text


def test_a_rulesrun_subset_choice_is_played_by_its_ids():
    """Gachapon's 'buy' is a subset: a rulesrun agent's choice becomes add..., done ids."""
    from rulesrun.interpreter.bots.agents import make_agent
    game = load_game(ROOT / "games/gachapon.rules", players=3)
    s = game.new_initial_state()
    s.apply_action(9)
    bot = make_agent("random", 1)
    bought = 0
    while not s.is_terminal() and bought < 3:
        engine = s.table().state
        choice = bot.choose(engine)
        ids = s.ids_of(choice)
        if engine.decision_label() == "buy":
            bought += 1
            assert s.action_to_string(ids[-1]) == "buy: done" and len(ids) >= 2
        for a in ids:
            s.apply_action(a)
        assert s.table().state.history()[-1] == str(choice)
    assert bought == 3
