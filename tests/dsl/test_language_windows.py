"""Windows in which several seats may act (``any q in SOURCE [where COND] may:`` / ``each ...``):
every seat is asked in turn, with "pass" beside what it may take; with 'any' the first taker acts
and closes the window; 'where' skips seats by what everyone sees; the information-flow check
refuses a window, or a loop written by hand, whose asked seats depend on a secret."""
from __future__ import annotations

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter import load_game_text
from tests.support import TINY, tiny_game

# Deal one card each; then a window from Player 2: a seat holding a card above 2 may show it,
# anyone may "call"; then everyone may clap.
WINDOW = """
state shown_by: player = none
state claps: number = 0
flow:
    shuffle deck
    move top(deck) to (player 1).hand
    move top(deck) to (player 2).hand
    move top(deck) to (player 3).hand
    any q in players from player 2 may:
        c from q.hand where c.rank > 2 as "show":
            move c to pile
            shown_by = q
            announce "{q} shows {c}."
        "call":
            shown_by = q
            announce "{q} calls."
    each q in players where q != shown_by may:
        "clap":
            claps += 1
"""
# (the stack lists the deck from the top: Player 1 takes Red 1, Player 2 Red 2, Player 3 Red 3)
DECK = ["Red 1", "Red 2", "Red 3", "Red 4"] + [f"{s} {r}" for s in ("Green", "Blue") for r in range(1, 5)]


def play(game, actions=()):
    s = game.new_initial_state(seed=0, stack={"deck": DECK})
    for a in actions:
        assert a in [str(x) for x in s.legal_actions()], (a, [str(x) for x in s.legal_actions()])
        s.apply_action(a)
    return s


def asked(s) -> tuple:
    return s.current_player(), [str(a) for a in s.legal_actions()]


def test_every_seat_is_asked_in_turn_with_pass_beside_what_it_may_take():
    g = tiny_game(WINDOW, players=3, allow_leaks=False)
    s = play(g)
    # Player 2 holds Red 2 (not above 2): asked all the same, with only "call" and "pass"
    assert asked(s) == (1, ["call", "pass"])
    s.apply_action("pass")
    assert asked(s) == (2, ["show Red 3", "call", "pass"])     # Player 3 holds Red 3
    s.apply_action("pass")
    assert asked(s) == (0, ["call", "pass"])                   # round to Player 1, who holds Red 1
    s.apply_action("pass")
    assert s.var("shown_by") is None
    assert asked(s) == (0, ["clap", "pass"])                   # the next window: from Player 1


def test_the_first_taker_acts_and_nobody_after_them_is_asked():
    g = tiny_game(WINDOW, players=3, allow_leaks=False)
    s = play(g, ["pass", "show Red 3"])
    assert s.var("shown_by") == 2
    assert "Player 3 shows Red 3." in s.log()
    assert s.cards("pile") == ["Red 3"]
    # Player 1 was not asked: the 'each' window opens at once, and leaves out the taker (its 'where')
    assert asked(s) == (0, ["clap", "pass"])
    s.apply_action("clap")
    assert asked(s) == (1, ["clap", "pass"])
    s.apply_action("clap")
    assert s.is_terminal() and s.var("claps") == 2


def test_each_asks_every_seat_and_every_taker_acts():
    g = tiny_game(WINDOW, players=3, allow_leaks=False)
    s = play(g, ["call"])                              # Player 2 calls: the first window closes
    assert s.var("shown_by") == 1
    seats = []
    while not s.is_terminal():
        seats.append(s.current_player())
        s.apply_action("clap")
    assert seats == [0, 2] and s.var("claps") == 2


def test_the_window_is_one_decision_whose_label_is_the_same_for_every_seat():
    g = tiny_game(WINDOW, players=3, allow_leaks=False)
    s = play(g)
    labels = set()
    for _ in range(3):
        labels.add(s.observation(0)["decision"]["label"])
        s.apply_action("pass")
    assert labels == {"show"}


def test_a_window_may_not_offer_pass_itself():
    with pytest.raises(RulesError) as e:
        tiny_game("""
            flow:
                any q in players may:
                    "pass":
                        pass
            """, path="w.rules")
    assert e.value.pos.line == TINY.count("\n") + 4 and e.value.pos.column == 9
    assert 'a window offers "pass" itself' in str(e.value)


def test_a_window_whose_where_reads_a_hand_is_refused():
    with pytest.raises(RulesError) as e:
        tiny_game("""
            flow:
                deal 1 from deck to hand
                any q in players where any(c in q.hand where c.rank > 2) may:
                    "show":
                        pass
            """, path="w.rules", allow_leaks=False)
    assert e.value.pos.line == TINY.count("\n") + 4 and e.value.pos.column == 5
    assert "this window's 'where' reads the cards of each player's hand (owner)" in str(e.value)


def test_a_window_whose_options_read_the_asked_seats_hand_compiles():
    g = tiny_game("""
        flow:
            deal 1 from deck to hand
            any q in players may:
                "show" if any(c in q.hand where c.rank > 2):
                    reveal q.hand
                    announce "{q} shows {q.hand}."
        """, allow_leaks=False)
    assert g.program.decisions


HAND_WRITTEN = """
flow:
    deal 1 from deck to hand
    for q in players:
        if any(c in q.hand where c.rank > 2):
            q chooses:
                "show":
                    pass
                "pass":
                    pass
"""


def test_a_loop_that_asks_only_the_seats_holding_a_card_is_refused():
    """Whose turn it is tells the others who holds a high card."""
    with pytest.raises(RulesError) as e:
        tiny_game(HAND_WRITTEN, path="w.rules", allow_leaks=False)
    assert e.value.pos.line == TINY.count("\n") + 6 and e.value.pos.column == 13
    assert "which seats are asked here depends on the cards of each player's hand (owner)" in str(e.value)
    assert "a window" in e.value.hint


def test_a_branch_on_a_hand_whose_two_ways_ask_alike_compiles():
    """Hearts: the follower is asked "play" whether or not it holds the led suit."""
    g = tiny_game("""
        flow:
            deal 2 from deck to hand
            move top(deck) to pile
            for q in players:
                if any(c in q.hand where c.suit == top(pile).suit):
                    q chooses c from q.hand where c.suit == top(pile).suit as "play"
                else:
                    q chooses c from q.hand as "play"
                move c to pile
        """, allow_leaks=False)
    assert len(g.program.decisions) == 2


def test_a_window_asks_the_seats_of_any_list():
    g = load_game_text(TINY + """
flow:
    each q in [player 2, player 1] may:
        "wave":
            announce "{q} waves."
""", 2, path="w.rules")
    s = g.new_initial_state(seed=0)
    assert asked(s) == (1, ["wave", "pass"])
    s.apply_action("wave")
    assert asked(s) == (0, ["wave", "pass"])
