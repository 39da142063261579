"""Forced moves at the terminal: a decision with one legal option is played for the human without
asking and said in one line, unless --ask-always; a bot's forced move is told as the only move, not
as a choice; undo goes back past a forced move to the human's last real choice; hot-seat, the
forced move still comes after the pass screen (its absence would tell the others there was no choice)."""
from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.terminal.repl import Repl
from tests.support import feed

# Each player draws (one option: the only move), then keeps 1 or 2 (a real choice); twice round.
ROUND = '    for p in players:\n        p chooses x from [1] as "draw"\n        p chooses y from [1, 2] as "keep"\n'
RULES = 'game "Forced"\nplayers 2\nkind Suit: Red\ncards:\n    suit: Suit\n    for suit in Suit\n' \
        'zone deck: public\nflow:\n' + ROUND + ROUND
EXE = Path(sys.executable).parent / "rulesrun"


def play(seats, lines, **options):
    game = load_game_text(RULES, 2, path="forced.rules")
    out = io.StringIO()
    repl = Repl(game, game.new_initial_state(seed=1), seats, 1, out=out, readline=feed(lines), **options)
    code = repl.run()
    return repl, out.getvalue(), code


def test_a_decision_with_one_option_is_played_and_said_in_one_line():
    repl, out, code = play(["human", "random"], ["keep 2", "keep 1"])
    assert code == 0, out
    assert out.count("You: draw 1 — the only move") == 2, out
    assert "Player 1, draw:" not in out and "Player 1, keep:" in out
    assert [a for a in repl.state.history()][:2] == ["draw 1", "keep 2"]


def test_ask_always_asks_a_decision_with_one_option():
    repl, out, _ = play(["human", "random"], ["1", "keep 2", "quit"], ask_always=True)
    assert "Player 1, draw:" in out and "the only move" not in out
    assert repl.state.history()[:2] == ["draw 1", "keep 2"]


def test_a_bots_forced_move_is_told_as_the_only_move():
    _, out, _ = play(["random", "random"], [])
    assert out.count("Player 1: draw 1 — the only move") == 2 and "Player 2: draw 1 — the only move" in out
    assert "Player 1: keep " in out and "keep 1 — the only move" not in out and "keep 2 — the only move" not in out


def test_undo_goes_back_past_a_forced_move_to_the_last_choice():
    repl, out, _ = play(["human", "random"], ["keep 2", "undo", "quit"])
    assert "Undone: back before 'keep 2'." in out, out
    assert repl.state.history() == ["draw 1"] and repl.state.decision_label() == "keep"


def test_undo_of_forced_moves_alone_has_nothing_to_undo():
    _, out, _ = play(["human", "random"], ["undo", "quit"])
    assert "Nothing to undo" in out


def test_hot_seat_plays_the_forced_move_after_the_pass_screen():
    _, out, _ = play(["human", "human"], ["keep 1", "", "quit"])
    passed = out.index("Pass to Player 2")
    assert out.index("Player 2: draw 1 — the only move") > passed


def test_the_command_line_takes_ask_always(tmp_path):
    rules = tmp_path / "forced.rules"
    rules.write_text(RULES)
    base = [str(EXE), str(rules), "--seats", "human,random", "--seed", "1"]
    asked = subprocess.run(base + ["--ask-always"], input="1\nquit\n", capture_output=True, text=True, timeout=60)
    assert "Player 1, draw:" in asked.stdout and "Traceback" not in asked.stderr, asked.stderr
    played = subprocess.run(base, input="quit\n", capture_output=True, text=True, timeout=60)
    assert "You: draw 1 — the only move" in played.stdout and "Player 1, draw:" not in played.stdout
