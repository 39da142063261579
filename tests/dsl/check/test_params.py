"""Game parameters: ``param NAME: type = default [from LOW to HIGH]``, set by
``--param NAME=VALUE`` on every command and by ``load_game(params=...)``, checked against type and
bounds, shown in the opening line, saved in records (dsl/check/params.py, docs/language.md "Parameters")."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.dsl import RulesError, compile_rules, parse_text
from rulesrun.interpreter import load_game
from rulesrun.interpreter.cli.main import main
from rulesrun.interpreter.runtime.engine import GameError, State, load_game_text
from tests.support import ROOT

SETTINGS = """\
game "Settings"
players 2 to 3
kind Pace: slow, fast
param hand_size: number = 3 from 1 to 5
param copies: number = 2 from 1 to 4
param double: yes/no = no
param pace: Pace = slow
const total = hand_size * copies
cards:
    rank: number
    copies x {rank: r} for r in 1 to 5
zone deck: facedown
zone hand per player: owner
state points: number = 0
flow:
    shuffle deck
    deal hand_size from deck to hand
    points = total * 2 if double else total
    repeat (2 if pace == fast else 1) times:
        for p in players:
            p chooses c from p.hand as "play"
            move c to deck
score(p) = points + size(p.hand)
"""


@pytest.fixture
def rules_file(tmp_path) -> str:
    path = tmp_path / "settings.rules"
    path.write_text(SETTINGS, encoding="utf-8")
    return str(path)


def play_out(game, seed=1):
    state = game.new_initial_state(seed=seed)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return state


# ── the language ───────────────────────────────────────────────────────────
def test_defaults_size_the_cards_the_deal_and_the_expressions():
    game = load_game_text(SETTINGS, 2)
    assert game.params == {"hand_size": 3, "copies": 2, "double": False, "pace": "slow"}
    assert len(game.program.card_names) == 10            # 'copies x' with copies = 2
    state = play_out(game)
    assert state.returns() == [6 + 2, 6 + 2]             # points = 3 * 2, two cards left in hand


def test_set_values_change_card_counts_deal_counts_and_branches():
    game = load_game_text(SETTINGS, 2, params={"hand_size": 5, "copies": "4", "double": "yes", "pace": "fast"})
    assert game.params == {"hand_size": 5, "copies": 4, "double": True, "pace": "fast"}
    assert len(game.program.card_names) == 20
    state = play_out(game)
    assert state.returns() == [40 + 3, 40 + 3]           # total 20, doubled; two plays each from 5 cards
    assert [i.name for i in game.program.param_info] == ["hand_size", "copies", "double", "pace"]
    assert (game.program.param_info[0].low, game.program.param_info[0].high) == (1, 5)


def test_a_parameter_reads_like_a_const_and_cannot_be_assigned():
    text = SETTINGS.replace("    shuffle deck\n", "    shuffle deck\n    hand_size = 2\n")
    with pytest.raises(RulesError, match="'hand_size' is a constant and cannot change"):
        load_game_text(text, 2)


def test_a_variant_may_change_a_parameters_default():
    text = SETTINGS + "variant big:\n    param hand_size: number = 5 from 1 to 5\n"
    assert load_game_text(text, 2, ["big"]).params["hand_size"] == 5
    assert load_game_text(text, 2, ["big"], params={"hand_size": 1}).params["hand_size"] == 1


def test_a_variants_when_cannot_read_a_parameter_and_says_why():
    with pytest.raises(RulesError) as e:
        load_game_text(SETTINGS + "variant big when hand_size > 4:\n    const total = 1\n", 2)
    assert "a variant's 'when' cannot read the parameter 'hand_size'" in e.value.message
    assert e.value.pos.line == 24 and "choose the variant by name" in e.value.hint
    with pytest.raises(RulesError, match="unknown name 'hand_sise'"):
        load_game_text(SETTINGS + "variant big when hand_sise > 4:\n    const total = 1\n", 2)


BAD_DECLARATIONS = [
    ("param t: number = 5000 from 100 to 1000", "the default of parameter 't', 5000, is not from 100 to 1000"),
    ("param t: number = 5 from 1 to yes", "a parameter's bound must be a number, but this is a yes/no"),
    ('param t: number = 5 from "a" to 9', "a parameter's bound must be a number, but this is a text"),
    ("param t: number = 5 from 9 to 1", "the bounds of parameter 't' are the wrong way round"),
    ("param t: number = yes", "the default of parameter 't' must be a number, but this is a yes/no"),
    ("param t: yes/no = no from 0 to 1", "only a number parameter has bounds"),
    ("param t: text = \"x\"", "a parameter is a number, yes/no or a kind, not a text"),
    ("param t: Colour = red", "unknown type 'Colour'"),
    ("param t: Pace = red", "unknown name 'red'"),
    ("param t: Pace = none", "parameter 't' needs a value as its default"),
    ("param rank: number = 1", None),                              # fine: 'rank' is a card attribute only
    ("param Pace: number = 1", "the name 'Pace' is already taken"),
    ("param pace: number = 1", "pace is declared twice"),
    ("param t: number = size(deck)", "must be known before the game starts"),
]


@pytest.mark.parametrize("line,message", BAD_DECLARATIONS, ids=[b[0] for b in BAD_DECLARATIONS])
def test_a_bad_declaration_is_a_compile_error_at_its_line(line, message):
    text = SETTINGS.replace("const total", line + "\nconst total", 1)
    if message is None:
        load_game_text(text, 2)
        return
    with pytest.raises(RulesError) as e:
        load_game_text(text, 2)
    assert message in e.value.message
    assert e.value.pos is not None and e.value.pos.line == 8       # the new line, not elsewhere


BAD_VALUES = [
    ({"xyz": 3}, "unknown parameter 'xyz'", "this game's parameters: hand_size, copies, double, pace"),
    ({"hand_sise": 3}, "unknown parameter 'hand_sise'",
     "did you mean 'hand_size'? this game's parameters: hand_size, copies, double, pace"),
    ({"hand_size": "9"}, "parameter 'hand_size' takes a whole number from 1 to 5, not '9'", "its default is 3"),
    ({"hand_size": 0}, "parameter 'hand_size' takes a whole number from 1 to 5, not 0", None),
    ({"hand_size": "three"}, "takes a whole number from 1 to 5, not 'three'", None),
    ({"hand_size": 2.5}, "takes a whole number from 1 to 5, not 2.5", None),
    ({"hand_size": True}, "takes a whole number from 1 to 5, not True", None),
    ({"double": "maybe"}, "parameter 'double' takes yes or no, not 'maybe'", "its default is no"),
    ({"double": 1}, "parameter 'double' takes yes or no, not 1", None),
    ({"pace": "fats"}, "parameter 'pace' takes one of slow, fast, not 'fats'", "did you mean 'fast'?"),
]


@pytest.mark.parametrize("params,message,hint", BAD_VALUES, ids=[str(b[0]) for b in BAD_VALUES])
def test_a_bad_value_is_a_clear_error(params, message, hint):
    with pytest.raises(RulesError) as e:
        load_game_text(SETTINGS, 2, params=params)
    assert message in e.value.message
    if hint:
        assert e.value.hint == hint


def test_values_given_as_text_or_as_values_read_the_same():
    a = compile_rules(parse_text(SETTINGS), 2, params={"hand_size": " 4 ", "double": "True", "pace": "fast"})
    b = compile_rules(parse_text(SETTINGS), 2, params={"hand_size": 4, "double": True, "pace": "fast"})
    assert a.params == b.params == {"hand_size": 4, "copies": 2, "double": True, "pace": "fast"}


def test_a_card_count_may_name_a_const_but_must_be_a_number():
    base = SETTINGS.replace("    copies x {rank: r}", "    extra x {rank: r}")
    assert len(load_game_text(base.replace("const total", "const extra = 3\nconst total"), 2).program.card_names) == 15
    with pytest.raises(RulesError, match="a number of copies must be a number"):
        load_game_text(base.replace("const total", "const extra = yes\nconst total"), 2)
    with pytest.raises(RulesError, match="a number of copies cannot be -1"):
        load_game_text(base.replace("const total", "const extra = 0 - 1\nconst total"), 2)


# ── Python: load_game, states, the opening line ────────────────────────────
def test_load_game_takes_params_and_the_summary_shows_them(rules_file):
    game = load_game(rules_file, players=2, params={"hand_size": 4, "double": "yes"})
    assert game.params["hand_size"] == 4 and game.program.params is game.params
    assert "parameters hand_size=4, copies=2, double=yes, pace=slow" in game.summary()
    assert "params=" in repr(game)
    plain = load_game(ROOT / "games" / "magi.rules")
    assert plain.params == {} and "parameters" not in plain.summary()


def test_a_saved_state_keeps_its_parameters(rules_file):
    game = load_game(rules_file, players=2, params={"hand_size": 4})
    state = game.new_initial_state(seed=3)
    data = json.loads(json.dumps(state.to_json()))
    assert data["params"]["hand_size"] == 4
    assert State.from_json(game, data) == state
    other = load_game(rules_file, players=2)
    with pytest.raises(GameError, match="played with the parameters"):
        State.from_json(other, data)
    assert state != other.new_initial_state(seed=3)


# ── the command line ───────────────────────────────────────────────────────
def test_play_with_param_shows_the_values_in_the_opening_line(rules_file, capsys):
    code = main([rules_file, "--seats", "random,random", "--seed", "1", "--param", "hand_size=4",
                 "--param", "double=yes"])
    out = capsys.readouterr().out
    assert code == 0
    first = out.splitlines()[0]
    assert first.startswith("Settings — 2 players") and "hand_size=4, copies=2, double=yes, pace=slow" in first
    assert "Player 1: 19" in out          # 4 * 2 doubled = 16, three cards left


@pytest.mark.parametrize("command", [[], ["compile"], ["check", "--games", "2"], ["simulate", "--games", "2"],
                                     ["doc"]])
def test_every_command_refuses_a_bad_value_without_a_traceback(rules_file, command, capsys):
    argv = command[:1] + [rules_file] + command[1:] + (["--seats", "random,random"] if not command else [])
    argv += ["--param", "hand_size=50"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "parameter 'hand_size' takes a whole number from 1 to 5, not '50'" in err
    assert "hint: its default is 3" in err and "Traceback" not in err
    assert main(argv[:-1] + ["nope=1"]) == 1
    assert "unknown parameter 'nope'" in capsys.readouterr().err


@pytest.mark.parametrize("command", [[], ["compile"], ["check"], ["simulate", "--games", "2"], ["doc"]])
@pytest.mark.parametrize("flag", ["hand_size", "=3", "hand_size=", "9x=1"])
def test_a_malformed_flag_is_a_usage_error(rules_file, command, flag, capsys):
    with pytest.raises(SystemExit) as e:
        main(command[:1] + [rules_file] + command[1:] + ["--param", flag])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "argument --param: expected NAME=VALUE, such as target=300" in err and "Traceback" not in err


def test_a_bad_declaration_is_a_compile_error_on_the_command_line(tmp_path, capsys):
    path = tmp_path / "bad.rules"
    path.write_text(SETTINGS.replace("= 3 from 1 to 5", "= 7 from 1 to 5"), encoding="utf-8")
    assert main(["compile", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:4:" in err and "the default of parameter 'hand_size', 7, is not from 1 to 5" in err


def test_compile_with_param_summarises_the_values(rules_file, capsys):
    assert main(["compile", rules_file, "--param", "copies=4", "--param", "pace=fast"]) == 0
    out = capsys.readouterr().out
    assert "20 cards" in out and "parameters: hand_size=3, copies=4, double=no, pace=fast" in out


def test_check_with_param_checks_those_values_and_its_replay_repeats_them(rules_file, capsys):
    assert main(["check", rules_file, "--players", "2", "--games", "3", "--param", "copies=3"]) == 0
    err = capsys.readouterr().err
    assert "2 players, copies=3: 3 games" in err
    # 3 players dealt 5 cards each from 5 cards: the check finds it, and says how to replay it
    assert main(["check", rules_file, "--games", "3", "--param", "hand_size=5", "--param", "copies=1"]) == 1
    out = capsys.readouterr().out
    assert "cannot deal 5 cards" in out and "--param hand_size=5 --param copies=1" in out


def test_check_tries_each_parameter_at_its_edges(rules_file, capsys):
    # copies set: hand_size at 1 and 5, double yes, pace fast, each alone, with the first player count
    assert main(["check", rules_file, "--players", "2", "--games", "2", "--param", "copies=3"]) == 0
    err = capsys.readouterr().err
    for words in ("2 players, copies=3: 2 games", "2 players, copies=3, hand_size=1: 2 games",
                  "2 players, copies=3, hand_size=5: 2 games", "2 players, copies=3, double=yes: 2 games",
                  "2 players, copies=3, pace=fast: 2 games"):
        assert words in err, words
    assert "hand_size=3" not in err and "double=no" not in err      # the defaults are not tried again
    # with the defaults alone the file passes; at copies=1 (its lowest) there are 5 cards for two hands of 3
    assert main(["check", rules_file, "--players", "2", "--games", "2"]) == 1
    out = capsys.readouterr().out
    assert "cannot deal" in out and "--param copies=1" in out


def test_check_exhaustive_with_param(rules_file, capsys):
    assert main(["check", rules_file, "--exhaustive", "--players", "2", "--param", "hand_size=1"]) == 0
    assert "2 players, hand_size=1" in capsys.readouterr().out


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_simulate_with_param_in_every_worker(rules_file, tmp_path, jobs, capsys):
    out = tmp_path / "sim.json"
    assert main(["simulate", rules_file, "--games", "4", "--jobs", jobs, "--quiet", "--json", str(out),
                 "--param", "double=yes", "--param", "hand_size=5"]) == 0
    assert "hand_size=5, copies=2, double=yes, pace=slow" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["params"] == {"hand_size": 5, "copies": 2, "double": True, "pace": "slow"}
    assert all(r["returns"] == [24, 24] for r in data["records"])     # 5 * 2 doubled, four cards left


def test_simulate_spec_carries_params_to_the_ray_task(rules_file):
    from rulesrun.interpreter.simulate.pool import play_task
    spec = {"path": rules_file, "text": SETTINGS, "players": 2, "variants": [], "seats": ["random", "random"],
            "seed": 0, "rotate": False, "max_steps": None, "params": {"copies": 1, "hand_size": 1}}
    assert play_task((spec, 0))["returns"] == [1, 1]     # what a ray or pool worker runs, given the spec


def test_doc_lists_the_parameters(rules_file, capsys):
    assert main(["doc", rules_file, "--param", "hand_size=4"]) == 0
    out = capsys.readouterr().out
    assert "## Parameters" in out
    assert "**hand size** (`hand_size`): a whole number from 1 to 5; 3 unless set — 4 in this rulebook." in out
    assert "**pace** (`pace`): one of slow, fast; slow unless set." in out


def test_the_real_command_shows_no_traceback(rules_file):
    exe = Path(sys.executable).parent / "rulesrun"
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "rulesrun.interpreter.cli.main"]
    r = subprocess.run(cmd + [rules_file, "--param", "pace=sideways", "--seats", "random,random"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "parameter 'pace' takes one of slow, fast, not 'sideways'" in r.stderr


# ── records ────────────────────────────────────────────────────────────────
def test_a_record_round_trips_its_parameters(rules_file, tmp_path):
    from rulesrun.interpreter.records.record import make_record, open_record, save_record
    game = load_game(rules_file, players=2, params={"hand_size": 2, "pace": "fast"})
    state = game.new_initial_state(seed=4)
    state.apply_action(state.legal_actions()[0])
    target = tmp_path / "game.yaml"
    save_record(target, make_record(game, state, ["human", "random"]))
    assert "pace: fast" in target.read_text()
    game2, state2, record = open_record(target)
    assert game2.params == game.params and record["params"] == game.params
    assert state2 == state and state2.history() == state.history()


@pytest.mark.parametrize("params,message", [
    ({"hand_size": 9}, "parameter 'hand_size' takes a whole number from 1 to 5, not 9"),
    ({"gone": 1}, "unknown parameter 'gone'"),
    ([1, 2], "'params' is not a mapping of parameter names to values"),
    ({"hand_size": [1]}, "'params' is not a mapping of parameter names to values"),
])
def test_a_record_with_bad_parameters_is_refused_clearly(rules_file, tmp_path, params, message):
    import yaml

    from rulesrun.interpreter.records.record import RecordError, make_record, open_record, save_record
    game = load_game(rules_file, players=2)
    target = tmp_path / "game.yaml"
    record = make_record(game, game.new_initial_state(seed=1), ["random", "random"])
    record["params"] = params
    save_record(target, record)
    assert yaml.safe_load(target.read_text())["params"] == params
    with pytest.raises(RecordError, match=message.replace("(", r"\(")):
        open_record(target)


def test_replay_command_opens_a_record_with_parameters(rules_file, tmp_path, capsys):
    from rulesrun.interpreter.records.record import make_record, save_record
    game = load_game(rules_file, players=2, params={"hand_size": 1})
    state = play_out(game)
    target = tmp_path / "game.yaml"
    save_record(target, make_record(game, state, ["random", "random"]))
    assert main(["replay", str(target), "--to-end"]) == 0
    assert "step 2/2" in capsys.readouterr().out


# ── serve and the bridges ──────────────────────────────────────────────────
def test_serve_takes_param_for_every_table(rules_file, tmp_path):
    pytest.importorskip("starlette", reason="rulesrun serve needs the web extra")
    from rulesrun.interpreter.cli.parsers import serve_parser
    from rulesrun.interpreter.web.command import build_hub
    args = serve_parser().parse_args([rules_file, "--seats", "random,random", "--param", "copies=3", "--seed", "1",
                                "--save-dir", str(tmp_path)])
    hub, table = build_hub(args, "")
    assert table.game.params["copies"] == 3 and hub.config.params["copies"] == 3
    assert table.info()["settings"] == "hand_size=3, copies=3, double=no, pace=slow"
    assert hub.new_table().game.params["copies"] == 3      # a table made from the page plays the same
    assert table.reload() and table.game.params["copies"] == 3
    from rulesrun.interpreter.records.record import open_record
    game, _, _ = open_record(table.save(str(tmp_path)))
    assert game.params["copies"] == 3


def test_serve_refuses_a_bad_value(rules_file, capsys):
    pytest.importorskip("starlette", reason="rulesrun serve needs the web extra")
    assert main(["serve", rules_file, "--param", "copies=9"]) == 1
    err = capsys.readouterr().err
    assert "parameter 'copies' takes a whole number from 1 to 4, not '9'" in err and "Traceback" not in err


def test_openspiel_takes_params(rules_file):
    pytest.importorskip("pyspiel", reason="the OpenSpiel bridge needs the openspiel extra")
    import pyspiel

    from rulesrun.interpreter.bridges.openspiel import load_game as spiel_game
    game = spiel_game(rules_file, players=2, params={"hand_size": 4, "double": True})
    assert game.engine.params["hand_size"] == 4
    assert game.get_parameters()["rules_params"] == "hand_size:4;copies:2;double:yes;pace:slow"
    again = pyspiel.load_game("rulesrun", {"file": rules_file, "players": 2, "rules_params": "copies:1"})
    assert again.engine.params["copies"] == 1
    with pytest.raises(RulesError, match="unknown parameter 'nope'"):
        pyspiel.load_game("rulesrun", {"file": rules_file, "players": 2, "rules_params": "nope:1"})


def test_pettingzoo_and_gymnasium_take_params(rules_file):
    pytest.importorskip("pettingzoo", reason="the PettingZoo bridge needs the pettingzoo extra")
    from rulesrun.interpreter.bridges.gym import RulesGymEnv
    from rulesrun.interpreter.bridges.pettingzoo import env
    assert env(rules_file, players=2, params={"hand_size": 2}).unwrapped.engine.params["hand_size"] == 2
    assert RulesGymEnv(rules_file, players=2, params={"hand_size": 1}).engine.params["hand_size"] == 1
