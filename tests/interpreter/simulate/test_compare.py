"""``rulesrun simulate A --compare B``: both played on the same seeds with the same seats, each
difference with its 95% interval, and only what holds beyond noise marked so."""
from __future__ import annotations

import json
import textwrap

import pytest

from rulesrun.interpreter.cli.main import main
from rulesrun.interpreter.simulate.compare import clustered, holm, paired
from rulesrun.interpreter.simulate.summary import wilson

# Each player is dealt one card of 1 to 6 and may keep it or take the next card of the deck; the
# highest card wins.
BASE = textwrap.dedent("""\
    game "High card"
    players 2
    cards:
        rank: number
        {rank: r} for r in 1 to 6
    zone deck: facedown
    zone spare: facedown
    zone hand per player: owner
    player state bonus: number = 0
    flow:
        shuffle deck
        deal 1 from deck to hand
        for p in players:
            p chooses keep from [yes, no] as "keep your card?"
            if not keep:
                move p.hand to spare
                move top(deck) to p.hand
        set_bonus()
    procedure set_bonus():
        pass
    define points(p) = sum(c.rank for c in p.hand) + p.bonus
    score(p) = points(p)
    winners p by highest points(p)
    """)


def _files(tmp_path, **variants):
    (tmp_path / "base.rules").write_text(BASE)
    for name, text in variants.items():
        (tmp_path / f"{name}.rules").write_text('extends "base.rules"\n' + textwrap.dedent(text))
    return tmp_path


def _compare(tmp_path, a, b, games=300, extra=()):
    out = tmp_path / "cmp.json"
    code = main(["simulate", str(tmp_path / a), "--compare", str(tmp_path / b), "--games", str(games), "-q",
                 "--jobs", "1", "--json", str(out), *extra])
    assert code == 0
    return json.loads(out.read_text())


def _line(report, section, name):
    return next(ln for ln in report["comparison"]["lines"] if ln["section"] == section and ln["name"] == name)


def test_a_file_compared_with_itself_differs_in_nothing(tmp_path, capsys):
    _files(tmp_path)
    report = _compare(tmp_path, "base.rules", "base.rules")
    assert report["comparison"]["beyond"] == 0
    assert all(ln["diff"] == 0 for ln in report["comparison"]["lines"] if ln["diff"] is not None)
    assert "No difference is beyond noise" in capsys.readouterr().out


def test_a_change_that_only_changes_the_deals_is_called_noise(tmp_path):
    # another shuffle before the deal: other cards for every game, the same odds for every seat
    _files(tmp_path, reshuffled="""\
        replace procedure set_bonus():
            shuffle spare
        replace flow:
            shuffle deck
            shuffle deck
            deal 1 from deck to hand
            for p in players:
                p chooses keep from [yes, no] as "keep your card?"
                if not keep:
                    move p.hand to spare
                    move top(deck) to p.hand
            set_bonus()
        """)
    report = _compare(tmp_path, "base.rules", "reshuffled.rules")
    lines = report["comparison"]["lines"]
    assert any(ln["diff"] not in (0, None) for ln in lines)         # the games did differ ...
    assert report["comparison"]["beyond"] == 0                      # ... by noise only
    assert report["comparison"]["compared"] >= 8


def test_a_rule_that_favours_one_seat_is_found(tmp_path, capsys):
    _files(tmp_path, favour="""\
        replace procedure set_bonus():
            (player 1).bonus = 3
        """)
    report = _compare(tmp_path, "base.rules", "favour.rules")
    wins = _line(report, "wins", "Player 1")
    assert wins["beyond"] and wins["diff"] > 0.2 and wins["low"] > 0
    assert _line(report, "wins", "Player 2")["beyond"]
    out = capsys.readouterr().out
    assert "beyond noise: wins of Player 1 +" in " ".join(out.split())


def test_both_runs_use_the_same_seeds_and_seats(tmp_path):
    _files(tmp_path)
    report = _compare(tmp_path, "base.rules", "base.rules", games=30, extra=["--seats", "greedy,random", "--seed", "9"])
    assert report["seats"] == ["greedy", "random"] and report["seed"] == 9 and report["games"] == 30
    a, b = report["summaries"]
    assert a["seats"] == b["seats"]


def test_variants_of_one_file_are_compared_with_compare_variant(tmp_path):
    text = BASE + "variant generous:\n    procedure set_bonus():\n        (player 2).bonus = 4\n"
    (tmp_path / "g.rules").write_text(text)
    report = _compare(tmp_path, "g.rules", "g.rules", extra=["--compare-variant", "generous"])
    assert report["b"]["variants"] == ["generous"] and report["a"]["variants"] == []
    assert _line(report, "wins", "Player 2")["beyond"]


def test_compare_with_a_missing_file_is_a_message(tmp_path, capsys):
    _files(tmp_path)
    assert main(["simulate", str(tmp_path / "base.rules"), "--compare", "nowhere.rules", "--games", "2", "-q"]) == 1
    assert "no such rules file or shipped game: nowhere.rules" in capsys.readouterr().err


def test_compare_plots_side_by_side(tmp_path):
    pytest.importorskip("matplotlib")
    _files(tmp_path)
    png = tmp_path / "cmp.png"
    assert main(["simulate", str(tmp_path / "base.rules"), "--compare", str(tmp_path / "base.rules"),
                 "--games", "20", "-q", "--jobs", "1", "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_paired_differences_and_their_interval():
    same = paired([1.0, 0.0, 1.0], [1.0, 0.0, 1.0])
    assert (same["diff"], same["low"], same["high"], same["p"]) == (0.0, 0.0, 0.0, 1.0)
    up = paired([0.0] * 50 + [1.0] * 50, [1.0] * 100)
    assert up["diff"] == 0.5 and up["low"] > 0.35 and up["p"] < 1e-6


def test_two_shares_and_holm():
    # one choice a game: the clustered shares are two plain proportions
    assert clustered([1] * 50 + [0] * 50, [1] * 100, [1] * 50 + [0] * 50, [1] * 100)["p"] == 1.0
    far = clustered([1] * 10 + [0] * 90, [1] * 100, [1] * 60 + [0] * 40, [1] * 100)
    assert far["low"] > 0.35 and far["p"] < 1e-6
    assert holm([0.001, 0.04, 0.5]) == [True, False, False]      # 0.04 > 0.05 / 2
    assert holm([0.01, 0.02]) == [True, True]


def test_option_shares_count_the_choices_of_one_game_together():
    # 10 games each; in A every game's ten choices all go one way or all the other (5 and 5), in B
    # half and half within each game: the same share, and no certainty from 100 choices that are 10
    a = clustered([10] * 5 + [0] * 5, [10] * 10, [5] * 10, [10] * 10)
    assert a["diff"] == 0 and a["p"] == 1.0
    tilted = clustered([10] * 6 + [0] * 4, [10] * 10, [5] * 10, [10] * 10)
    (la, ua), (lb, ub) = wilson(60, 100), wilson(50, 100)     # the two shares, as if 100 free choices
    naive = (((0.5 - lb) ** 2 + (ua - 0.6) ** 2) ** 0.5        # Newcombe's interval's width
             + ((ub - 0.5) ** 2 + (0.6 - la) ** 2) ** 0.5)
    assert tilted["high"] - tilted["low"] > 2 * naive           # far less sure
    assert not tilted["p"] < 0.05
