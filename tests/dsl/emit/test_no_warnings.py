"""No warning of Python's reaches a user from the code the compiler generates: every shipped file
compiles with warnings as errors, and so does a none-check the passes have worked out already."""
from __future__ import annotations

import warnings

import pytest

from rulesrun import load_game, load_game_text
from rulesrun.dsl import RulesError, RulesRuntimeError, parse_file
from rulesrun.dsl.syntax.ast import PlayersDecl

from tests.support import RULES_FILES, ROOT

FOLDED = """\
game "W"
players 2
cards:
    n: number
    {n: k} for k in 1 to 6
zone deck: facedown
zone table: public
flow:
    move (highest x in every card by x.n) to table
    move (lowest x in every card where x.n > 7 by x.n) to table
"""


def test_a_move_of_a_card_worked_out_before_the_game_compiles_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        game = load_game_text(FOLDED, 2, path="folded.rules")
        with pytest.raises(RulesRuntimeError, match="there is no card to move"):
            game.new_initial_state(seed=1)       # the second move: no card has a rank above 7


@pytest.mark.parametrize("path", RULES_FILES)
def test_every_shipped_file_compiles_with_warnings_as_errors(path):
    decl = next(i for i in parse_file(ROOT / path).items if isinstance(i, PlayersDecl))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for n in range(decl.low, decl.high + 1):
            game = load_game(ROOT / path, players=n)
            for v in game.program.available_variants:
                try:
                    load_game(ROOT / path, players=n, variants=[v])
                except RulesError as e:      # a variant for another player count (Gachapon's two_player)
                    assert " is for " in e.message, e
                    continue
