"""The web table and simultaneous choices: every seat whose choice of an open 'at once' block is
waiting is asked at once and may answer in any order; the table keeps the answers and applies them
in the engine's order, and no frame shows a seat another's answer before every seat has chosen."""
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from rulesrun.interpreter import load_game  # noqa: E402
from rulesrun.interpreter.web.table import Refused, Table  # noqa: E402

from tests.support import ROOT  # noqa: E402


def _table(players=3, seats=None):
    game = load_game(ROOT / "examples/goofspiel.rules", players=players, params={"cards_per_suit": 4})
    return Table("t1", game, seats or ["human"] * players, seed=5)


def test_every_seat_is_asked_at_once_and_may_answer_in_any_order():
    t = _table()
    frames = [t.frame(p) for p in range(3)]
    assert all(f["asked"] and f["decision"] == "bid" and len(f["options"]) == 4 for f in frames)
    assert frames[0]["to_move"] == 0
    step = t.step
    t.move(2, frames[2]["options"][3], step)          # the last seat first: kept, not applied
    assert t.step == step and t.frame(2)["asked"] is False and t.frame(2)["options"] == []
    answered = t.frame(2)
    t.move(1, frames[1]["options"][0], step)
    assert t.step == step
    # nobody's frame changed with another's answer: the first seat's is as it was, the last seat's too
    assert t.frame(0) == frames[0] and t.frame(2) == answered
    t.move(0, frames[0]["options"][2], step)          # the first seat: all three applied, in seat order
    assert t.step == step + 3
    assert t.state.history()[-3:] == [frames[0]["options"][2], frames[1]["options"][0], frames[2]["options"][3]]
    bids = [line for line in t.state.log() if " bids " in line]
    assert bids == [f"Player {p + 1} bids {o[len('bid '):]}." for p, o in
                    enumerate([frames[0]["options"][2], frames[1]["options"][0], frames[2]["options"][3]])]


def test_an_answer_is_checked_against_the_seats_own_options():
    t = _table()
    with pytest.raises(Refused, match="not one of your legal moves"):
        t.move(1, "bid 4 of Clubs", t.step)            # Player 1's card, not Player 2's
    with pytest.raises(Refused, match="not your turn"):
        t.move(1, "bid 4 of Hearts", t.step + 5)       # a step the table has not reached


def test_a_bot_ahead_in_the_order_lets_the_answers_kept_behind_it_through():
    t = _table(players=2, seats=["random", "human"])
    f = t.frame(1)
    assert f["asked"] and f["to_move"] == 0
    t.move(1, f["options"][1], t.step)                 # the person answers before the bot
    assert t.step == 0 and t.bot_to_move() == 0
    assert t.bot_move(0, t.bot_choice(0), t.version)
    assert t.step == 2 and t.state.history()[1] == f["options"][1]
