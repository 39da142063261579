"""The last touch on the generated Python (dsl/emit/peephole.py): ``list(x)`` becomes ``[*x]``,
the same list without calling the type. Each check would fail without the pass."""
from __future__ import annotations

import ast
import re

import pytest

from rulesrun.dsl.emit import peephole
from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402


def rewritten(src: str) -> str:
    fn = ast.parse(src).body[0]
    peephole.run([fn])
    return ast.unparse(fn)


def test_a_list_of_one_iterable_becomes_a_starred_list_display():
    out = rewritten("def f(S, z, t):\n    _o = list(filter(t.__contains__, list(z)))\n    return _o")
    assert "_o = [*filter(t.__contains__, [*z])]" in out and "list(" not in out
    z, t = [3, 1, 2, 1], {1, 2}
    ns: dict = {}
    exec(out, ns)
    assert ns["f"](None, z, t) == [1, 2, 1] and ns["f"](None, (), t) == []


@pytest.mark.parametrize("src", ["x = list()", "x = list(*a)", "x = list(a, b)", "x = y.list(a)", "x = list"])
def test_other_uses_of_the_name_stay_as_written(src):
    assert rewritten(f"def f():\n    {src}") == f"def f():\n    {src}"


@pytest.mark.parametrize("path", ["games/magic_shop.rules", "examples/crazy_eights.rules", "examples/big_two.rules"])
def test_no_generated_function_calls_list_of_one_argument(path):
    game = load_game(ROOT / path, players=4)
    source = "\n".join(game.program.code.sources.values())
    assert "[*" in source
    assert not re.search(r"(?<![\w.])list\(", source)
