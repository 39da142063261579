"""The authoring tools read choice blocks with several picks, picks of several values and moves
whose text shows values: the rulebook's English, the flow diagram, the formatter, the language
server's names."""
from __future__ import annotations

from rulesrun.dsl import parse_text
from rulesrun.dsl.syntax.format import format_text
from rulesrun.interpreter.authoring.diagram import to_dot
from rulesrun.interpreter.authoring.lsp_index import Index
from rulesrun.interpreter.authoring.rulebook_render import to_markdown
from rulesrun.interpreter.authoring.rulebook import Rulebook
from tests.interpreter.runtime.test_picks_play import HINTS


def test_the_rulebook_reads_each_branch_its_condition_and_a_pair(tmp_path):
    path = tmp_path / "hints.rules"
    path.write_text(HINTS)
    md = to_markdown(Rulebook(str(path)).blocks)
    assert "The player plays a number (i) from 1 to the number of cards in their hand:" in md
    assert "The player discards a number (i) from 1 to the number of cards in their hand (offered when the " \
           "tokens is less than 8):" in md
    assert "The player chooses q, one of the players and col, one of Red, Green, Blue, one where q is not " \
           "the player" in md
    assert "“wait with ‹the tokens› tokens”:" in md


def test_the_diagram_has_one_decision_with_every_branch():
    dot = to_dot(list(parse_text(HINTS).items))
    assert dot.count("shape=diamond") == 1
    assert 'label="the player: play / discard / hint {q} {col} / w…", shape=diamond' in dot


def test_the_formatter_lays_out_picks_and_keeps_their_meaning():
    messy = HINTS.replace("q, col from players, Colour", "q ,col  from players ,Colour").replace(
        '"wait with {tokens} tokens":', '"wait with {tokens} tokens" :')
    assert format_text(messy, "hints.rules") == HINTS


def test_the_language_server_knows_every_name_a_pick_binds():
    index = Index(parse_text(HINTS))
    line = HINTS.split("\n").index("                    tokens -= 1") + 1
    names = {s.name for s in index.locals_at(line)}
    assert {"p", "i", "q", "col"} <= names
