"""Large but legal rules files, and text that could drive a terminal:
a rules error naming the line, never a traceback."""
from __future__ import annotations

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter import load_game
from tests.support import TINY as HEADER, tiny_game

LINES = HEADER.count("\n")


def compile_body(body: str):
    return tiny_game(body, header=HEADER, allow_leaks=False)


def test_a_long_chain_of_elifs_and_a_long_sum_compile():
    elifs = "state t: number = 0\nflow:\n    if t == 0:\n        t = 1\n" + "".join(
        f"    elif t == {i}:\n        t = {i}\n" for i in range(1, 2000))
    assert compile_body(elifs).new_initial_state(seed=1).var("t") == 1
    total = "state t: number = 0\nflow:\n    t = " + " + ".join(["1"] * 5000) + "\n"
    assert compile_body(total).new_initial_state(seed=1).var("t") == 5000


def test_rules_nested_past_what_can_be_compiled_are_a_rules_error_at_the_place():
    total = "state t: number = 0\nflow:\n    t = " + " + ".join(["1"] * 40000) + "\n"
    with pytest.raises(RulesError) as err:
        compile_body(total)
    assert "nest too deeply" in err.value.message and err.value.pos.line == LINES + 3
    elifs = "state t: number = 0\nflow:\n    if t == 0:\n        t = 1\n" + "".join(
        f"    elif t == {i}:\n        t = {i}\n" for i in range(1, 9000))
    with pytest.raises(RulesError) as err:
        compile_body(elifs)
    assert err.value.pos.line == LINES + 3 and err.value.pos.column == 5


def test_many_chained_procedures_and_a_huge_literal():
    procs = "".join(f"procedure p{i}():\n    p{i + 1}()\n" for i in range(240))
    g = compile_body(procs + 'procedure p240():\n    player 1 chooses x from [1] as "done"\nflow:\n    p0()\n')
    assert g.new_initial_state(seed=1).legal_actions() == ["done 1"]
    with pytest.raises(RulesError) as err:
        compile_body("state t: number = 0\nflow:\n    t = " + "9" * 5000 + "\n")
    assert err.value.pos.line == LINES + 3


@pytest.mark.parametrize("char", ["\x1b", "\x07", "\x7f", "\x9b", "\u202e", "\u2066", "\r"])
def test_control_characters_in_a_rules_file_are_an_error(char):
    with pytest.raises(RulesError) as err:
        compile_body(f'flow:\n    announce "look {char}here"\n')
    e = err.value
    assert "unexpected character U+" in e.message and "control characters" in e.hint and "does not show" in e.hint
    assert (e.pos.line, e.pos.column) == (LINES + 2, 20)
    assert char not in str(e)          # the line shown has it replaced


def test_a_byte_order_mark_and_windows_line_ends_are_accepted(tmp_path):
    f = tmp_path / "bom.rules"
    f.write_bytes(("\ufeff" + HEADER + 'flow:\n    player 1 chooses x from [1] as "done"\n').replace("\n", "\r\n")
                  .encode("utf-8"))
    assert load_game(f, players=2).new_initial_state(seed=1).legal_actions() == ["done 1"]


# ── one budget for every loop ────────────────────────────────────────────────
def _runtime_error(body: str):
    from rulesrun.dsl import RulesRuntimeError
    with pytest.raises(RulesRuntimeError) as err:
        compile_body(body).new_initial_state(seed=1)
    return err.value


def test_a_huge_repeat_and_nested_loops_spend_the_budget_with_the_same_message():
    e = _runtime_error("state t: number = 0\nflow:\n    repeat 3000000 times:\n        t += 1\n")
    assert "loops too long" in e.message and e.pos.line == LINES + 3
    e = _runtime_error("state t: number = 0\nstate n: number = 5000\nflow:\n    for a in 1 to n:\n"
                       "        for b in 1 to n:\n            t += 1\n")
    assert "loops too long" in e.message


def test_a_range_too_long_is_an_error_and_so_is_a_constant_that_loops_too_long():
    e = _runtime_error("state t: number = 0\nflow:\n    t = count(x in 1 to 200000 where x > 0)\n")
    assert "a range of 200,000 numbers is too long" in e.message
    with pytest.raises(RulesError) as err:
        compile_body("const big = sum(count(b in 1 to 90000 where b > a) for a in 1 to 90000)\n"
                     "flow:\n    pass\n")
    assert "loops too long" in err.value.message and err.value.pos.line == LINES + 1
