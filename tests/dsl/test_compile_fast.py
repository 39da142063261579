"""What makes compiling faster changes nothing it makes (docs/architecture.md, "Compiling fast"):
the quick tree walks give what ``ast``'s own give, a text is parsed once and never changed by
compiling, and the cycle collector is paused only while compiling. Each test fails without the
measure it checks, or if the measure changed the result."""
from __future__ import annotations

import ast
import gc
import re

import pytest

from rulesrun.dsl.syntax import parser
from rulesrun.dsl import RulesError, compile_rules, parse_text
from rulesrun.dsl.compiler import Compiler
from rulesrun.dsl.ir import kids, walk
from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402
SMALL = """game "Tiny"
players 2
cards:
    name: text
    shown as "{name}"
    {name: "Red"}
    {name: "Blue"}
    {name: "Green"}
zone deck: facedown
zone hand per player: owner
flow:
    shuffle deck
    deal 1 from deck to hand
    for p in players:
        p chooses c from p.hand as "play"
        move c to deck
"""


def _generated_module(path: str) -> ast.Module:
    game = load_game(ROOT / path, players=4)
    return ast.parse("\n".join(game.program.code.sources.values()))


@pytest.mark.parametrize("path", ["games/magic_shop.rules", "examples/big_two.rules"])
def test_the_quick_walks_give_what_ast_gives_node_for_node(path):
    tree = _generated_module(path)
    nodes = list(ast.walk(tree))
    assert len(nodes) > 1000
    assert [id(n) for n in walk(tree)] == [id(n) for n in nodes]     # the same nodes, the same order
    for n in nodes:
        assert [id(k) for k in kids(n)] == [id(k) for k in ast.iter_child_nodes(n)]


def test_a_node_with_a_missing_field_or_none_in_a_list_is_walked_as_ast_walks_it():
    d = ast.Dict(keys=[None, ast.Name(id="a", ctx=ast.Load())], values=[ast.Name(id="b", ctx=ast.Load())] * 2)
    assert [type(k) for k in kids(d)] == [type(k) for k in ast.iter_child_nodes(d)]
    bare = ast.Call(func=ast.Name(id="f", ctx=ast.Load()))      # args and keywords never set
    assert kids(bare) == list(ast.iter_child_nodes(bare))


def test_the_same_text_is_parsed_once_and_another_path_on_its_own():
    a = parse_text(SMALL, "tiny.rules")
    assert parse_text(SMALL, "tiny.rules") is a
    b = parse_text(SMALL, "other.rules")
    assert b is not a and b.path == "other.rules" and b.items[0].pos.file == "other.rules"
    assert parse_text(SMALL + "\n", "tiny.rules") is not a        # another text, parsed anew


def test_a_bad_text_is_refused_every_time_even_after_a_parse_with_the_check_off(monkeypatch):
    bad = SMALL.replace('"play"', '"pl\x1b[8may"')
    with pytest.raises(RulesError):
        parse_text(bad, "bad.rules")
    with monkeypatch.context() as m:        # (as a test of the output paths does)
        m.setattr(parser, "_check_text", lambda source, path: None)
        parse_text(bad, "bad.rules")
    with pytest.raises(RulesError, match="control character|character"):
        parse_text(bad, "bad.rules")      # the check runs before the kept parse is looked up
    with pytest.raises(RulesError):
        parse_text(SMALL.replace("flow:", "flow"), "broken.rules")
    with pytest.raises(RulesError):       # a syntax error is raised again, never kept as a success
        parse_text(SMALL.replace("flow:", "flow"), "broken.rules")


def test_compiling_never_changes_the_parsed_text_that_later_compiles_share():
    rules = parse_text((ROOT / "games/magic_shop.rules").read_text(encoding="utf-8"), "ms.rules")
    before = repr(rules)
    sources = []
    for players in (3, 4, 5, 4):
        source = "\n".join(compile_rules(rules, players).code.sources.values())
        sources.append(re.sub(r"_t\d+", "_t", source))      # (temporaries are numbered process-wide)
    assert repr(rules) == before
    assert sources[1] == sources[3]         # the second compile of 4 players, from the same AST


def test_the_collector_is_off_while_compiling_and_as_it_was_after(monkeypatch):
    seen = []
    real = Compiler.compile

    def watched(self):
        seen.append(gc.isenabled())
        return real(self)
    monkeypatch.setattr(Compiler, "compile", watched)
    rules = parse_text(SMALL, "tiny.rules")
    assert gc.isenabled()
    compile_rules(rules, 2)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        compile_rules(rules, 2)
        assert seen == [False, False] and not gc.isenabled()     # the caller's choice kept
    finally:
        gc.enable()
    with pytest.raises(RulesError):
        compile_rules(rules, 5)             # (a compile that fails turns it on again too)
    assert gc.isenabled()


def test_our_nodes_children_are_found_by_their_exact_class_so_none_may_be_subclassed():
    from rulesrun.dsl.ir import _OURS, Best, Comp, Fn, Move, Stop, children
    assert set(_OURS) == {Comp, Best, Fn, Move, Stop}
    assert not [c for c in _OURS if c.__subclasses__()]        # a subclass would be walked as plain ast
    tree = _generated_module("games/magic_shop.rules")
    plain = [n for n in ast.walk(tree)][:200]
    assert all(children(n) == kids(n) for n in plain)
