"""Each compiler pass on its own: IR in, one pass, IR out (dsl.passes). And the promise of the
pipeline: no user text is ever spliced into generated Python source."""
from __future__ import annotations

import ast
import textwrap

from rulesrun.dsl import ir
from rulesrun.dsl.errors import Pos
from rulesrun.dsl.ir import K, Best, Comp, Load, Local, St, Stop, assign, call, compare, name, sub
from rulesrun.dsl.passes import fastpaths, inline, loops, resume
from rulesrun.interpreter import load_game_text

P = Pos("t.rules", 1, 1)
TABLE = ["Red", "Blue", "Red"]


def t(slot):
    return Local(slot, "temp")


def zone(i=0):
    return sub(St("z"), K(i))


# ── fast paths ───────────────────────────────────────────────────────────────
def test_count_of_an_attribute_equal_to_a_value_becomes_a_count_of_a_map():
    x = t(1)
    node = Comp("count", K(None), x, zone(), compare(sub(K(TABLE), x), "==", Local(0, "frame")))
    out = fastpaths.run(node)
    # list(map(TABLE.__getitem__, S.z[0])).count(l0), the bound __getitem__ a constant
    assert isinstance(out, ast.Call) and out.func.attr == "count"
    assert isinstance(out.args[0], Local) and out.args[0].slot == 0
    inner = out.func.value
    assert inner.func.id == "list" and inner.args[0].func.id == "map"
    getter = inner.args[0].args[0].value
    assert getter.__self__ is TABLE and getter.__name__ == "__getitem__"


def test_any_of_an_attribute_equal_to_a_value_becomes_membership():
    x = t(1)
    out = fastpaths.run(Comp("any", compare(sub(K(TABLE), x), "==", K("Red")), x, zone()))
    assert isinstance(out, ast.Compare) and isinstance(out.ops[0], ast.In)
    assert out.left.value == "Red" and out.comparators[0].func.id == "map"


def test_a_value_that_depends_on_the_item_is_left_alone():
    x = t(1)
    node = Comp("count", K(None), x, zone(), compare(sub(K(TABLE), x), "==", sub(K(TABLE), x)))
    assert fastpaths.run(node) is node


def test_a_list_of_one_attribute_becomes_a_map_and_unique_takes_the_map():
    x = t(1)
    fromkeys = ast.Attribute(value=name("dict"), attr="fromkeys", ctx=ast.Load())
    node = call("list", call(fromkeys, Comp("list", sub(K(TABLE), x), x, zone())))
    out = fastpaths.run(node)
    assert out.args[0].args[0].func.id == "map"      # list(dict.fromkeys(map(...)))


# ── inlining ─────────────────────────────────────────────────────────────────
def test_inlining_replaces_parameters_and_renumbers_loop_variables():
    p, x = Local(0, "py"), t(7)
    body = Comp("sum", sub(K(TABLE), x), x, p)        # sum(x.a for x in p)
    arg = Local(3, "frame")
    assert inline.worth_inlining(body, [arg])
    assert not inline.worth_inlining(body, [call("len", arg)])     # not cheap to repeat
    out = inline.substitute(body, [p], [arg])
    assert isinstance(out.source, Local) and out.source.key() == ("frame", 3)
    assert out.target.mode == "temp" and out.target.slot != 7 and out.elt.slice.slot == out.target.slot
    assert body.source is p and body.target.slot == 7          # the original is untouched
    assert out.elt.value.value is TABLE                          # constants are shared, not copied


# ── loops ────────────────────────────────────────────────────────────────────
def test_an_unconditional_count_becomes_a_loop_before_its_statement():
    x = t(1)
    stmt = assign(sub(St("g"), K(0)), Comp("count", K(None), x, zone(), compare(x, ">", K(2))), P)
    out = loops.lower([stmt])
    assert [type(s).__name__ for s in out] == ["Assign", "For", "Assign"]
    assert out[0].targets[0].id == "_h1" and isinstance(out[1].body[0], ast.If)
    assert out[2].value.id == "_h1"
    assert isinstance(stmt.value, Comp)           # statements are copied, not changed


def test_a_comprehension_behind_and_stays_where_it_is():
    x = t(1)
    test = ir.boolop("and", compare(Local(0, "frame"), "is not", K(None)),
                     Comp("any", compare(x, ">", K(2)), x, zone()))
    out = loops.lower([ir.at(ast.If(test=test, body=[ast.Pass()], orelse=[]), P)])
    assert len(out) == 1 and isinstance(out[0].test.values[1], Comp)


