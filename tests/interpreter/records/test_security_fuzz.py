"""Bounded fuzzing: damaged and hostile records, and random lines at the prompt, give
messages — never a traceback, never a raw control character on the terminal. Each runs a fixed
number of examples in a few seconds, so CI runs them every time."""
from __future__ import annotations

import io
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesrun.interpreter import load_game
from rulesrun.interpreter.records.record import RecordError, make_record, open_record, save_record
from rulesrun.interpreter.terminal.repl import Repl
from tests.support import feed

RULES = """
game "Fuzz"
players 2 to 3
kind Colour: red, blue
cards:
    colour: Colour
    rank: number
    for colour in Colour, rank in 1 to 5
zone deck: facedown
zone pile: public
zone hand per player: owner
player state points: number = 0
flow:
    shuffle deck
    deal 2 from deck to hand
    repeat 2 times:
        for p in players:
            p chooses c from p.hand as "play"
            move c to pile
            p.points += c.rank
            announce "{p} plays {c}."
            p chooses n from [0, 1] as "draw"
            repeat n times:
                move top(deck) to p.hand
score(p) = p.points
"""
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
FUZZ = settings(max_examples=300, deadline=None, derandomize=True,  # the same examples every run: CI-stable
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    rules = folder / "fuzz.rules"
    rules.write_text(RULES)
    game = load_game(rules, players=2)
    state = game.new_initial_state(seed=4)
    for _ in range(3):
        state.apply_action(state.legal_actions()[0])
    record = make_record(game, state, ["human", "random"], reseeds=[[1, 77]])
    target = folder / "base.yaml"
    save_record(target, record)
    return folder, game, yaml.safe_load(target.read_text())


scalars = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70), st.floats(allow_nan=True),
                    st.text(max_size=30))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)


@st.composite
def damaged_records(draw, fields):
    """A good record with some fields replaced, dropped or added — or its text cut and spliced."""
    data = dict(fields)
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(sorted(data) + ["extra", "reseeds"]))
        action = draw(st.sampled_from(["replace", "drop", "list-item"]))
        if action == "drop":
            data.pop(key, None)
        elif action == "list-item" and isinstance(data.get(key), list) and data[key]:
            items = list(data[key])
            items[draw(st.integers(0, len(items) - 1))] = draw(values)
            data[key] = items
        else:
            data[key] = draw(values)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    if draw(st.booleans()):
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(st.text(max_size=20)) + text[i + draw(st.integers(0, 20)):]
    return text


def test_fuzzed_records_give_record_errors_only(base):
    folder, game, fields = base

    @FUZZ
    @given(text=damaged_records(fields))
    def check(text):
        target = folder / "fuzzed.yaml"
        target.write_text(text, encoding="utf-8", errors="surrogatepass")
        try:
            open_record(target)
        except RecordError as e:
            assert str(e)
        out = io.StringIO()
        lines = iter([f"load {target}", "quit"])
        repl = Repl(game, game.new_initial_state(seed=1), ["human", "random"], 1, out=out,
                    readline=lambda: next(lines))
        repl.run()                        # a bad load at the prompt is a message; the game goes on
        assert not RAW.search(out.getvalue())
    check()


COMMANDS = ["state", "log", "hint", "undo", "help", "save", "load", "quit", "play", "draw", "1", "2", "j"]
lines = st.one_of(
    st.text(max_size=20),
    st.builds(lambda c, a: f"{c} {a}", st.sampled_from(COMMANDS), st.text(max_size=12)),
    st.sampled_from(["1", "2", "draw 1", "play red 1", "undo", "log 3", "log ²", "²", "\x1b[2J", "\u202e1",
                     "save", "load", "load /dev/null", "save /dev/null", "save \x00", "hint"]))


def test_fuzzed_prompt_lines_never_raise(base, tmp_path, monkeypatch):
    folder, game, _ = base
    monkeypatch.chdir(tmp_path)

    @FUZZ
    @given(script=st.lists(lines, max_size=12), seats=st.sampled_from([["human", "random"], ["human", "human"]]))
    def check(script, seats):
        # saving goes only into the test's folder, under a name made of the line's letters
        script = [f"save {tmp_path}/{''.join(ch for ch in s[5:] if ch.isascii() and ch.isalnum()) or 's'}.yaml"
                  if s.strip().lower().startswith("save") and "\x00" not in s and s.strip().lower() != "save"
                  else s for s in script]
        out = io.StringIO()
        repl = Repl(game, game.new_initial_state(seed=3), seats, 3, out=out, readline=feed(script))
        assert repl.run() in (0, 1)
        assert not RAW.search(out.getvalue()), out.getvalue()
    check()
