"""docs/language.md is tested: every ```rules block in it is valid, and what it shows is what the tool does.

Fenced blocks and the HTML comments right above them (invisible when the Markdown is rendered):

    ```rules            a complete game if it has a `flow:` line: it must compile for every allowed player
                        count and every variant, and random games must play to the end; otherwise a
                        fragment, which must parse as a rules file (or as the body of a procedure)
    ```rules-fragment   not a complete game and not valid on its own: tested only if it quotes a file
                        (`from:`), and then it must parse
    ```text             tested only when its first line is `$ rulesrun ...` (see below)

    <!-- file: NAME -->           the block is the file NAME for later `$ rulesrun` commands
    <!-- id: NAME -->             names a block, for `from: #NAME`
    <!-- from: PATH -->           every line of the block appears, in order and adjacent, in the repository
                                  file PATH (or in the block `#NAME`): quotes never drift from the source
    <!-- edit: OLD => NEW -->     before the next `$ rulesrun` command, replace OLD by NEW in its file
    <!-- stdin: TEXT -->          the input piped to the next `$ rulesrun` command (\\n for newlines)

A ```text block whose first line is `$ rulesrun ARGS` runs the command line in a directory holding the
`file:` blocks and compares what it prints (stdout, then stderr) with the rest of the block.
"""
from __future__ import annotations

import io
import random
import re
import shlex
import sys
import textwrap

import pytest

from rulesrun.dsl import RulesError, parse_text
from rulesrun.interpreter import load_game_text

from tests.support import ROOT  # noqa: E402
DOC = ROOT / "docs" / "language.md"

FENCE = re.compile(r"^```([\w-]*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
DIRECTIVE = re.compile(r"^<!--\s*([\w-]+)\s*(?::\s*(.*?))?\s*-->\s*$")
PLAYERS = re.compile(r"^players\s+(\d+)(?:\s+to\s+(\d+))?\s*(?:#.*)?$", re.M)
VARIANT = re.compile(r"^variant\s+(\w+)\s*:", re.M)   # chosen by name (not by a `when`)
TOP_LEVEL = re.compile(r"^flow\s*:", re.M)


class Block:
    def __init__(self, lang: str, body: str, line: int, directives: list):
        self.lang = lang
        self.body = body
        self.line = line
        self.directives = directives  # [(key, value)]

    def get(self, key):
        return [v for k, v in self.directives if k == key]

    def __repr__(self):
        return f"docs/language.md:{self.line} ({self.lang})"


def blocks() -> list[Block]:
    text = DOC.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].splitlines()
        directives = []
        i = len(before) - 1
        while i >= 0 and DIRECTIVE.match(before[i].strip()):
            d = DIRECTIVE.match(before[i].strip())
            directives.insert(0, (d.group(1), d.group(2) or ""))
            i -= 1
        out.append(Block(m.group(1), m.group(2), line, directives))
    return out


BLOCKS = blocks()
RULES = [b for b in BLOCKS if b.lang == "rules"]
GAMES = [b for b in RULES if TOP_LEVEL.search(b.body)]
# Quotations marked rules-fragment (a `flow:` block on its own, say) must still parse.
FRAGMENTS = [b for b in RULES if not TOP_LEVEL.search(b.body)] + \
    [b for b in BLOCKS if b.lang == "rules-fragment" and b.get("from")]
RUNS = [b for b in BLOCKS if b.lang == "text" and b.body.startswith("$ rulesrun")]
IDS = {v: b for b in BLOCKS for v in b.get("id")}


def player_counts(body: str) -> list[int]:
    m = PLAYERS.search(body)
    assert m, "a complete game needs a 'players' line"
    low = int(m.group(1))
    high = int(m.group(2) or low)
    return list(range(low, high + 1))


def test_the_document_has_blocks_of_every_sort():
    # Complete games: the tour's High Card and the Variants section's Twenty-One (the shipped games
    # are quoted, not copied, and have tests of their own).
    assert len(GAMES) >= 2 and len(FRAGMENTS) >= 20 and len(RUNS) >= 3
    assert any(b.get("from") for b in RULES)


