"""`rulesrun check --exhaustive`: a small game proved, broken ones refuted with the shortest
counterexample, a game that can go round for ever refuted, and the state budget."""
from __future__ import annotations

import io

from rulesrun.interpreter import load_game
from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.checking.exhaustive import explore, state_key
from rulesrun.interpreter.cli.main import main

TINY = """game "Tiny"
players 2

kind Suit: Red, Blue

cards:
    suit: Suit
    rank: number
    shown as "{suit} {rank}"
    for suit in Suit, rank in 1 to 3

zone deck: facedown
zone hand per player: owner
zone table: public

player state points: number = 0

invariant "points never negative": all(p.points >= 0 for p in players)

flow:
    shuffle deck
    deal 2 from deck to hand
    repeat 2 times:
        for p in players:
            p chooses c from p.hand as "play"
            move c to table
            p.points += c.rank

winners p by highest p.points
"""

ROUND_AND_ROUND = """game "Round"
players 2

cards:
    rank: number
    shown as "{rank}"
    for rank in 1 to 2

zone deck: facedown

flow:
    let going = yes
    while going:
        player 1 chooses going from [yes, no] as "go on?"
"""


def write(tmp_path, text, name):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def run(path, **kw):
    out, err = io.StringIO(), io.StringIO()
    code = run_check(path, players=2, exhaustive=True, out=out, err=err, **kw)
    return code, out.getvalue()


def test_a_small_game_is_proved(tmp_path):
    code, out = run(write(tmp_path, TINY, "tiny.rules"))
    assert code == 0, out
    assert out.startswith("proved: Tiny — tiny.rules, 2 players, the deal of seed 0")
    # 2 cards each, 2 rounds: 1 + 2 + 4 + 2·4 + 2·4·... distinct states; at least every line
    assert "15 distinct states" in out


def test_states_are_deduplicated_by_their_future(tmp_path):
    game = load_game(write(tmp_path, TINY, "tiny.rules"), players=2)
    a = game.new_initial_state(seed=0)
    b = a.clone()
    assert state_key(a) == state_key(b)
    a.apply_action(a.legal_actions()[0])
    assert state_key(a) != state_key(b)
    outcome, _, n, _ = explore(game, 0, 10_000, 1000)
    assert outcome == "proved" and n == 15


def test_a_broken_invariant_is_refuted_with_the_shortest_counterexample(tmp_path):
    # a card of rank 3 makes the points negative; playing one first is the shortest way there
    bad = TINY.replace("p.points += c.rank", "p.points -= c.rank - 2")
    code, out = run(write(tmp_path, bad, "tiny_bad.rules"))
    assert code == 1
    assert 'invariant "points never negative" does not hold' in out
    assert "after 1 decision (the shortest: found breadth first)" in out
    assert "     1. play " in out and "3" in out.split("     1. play ", 1)[1].splitlines()[0]


def test_a_missing_legal_option_is_refuted(tmp_path):
    bad = TINY.replace('p chooses c from p.hand as "play"', 'p chooses c from p.hand where c.rank > 1 as "play"')
    code, out = run(write(tmp_path, bad, "tiny_stuck.rules"))
    assert code == 1
    assert "FAILED: the player to move always has a legal action" in out


def test_a_game_that_can_go_round_for_ever_is_refuted(tmp_path):
    code, out = run(write(tmp_path, ROUND_AND_ROUND, "round.rules"))
    assert code == 1
    assert "FAILED: every game ends within the step bound" in out
    assert "comes back to a state it was in" in out and "go on? yes" in out


def test_the_state_budget_stops_with_a_message(tmp_path):
    code, out = run(write(tmp_path, TINY, "tiny.rules"), max_states=5)
    assert code == 3
    assert out.startswith("not proved:") and "stopped after 5 distinct states" in out and "--max-states" in out


def test_cli_exhaustive_needs_one_player_count(tmp_path, capsys):
    path = write(tmp_path, TINY, "tiny.rules")
    assert main(["check", path, "--exhaustive", "--players", "2"]) == 0
    assert "proved:" in capsys.readouterr().out
    assert main(["check", path, "--exhaustive"]) == 1
    assert "give --players N" in capsys.readouterr().err
