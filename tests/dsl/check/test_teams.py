"""Partnerships (docs/language.md 2.14): teams, team state, p.team, partner(), members(), teams,
'winners team', and how teams show at the table, in simulate, in saves and in the leak check."""
from __future__ import annotations

import io
import json
import random

import pytest
import yaml

from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.interpreter import State, load_game, load_game_text
from rulesrun.interpreter.records.record import open_record
from rulesrun.interpreter.terminal.repl import Repl
from tests.support import feed

# One card each; the highest card wins for its team and scores its rank for the team.
DUO = '''\
game "Duo"
players 4 to 6
kind Suit: red, blue
cards:
    suit: Suit
    rank: number
    for suit in Suit, rank in 1 to 6
zone deck: facedown
zone hand per player: owner
zone table: public
teams North_South shown as "North-South", East_West shown as "East-West"
team state points: number = 0
team state tricks: number = 0
player state played: card = none

flow:
    shuffle deck
    deal 1 from deck to hand
    for p in players:
        p chooses c from p.hand as "play"
        move c to table
        p.played = c
    let w = highest p in players by p.played.rank
    w.team.tricks += 1
    w.team.points += w.played.rank
    North_South.points += 0
    announce "{w} wins for {w.team}: partner {partner(w)}, team {members(w.team)}."

score(p) = p.team.points
winners team t by highest t.points
'''
#  11 teams ...   12 team state points   27 announce ...

# Teams formed during play: Player 1 picks a partner, then which team scores.
PICK = '''\
game "Pick"
players 4
cards:
    rank: number
    for rank in 1 to 4
zone deck: facedown
teams 2
team state points: number = 0
state named: team = none

flow:
    shuffle deck
    player 1 chooses q from players where q != player 1 as "partner"
    for p in players:
        p.team = item(teams, 1) if p == player 1 or p == q else item(teams, 2)
    player 1 chooses t from teams as "score for"
    t.points += 5
    named = t
    announce "{partner(player 1)} partners Player 1; {members(item(teams, 2))} oppose; {t} scores."

winners team t by highest t.points
'''


def play(game, actions, seed=1, stack=None):
    state = game.new_initial_state(seed=seed, stack=stack)
    for a in actions:
        state.apply_action(a)
    return state


def error_of(text, players=4) -> RulesError:
    with pytest.raises(RulesError) as info:
        load_game_text(text, players=players, path="t.rules")
    return info.value


# ── seats, team state, partner, members, winners ─────────────────────────────
def test_seats_alternate_round_the_table():
    four = load_game_text(DUO, players=4).new_initial_state(seed=1)
    assert [four.var("team", p) for p in range(4)] == [0, 1, 0, 1]
    six = load_game_text(DUO.replace("teams North_South shown as \"North-South\", East_West shown as \"East-West\"",
                                     "teams 3").replace("North_South.points += 0", "pass")
                         .replace("partner {partner(w)}, ", ""), players=6).new_initial_state(seed=1)
    assert [six.var("team", p) for p in range(6)] == [0, 1, 2, 0, 1, 2]
    assert six.observation(0)["players"][4]["team"] == "Team 2"


def test_team_state_partner_and_members_in_play():
    game = load_game_text(DUO, players=4)
    state = play(game, ["play blue 1", "play red 6", "play blue 3", "play red 2"],
                 stack={"deck": ["blue 1", "red 6", "blue 3", "red 2"]})
    assert state.is_terminal()
    assert state.log() == ["Player 2 wins for East-West: partner Player 4, team Player 2, Player 4."]
    assert state.var("points of East-West") == 6 and state.var("tricks of East-West") == 1
    assert state.var("points of North-South") == 0
    assert state.winners() == [1, 3]
    assert state.returns() == [0, 6, 0, 6]          # score(p) = p.team.points: each seat its team's


