"""`first(x in SOURCE where CONDITION)`: the first item that passes, in the source's order, or none."""
from __future__ import annotations

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter.authoring.rulebook import Rulebook
from rulesrun.interpreter.authoring.rulebook_render import to_markdown

from tests.support import tiny_game


def _log(body, stack=None):
    game = tiny_game(body, allow_leaks=False)
    return game.new_initial_state(seed=1, stack=stack).log(everything=True)


def test_first_is_the_first_passing_item_in_the_zones_order():
    # the order a `for` takes: the cards in the order they came to the pile, the top last
    log = _log("""\
        flow:
            move every card to pile
            shuffle pile
            let seen = [c for c in pile where c.rank > 2]
            announce "{first(c in pile where c.rank > 2)}|{seen}"
        """)
    chosen, listed = log[-1].split("|")
    assert listed.split(", ")[0] == chosen and chosen.split()[1] in ("3", "4")


def test_first_is_none_when_nothing_passes_and_over_players_too():
    log = _log("""\
        flow:
            let c = first(c in every card where c.rank > 9)
            let p = first(p in players where p != player 1)
            announce "{c == none} {p}"
        """)
    assert log[-1] == "yes Player 2"


def test_first_of_a_hidden_hand_is_secret_to_the_other_seats():
    with pytest.raises(RulesError, match="(?i)leak|reveal|hidden|sees"):
        tiny_game("""\
            flow:
                shuffle deck
                deal 2 from deck to hand
                announce "{first(c in (player 1).hand where c.rank > 1)}"
            """, allow_leaks=False)


def test_a_name_first_of_ones_own_is_still_a_name():
    log = _log("""\
        state first: number = 0
        flow:
            first = 1
            announce "{first} {first(c in every card where c.rank == first)}"
        """)
    assert log[-1] == "1 Red 1"


def test_first_without_a_condition_is_a_message():
    with pytest.raises(RulesError, match=r"first\(\.\.\.\) picks an item by a condition"):
        tiny_game("flow:\n    announce \"{first(c.rank for c in pile where c.rank > 1)}\"\n")


def test_the_rulebook_says_first_in_words(tmp_path):
    from tests.support import TINY
    path = tmp_path / "t.rules"
    path.write_text(TINY + "flow:\n    let c = first(c in pile where c.rank > 2)\n    announce \"{c}\"\n")
    md = to_markdown(Rulebook(str(path), players=2).blocks)
    assert "the first c in the pile where c’s rank is more than 2 (none if there is none)" in md
