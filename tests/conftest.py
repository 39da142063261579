import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


# ── `make test-fast`: the tests marked slow are left out (`pytest -m "not slow"`) ──────────────
# New tests mark themselves with @pytest.mark.slow; these older ones are marked here, by file and
# name (a parametrised test by its name without the parameters). A name here that matches no test
# of a collected file is an error, so a renamed test cannot quietly join the fast run.
SLOW = {
    "test_errors.py": ["test_mutated_rules_give_only_rules_errors"],
    "test_check.py": ["test_random_repl_input_keeps_the_game", "test_each_broken_copy_is_caught_with_the_right_message",
                      "test_every_shipped_game_passes_the_check", "test_random_command_lines_get_messages_not_tracebacks",
                      "test_a_shrunk_failure_replays_from_the_printed_command", "test_engine_level_conservation_is_checked",
                      "test_cli_check_exit_codes_and_summary"],
    "test_gachapon_cli.py": ["test_a_human_seat_with_piped_input_sees_the_toys_and_plays_to_the_end",
                             "test_two_players_select_the_variant_by_themselves_and_by_name"],
    "test_repl.py": ["test_piped_input_plays_each_shipped_game_to_the_end", "test_end_to_end_in_a_real_terminal",
                     "test_replay_steps_through_a_record"],
    "test_cli.py": ["test_wheel_ships_the_grammar", "test_human_seat_with_piped_input_plays_to_the_end",
                    "test_same_seed_same_transcript"],
    "test_magi_random.py": ["test_random_games"],
    "test_magic_shop_random.py": ["test_random_games"],
    "test_gachapon_random.py": ["test_random_games"],
    "test_examples.py": ["test_random_games", "test_api_example_script_runs"],
    "test_reference_magic_shop.py": ["test_engine_matches_reference"],
    "test_simulate.py": ["test_the_same_results_with_one_job_or_two"],
    "test_agents.py": ["test_ismcts_beats_random_significantly"],
    "test_equivalence.py": ["test_same_play_as_before"],
    "test_magi_cli.py": ["test_all_bot_catastrophe_game_plays_to_the_end",
                         "test_all_bot_game_without_the_variant_plays_to_the_end",
                         "test_make_play_with_piped_moves_plays_on"],
}


def pytest_collection_modifyitems(config, items):
    found: dict[str, set] = {}
    for item in items:
        file = Path(str(item.fspath)).name
        name = item.originalname if hasattr(item, "originalname") else item.name.split("[")[0]
        found.setdefault(file, set()).add(name)
        if name in SLOW.get(file, ()):
            item.add_marker(pytest.mark.slow)
    stale = [f"{file}::{name}" for file, names in SLOW.items() if file in found
             for name in names if name not in found[file]]
    if stale and not config.getoption("keyword") and not config.getoption("markexpr").replace("not slow", "").strip():
        raise pytest.UsageError("tests/conftest.py marks as slow tests that do not exist: " + ", ".join(stale))
