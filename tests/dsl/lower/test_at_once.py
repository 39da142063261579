"""Simultaneous choices, ``for p in players at once: ... then: ...``: every seat chooses without
seeing another's pick, and only then do the picks take effect (dsl.lower.at_once)."""
import pytest

from rulesrun import RulesError

from tests.interpreter.checking.test_check_hidden_picks import ASKED_AGAIN
from tests.support import tiny_game

# Each player lays a card face down at once; then the cards go to the pile, and the log says so.
LAY = """\
player state laid: number = 0
flow:
    shuffle deck
    deal 2 from deck to hand
    for p in players at once:
        p chooses c from p.hand as "lay"
    then:
        move c to pile
        p.laid = c.rank
        announce "{p} lays {c}."
"""


def test_every_seat_chooses_in_seat_order_then_the_picks_take_effect():
    g = tiny_game(LAY, players=3, allow_leaks=False)
    s = g.new_initial_state(seed=1)
    picked = []
    for seat in range(3):
        assert s.current_player() == seat and s.decision_label() == "lay"
        assert s.program.decisions[s.open_decision[1]].at_once[1] == seat
        assert s.at_once is not None
        picked.append(str(s.legal_actions()[1]))
        # nothing has moved yet: the pile is empty and no one has been told anything
        assert s.observation(0)["zones"]["pile"]["count"] == 0 and s.log() == []
        s.apply_action(s.legal_actions()[1])
    assert s.is_terminal() and s.at_once is None
    assert s.log() == [f"Player {i + 1} lays {t[len('lay '):]}." for i, t in enumerate(picked)]
    assert s.observation(0)["zones"]["pile"]["count"] == 3


def test_the_seats_are_asked_in_seat_order_whatever_the_list_and_only_those_listed():
    g = tiny_game(LAY.replace("for p in players at once", "for p in [player 3, player 1] at once"),
                  players=3, allow_leaks=False)
    s = g.new_initial_state(seed=1)
    order = []
    while not s.is_terminal():
        order.append(s.current_player())
        s.apply_action(s.legal_actions()[0])
    assert order == [0, 2]
    assert [line.split()[1] for line in s.log()] == ["1", "3"]


def test_a_block_opened_again_is_another_block():
    g = tiny_game(LAY.replace("    for p in players at once", "    repeat 2 times:\n     for p in players at once")
                  .replace("        p chooses", "         p chooses").replace("    then:", "     then:")
                  .replace("        move c", "         move c").replace("        p.laid", "         p.laid")
                  .replace("        announce", "         announce"), players=2)
    s = g.new_initial_state(seed=1)
    first = s.at_once
    s.apply_action(0)
    assert s.at_once == first
    s.apply_action(0)
    assert s.at_once is not None and s.at_once != first
    again = type(s).from_json(g, s.to_json())
    assert again.at_once == s.at_once and again == s


@pytest.mark.parametrize("line, words", [
    ("move c to pile", "moves a card"),
    ('announce "{p} chose {c}."', "announces"),
    ("p.laid = c.rank", "changes a value"),
    ("reveal c", "reveals"),
])
def test_the_body_only_chooses_what_happens_goes_under_then(line, words):
    body = LAY.replace('        p chooses c from p.hand as "lay"\n',
                       f'        p chooses c from p.hand as "lay"\n        {line}\n')
    with pytest.raises(RulesError) as e:
        tiny_game(body, players=2)
    assert words in e.value.message and "every player chooses without seeing" in e.value.message
    assert "then:" in e.value.hint
    assert e.value.pos.line == 19           # the line in the body, under the choice


def test_a_choice_in_the_body_is_the_seats_own():
    body = LAY.replace("p chooses c from p.hand", "left(p) chooses c from p.hand")
    with pytest.raises(RulesError, match="each player makes their own choices"):
        tiny_game(body, players=2)


def test_a_body_that_chooses_nothing_is_refused():
    body = LAY.replace('        p chooses c from p.hand as "lay"\n', "        let c = top(p.hand)\n")
    with pytest.raises(RulesError, match="nothing is chosen inside"):
        tiny_game(body, players=2)


def test_a_seats_picks_are_its_own_names_and_gone_after_the_block():
    body = LAY + "    announce \"{c}\"\n"
    with pytest.raises(RulesError, match="unknown name 'c'"):
        tiny_game(body, players=2)


def test_choices_that_read_the_seats_own_earlier_pick_and_lets_are_honest():
    body = """\
    flow:
        shuffle deck
        deal 3 from deck to hand
        for p in players at once:
            p chooses c from p.hand as "keep"
            let rest = [x for x in p.hand where x != c]
            p chooses d from rest as "give"
        then:
            move d to left(p).hand
    """
    g = tiny_game(body, players=2, allow_leaks=False)
    s = g.new_initial_state(seed=2)
    kept = s.legal_actions()[0]
    s.apply_action(kept)
    assert s.current_player() == 0 and str(kept)[5:] not in [str(a)[5:] for a in s.legal_actions()]


def test_asking_again_or_not_by_a_pick_is_refused_it_shows_in_whose_turn_it_is():
    with pytest.raises(RulesError, match="depends on 'c', a pick") as e:
        tiny_game(ASKED_AGAIN, players=2, allow_leaks=False)
    assert e.value.pos.line == 18 and "same questions" in e.value.hint
