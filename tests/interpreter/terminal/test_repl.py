"""The terminal game: piped play of every shipped game, what a seat may and may not see, hot-seat,
undo, save and load, replay, and one end-to-end game per shipped game in a real pseudo-terminal."""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from rulesrun.interpreter import load_game
from rulesrun.interpreter.records.record import RecordError, make_record, open_record, save_record
from rulesrun.interpreter.terminal.repl import Repl

from tests.support import ROOT  # noqa: E402
from tests.support import feed
GAMES = sorted((ROOT / "games").glob("*.rules"))
MAGIC = ROOT / "games" / "magic_shop.rules"
EXE = Path(sys.executable).parent / "rulesrun"


def fewest_players(path: Path) -> int:
    from rulesrun.dsl import parse_file
    from rulesrun.dsl.syntax.ast import PlayersDecl
    decl = next(i for i in parse_file(path).items if isinstance(i, PlayersDecl))
    return decl.low




def run_repl(game, seats, seed, lines):
    out = io.StringIO()
    state = game.new_initial_state(seed=seed)
    repl = Repl(game, state, seats, seed, out=out, readline=feed(lines))
    code = repl.run()
    return repl, out.getvalue(), code


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
@pytest.mark.slow
def test_piped_input_plays_each_shipped_game_to_the_end(path):
    n = fewest_players(path)
    r = subprocess.run([str(EXE), str(path), "--players", str(n), "--seed", "4"], input="1\n" * 20000,
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "Final scores:" in r.stdout
    assert "Traceback" not in r.stderr


def test_a_seat_never_sees_another_seats_hand():
    game = load_game(MAGIC, players=4)
    state = game.new_initial_state(seed=21)
    others = {c for seat in (1, 2, 3) for c in state.cards("hand", seat)}
    mine = state.cards("hand", 0)
    _, text, _ = run_repl(game, ["human", "random", "random", "random"], 21, ["quit"])
    for card in others:
        assert card not in text
    for card in mine:
        assert card in text


def test_hot_seat_hides_each_hand_behind_a_pass_screen():
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=5)
    hand1, hand2 = state.cards("hand", 0), state.cards("hand", 1)
    lines = ["1", "place it face up",         # Player 1 bids
             "",                              # the pass screen for Player 2
             "1", "place it face up", "quit"]
    _, text, _ = run_repl(game, ["human", "human", "random"], 5, lines)
    before, after = text.split("Pass to Player 2", 1)
    assert all(card in before for card in hand1)
    assert not any(card in before for card in hand2)
    view2 = after.split("Player 2, bid with:")[0]
    assert "you are Player 2" in view2
    assert all(card in view2 for card in hand2)
    assert not any(card in view2 for card in hand1)


def test_undo_goes_back_to_the_humans_previous_decision():
    game = load_game(MAGIC, players=3)
    repl, text, _ = run_repl(game, ["human", "random", "random"], 8,
                             ["1", "place it face up", "undo", "state", "quit"])
    assert "Undone: back before 'place it face up'." in text
    assert repl.state.decision_label() == "place it"
    assert len(repl.state.history()) == 1


def test_undo_with_nothing_to_undo():
    game = load_game(MAGIC, players=3)
    _, text, _ = run_repl(game, ["human", "random", "random"], 8, ["undo", "quit"])
    assert "Nothing to undo" in text


def test_save_and_load_resume_exactly(tmp_path):
    game = load_game(MAGIC, players=4)
    target = tmp_path / "game.yaml"
    repl, text, _ = run_repl(game, ["human", "random", "random", "random"], 13,
                             ["2", "place it face down, bidding 3", "1", f"save {target}", "quit"])
    assert f"Saved to {target}" in text
    record = yaml.safe_load(target.read_text())
    assert record["format"] == "rulesrun-record/1" and record["seed"] == 13 and record["players"] == 4
    assert record["seats"] == ["human", "random", "random", "random"]
    game2, state2, _ = open_record(target)
    assert state2 == repl.state
    # loading at the prompt carries on from the saved position
    other, text2, _ = run_repl(game, ["human", "random", "random", "random"], 99, [f"load {target}", "quit"])
    assert f"Loaded {target}" in text2
    assert other.state == repl.state


