"""dsl/emit/cse.py: a define's repeated subexpressions worked out once — only where the first is
always worked out before, never inside another scope, and with the same values and games."""
from __future__ import annotations

import ast
import itertools
import random

from rulesrun.dsl.emit import cse
from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402


def _compiled(src: str, calls: list):
    """The function of ``src`` before and after the pass, with ``_groups`` and ``_same`` counting
    their calls in ``calls``."""
    def _groups(keys):
        calls.append("groups")
        return sorted(map(keys.count, set(keys)), reverse=True)

    def _same(keys):
        calls.append("same")
        return len(set(keys)) <= 1

    out = []
    for rewrite in (False, True):
        fn = ast.parse(src).body[0]
        changed = cse.run(fn) if rewrite else False
        ns = {"_groups": _groups, "_same": _same, "_k": [0, 0, 1, 1, 2, 2, 3, 3].__getitem__}
        exec(compile(ast.Module(body=[fn], type_ignores=[]), "<test>", "exec"), ns)
        out.append((ns[fn.name], ast.unparse(fn), changed))
    return out


def test_a_subexpression_worked_out_before_both_branches_is_kept_and_read_again():
    src = ("def _D1(S, v0):\n"
           "    return 4 if _groups(list(map(_k, v0))) == [4, 1] else 3 if _groups(list(map(_k, v0))) == [3, 2] else 1\n")
    calls = []
    (before, _, _), (after, text, changed) = _compiled(src, calls)
    assert changed and "(_e1 := _groups(list(map(_k, v0)))) == [4, 1] else 3 if _e1 == [3, 2]" in text
    assert text.count("_groups(") == 1 and text.count("map(") == 1
    for hand in itertools.combinations(range(8), 5):
        calls.clear()
        want = before(None, list(hand))
        n_before = len(calls)
        calls.clear()
        assert after(None, list(hand)) == want
        assert len(calls) == 1 <= n_before      # groups worked out once, however many branches


def test_a_first_that_is_only_sometimes_worked_out_is_not_read_after_it():
    # _same(...) in the right of 'and' is not always worked out: the 'or' after it works it out again
    src = "def _D1(S, v0):\n    return (len(v0) > 2 and _same(list(map(_k, v0)))) or _same(list(map(_k, v0)))\n"
    calls = []
    (before, _, _), (after, text, _) = _compiled(src, calls)
    assert text.count("_same(") == 2
    for hand in ([0], [0, 1], [0, 1, 2], [2, 3, 4]):
        assert after(None, hand) == before(None, hand)      # no local read before it is set


def test_or_inside_or_is_one_or_so_the_third_part_reads_what_the_second_worked_out():
    src = "def _D1(S, v0):\n    return (len(v0) == 1 or _groups(list(map(_k, v0))) == [2]) or _groups(list(map(_k, v0))) == [1, 1]\n"
    calls = []
    (before, _, _), (after, text, changed) = _compiled(src, calls)
    assert changed and text.count("_groups(") == 1
    for hand in ([0], [0, 1], [0, 2], [1, 2, 3]):
        assert after(None, hand) == before(None, hand)


def test_nothing_inside_a_lambda_or_a_comprehension_and_no_iterator_is_kept():
    src = ("def _D1(S, v0):\n"
           "    return [_same(list(map(_k, v0))) for _x in v0] + [(lambda: _same(list(map(_k, v0))))()] + "
           "[sum(map(_k, v0)), sum(map(_k, v0))]\n")
    calls = []
    (before, _, _), (after, text, changed) = _compiled(src, calls)
    assert "_same(list(map(_k, v0))) for _x in v0" in text and "lambda: _same(list(map(_k, v0)))" in text
    assert "[(_e1 := sum(map(_k, v0))), _e1]" in text     # the sum (a value), not the map (an iterator)
    assert after(None, [0, 1, 2]) == before(None, [0, 1, 2])


def test_a_body_of_more_than_one_statement_and_a_define_without_repeats_are_left_alone():
    for src in ("def _D1(S, v0):\n    x = _same(v0)\n    return _same(v0) and x\n",
                "def _D1(S, v0):\n    return _same(list(map(_k, v0))) and len(v0) > 1\n"):
        fn = ast.parse(src).body[0]
        assert not cse.run(fn) and ast.unparse(fn) == ast.unparse(ast.parse(src).body[0])


def _big_two(monkeypatch=None):
    if monkeypatch is not None:
        monkeypatch.setattr(cse, "run", lambda fn: False)
    return load_game(ROOT / "examples" / "big_two.rules", players=4)


def test_big_two_strength_reads_the_ranks_and_their_groups_once(monkeypatch):
    game = _big_two()
    strength = next(src for name, src in game.program.code.sources.items() if name.endswith("define strength>"))
    assert "(_e1 := [*map(" in strength and "(_e2 := _groups(_e1))" in strength    # what --emit shows
    names = game.program.procs[0][0].__globals__
    plain = _big_two(monkeypatch).program.procs[0][0].__globals__
    rng = random.Random(5)
    for _ in range(2000):
        s = rng.sample(range(52), rng.choice((1, 2, 3, 5)))
        for d in ("_D12", "_D15", "_D17"):      # combination, kind_of, strength
            assert names[d](None, s) == plain[d](None, s)


def test_seeded_big_two_games_are_the_same_with_and_without_the_pass(monkeypatch):
    def games(game):        # every step taken, what was offered at each, and the end
        seen = []
        for seed in range(12):
            state, rng = game.new_initial_state(seed=seed), random.Random(seed)
            while not state.is_terminal():
                offered = state.legal_actions()
                seen.append(len(offered))
                state.apply_action(rng.choice(offered))
            seen.append((state.history(), state.returns()))
        return seen
    with_pass = games(_big_two())
    assert games(_big_two(monkeypatch)) == with_pass
