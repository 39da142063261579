"""The table in a real pseudo-terminal: a turn fits 80×24, NO_COLOR, options numbered in
the hand's order, typed word runs and `explain`. The screen is read with pyte, a terminal emulator."""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")]

from tests.support import ROOT  # noqa: E402
EXE = Path(sys.executable).parent / "rulesrun"
COLOUR_CODE = re.compile(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*38;[25];")


class Terminal:
    """rulesrun in a pseudo-terminal of the given size, with the screen kept by pyte."""

    def __init__(self, args, rows=24, cols=80, env=None):
        pexpect = pytest.importorskip("pexpect", reason="the terminal tests need pexpect (the dev extra)")
        pyte = pytest.importorskip("pyte", reason="the terminal tests read the screen with pyte (the dev extra)")
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.Stream(self.screen)
        self.raw = ""
        full_env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", **(env or {}))
        if env is None or "NO_COLOR" not in env:
            full_env.pop("NO_COLOR", None)
        for size in ("COLUMNS", "LINES"):      # the pseudo-terminal's own size, never one left by another test
            full_env.pop(size, None)
        self.child = pexpect.spawn(str(EXE), [str(a) for a in args], encoding="utf-8", timeout=60,
                                   dimensions=(rows, cols), env=full_env, cwd=str(ROOT))

    def expect(self, pattern):
        self.child.expect(pattern)
        text = self.child.before + self.child.after
        self.raw += text
        self.stream.feed(text)

    def prompt(self):
        self.expect("Player 1>")

    def send(self, line):
        self.child.sendline(line)

    def lines(self):
        return [line.rstrip() for line in self.screen.display]

    def close(self):
        self.child.close(force=True)


def test_a_magi_turn_fits_into_80_by_24():
    t = Terminal(["magi", "--players", "4", "--seed", "3", "--seats", "human,random,random,random"])
    try:
        for turn in range(10):
            t.prompt()
            screen = "\n".join(t.lines())
            assert "Magi — you are Player 1" in screen, screen       # the top of the table is still there
            assert "draw count:" in screen and "draw_count" not in screen, screen
            assert re.search(r"Player 1, .*:", screen), screen
            t.send("1")
    finally:
        t.close()


def test_eight_players_fit_too():
    t = Terminal(["magi", "--players", "8", "--seed", "3", "--seats", ",".join(["human"] + ["random"] * 7)])
    try:
        t.prompt()
        screen = "\n".join(t.lines())
        assert "Magi — you are Player 1" in screen and "Player 8" in screen, screen
    finally:
        t.close()


def test_no_color_in_a_terminal():
    args = ["magic_shop", "--players", "3", "--seed", "1", "--seats", "human,random,random"]
    t = Terminal(args)
    try:
        t.prompt()
        assert COLOUR_CODE.search(t.raw)
    finally:
        t.close()
    t = Terminal(args, env={"NO_COLOR": "1"})
    try:
        t.prompt()
        assert not COLOUR_CODE.search(t.raw)
        assert "your hand" in "\n".join(t.lines())
    finally:
        t.close()


def test_options_are_numbered_in_the_order_of_the_hand_on_screen():
    t = Terminal(["magic_shop", "--players", "4", "--seed", "3", "--seats", "human,random,random,random"],
                 rows=40, cols=120)
    try:
        t.prompt()
        screen = t.lines()
        hand_row = next(i for i, line in enumerate(screen) if line.startswith("your hand"))
        hand = re.findall(r"(?:Eye|Invisible|Door|Wine|Machine) \d", screen[hand_row])
        options = re.findall(r"\d+\. bid with ((?:Eye|Invisible|Door|Wine|Machine) \d)", "\n".join(screen))
        assert len(hand) == 10 and options == hand, screen
    finally:
        t.close()


def test_typed_word_runs_and_explain_at_the_table():
    t = Terminal(["magic_shop", "--players", "4", "--seed", "3", "--seats", "human,random,random,random"],
                 rows=40, cols=120)
    try:
        t.prompt()
        t.send("explain wine 5")
        t.expect("rank: 5")
        assert "suit: Wine" in t.raw
        t.send("EYE 0")                     # a run of words, in any case: 'bid with Eye 0'
        t.expect("place it:")
        t.send("down")                      # two options hold 'down': both listed with their numbers
        t.expect("type more of it, or its number")
        assert "face down, bidding 0" in t.raw and "face down, bidding 3" in t.raw and "could mean" in t.raw
        t.send("bidding 3")
        t.expect("places the Bid Card face down")
    finally:
        t.close()


def test_magis_card_to_match_is_shown_first_and_marked_on_one_line_at_80_by_24():
    t = Terminal(["magi", "--players", "4", "--seed", "3", "--seats", "human,random,random,random"])
    seen = 0
    try:
        for turn in range(8):
            t.prompt()
            lines = t.lines()
            pile = [line for line in lines if line.startswith("discard")]
            if pile:                   # (empty while the hands are set up)
                seen += 1
                line = pile[-1]
                assert re.match(r"discard +\S.* \(top\)", line) and len(line) <= 80, line
                assert lines[lines.index(line) + 1].startswith("players"), "\n".join(lines)   # not wrapped
            t.send("1")
    finally:
        t.close()
    assert seen
