"""The information-flow check reads every branch of a choice block — each pick's options, each
branch's condition, each move's text — as what the deciding seat sees; a pick of several values
and a tagged block's choice carry their secrets into what follows them."""
from __future__ import annotations

import textwrap

import pytest

from rulesrun.dsl import RulesError, parse_text
from rulesrun.dsl.compiler import compile_rules
from tests.support import tiny_header

HEADER = tiny_header("Leaks", 2, "Red, Blue", 3, zones=("deck: facedown", "pile: public", "hand per player: owner",
                                                      "shown per player: others"))

BLOCK = """
flow:
    shuffle deck
    deal 2 from deck to hand
    deal 2 from deck to shown
    for p in players:
        p chooses:
            c from p.hand as "play":
                move c to pile
            BRANCH
    end game
"""


def compile_with(branch: str):
    text = HEADER + textwrap.dedent(BLOCK).replace("BRANCH", branch)
    return compile_rules(parse_text(text, "leak.rules"), 2, (), False)



@pytest.mark.parametrize("branch", [
    'c from left(p).hand as "steal":\n        move c to p.hand',                          # a second pick's options
    'c from p.hand as "toss" if top(left(p).hand).rank > 2:\n        move c to pile',   # a pick's condition
    '"pass" if top(left(p).hand).rank > 2:\n        pass',                             # a move's condition
    '"peek at {top(left(p).hand)}":\n        pass',                                      # a move's text
    'q, s from players, Suit where any(c.suit == s for c in q.hand) as "ask {q} {s}":\n        pass',  # a pair's where
    '"look at {top(p.shown)}":\n        pass',                            # its own cards held facing out (others)
])
def test_what_a_branch_reads_that_the_deciding_seat_cannot_see_is_a_leak_at_the_decision(branch):
    with pytest.raises(RulesError) as err:
        compile_with(branch.replace("\n", "\n            "))
    assert "this decision's options show" in err.value.message and "which cannot see them" in err.value.message
    assert err.value.pos.line == HEADER.count("\n") + 7      # the line of the block


@pytest.mark.parametrize("branch", [
    'c from p.hand as "toss" if size(left(p).hand) > 0:\n        move c to pile',      # how many cards: seen
    '"show {size(left(p).hand)}":\n        pass',
    'q, s from players, Suit where any(c.suit == s for c in q.shown) and q != p as "hint {q} {s}":\n        pass',
    'q, s from players, Suit where any(c.suit == s for c in p.hand) as "ask {q} {s}" if size(pile) < 9:\n        pass',
    '"look at {top(left(p).shown)}":\n        pass',                     # another's cards held facing out
])
def test_a_branch_reading_only_what_the_deciding_seat_sees_is_no_leak(branch):
    assert compile_with(branch.replace("\n", "\n            ")).decisions


def test_a_pick_of_several_values_carries_its_secret_into_an_announcement():
    with pytest.raises(RulesError) as err:
        compile_with('q, s from players, Suit where any(c.suit == s for c in p.hand) as "ask {q} {s}":\n'
                     '                announce "{p} asks for {s}."')
    assert "this announcement shows" in err.value.message and "each player's hand (owner)" in err.value.message
    compile_with('q, s from players, Suit where any(c.suit == s for c in p.hand) as "ask {q} {s}":\n'
                 '                reveal s\n                announce "{p} asks for {s}."')