def test_resume_from_the_command_line(tmp_path):
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=2)
    for _ in range(7):
        state.apply_action(state.legal_actions()[0])
    target = tmp_path / "mid.yaml"
    save_record(target, make_record(game, state, ["human", "random", "random"]))
    r = subprocess.run([str(EXE), "--load", str(target), "--seats", "random,random,random"], capture_output=True,
                       text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Resuming" in r.stdout and "7 decisions in" in r.stdout and "Final scores:" in r.stdout


@pytest.mark.parametrize("content, message", [
    (None, "no such saved game"),
    ("a: [1, 2\nb: {", "not a readable saved game"),
    ("format: something/1\n", "is not a rulesrun saved game"),
    ("format: rulesrun-record/1\nrules: games/magic_shop.rules\nplayers: 4\nseed: 1\n", "'actions' is missing"),
])
def test_bad_save_files_get_clear_messages(tmp_path, content, message):
    target = tmp_path / "bad.yaml"
    if content is not None:
        target.write_text(content)
    with pytest.raises(RecordError) as e:
        open_record(target)
    assert message in str(e.value)
    game = load_game(MAGIC, players=3)
    repl, text, _ = run_repl(game, ["human", "random", "random"], 1, [f"load {target}", "quit"])
    assert message in text and "the game goes on" in text
    r = subprocess.run([str(EXE), "--load", str(target)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and message in r.stderr and "Traceback" not in r.stderr


def test_a_record_whose_rules_changed_is_refused(tmp_path):
    rules = tmp_path / "shop.rules"
    shutil.copy(MAGIC, rules)
    game = load_game(rules, players=3)
    state = game.new_initial_state(seed=3)
    state.apply_action(state.legal_actions()[0])
    target = tmp_path / "g.yaml"
    save_record(target, make_record(game, state, ["human", "random", "random"]))
    rules.write_text(rules.read_text().replace("const rounds = 3", "const rounds = 2"))
    with pytest.raises(RecordError) as e:
        open_record(target)
    assert "has changed since this game was saved" in str(e.value)


@pytest.mark.slow
def test_replay_steps_through_a_record(tmp_path):
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=6)
    for _ in range(12):
        state.apply_action(state.legal_actions()[-1])
    target = tmp_path / "r.yaml"
    save_record(target, make_record(game, state, ["random"] * 3))
    r = subprocess.run([str(EXE), "replay", str(target)], input="n\nn\nb\nj 12\nj 99\nend\nq\n",
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "step 1/12" in r.stdout and "step 2/12" in r.stdout and "step 12/12" in r.stdout
    assert "jump to a step from 0 to 12" in r.stdout
    # one seat's view hides the others' decisions and hands
    r = subprocess.run([str(EXE), "replay", str(target), "--seat", "2", "--to-end"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0
    assert "step 1/12: Player 1: decides" in r.stdout
    for card in game.new_initial_state(seed=6).cards("hand", 0):
        assert card not in r.stdout.split("step 1/12")[0]
    r = subprocess.run([str(EXE), "replay", str(target), "--seat", "7"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "--seat takes a player from 1 to 3" in r.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
@pytest.mark.slow
def test_end_to_end_in_a_real_terminal(path):
    pexpect = pytest.importorskip("pexpect")
    n = fewest_players(path)
    env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(str(EXE), [str(path), "--players", str(n), "--seed", "2"], encoding="utf-8",
                          timeout=60, dimensions=(50, 140), env=env, cwd=str(ROOT))
    prompts = 0
    try:
        while True:
            i = child.expect([r"Player 1>", "Final scores", pexpect.EOF])
            if i != 0:
                break
            prompts += 1
            child.sendline("help" if prompts == 1 else "1")
    finally:
        child.close(force=True)
    assert i == 1, child.before[-2000:]
    assert prompts > 1


def test_rules_at_the_prompt_are_rendered_not_raw_markdown():
    from rulesrun.interpreter import load_game
    game = load_game(ROOT / "games" / "gachapon.rules", players=2)
    repl, out, _ = run_repl(game, ["human", "random"], 3, ["rules", "quit"])
    assert "Components" in out and "Gachapon Trick" in out
    assert not any(line.lstrip().startswith(("# ", "## ", "- **", "> *")) for line in out.splitlines())
    assert "**" not in out


def test_the_all_seeing_replay_shows_names_and_no_bookkeeping(tmp_path):
    """`rulesrun replay` without --seat: values as the seats' views show them ("start: Player 3",
    not an index), no hidden bookkeeping flags, no "you" — and every hand laid out."""
    from rulesrun.interpreter import load_game
    from rulesrun.interpreter.records.record import make_record, save_record
    game = load_game(ROOT / "games" / "magi.rules", players=4)
    state = game.new_initial_state(seed=3)
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    path = tmp_path / "g.yaml"
    save_record(path, make_record(game, state, ["human", "random", "random", "random"]))
    r = subprocess.run([str(EXE), "replay", str(path), "--to-end"], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "every seat's view" in r.stdout and "start: Player " in r.stdout
    assert "you are" not in r.stdout and "(you)" not in r.stdout and "your hand" not in r.stdout
    assert "again:" not in r.stdout and "turn over:" not in r.stdout and "7 cards" not in r.stdout