def test_winners_by_team_without_a_score_give_each_seat_its_teams_result():
    game = load_game_text(PICK, players=4)
    state = play(game, ["partner Player 3", "score for Team 2"])
    assert [state.var("team", p) for p in range(4)] == [0, 1, 0, 1]
    assert state.log() == ["Player 3 partners Player 1; Player 2, Player 4 oppose; Team 2 scores."]
    assert state.winners() == [1, 3] and state.returns() == [0, 1, 0, 1]
    assert state.var("named") == 1


def test_teams_formed_at_run_time():
    game = load_game_text(PICK, players=4)
    state = game.new_initial_state(seed=1)
    assert [str(a) for a in state.legal_actions()] == ["partner Player 2", "partner Player 3", "partner Player 4"]
    state.apply_action("partner Player 2")
    assert [state.var("team", p) for p in range(4)] == [0, 0, 1, 1]
    assert [str(a) for a in state.legal_actions()] == ["score for Team 1", "score for Team 2"]
    state.apply_action("score for Team 1")
    assert state.log() == ["Player 2 partners Player 1; Player 3, Player 4 oppose; Team 1 scores."]
    assert state.winners() == [0, 1] and state.returns() == [1, 1, 0, 0]


def test_ties_between_teams_share_and_then_breaks_them():
    text = PICK.replace("    t.points += 5\n", "")
    state = play(load_game_text(text, players=4), ["partner Player 3", "score for Team 2"])
    assert state.winners() == [0, 1, 2, 3]
    text = text.replace("winners team t by highest t.points",
                        "winners team t by highest t.points then lowest size(members(t)) + (1 if t == named else 0)")
    state = play(load_game_text(text, players=4), ["partner Player 3", "score for Team 2"])
    assert state.winners() == [0, 2]


def test_partner_of_a_team_of_three_is_a_runtime_error_naming_the_line():
    game = load_game_text(DUO, players=6)
    state = game.new_initial_state(seed=3)
    with pytest.raises(RulesRuntimeError) as info:
        for _ in range(5):
            state.apply_action(state.legal_actions()[0])
        state.apply_action(state.legal_actions()[0])
    assert "has 3 members, and a partner needs a team of exactly 2" in info.value.message
    assert info.value.pos.line == 27


def test_a_define_named_partner_is_fine_without_teams_and_taken_with_them():
    text = PICK.replace("teams 2\nteam state points: number = 0\nstate named: team = none\n", "")
    text = text.split("flow:")[0] + """define partner(p) = player_at(p, 2)
flow:
    announce "{partner(player 1)}"
"""
    state = load_game_text(text, players=4).new_initial_state(seed=1)
    assert state.is_terminal() and state.log() == ["Player 3"]
    err = error_of(DUO + "define partner(p) = p\n")
    assert "the name 'partner' is taken by the team builtin partner()" in err.message and err.pos.line == 31


# ── compile errors: message and position ─────────────────────────────────────
TEAMS_LINE = 'teams North_South shown as "North-South", East_West shown as "East-West"'


@pytest.mark.parametrize("old, new, players, message, line, col", [
    (None, None, 5, "2 teams cannot share 5 players equally", 11, 1),
    (TEAMS_LINE, "teams 1", 4, "at least 2 teams, not 1", 11, 1),
    (TEAMS_LINE, "teams 3", 2, "", 0, 0),       # replaced below: 2 players are fewer than DUO allows
    (TEAMS_LINE, "teams North_South, North_South", 4, "team 'North_South' is declared twice", 11, 20),
    (TEAMS_LINE, "teams table, East_West", 4, "the name 'table' is already taken", 11, 7),
    (TEAMS_LINE, 'teams A shown as "X", B shown as "X"', 4, "two teams read 'X'", 11, 23),
    ("team state tricks: number = 0", "team state tricks: number = 0, hidden", 4,
     "team state is public", 13, 1),
    ("team state tricks: number = 0", "team state points: number = 1", 4,
     "points is declared twice (first at line 12)", 13, 1),
    ("player state played: card = none", "player state team: number = 0", 4,
     "'team' is each player's team already", 14, 1),
    ("w.team.points += w.played.rank", "w.team.score += 1", 4, "teams have no 'score'", 25, 12),
    ("w.team.points += w.played.rank", "w.team = 3", 4, "the new value of 'team' must be a team", 25, 14),
    ("winners team t by highest t.points", "winners team t by highest t", 4, "a winners order must be a number", 30, 27),
])
def test_team_errors(old, new, players, message, line, col):
    text = DUO if old is None else DUO.replace(old, new)
    if new == "teams 3":
        text, message, line, col = text.replace("players 4 to 6", "players 2 to 6"), "3 teams need at least 3 players", 11, 1
    err = error_of(text, players)
    assert message in err.message, err.message
    assert (err.pos.line, err.pos.column) == (line, col), err.pos
    assert "Traceback" not in err.render()


