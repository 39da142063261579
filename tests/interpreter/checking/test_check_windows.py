"""check's twin test over windows (``any q in players may:``): the window asks every seat, so a
twin dealt other cards is asked the same questions and the test compares (and passes); the same
window written by hand, asking only the seats that can act, is found out by whose turn it is."""
from __future__ import annotations

import io

from rulesrun.interpreter.checking import run_check

from tests.support import small_game

WINDOW = """
    flow:
        shuffle deck
        deal 4 from deck to hand
        repeat 2 times:
            any q in players may:
                c from q.hand where c.rank > 4 as "show":
                    move c to pile
                    announce "{q} shows {c}."
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
    score(p) = size(p.hand)
"""

ASKED_IF_ABLE = WINDOW.replace("""            any q in players may:
                c from q.hand where c.rank > 4 as "show":
                    move c to pile
                    announce "{q} shows {c}."
""", """            for q in players:
                if any(c in q.hand where c.rank > 4):
                    q chooses:
                        c from q.hand where c.rank > 4 as "show":
                            move c to pile
                            announce "{q} shows {c}."
                        "pass":
                            pass
""")


def check(tmp_path, text, **kw):
    path = tmp_path / "w.rules"
    path.write_text(text, encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    code = run_check(str(path), out=out, err=err, games=30, **kw)
    return code, out.getvalue()


def twin_line(out: str) -> str:
    return next(x for x in out.splitlines() if "dealt differently" in x)


def test_a_window_asks_a_twin_the_same_questions(tmp_path):
    code, out = check(tmp_path, small_game("Window", 3, WINDOW))
    assert code == 0, out
    line = twin_line(out)
    assert "steps compared)" in line and " 0 steps compared" not in line, line


def test_asking_only_the_seats_that_can_act_is_a_leak_the_twin_test_finds(tmp_path):
    assert ASKED_IF_ABLE != WINDOW
    code, out = check(tmp_path, small_game("Asked if able", 3, ASKED_IF_ABLE), allow_leaks=True)
    assert code == 1, out
    assert "FAILED: the same game with the cards a seat never saw dealt differently" in out
    assert "to_move" in out
