"""What a variant changes, in the rulebook's words: ``rulesrun doc`` of a variant file opens with
it, and ``rulesrun diff A B`` prints it for any two files of one game."""
from __future__ import annotations

import textwrap

from rulesrun.interpreter.authoring.rulebook import Rulebook
from rulesrun.interpreter.authoring.rulebook_render import to_markdown
from rulesrun.interpreter.cli.main import main

from tests.support import ROOT

HOUSE = ROOT / "examples" / "magi_house_rules.rules"

BASE = """\
game "Tiny"
players 2
const target = 3
cards:
    n: number
    {n: k} for k in [1, 2, 3]
zone deck: facedown
zone table: public
state total: number = 0
flow:
    shuffle deck
    repeat target times:
        total += 1
    # Show one card at the end.
    move top(deck) to table
    announce "total {total}"
"""


def _section(markdown: str) -> str:
    start = markdown.index("## What this variant changes")
    return markdown[start:markdown.index("\n## ", start + 5)]


def test_the_rulebook_of_a_variant_file_says_first_what_it_changes():
    md = to_markdown(Rulebook(str(HOUSE), players=4).blocks)
    section = _section(md)
    assert md.index("## What this variant changes") < md.index("## Components")
    assert "This game is Magi (`magi.rules`) with its variant catastrophe, changed as follows:" in section
    assert "- **game end (const)**: 50 → 30" in section
    assert "- **hexagram effects (const)**: [AGAIN, REVERSE, SHOOT, THROUGH, RESET, ORIGINAL] → " \
           "[AGAIN, REVERSE, SHOOT, THROUGH, RESET, ORIGINAL, DRAW]" in section
    assert "variants" not in section.split("changed as follows:")[1]    # catastrophe is said in words


def test_a_variant_files_rulebook_keeps_the_comments_of_both_files():
    md = to_markdown(Rulebook(str(HOUSE), players=4).blocks)
    assert "A shorter evening: the game ends when a player's total penalty reaches 30" in md   # its own
    assert "The Main phase" in md                                                            # the base's
    assert "DRAW cards stack (the Catastrophe variant)" in md.split("## What")[0]             # its about


def test_a_plain_files_rulebook_has_no_such_section():
    md = to_markdown(Rulebook(str(ROOT / "games" / "magi.rules"), players=4).blocks)
    assert "What this variant changes" not in md


def test_a_changed_procedure_is_told_step_by_step(tmp_path):
    (tmp_path / "base.rules").write_text(BASE)
    house = tmp_path / "house.rules"
    house.write_text(textwrap.dedent("""\
        extends "base.rules"
        replace flow:
            shuffle deck
            repeat target times:
                total += 2
            move top(deck) to table
            announce "total {total}"
        """))
    section = _section(to_markdown(Rulebook(str(house)).blocks) + "\n## end")
    assert "- **the 'flow:' block**:" in section
    assert "- 2.1. Add 1 to the total. → 2.1. Add 2 to the total." in section
    assert "Shuffle" not in section                  # unchanged steps are not listed


def test_diff_prints_what_the_second_file_changes(capsys):
    assert main(["diff", "magi", str(HOUSE)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("What ") and out.splitlines()[0].endswith("changes against " +
                                                                                     str(ROOT / "games" / "magi.rules") + ":")
    assert "  - game end (const): 50 → 30" in out
    assert "  - the title: Magi → Magi: a weeknight game" in out


def test_diff_of_a_file_with_itself_finds_nothing(capsys, tmp_path):
    (tmp_path / "base.rules").write_text(BASE)
    (tmp_path / "again.rules").write_text(BASE.replace("# Show one card at the end.", "#  a new comment"))
    assert main(["diff", str(tmp_path / "base.rules"), str(tmp_path / "again.rules")]) == 0
    assert "reads the same" in capsys.readouterr().out


def test_diff_tells_added_and_removed_declarations(capsys, tmp_path):
    (tmp_path / "base.rules").write_text(BASE)
    (tmp_path / "other.rules").write_text(BASE.replace("const target = 3\n", "const target = 3\nconst spare = 1\n")
                                          .replace("zone table: public\n", "zone table: public\nzone pile: hidden\n"))
    assert main(["diff", str(tmp_path / "base.rules"), str(tmp_path / "other.rules")]) == 0
    out = capsys.readouterr().out
    assert "  - spare (const), added: 1" in out
    assert "  - pile (zone), added: shared: nobody sees it" in out
    assert main(["diff", str(tmp_path / "other.rules"), str(tmp_path / "base.rules")]) == 0
    assert "  - spare (const), removed (it was: 1)" in capsys.readouterr().out


def test_diff_of_a_missing_file_is_a_message(capsys):
    assert main(["diff", "magi", "nowhere.rules"]) == 1
    assert "no such rules file or shipped game: nowhere.rules" in capsys.readouterr().err
