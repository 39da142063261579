"""The corpora of the information-flow check: small games a designer writes.

tests/flow_corpus/honest/*.rules leak nothing and must compile without --allow-leaks.
tests/flow_corpus/leaking/*.rules each leak once and must be refused; each starts with

    # expect: WORDS     every word (split on spaces) must appear in the error's message
    # line: N           the line the error must point at

Every file is a whole, valid game (it compiles with allow_leaks and plays): a leaking file fails
only because of its leak. The players are the fewest the file's `players` line allows.

KNOWN_MISSES lists the files the compiler gets wrong today, as strict xfails: when a fix makes one
pass, its XPASS fails the suite, and the file's name is to be taken off the list.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rulesrun.dsl import RulesError, parse_text
from rulesrun.dsl.compiler import compile_rules
from rulesrun.interpreter import load_game_text
from tests.support import ROOT

CORPUS = ROOT / "tests" / "flow_corpus"
HONEST = sorted((CORPUS / "honest").glob("*.rules"))
LEAKING = sorted((CORPUS / "leaking").glob("*.rules"))

# file name -> what the compiler does wrong today
KNOWN_MISSES: dict = {
}


def players_of(text: str) -> int:
    m = re.search(r"^players\s+(\d+)", text, re.M)
    assert m, "the file has no 'players' line"
    return int(m.group(1))


def compile_file(path: Path, allow_leaks: bool = False):
    text = path.read_text()
    return compile_rules(parse_text(text, path.name), players_of(text), (), allow_leaks)


def expectation(path: Path) -> tuple[list[str], int]:
    text = path.read_text()
    words = re.search(r"^# expect: (.+)$", text, re.M)
    line = re.search(r"^# line: (\d+)$", text, re.M)
    assert words and line, f"{path.name} must start with '# expect: WORDS' and '# line: N'"
    return words.group(1).split(), int(line.group(1))


def cases(paths):
    return [pytest.param(p, id=p.name, marks=[pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[p.name])]
                         if p.name in KNOWN_MISSES else []) for p in paths]


def test_each_corpus_has_at_least_30_files():
    assert len(HONEST) >= 30 and len(LEAKING) >= 30, (len(HONEST), len(LEAKING))


def test_known_misses_name_corpus_files():
    assert set(KNOWN_MISSES) <= {p.name for p in HONEST + LEAKING}


@pytest.mark.parametrize("path", cases(HONEST))
def test_an_honest_game_compiles(path):
    compile_file(path)


@pytest.mark.parametrize("path", HONEST + LEAKING, ids=[f"{p.parent.name}/{p.name}" for p in HONEST + LEAKING])
def test_each_file_is_a_valid_game(path):
    """With allow_leaks every file compiles and plays: a leaking file is refused for its leak and
    for nothing else, an honest one refused for nothing but a false leak."""
    if path.parent.name == "leaking":
        expectation(path)
    text = path.read_text()
    game = load_game_text(text, players_of(text), path=path.name, allow_leaks=True)
    for seed in range(3):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        state.returns()


@pytest.mark.parametrize("path", cases(LEAKING))
def test_a_leaking_game_is_refused_at_its_line(path):
    words, line = expectation(path)
    with pytest.raises(RulesError) as err:
        compile_file(path)
    e = err.value
    missing = [w for w in words if w not in e.message]
    assert not missing, f"message {e.message!r} lacks {missing}"
    assert e.pos is not None and e.pos.line == line, f"points at line {e.pos and e.pos.line}, not {line}: {e.message}"