@pytest.mark.parametrize("block", GAMES, ids=repr)
def test_complete_games_compile_and_play(block):
    counts = player_counts(block.body)
    # What the reference promises: the first allowed player count compiles.
    load_game_text(block.body, players=counts[0], path="docs")
    variants = [()] + [(v,) for v in VARIANT.findall(block.body)]
    for n in counts:
        for vs in variants:
            game = load_game_text(block.body, players=n, variants=vs, path="docs")
            for seed in range(2):
                rng = random.Random(seed)
                state = game.new_initial_state(seed=seed)
                for _ in range(20_000):
                    if state.is_terminal():
                        break
                    state.apply_action(rng.choice(state.legal_actions()))
                    assert not state.check_invariants()
                assert state.is_terminal(), f"{n} players {vs}: a random game did not end"
                assert game.replay(seed, state.history()) == state


def _parse_fragment(body: str):
    """The block parsed as written (a variant file's base is not read: the syntax is what is tested)."""
    from rulesrun.dsl.syntax.parser import parse_one
    text = textwrap.dedent(body)
    try:
        return parse_one(text, "docs")
    except RulesError as first:
        # Statements parse as the body of a procedure; card entries as the body of 'cards:'.
        for header in ("procedure _doc_():\n", "cards:\n    _doc_: number\n"):
            try:
                return parse_one(header + textwrap.indent(text, "    "), "docs")
            except RulesError:
                pass
        raise first from None


@pytest.mark.parametrize("block", FRAGMENTS, ids=repr)
def test_fragments_parse(block):
    _parse_fragment(block.body)


def _window_matches(source_lines: list[str], quote: list[str]) -> bool:
    want = textwrap.dedent("\n".join(quote))
    n = len(quote)
    for i in range(len(source_lines) - n + 1):
        if source_lines[i].strip() != quote[0].strip():
            continue
        if textwrap.dedent("\n".join(source_lines[i:i + n])) == want:
            return True
    return False


@pytest.mark.parametrize("block", [b for b in BLOCKS if b.get("from")], ids=repr)
def test_quotes_are_verbatim(block):
    quote = [line.rstrip() for line in block.body.strip("\n").splitlines()]
    for src in block.get("from"):
        if src.startswith("#"):
            assert src[1:] in IDS, f"no block has id {src[1:]}"
            text = IDS[src[1:]].body
        else:
            text = (ROOT / src).read_text(encoding="utf-8")
        lines = [line.rstrip() for line in text.splitlines()]
        assert _window_matches(lines, quote), f"the block at {block!r} is not a verbatim part of {src}"


def _files() -> dict:
    files = {}
    for b in BLOCKS:
        for name in b.get("file"):
            files[name] = b.body
    return files


@pytest.mark.parametrize("block", RUNS, ids=repr)
def test_command_line_output_is_as_shown(block, tmp_path, monkeypatch, capsys):
    from rulesrun.interpreter.cli.main import main
    files = _files()
    command, _, expected = block.body.partition("\n")
    args = shlex.split(command)[2:]
    edits = [e.split(" => ", 1) for e in block.get("edit")]
    for name, text in files.items():
        if name in args:
            for old, new in edits:
                old, new = old.replace("\\n", "\n"), new.replace("\\n", "\n")
                assert old in text, f"edit {old!r} does not apply to {name}"
                text = text.replace(old, new, 1)
        (tmp_path / name).write_text(text, encoding="utf-8")
    stdin = "".join(s.replace("\\n", "\n") for s in block.get("stdin"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    main(args)
    captured = capsys.readouterr()
    got = (captured.out + captured.err).rstrip("\n").splitlines()
    want = expected.rstrip("\n").splitlines()
    assert [g.rstrip() for g in got] == [w.rstrip() for w in want]


def test_every_builtin_and_aggregate_is_documented():
    from rulesrun.dsl.check.builtins import AGGREGATES, BUILTINS
    text = DOC.read_text(encoding="utf-8")
    for name in list(BUILTINS) + list(AGGREGATES):
        assert f"`{name}(" in text, f"{name}() is not in docs/language.md"


def test_every_keyword_of_the_grammar_is_in_the_document():
    grammar = (ROOT / "grammar" / "rules.lark").read_text(encoding="utf-8")
    grammar = re.sub(r"//[^\n]*", "", grammar)
    keywords = set(re.findall(r'"([a-z][a-z/]*)"', grammar))
    text = DOC.read_text(encoding="utf-8")
    missing = sorted(k for k in keywords if not re.search(rf"`[^`\n]*\b{re.escape(k)}\b[^`\n]*`", text))
    assert not missing, f"keywords never shown in docs/language.md: {missing}"
