"""Playing choice blocks with several picks, picks of several values and moves whose text shows
values: `rulesrun check` (its twin and resampling tests), the bots' determinisation, the terminal."""
from __future__ import annotations

import io
import random

import pytest

from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.bots.agents import make_agent
from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.runtime.observe import resample
from rulesrun.interpreter.terminal.repl import Repl
from tests.support import feed, tiny_game

# Hanabi's shape: hands held facing out, a turn of play / discard / hint (a pair) / wait.
HINTS = """game "Hints"
players 2 to 3
kind Colour: Red, Green, Blue
cards:
    colour: Colour
    rank: number
    shown as "{colour} {rank}"
    2 x for colour in Colour, rank in 1 to 3
zone deck: facedown
zone played: public
zone discards: public
zone hand per player: others
state tokens: number = 2 from 0 to 8
flow:
    shuffle deck
    deal 3 from deck to hand
    repeat 3 times:
        for p in players:
            p chooses:
                i from 1 to size(p.hand) as "play":
                    move item(p.hand, i) to played
                    announce "{p} plays {top(played)}."
                i from 1 to size(p.hand) as "discard" if tokens < 8:
                    move item(p.hand, i) to discards
                    tokens += 1
                    announce "{p} discards {top(discards)}."
                q, col from players, Colour where q != p and any(c.colour == col for c in q.hand) as "hint {q} {col}" if tokens > 0:
                    tokens -= 1
                    reveal col
                    announce "{p} tells {q} about {col}."
                "wait with {tokens} tokens":
                    announce "{p} waits."
            if size(deck) > 0 and size(p.hand) < 3:
                move top(deck) to p.hand
    end game
"""


def check(text, tmp_path, **kw):
    path = tmp_path / "hints.rules"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    return run_check(str(path), games=6, out=out, err=err, coverage=False, **kw), out.getvalue() + err.getvalue()


def test_check_passes_every_property_of_a_turn_with_several_picks(tmp_path):
    code, report = check(HINTS, tmp_path)
    assert code == 0, report
    assert "the same game with the cards a seat never saw dealt differently" in report


def test_the_twin_test_finds_a_move_whose_text_shows_the_deciders_unseen_cards(tmp_path):
    leaky = HINTS.replace('"wait with {tokens} tokens":', '"wait holding {top(p.hand)}":')
    code, report = check(leaky, tmp_path, allow_leaks=True)
    assert code == 1 and "cannot see" in report


def test_resampling_keeps_the_options_of_a_tagged_block_and_bots_play_it_to_the_end():
    game = load_game_text(HINTS, 2, path="hints.rules")
    for seed in range(3):
        s = game.new_initial_state(seed=seed)
        bots = [make_agent("ismcts" if seed == 0 else "random", seed + k) for k in range(2)]
        while not s.is_terminal():
            seat = s.current_player()
            twin = resample(s, seat, random.Random(seed), redraw=True)
            assert [str(a) for a in twin.legal_actions()] == [str(a) for a in s.legal_actions()]
            s.apply_action(bots[seat].choose(s))
        assert s.log()


def test_the_terminal_takes_a_typed_hint_by_its_words():
    game = load_game_text(HINTS, 2, path="hints.rules")
    s = game.new_initial_state(seed=4)
    hint = next(str(a) for a in s.legal_actions() if str(a).startswith("hint"))
    words = hint[len("hint Player 2 "):].lower()            # "red", say: one hint of that colour
    out = io.StringIO()
    repl = Repl(game, s, ["human", "random"], 4, out=out, readline=feed([f"2 {words}", "quit"]))
    repl.run()
    assert f"Player 1 tells Player 2 about {hint.split()[-1]}." in out.getvalue()


def test_a_record_of_a_game_with_several_picks_replays_it(tmp_path):
    from rulesrun.interpreter.records.record import make_record, open_record, save_record
    rules = tmp_path / "hints.rules"
    rules.write_text(HINTS)
    game = load_game_text(HINTS, 2, path=str(rules))
    s = game.new_initial_state(seed=6)
    bots = [make_agent("random", 1), make_agent("random", 2)]
    while not s.is_terminal():
        s.apply_action(bots[s.current_player()].choose(s))
    path = tmp_path / "game.yaml"
    save_record(path, make_record(game, s, ["random", "random"]), rules)
    again, state, _ = open_record(path)
    assert state.history() == s.history() and state.returns() == s.returns() and state.log() == s.log()


def test_the_web_table_lists_every_branchs_options_and_a_card_click_plays_the_first_pick():
    pytest.importorskip("starlette", reason="the web table needs its extra")
    from rulesrun.interpreter.web.views import Display, frame
    game = tiny_game("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            player 1 chooses:
                c from player 1.hand as "play":
                    move c to pile
                c from player 1.hand as "discard":
                    move c to deck
                q from players as "ask {q}":
                    pass
            end game
    """)
    s = game.new_initial_state(seed=2)
    assert frame(s, 1, Display(game), {})["options"] == []
    view = frame(s, 0, Display(game), {})
    hand = s.cards("hand", 0)
    assert view["decision"] == "play" and view["options"] == [str(a) for a in s.legal_actions()]
    assert view["options"] == [f"play {c}" for c in hand] + [f"discard {c}" for c in hand] + \
        ["ask Player 1", "ask Player 2"]
    assert view["clickable"] == {c: f"play {c}" for c in hand}
