"""Chance values: `let x = random from SOURCE` — seeded, recorded, replayed,
stackable in tests, and errors for what cannot be picked."""
from __future__ import annotations


import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter import GameError
from rulesrun.interpreter.runtime.engine import RulesRuntimeError
from tests.dsl.test_language import make
from tests.support import TINY as HEADER, tiny_game

BODY = """
state dealer: player
state tricks: number = 0
state colour: Suit = Red
flow:
    let d = random from players
    dealer = d
    tricks = random from 1 to 13
    colour = random from Suit
    announce "{dealer} deals; {tricks} tricks; {colour}."
    dealer chooses x from [1, 2] as "ok"
    let c = random from pile
    end game
"""


def test_a_chance_value_is_seeded_recorded_and_replayed():
    g = make(BODY, players=4)
    seen = set()
    for seed in range(12):
        s = g.new_initial_state(seed=seed)
        d, n, col = s.var("dealer"), s.var("tricks"), s.var("colour")
        assert 0 <= d < 4 and 1 <= n <= 13 and col in ("Red", "Green", "Blue")
        assert s.current_player() == d           # the dealer chosen at random chooses
        assert s.events()[:3] == [("random", f"Player {d + 1}"), ("random", str(n)), ("random", col)]
        assert s.history() == []                 # chance is not a decision
        again = g.replay(seed, s.history())
        assert again == s and again.log() == s.log()
        seen.add((d, n, col))
    assert len(seen) > 6                         # it really varies with the seed


def test_a_test_can_stack_the_chance_values_by_their_texts():
    g = make(BODY, players=4)
    s = g.new_initial_state(seed=1, stack={"random": ["Player 3", "7", "Blue"]})
    assert s.log() == ["Player 3 deals; 7 tricks; Blue."] and s.current_player() == 2
    with pytest.raises(RulesRuntimeError, match="the stacked random value 'Player 9' is not one of the options"):
        g.new_initial_state(seed=1, stack={"random": ["Player 9"]})
    with pytest.raises(GameError, match="stack 'random' with a list of the texts"):
        g.new_initial_state(seed=1, stack={"random": "Player 3"})


def test_stacking_keeps_later_chance_as_it_was():
    """The generator moves on whether or not a value is stacked: what follows is drawn alike."""
    body = BODY.replace("    let c = random from pile\n", "    shuffle deck\n")
    g = make(body, players=4)
    plain = g.new_initial_state(seed=5)
    first = plain.events()[0][1]
    stacked = g.new_initial_state(seed=5, stack={"random": [first]})
    for s in (plain, stacked):
        s.apply_action("ok 1")
    assert plain.events()[-1] == stacked.events()[-1]        # the same shuffle after


def test_picking_from_nothing_is_a_runtime_error_naming_the_line():
    s = make(BODY, players=2).new_initial_state(seed=1)
    with pytest.raises(RulesRuntimeError) as err:
        s.apply_action("ok 1")
    assert "nothing to pick at random from" in str(err.value)
    assert err.value.pos.line == HEADER.count("\n") + 12


@pytest.mark.parametrize("line, message", [
    ("    tricks += random from 1 to 3", "'+= random from ...' is not allowed"),
    ("    let hands = random from [[1], [2]]", "picks one value; this gives a list of number"),
    ("    let z = 1 + random from 1 to 3", "expected"),
])
def test_random_errors(line, message):
    with pytest.raises(RulesError) as err:
        make(BODY.replace("    let c = random from pile", line), players=2)
    assert message in err.value.message


def test_a_card_picked_at_random_from_a_hand_is_secret_to_the_leak_check():
    body = """
        flow:
            shuffle deck
            deal 2 from deck to hand
            let c = random from player 1.hand
            announce "Player 1 is dealt {c}."
            end game
    """
    with pytest.raises(RulesError) as err:
        tiny_game(body, header=HEADER, allow_leaks=False)
    assert "hand" in err.value.message and "cannot see" in err.value.message
