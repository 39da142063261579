"""A rules file cannot drive the terminal. First line: the parser refuses a
file with control or bidi characters (tests/dsl/syntax/test_large_rules.py). Second line, tested here with
that check turned off: such characters in a program's texts (title, card names, labels,
announcements, the source line of an error) are shown as visible escapes on every output path,
and rich's markup and emoji codes never apply to them."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.dsl import RulesError
from rulesrun.dsl.errors import Pos, safe_text
from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.terminal.repl import Repl

EXE = Path(sys.executable).parent / "rulesrun"
ESC, BEL, CSI1, RLO = "\x1b", "\x07", "\x9b", "\u202e"
# any of these reaching the output as itself is the bug (the output's own ANSI colours are off here)
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

HOSTILE = f"""
game "T{ESC}]0;pwned{BEL}itle{RLO}"
players 2
cards:
    name: text
    shown as "{{name}}"
    {{name: "C{ESC}[2Jard :smile: [bold]x[/bold]"}}
    {{name: "Other{CSI1}31m"}}
zone deck: facedown
zone hand per player: owner
flow:
    shuffle deck
    deal 1 from deck to hand
    for p in players:
        p chooses c from p.hand as "pl{ESC}[8may"
        announce "{{p}} says {ESC}[31mred{RLO} :smile: [blink]hi[/blink] {{c}}"
"""


@pytest.fixture
def unchecked(monkeypatch):
    """The parser's refusal of control characters off: the output paths must hold on their own."""
    from rulesrun.dsl.syntax import parser
    monkeypatch.setattr(parser, "_check_text", lambda source, path: None)


def test_safe_text_escapes_c0_del_c1_and_bidi_and_keeps_plain_text():
    assert safe_text("a\x1b[2Jb\x7fc\x9bd\u202ee\u2066f") == "a\\x1b[2Jb\\x7fc\\x9bd\\u202ee\\u2066f"
    assert safe_text("tab\there\nnl") == "tab\\x09here\\x0anl"
    assert safe_text("tab\there\nnl", lines=True) == "tab\there\nnl"
    assert safe_text("Ünïcødé — ♠ 9 of Hearts") == "Ünïcødé — ♠ 9 of Hearts"


def test_error_rendering_escapes_message_source_line_and_hint_and_keeps_the_caret():
    src = f"x{ESC}[2Jy = 1{RLO}\n"
    err = RulesError(f"unknown name 'y{ESC}'", Pos("f.rules", 1, 8), hint=f"did you mean {RLO}?", source=src)
    text = err.render()
    assert not RAW.search(text), repr(text)
    line, caret = text.split("\n")[1:3]
    # the caret still stands under the 8th character of the source, which escapes widened
    assert line[caret.index("^")] == "="


def test_every_repl_output_path_escapes_the_files_texts(unchecked):
    game = load_game_text(HOSTILE, 2, allow_leaks=True)   # it announces the card played from a hand
    out = io.StringIO()
    lines = iter(["state", "log", "help", "1", "", "log 5", "1"])
    repl = Repl(game, game.new_initial_state(seed=3), ["human", "human"], 3, out=out,
                readline=lambda: next(lines))
    assert repl.run() == 0
    text = out.getvalue()
    assert not RAW.search(text), [m.group() for m in RAW.finditer(text)]
    assert "\\x1b]0;pwned" in text and "\\u202e" in text          # shown, not obeyed
    assert ":smile:" in text and "[blink]hi[/blink]" in text        # no emoji, no markup
    assert "\U0001f604" not in text


def test_emoji_and_markup_stay_literal_on_a_terminal_console(unchecked):
    game = load_game_text(HOSTILE, 2, allow_leaks=True)   # it announces the card played from a hand
    out = io.StringIO()
    lines = iter(["1", "", "1"])
    repl = Repl(game, game.new_initial_state(seed=3), ["human", "human"], 3, out=out,
                readline=lambda: next(lines), interactive=True)
    repl.tty = False        # a colour console, but no pass screen to wait on
    repl.run()
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())   # rich's own colours go; nothing else may
    assert not RAW.search(text), [m.group() for m in RAW.finditer(text)]
    assert ":smile:" in text and "\U0001f604" not in text


@pytest.mark.parametrize("command", [["compile"], ["play", "--seats", "random,random", "--seed", "1"],
                                     ["simulate", "--games", "2", "--jobs", "1", "--quiet"],
                                     ["simulate", "--games", "2", "--jobs", "1", "--quiet", "--markdown"]])
def test_command_line_refuses_a_file_with_control_characters_and_echoes_none(tmp_path, command):
    path = tmp_path / "hostile.rules"
    path.write_text(HOSTILE, encoding="utf-8")
    cmd = [str(EXE), command[0], str(path), *command[1:]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    # the file is refused, with the place of the first control character; nothing raw is echoed
    assert r.returncode != 0 and "unexpected character U+001B" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    assert not RAW.search(r.stdout + r.stderr), repr(r.stdout + r.stderr)


def test_an_error_in_a_hostile_file_is_escaped_on_the_command_line(tmp_path):
    path = tmp_path / "bad.rules"
    path.write_text(f'game "x"\nplayers 2\nflow:\n    announce "{ESC}[2J{RLO}" + nosuch{ESC}\n', encoding="utf-8")
    r = subprocess.run([str(EXE), "compile", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "error" in r.stderr and "Traceback" not in r.stderr
    assert not RAW.search(r.stderr), repr(r.stderr)