NO_TEAMS = DUO.replace(TEAMS_LINE + "\n", "").replace("team state points: number = 0\nteam state tricks: number = 0\n", "")


@pytest.mark.parametrize("text, message, line", [
    (DUO.replace(TEAMS_LINE + "\n", ""), "team state needs teams, and this game declares none", 11),
    (NO_TEAMS.split("flow:")[0] + "state t: team = none\nflow:\n    pass\n", "the type 'team' needs teams", 13),
    (NO_TEAMS.split("flow:")[0] + "flow:\n    for t in teams:\n        pass\n", "'teams' means every team", 14),
    (NO_TEAMS.split("flow:")[0] + "flow:\n    announce \"{partner(player 1)}\"\n", "partner() needs teams", 14),
    (NO_TEAMS.split("flow:")[0] + "flow:\n    pass\nwinners team t by highest 1\n", "'winners team' needs teams", 15),
])
def test_teams_needed(text, message, line):
    err = error_of(text)
    assert message in err.message and err.pos.line == line, (err.message, err.pos)
    assert err.hint and "teams 2" in err.hint


def test_team_state_set_from_a_hand_is_a_leak():
    text = DUO.replace("    w.team.tricks += 1\n", "    w.team.tricks = top(w.hand).rank if size(w.hand) > 0 else 0\n")
    err = error_of(text)
    assert "team state 'tricks' is set from the cards of each player's hand (owner)" in err.message
    assert err.pos.line == 24


# ── the state: save, clone, JSON, observation ────────────────────────────────
def test_team_state_is_part_of_the_state():
    game = load_game_text(PICK, players=4)
    state = play(game, ["partner Player 4"])
    twin = state.clone()
    twin.apply_action("score for Team 1")
    assert twin.var("points of Team 1") == 5 and state.var("points of Team 1") == 0
    assert state.var("team", 3) == 0 and twin != state
    data = json.loads(json.dumps(state.to_json()))
    back = State.from_json(game, data)
    assert back == state and [back.var("team", p) for p in range(4)] == [0, 1, 1, 0]
    back.apply_action("score for Team 1")
    assert back == twin and back.to_json() == twin.to_json()
    done = State.from_json(game, twin.to_json())
    assert done.var("points of Team 1") == 5 and done.winners() == [0, 3]


def test_the_observation_shows_teams_by_name():
    game = load_game_text(DUO, players=4)
    state = play(game, ["play blue 1"], stack={"deck": ["blue 1", "red 6", "blue 3", "red 2"]})
    obs = state.observation(1)
    assert obs["teams"] == [{"name": "North-South", "members": ["Player 1", "Player 3"], "points": 0, "tricks": 0},
                            {"name": "East-West", "members": ["Player 2", "Player 4"], "points": 0, "tricks": 0}]
    assert [p["team"] for p in obs["players"]] == ["North-South", "East-West"] * 2
    assert obs["state"] == {}          # team values are in the teams block, not with the game's state
    no_teams = NO_TEAMS.split("flow:")[0] + "flow:\n    shuffle deck\n    deal 1 from deck to hand\n"
    state = load_game_text(no_teams, players=4).new_initial_state(seed=1)
    assert "teams" not in state.observation(0) and "team" not in state.observation(0)["players"][0]


