"""A table that keeps secrets: hot-seat undo takes back only the keyboard
seat's own decisions, the pass screen clears the scrollback, the seed is not shown while a human
plays and is drawn from the OS (62 bits), and undo can neither take back a draw that was seen nor
replay the shuffles that came after it — while records still replay exactly."""
from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

from rulesrun.interpreter import load_game, load_game_text
from rulesrun.interpreter.terminal.hotseat import CLEAR_SCROLLBACK
from rulesrun.interpreter.records.record import open_record
from rulesrun.interpreter.terminal.repl import Repl
from rulesrun.interpreter.terminal.replay import ReplayViewer
from tests.support import feed

EXE = Path(sys.executable).parent / "rulesrun"

DRAW = """
game "Draw"
players 2
cards:
    rank: number
    for rank in 1 to 20
zone deck: facedown
zone hand per player: owner
flow:
    shuffle deck
    repeat 3 times:
        for p in players:
            p chooses n from [1, 2] as "draw"
            repeat n times:
                move top(deck) to p.hand
"""

RESHUFFLE = """
game "Reshuffle"
players 2
cards:
    rank: number
    for rank in 1 to 20
zone deck: facedown
zone hand per player: owner
flow:
    repeat 3 times:
        for p in players:
            p chooses n from [1, 2] as "pick"
            shuffle deck
    for p in players:
        move top(deck) to p.hand
"""




def play(text, seats, seed, lines, interactive=None, folder=None):
    if folder is not None:            # a real file, which a record can name
        path = Path(folder) / "game.rules"
        path.write_text(text)
        game = load_game(path, 2)
    else:
        game = load_game_text(text, 2)
    out = io.StringIO()
    repl = Repl(game, game.new_initial_state(seed=seed), seats, seed, out=out, readline=feed(lines),
                interactive=interactive)
    code = repl.run()
    return repl, out.getvalue(), code


def test_hot_seat_undo_does_not_take_back_the_other_humans_decision():
    # Player 2 at the keyboard has decided nothing: undo must not go back to Player 1's decision
    # (it used to, and then showed Player 1's hand to Player 2 with no pass screen)
    repl, text, _ = play(DRAW, ["human", "human"], 4, ["draw 1", "", "undo", "quit"])
    after = text.split("Pass to Player 2")[-1]         # what Player 2 sees, undo and all
    assert "Nothing to undo" in after
    assert "you are Player 1" not in after
    assert len(repl.state.history()) == 1


def test_hot_seat_undo_refuses_when_another_human_decided_since():
    repl, text, _ = play(RESHUFFLE, ["human", "human"], 4, ["pick 1", "", "pick 2", "", "undo", "quit"])
    after = text.split("Pass to Player 1")[-1]
    assert "Cannot undo: Player 2 decided after your last decision" in after
    assert "you are Player 2" not in after
    assert repl.state.history() == ["pick 1", "pick 2"]


def test_undo_of_the_keyboard_seats_own_decision_stays_with_that_seat():
    repl, text, _ = play(RESHUFFLE, ["human", "random"], 4, ["pick 1", "undo", "quit"])
    assert "Undone: back before 'pick 1'." in text
    assert repl.state.history() == [] and repl.last_human == 0
    assert "Pass to" not in text


def test_the_pass_screen_clears_the_scrollback_too():
    _, text, _ = play(RESHUFFLE, ["human", "human"], 4, ["pick 1", "", "quit"], interactive=True)
    before_pass = text.split("Pass to Player 2")[0]
    assert CLEAR_SCROLLBACK in before_pass
    assert CLEAR_SCROLLBACK in text.split("Pass to Player 2")[1]     # and again once Player 2 is there


def test_undo_cannot_take_back_a_draw_from_a_face_down_pile():
    repl, text, _ = play(DRAW, ["human", "random"], 9, ["draw 1", "undo", "quit"])
    assert "Cannot undo: since that decision you have seen a card from a face-down pile" in text
    assert repl.state.history()[0] == "draw 1" and len(repl.state.history()) == 2


def test_after_undo_the_shuffles_to_come_are_new_and_the_record_still_replays(tmp_path):
    orders = set()
    for attempt in range(4):
        target = tmp_path / f"g{attempt}.yaml"
        repl, text, code = play(RESHUFFLE, ["human", "random"], 5,
                                ["pick 1", "undo", "pick 1", f"save {target}", "pick 1", "pick 1"],
                                folder=tmp_path)
        assert "Undone" in text and code == 0
        assert repl.reseeds and repl.reseeds[0][0] == 0
        _, saved, record = open_record(target)            # the record replays to where it was saved
        assert record["reseeds"] == repl.reseeds
        assert saved.history() == ["pick 1", saved.history()[1]]
        orders.add(tuple(saved.cards("deck")))
        # the viewer replays the whole game as it was played
        viewer = ReplayViewer(saved.game, record, None, out=io.StringIO(), readline=feed([]))
        assert viewer.state_at(len(record["actions"])).cards("deck") == saved.cards("deck")
    # without the fresh seed, the same decision after undo gives the same shuffle every time
    plain = load_game_text(RESHUFFLE, 2).replay(5, ["pick 1"]).cards("deck")
    assert len(orders) > 1 or plain not in orders


def test_the_seed_is_not_shown_while_a_human_plays_but_is_at_the_end():
    seed = 987654321987
    _, text, code = play(RESHUFFLE, ["human", "random"], seed, ["1"] * 10)
    assert code == 0 and "Final scores" in text
    during, end = text.split("Final scores")
    assert str(seed) not in during
    assert f"The seed was {seed}" in end
    _, text, _ = play(RESHUFFLE, ["random", "random"], seed, [])
    assert f"seed {seed}" in text.split("\n")[0]                # bots only: nothing to hide


def test_default_seeds_have_62_bits_from_the_os(tmp_path):
    game = load_game_text(RESHUFFLE, 2)
    seeds = {game.new_initial_state().seed for _ in range(8)}
    assert len(seeds) == 8 and max(seeds) >= 2 ** 40 and max(seeds) < 2 ** 62
    path = tmp_path / "r.rules"
    path.write_text(RESHUFFLE)
    r = subprocess.run([str(EXE), str(path), "--seats", "random,random"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    shown = int(re.search(r"seed (\d+)", r.stdout).group(1))
    assert shown >= 2 ** 31          # was randrange(1_000_000): a million decks to try


def test_reseed_changes_only_the_chance_to_come_and_replay_applies_it_at_the_same_point():
    game = load_game_text(RESHUFFLE, 2)
    live = game.new_initial_state(seed=11)
    live.apply_action("pick 1")
    before = live.cards("deck")
    live.reseed(12345)
    assert live.cards("deck") == before                 # what has happened stays
    for a in ["pick 2", "pick 1"]:
        live.apply_action(a)
    plain = game.replay(11, ["pick 1", "pick 2", "pick 1"])
    assert plain.cards("deck") != live.cards("deck")    # the shuffles after it are new
    again = game.replay(11, ["pick 1", "pick 2", "pick 1"], reseeds={1: 12345})
    assert again == live                                # and a replay with the reseed is the same game
    end = game.replay(11, ["pick 1"], reseeds={1: 12345})
    assert end.rng == 12345                             # a reseed after the last action applies too
