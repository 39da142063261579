"""The web table and windows (``any q in players may:``): each seat in turn is asked, with "pass"
among its moves — a seat that can take nothing too, so the table tells no one who could act —
and a taker closes the window for the seats after it."""
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")

from rulesrun.interpreter import load_game_text  # noqa: E402
from rulesrun.interpreter.web.table import Table  # noqa: E402

from tests.interpreter.checking.test_check_windows import WINDOW  # noqa: E402
from tests.support import small_game  # noqa: E402


def _table(seed):
    game = load_game_text(small_game("Window", 3, WINDOW), 3)
    return Table("t1", game, ["human"] * 3, seed=seed)


def _able(t, seat):
    return any(int(card.split()[-1]) > 4 for card in t.frame(seat)["mine"]["hand"])   # ("Red 5")


def test_every_seat_is_asked_in_turn_with_pass_whether_or_not_it_can_act():
    asked_unable = 0
    for seed in range(12):
        t = _table(seed)
        for seat in range(3):
            f = t.frame(seat)
            assert f["to_move"] == seat and f["decision"] == "show", f
            assert "pass" in f["options"]
            others = [t.frame(s) for s in range(3) if s != seat]
            assert all(o["options"] == [] and o["to_move"] == seat for o in others)
            asked_unable += not _able(t, seat)
            assert (len(f["options"]) > 1) == _able(t, seat)
            t.move(seat, "pass", t.step)
        assert t.frame(0)["decision"] == "play"      # the window closed: the turns begin
    assert asked_unable, "no seed dealt a seat that could take nothing"


def test_the_first_taker_closes_the_window():
    for seed in range(20):
        t = _table(seed)
        if len(t.frame(0)["options"]) > 1:
            break
    show = next(o for o in t.frame(0)["options"] if o != "pass")
    t.move(0, show, t.step)
    assert any(" shows " in line for line in t.state.log())
    assert t.frame(0)["to_move"] == 0 and t.frame(0)["decision"] == "play"     # seats 2 and 3 not asked
    assert t.frame(1)["options"] == [] and t.frame(2)["options"] == []