def run_repl(game, seats, seed, lines):
    """Duo's every decision has one option (a hand of one card): ask it (--ask-always), so the table
    with its teams is shown."""
    out = io.StringIO()
    repl = Repl(game, game.new_initial_state(seed=seed), seats, seed, out=out, readline=feed(lines),
                ask_always=True)
    repl.run()
    return repl, out.getvalue()


def test_the_repl_shows_the_teams_and_the_winning_team(tmp_path):
    (tmp_path / "duo.rules").write_text(DUO, encoding="utf-8")
    game = load_game(tmp_path / "duo.rules", players=4)
    target = tmp_path / "duo.yaml"
    repl, text = run_repl(game, ["human", "random", "random", "random"], 5, [f"save {target}", "1"])
    assert "North-South Player 1, Player 3 · points: 0 · tricks: 0" in text
    assert "East-West   Player 2, Player 4 · points: 0 · tricks: 0" in text
    assert "Teams:" in text and ("North-South wins." in text or "East-West wins." in text)
    won = "North-South" if repl.state.winners() == [0, 2] else "East-West"
    assert f"{won} wins." in text
    # the save made at the first prompt resumes exactly
    record = yaml.safe_load(target.read_text())
    assert record["players"] == 4
    _, state, _ = open_record(target)
    assert state == game.new_initial_state(seed=5)


def test_simulate_reports_wins_per_team(capsys, tmp_path):
    from rulesrun.interpreter.cli.main import main
    path = tmp_path / "duo.rules"
    path.write_text(DUO, encoding="utf-8")
    out = tmp_path / "sim.json"
    main(["simulate", str(path), "--players", "4", "--games", "12", "--jobs", "1", "-q", "--json", str(out)])
    text = capsys.readouterr().out
    assert "Wins per team" in text
    assert "North-South │ Player 1, Player 3" in text and "East-West   │ Player 2, Player 4" in text
    summary = json.loads(out.read_text())["summary"]
    teams = {t["team"]: t for t in summary["teams"]}
    assert teams["North-South"]["wins"] + teams["East-West"]["wins"] == 12
    assert teams["North-South"]["wins"] == summary["seats"][0]["wins"] == summary["seats"][2]["wins"]
    assert teams["North-South"]["seats"] == [1, 3]


def test_random_games_with_teams_replay_and_round_trip():
    game = load_game_text(PICK, players=4)
    for seed in range(5):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            assert State.from_json(game, json.loads(json.dumps(state.to_json()))) == state
        assert game.replay(seed, state.history()) == state
        assert len(state.winners()) == 2 and sum(state.returns()) == 2


def test_rulesrun_check_passes_on_the_partnership_games(tmp_path, capsys):
    """The property tests (leaks, resampling, clones, JSON, replays) hold with team state and p.team."""
    from rulesrun.interpreter.cli.main import main
    from tests.docs.test_docs import _files
    for name, text in (("partners.rules", _files()["partners.rules"]), ("pick.rules", PICK)):
        (tmp_path / name).write_text(text, encoding="utf-8")
        code = main(["check", str(tmp_path / name), "--players", "4", "--games", "8", "--no-coverage"])
        out = capsys.readouterr().out
        assert code == 0 and "properties hold" in out and "FAILED" not in out, out


def test_the_bridges_give_team_choices_ids_and_show_teams_in_the_tensor():
    pytest.importorskip("numpy", reason="the bridges' tensors need numpy (pip install 'rulesrun[gym]')")
    from rulesrun.interpreter.bridges import ActionSpace, Encoder, Table
    game = load_game_text(PICK, players=4)
    space = ActionSpace(game)
    table = Table(space, game.new_initial_state(seed=1))
    table.apply_id(next(i for i in table.legal_ids() if space.text(i) == "partner Player 3"))
    assert sorted(space.text(i) for i in table.legal_ids()) == ["score for Team 1", "score for Team 2"]
    enc = Encoder(space)
    players = enc.split(enc.tensor(table, 1))["players"]
    # seen from Player 2: rows by seat from Player 2 on, one column per team (and none for 'points')
    assert players.tolist() == [[0, 1], [1, 0], [0, 1], [1, 0]]
    table.apply_id(next(i for i in table.legal_ids() if space.text(i) == "score for Team 2"))
    assert table.is_terminal() and table.state.winners() == [1, 3]


