"""Indexing: xs[1] the first item, xs[-1] the last, of a list or a zone (in the order a 'for' takes)."""
from __future__ import annotations

import pytest

from rulesrun.dsl import RulesError, RulesRuntimeError

from tests.support import tiny_game


def _said(flow: str):
    game = tiny_game("flow:\n    move every card to pile\n    shuffle pile\n" + flow)
    return game.new_initial_state(seed=1).log(everything=True)[-1]


def test_the_first_and_the_last_of_a_zone_are_its_bottom_and_top():
    assert _said('    announce "{pile[-1] == top(pile)} {pile[1] == bottom(pile)} {pile[-2] != top(pile)}"\n') == "yes yes yes"


def test_a_list_is_indexed_from_one_and_from_the_end():
    assert _said('    announce "{[3, 5, 7][1]} {[3, 5, 7][-1]} {[3, 5, 7][-3]} {item([3, 5, 7], -2)}"\n') == "3 7 3 5"


def test_an_index_reads_in_texts_and_expressions():
    assert _said('    let xs = [c.rank for c in pile where c.rank == 4]\n    announce "{xs[1] + xs[-1]}"\n') == "8"


@pytest.mark.parametrize("index,words", [("4", "item 4 of a list of 3"), ("0", "the first is 1, the last -1"),
                                         ("-4", "item -4 of a list of 3")])
def test_an_index_outside_the_list_is_a_runtime_error_naming_it(index, words):
    with pytest.raises(RulesRuntimeError, match=words):
        _said(f'    announce "{{[3, 5, 7][{index}]}}"\n')


def test_an_index_must_be_a_number():
    with pytest.raises(RulesError):
        _said('    announce "{[3, 5, 7][yes]}"\n')
