"""Variant files: a file that begins ``extends GAME`` holds only what it adds and replaces; merged
with its base it plays as one file, and its errors point at the file and line where they are."""
from __future__ import annotations

import textwrap

import pytest

from rulesrun import load_game
from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.dsl.syntax.format import format_text

BASE = """\
game "Tiny"
about "Count up to the target."
players 2
const target = 3
cards:
    n: number
    {n: k} for k in [1, 2, 3]
zone deck: facedown
state total: number = 0
define step() = 1
flow:
    repeat target times:
        total += step()
    announce "total {total}"
    score_it()
procedure score_it():
    announce "scored"
variant double:
    const target = 6
"""


def _files(tmp_path, variant: str, base: str = BASE, name: str = "house.rules"):
    (tmp_path / "base.rules").write_text(base)
    path = tmp_path / name
    path.write_text(textwrap.dedent(variant))
    return path


def _log(game) -> list:
    return game.new_initial_state(seed=1).log(everything=True)


def _error(path) -> RulesError:
    with pytest.raises(RulesError) as info:
        load_game(path)
    return info.value


def test_a_replaced_const_changes_the_game_and_the_rest_is_the_base(tmp_path):
    path = _files(tmp_path, """\
        extends "base.rules"
        replace const target = 5
        """)
    assert "total 5" in _log(load_game(path))
    assert "scored" in _log(load_game(path))
    assert "total 3" in _log(load_game(tmp_path / "base.rules"))


def test_a_variant_file_names_its_own_title_and_description(tmp_path):
    path = _files(tmp_path, """\
        extends "base.rules"
        game "Tiny, longer"
        about "Count to five."
        replace const target = 5
        """)
    prog = load_game(path).program
    assert (prog.title, prog.about) == ("Tiny, longer", "Count to five.")
    assert load_game(tmp_path / "base.rules").program.about == "Count up to the target."


def test_declarations_added_by_the_file_are_read_by_its_replacements(tmp_path):
    path = _files(tmp_path, """\
        extends "base.rules"
        const bonus = 10
        replace define step() = bonus
        """)
    assert "total 30" in _log(load_game(path))


def test_with_selects_a_base_variant_and_the_file_replaces_on_top_of_it(tmp_path):
    assert "total 6" in _log(load_game(_files(tmp_path, 'extends "base.rules" with double\n')))
    path = _files(tmp_path, """\
        extends "base.rules" with double
        replace define step() = 2
        """)
    assert "total 12" in _log(load_game(path))


def test_the_base_variants_and_the_files_own_stay_available(tmp_path):
    path = _files(tmp_path, """\
        extends "base.rules"
        variant tenfold described as "Ten at a step.":
            define step() = 10
        """)
    game = load_game(path)
    assert game.program.available_variants == ("double", "tenfold")
    assert "total 60" in _log(load_game(path, variants=["double", "tenfold"]))
    assert load_game(path, variants=["tenfold"]).program.display.variants == {"tenfold": "Ten at a step."}


def test_a_procedure_and_the_flow_are_replaced_like_any_declaration(tmp_path):
    path = _files(tmp_path, """\
        extends "base.rules"
        replace procedure score_it():
            announce "scored twice"
        """)
    assert "scored twice" in _log(load_game(path))
    path = _files(tmp_path, """\
        extends "base.rules"
        replace flow:
            announce "only this"
        """)
    assert _log(load_game(path))[-1] == "only this"


def test_a_variant_file_may_extend_another_variant_file(tmp_path):
    _files(tmp_path, 'extends "base.rules"\nreplace const target = 4\n', name="middle.rules")
    path = tmp_path / "top.rules"
    path.write_text('extends "middle.rules"\nreplace define step() = 2\n')
    assert "total 8" in _log(load_game(path))
    assert [p.rsplit("/", 1)[-1] for p, _ in load_game(path).program.files] == \
        ["base.rules", "middle.rules", "top.rules"]


def test_a_path_is_read_from_the_folder_of_the_variant_file(tmp_path, monkeypatch):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "base.rules").write_text(BASE)
    (tmp_path / "mine").mkdir()
    path = tmp_path / "mine" / "house.rules"
    path.write_text('extends "../games/base.rules"\nreplace const target = 2\n')
    monkeypatch.chdir("/")
    assert "total 2" in _log(load_game(path))