def test_the_web_frame_carries_the_teams():
    from rulesrun.interpreter.web.views import Display, frame
    game = load_game_text(DUO, players=4)
    state = game.new_initial_state(seed=2)
    for seat in (None, 1):
        view = frame(state, seat, Display(game), {})
        assert [t["name"] for t in view["teams"]] == ["North-South", "East-West"]
        assert view["teams"][1]["members"] == ["Player 2", "Player 4"] and view["teams"][1]["points"] == 0
        assert view["state"] == {}


CALL = '''\
game "Call"
players 4
cards:
    rank: number
    for rank in 1 to 4
zone deck: facedown
teams North_South, East_West shown as "East-West"
team state points: number = 0
flow:
    player 2 chooses:
        t from teams as "back":
            t.points += 2
        "pass":
            pass
    player 3.team = none
    announce "{members(North_South)}, {player 3.team}"
    announce "{partner(player 3)}"
winners team t by highest t.points
'''


def test_a_choice_block_picks_a_team_and_a_player_may_have_no_team():
    game = load_game_text(CALL, players=4)
    state = game.new_initial_state(seed=1)
    assert [str(a) for a in state.legal_actions()] == ["back North_South", "back East-West", "pass"]
    with pytest.raises(RulesRuntimeError) as info:
        state.apply_action("back East-West")
    assert "partner() of Player 3, who is in no team" in info.value.message and info.value.pos.line == 17
    game2 = load_game_text(CALL.replace('    announce "{partner(player 3)}"\n', ""), players=4)
    state = game2.new_initial_state(seed=1)
    state.apply_action("back North_South")
    assert state.log() == ["Player 1, no team"]
    assert state.winners() == [0] and state.returns() == [1, 0, 0, 0]   # Player 3 left North_South
    assert state.observation(0)["players"][2]["team"] is None


def test_a_team_shown_as_braces_is_an_error():
    err = error_of(DUO.replace('shown as "North-South"', 'shown as "{x}"'))
    assert "cannot be shown as a value's name" in err.message and err.pos.line == 11


def test_a_game_saved_after_teams_were_formed_resumes_with_them(tmp_path):
    (tmp_path / "pick.rules").write_text(PICK, encoding="utf-8")
    game = load_game(tmp_path / "pick.rules", players=4)
    target = tmp_path / "pick.yaml"
    repl, text = run_repl(game, ["human", "random", "random", "random"], 3, ["partner Player 2", f"save {target}"])
    assert f"Saved to {target}" in text
    assert "Team 1  Player 1, Player 2 · points: 0" in text and "Team 2  Player 3, Player 4" in text
    _, state, _ = open_record(target)
    assert state == repl.state and [state.var("team", p) for p in range(4)] == [0, 0, 1, 1]
    state.apply_action("score for Team 2")
    assert state.winners() == [2, 3]


def test_opponents_and_the_other_team():
    text = DUO.replace('    announce "{w} wins for {w.team}: partner {partner(w)}, team {members(w.team)}."',
                       '    announce "{w}: against {opponents(w)}; {other_team(w.team)} lose; {other_team(North_South)}."')
    game = load_game_text(text, players=4)
    state = play(game, ["play blue 1", "play red 6", "play blue 3", "play red 2"],
                 stack={"deck": ["blue 1", "red 6", "blue 3", "red 2"]})
    assert state.log() == ["Player 2: against Player 1, Player 3; North-South lose; East-West."]


def test_other_team_needs_a_game_of_two_teams():
    text = PICK.replace("teams 2", "teams 3").replace("players 4", "players 6")
    text = text.replace("flow:\n", "flow:\n    announce \"{other_team(item(teams, 1))}\"\n", 1)
    with pytest.raises(RulesError, match=r"other_team\(\) is for a game of two teams, and this one has 3"):
        load_game_text(text, players=6)
