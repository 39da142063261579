"""Aggregates over several 'for's: sum(e for p in players for c in p.hand), and any, all, max, min."""
from __future__ import annotations

import pytest

from rulesrun.dsl import RulesError

from tests.support import tiny_game

DEAL = {"deck": ["Red 1", "Red 2", "Blue 4", "Green 3", "Red 3", "Blue 1"]}


def _said(expr: str, players: int = 2) -> str:
    game = tiny_game(f"""\
        flow:
            shuffle deck
            deal 2 from deck to hand
            announce "{{{expr}}}"
        """, players)
    return game.new_initial_state(seed=1, stack=DEAL).log(everything=True)[-1]


def test_sum_over_every_players_hand():
    # Player 1 holds Red 1, Red 2; Player 2 Blue 4, Green 3
    assert _said("sum(c.rank for p in players for c in p.hand)") == "10"
    assert _said("sum(c.rank for p in players for c in p.hand where c.suit == Red)") == "3"


def test_any_all_max_min_over_two_sources():
    assert _said("any(c.rank == 4 for p in players for c in p.hand)") == "yes"
    assert _said("all(c.rank < 4 for p in players for c in p.hand)") == "no"
    assert _said("max(c.rank for p in players for c in p.hand where c.suit == Red)") == "2"
    assert _said("min(c.rank for p in players for c in p.hand where c.suit != Red)") == "3"


def test_max_skips_an_empty_inner_list_but_not_an_empty_whole():
    # only Player 1 holds a Red card: Player 2's empty inner list is no error
    assert _said("max(c.rank + 0 for p in players for c in p.hand where c.rank <= 2)") == "2"
    with pytest.raises(Exception, match="(?i)empty|no value|nothing"):
        _said("max(c.rank for p in players for c in p.hand where c.rank > 9)")


def test_the_inner_source_reads_the_outer_name():
    assert _said("sum(1 for p in players for c in p.hand where p == player 2)") == "2"


def test_a_function_that_takes_one_for_says_so():
    with pytest.raises(RulesError, match=r"takes one 'for'"):
        _said("unique(c.suit for p in players for c in p.hand)")


@pytest.mark.parametrize("decl,words", [("state count: number = 0", "the aggregate count(...)"),
                                        ("const top = 1", "the builtin top()")])
def test_a_name_taken_by_a_builtin_says_which(decl, words):
    with pytest.raises(RulesError, match=rf"the name '\w+' is taken by {words.replace('(', '[(]').replace(')', '[)]').replace('.', '[.]')}"):
        tiny_game(decl + "\nflow:\n    pass\n")