def test_highest_becomes_a_loop_keeping_the_first_of_equals():
    x, i = t(1), t(2)
    stmt = assign(sub(St("g"), K(0)), Best("highest", [sub(K(["c", "e", "e"]), x)], x, i, zone()), P)
    out = loops.lower([stmt])
    loop = out[2]
    assert isinstance(loop, ast.For) and loop.body[1].test.values[0].comparators[0].id == "_FIRST"
    # whole-number keys start below them all: a strictly greater key takes over (the first of equals stays)
    stmt = assign(sub(St("g"), K(0)), Best("highest", [sub(K([3, 5, 5]), x)], x, i, zone()), P)
    out = loops.lower([stmt])
    assert out[1].value.value == 2 and isinstance(out[2].body[1].test.ops[0], ast.Gt)


# ── resume: liveness and entries ─────────────────────────────────────────────
def _decision(label, chosen_slot):
    return Stop("decision", label, [], P, chosen=Local(chosen_slot, "frame"))


def test_liveness_keeps_only_what_is_read_after_a_stop():
    l0, l1, l2 = (Local(i, "frame") for i in range(3))
    body = [assign(l0, K(1), P), assign(l1, K(2), P), _decision(1, 2),
            assign(sub(St("g"), K(0)), ir.binop(l0, "+", l2), P)]
    resume.liveness(body)
    assert body[2].saved == [0]          # l1 is never read again; l2 is the chosen value


def test_a_loop_around_a_stop_keeps_its_counter():
    l0 = Local(0, "frame")
    loop = ir.at(ast.While(test=compare(l0, ">", K(0)), body=[_decision(1, 1), ir.augassign(l0, "-", K(1), P)],
                           orelse=[]), P)
    body = [assign(l0, K(3), P), loop]
    resume.liveness(body)
    assert loop.body[0].saved == [0]
    entries = resume.entries(body, labels=1, nslots=2)
    assert len(entries) == 2
    again = entries[1]
    # resuming: read the frame, finish the round, then the loop again from its test, then the end
    assert isinstance(again[0], Load) and isinstance(again[1], ast.AugAssign)
    assert isinstance(again[2], ast.While) and isinstance(again[-1], ast.Return)
    # from the start: every local read from the frame, then the body, stopping at the decision
    start = entries[0]
    assert isinstance(start[0], ast.Assign) and len(start[0].targets[0].elts) == 2
    assert isinstance(start[2], ast.While) and isinstance(start[2].body[0], Stop)


# ── no user text in generated source ─────────────────────────────────────────
HOSTILE = textwrap.dedent(r"""
    game "Zq1'); __import__('os').system('true') #"
    players 2
    kind Zq2Kind: Zq3Value, Zq4Value
    cards:
        zq5attr: Zq2Kind
        zq6pts: number = 1
        shown as "Zq7 {zq5attr} \ x' y"
        for zq5attr in Zq2Kind
    zone zq8deck: facedown
    zone zq9pile: public
    zone zq10hand per player: owner
    state zq11total: number = 0
    player state zq12got: Zq2Kind = Zq3Value
    const zq13limit = 2
    define zq14double(zq15x) = zq15x * 2
    procedure zq16turn(zq17p):
        zq17p chooses zq18c from zq17p.zq10hand where zq18c.zq5attr == Zq4Value if able as "Zq19 {zq18c} '''"
        move zq18c to zq9pile
        zq17p.zq12got = zq18c.zq5attr
        announce "Zq20 {zq17p} ''' {zq18c}"
    flow:
        shuffle zq8deck
        deal 1 from zq8deck to zq10hand
        for zq21q in players:
            zq16turn(zq21q)
        zq11total = zq14double(count(zq22c in zq9pile where zq22c.zq5attr == Zq3Value)) + zq13limit
    score(zq23p) = zq11total
""")


def test_no_name_or_text_of_the_rules_file_is_spliced_into_generated_source():
    g = load_game_text(HOSTILE, 2, path="zq.rules")
    s = g.new_initial_state(seed=1)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    assert s.legal_actions() == [] and g.program.code.sources
    source = "\n".join(g.program.code.sources.values())
    found = sorted({w for w in ("Zq", "zq", "__import__", "system") if w in source})
    assert found == [], f"user text in generated source: {found}"
    assert "Zq19" in s.history()[0]      # the label still reaches the action text, through a constant
