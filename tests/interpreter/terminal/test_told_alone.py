"""Private announcements at the terminal (people are told what happened to them): the
transcript shows a human the lines told to their seat alone and never another seat's — with one
human, as they happen; hot-seat, each player's own at their turn, after the pass screen; a replay
as seen by one seat, that seat's."""
from __future__ import annotations

import io

from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.records.record import make_record
from rulesrun.interpreter.terminal.repl import Repl, told_alone
from rulesrun.interpreter.terminal.replay import ReplayViewer
from tests.support import WHISPER
from tests.support import feed

RULES = WHISPER + '    for p in players:\n        p chooses x from [1, 2] as "done"\n'




def game_and_cards(seed=2):
    g = load_game_text(RULES, 3, path="whisper.rules")
    s = g.new_initial_state(seed=seed)
    return g, [s.cards("hand", p)[0] for p in range(3)]


def run(seats, lines, seed=2):
    g, cards = game_and_cards(seed)
    out = io.StringIO()
    repl = Repl(g, g.new_initial_state(seed=seed), seats, seed, out=out, readline=feed(lines))
    repl.run()
    return out.getvalue(), cards


def test_told_alone_is_the_seats_own_lines():
    g, cards = game_and_cards()
    s = g.new_initial_state(seed=2)
    assert told_alone(s, 1) == [f"You draw {cards[1]}."]


def test_one_human_reads_their_own_whisper_and_nobody_elses():
    out, cards = run(["human", "random", "random"], ["done 1"])
    assert f"You draw {cards[0]}." in out
    assert f"You draw {cards[1]}." not in out and f"You draw {cards[2]}." not in out
    assert "Player 2 draws a card." in out
    # the 'log' command too
    out, cards = run(["human", "random", "random"], ["log", "done 1"])
    assert out.count(f"You draw {cards[0]}.") >= 2 and f"You draw {cards[1]}." not in out


def test_bots_only_transcript_keeps_whispers_out():
    out, cards = run(["random", "random", "random"], [])
    assert "Player 1 draws a card." in out
    assert not any(f"You draw {c}." in out for c in cards)


def test_hot_seat_each_player_reads_theirs_after_the_pass_screen():
    out, cards = run(["human", "human", "random"], ["done 1", "", "done 2"])
    mine, theirs = f"You draw {cards[0]}.", f"(to you) You draw {cards[1]}."
    passed = out.index("Pass to Player 2")
    assert mine in out and out.index(mine) < passed
    assert theirs in out and out.index(theirs) > passed
    assert f"You draw {cards[2]}." not in out          # the bot's stays with the bot
    assert f"You draw {cards[1]}." not in out[:passed]   # never before Player 2 sits down


def test_a_replay_seen_by_a_seat_shows_its_whispers_only():
    g, cards = game_and_cards()
    s = g.new_initial_state(seed=2)
    for a in ("done 1", "done 2", "done 1"):
        s.apply_action(a)
    record = make_record(g, s, ["human", "random", "random"])
    out = io.StringIO()
    ReplayViewer(g, record, 1, out=out, readline=feed([])).run(to_end=True)
    text = out.getvalue()
    assert f"You draw {cards[1]}." in text and f"You draw {cards[0]}." not in text
    out = io.StringIO()
    ReplayViewer(g, record, None, out=out, readline=feed([])).run(to_end=True)
    assert all(f"(to Player {p + 1}) You draw {cards[p]}." in out.getvalue() for p in range(3))


def test_a_part_of_the_log_is_read_as_the_seat_reads_it():
    """The leak check and the OpenSpiel bridge read the log in parts (``log_since``): a private line
    is formatted without its seat, and only for that seat (a whisper of cards, like Gachapon's
    personal-pile draw, once crashed the twin leak test)."""
    from rulesrun.interpreter.checking.leaks import new_log
    from rulesrun.interpreter.runtime.observe import log_since
    g, cards = game_and_cards()
    s = g.new_initial_state(seed=2)
    for seat in (0, 1, 2, None):
        assert log_since(s, None, seat) == s.log(seat)
    assert new_log(s, None, 1) == s.log(1) and f"You draw {cards[0]}." not in new_log(s, None, 1)
    mark = s.ann
    s.apply_action("done 1")
    assert log_since(s, mark, 0) == []
    lists = RULES.replace('announce to p "You draw {top(p.hand)}."', 'announce to p "You hold {top(p.hand, 1)}."')
    g2 = load_game_text(lists, 3, path="whisper2.rules")
    s2 = g2.new_initial_state(seed=2)
    assert log_since(s2, None, 2) == s2.log(2) and f"You hold {s2.cards('hand', 2)[0]}." in s2.log(2)