def test_a_shipped_game_is_extended_by_its_name():
    game = load_game("examples/magi_house_rules.rules", players=4)
    assert game.program.title == "Magi: a weeknight game"
    assert "catastrophe" not in game.program.available_variants      # chosen by the file itself
    assert game.program.files[0][0].endswith("magi.rules")


# ── errors: each names the file and line it is in ────────────────────────────────────────────────
def test_replacing_what_the_base_does_not_declare_is_an_error_with_a_did_you_mean(tmp_path):
    err = _error(_files(tmp_path, 'extends "base.rules"\nreplace const taget = 5\n'))
    assert (err.pos.file.endswith("house.rules"), err.pos.line) == (True, 2)
    assert "there is no const 'taget' in base.rules to replace" in err.message
    assert "did you mean 'target'?" in err.hint


def test_replacing_a_name_of_another_kind_says_what_the_base_declares(tmp_path):
    err = _error(_files(tmp_path, 'extends "base.rules"\nreplace define target() = 5\n'))
    assert "declares 'target' as a const" in err.hint


def test_declaring_again_what_the_base_declares_asks_for_replace(tmp_path):
    err = _error(_files(tmp_path, 'extends "base.rules"\n\nconst target = 5\n'))
    assert err.pos.line == 3 and "already declared in base.rules (base.rules line 4)" in err.message
    assert "write 'replace' before it" in err.hint


def test_an_error_in_the_variant_file_points_at_its_line(tmp_path):
    path = _files(tmp_path, 'extends "base.rules"\nreplace define step() = totl\n')
    err = _error(path)
    assert err.pos.file == str(path) and err.pos.line == 2
    assert str(err).splitlines()[1].strip() == "replace define step() = totl"


def test_an_error_in_the_base_points_at_the_base_and_shows_its_line(tmp_path):
    path = _files(tmp_path, 'extends "base.rules"\n', base=BASE.replace('"scored"', '"scored {nothing}"'))
    err = _error(path)
    assert err.pos.file.endswith("base.rules") and err.pos.line == 17
    assert 'announce "scored {nothing}"' in str(err)


def test_a_runtime_error_shows_the_line_of_the_file_it_is_in(tmp_path):
    path = _files(tmp_path, 'extends "base.rules"\nreplace define step() = 10 / (target - total - 3)\n')
    with pytest.raises(RulesRuntimeError) as info:
        load_game(path).new_initial_state(seed=1)
    assert info.value.pos.file == str(path) and info.value.pos.line == 2
    assert "replace define step() = 10 / (target - total - 3)" in str(info.value)


@pytest.mark.parametrize("text,message", [
    ('extends "nowhere.rules"\n', "there is no rules file"),
    ('extends tinyy\n', "there is no shipped game 'tinyy' to extend"),
    ('extends "base.rules" with doubel\n', "base.rules has no variant 'doubel'"),
    ('extends "base.rules" with double, double\n', "the variant 'double' is named twice"),
    ('const a = 1\nextends "base.rules"\n', "'extends' must come first"),
    ('extends "base.rules"\nextends "base.rules"\n', "extends one game only"),
    ('extends "house.rules"\n', "this file extends itself: house.rules → house.rules"),
    ('extends "base.rules"\nvariant double:\n    const target = 1\n', "already has a variant 'double'"),
    ('extends "base.rules"\nreplace variant double:\n    const target = 1\n', "a variant cannot be replaced"),
])
def test_a_faulty_variant_file_gets_a_message_at_its_line(tmp_path, text, message):
    err = _error(_files(tmp_path, text))
    assert message in err.message
    assert err.pos is not None and err.pos.file.endswith("house.rules")


def test_replace_outside_a_variant_file_is_an_error():
    with pytest.raises(RulesError) as info:
        from rulesrun import load_game_text
        load_game_text(BASE + "replace const target = 4\n", 2)
    assert "'replace' belongs in a variant file" in info.value.message


def test_fmt_lays_out_a_variant_file_without_reading_its_base():
    text = 'extends  nowhere   with a,b\nreplace   const x=1\nabout   "y"\n'
    assert format_text(text, "v.rules") == 'extends nowhere with a, b\nreplace const x = 1\nabout "y"\n'


def test_about_in_a_variant_block_points_to_described_as(tmp_path):
    err = _error(_files(tmp_path, 'extends "base.rules"\nvariant big:\n    about "Bigger."\n    const target = 9\n'))
    assert "'about' describes the whole game, not a variant" in err.message
    assert 'variant big described as "..."' in err.hint
