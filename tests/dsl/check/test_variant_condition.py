"""`variant NAME` as a condition: a variant that changes one step of a procedure."""
from __future__ import annotations

import textwrap

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter import load_game_text
from tests.support import TINY as HEADER

BODY = textwrap.dedent("""
    state t: number = 0
    flow:
        if variant double and players == 2:
            t = 2
        else:
            t = 1
        player 1 chooses x from [1] as "done"
    variant double:
        const unused = 0
""")


def test_a_variant_changes_one_branch():
    plain = load_game_text(HEADER + BODY, 2, path="t.rules").new_initial_state(seed=1)
    double = load_game_text(HEADER + BODY, 2, ("double",), path="t.rules").new_initial_state(seed=1)
    assert (plain.var("t"), double.var("t")) == (1, 2)


def test_an_unknown_variant_and_a_when_that_asks_for_variants_are_errors():
    with pytest.raises(RulesError) as err:
        load_game_text(HEADER + BODY.replace("variant double and", "variant dubble and"), 2, path="t.rules")
    assert "unknown variant 'dubble'" in err.value.message and "double" in err.value.hint
    assert err.value.pos.line == HEADER.count("\n") + 4
    with pytest.raises(RulesError) as err:
        load_game_text(HEADER + BODY + "variant triple when variant double:\n    const more = 1\n", 2, path="t.rules")
    assert "cannot ask which variants are chosen" in err.value.message


def test_a_variant_on_a_line_of_its_own_is_declared_with_no_declarations():
    body = BODY.replace("    variant double:\n        const unused = 0\n", "").replace(
        "variant double:\n    const unused = 0\n", "variant double\n")
    assert "variant double\n" in body
    plain = load_game_text(HEADER + body, 2, path="t.rules").new_initial_state(seed=1)
    double = load_game_text(HEADER + body, 2, ("double",), path="t.rules").new_initial_state(seed=1)
    assert (plain.var("t"), double.var("t")) == (1, 2)
    with pytest.raises(RulesError) as err:
        load_game_text(HEADER + body.replace("if variant double and", "if variant dubble and"), 2, path="t.rules")
    assert "unknown variant 'dubble'" in err.value.message
