"""The dynamic leak tests and errors inside the check: an announcement naming a card its audience
could not see and a public value computed from a hidden hand are caught; a score computed from
hands left hidden at the end is not a leak; any error inside the check is a finding."""
from __future__ import annotations

import io
import os
import shlex
import stat
from pathlib import Path

import pytest

from rulesrun.dsl import RulesRuntimeError
from rulesrun.interpreter.checking import run_check

from tests.support import ROOT, TINY  # noqa: E402
BROKEN = ROOT / "tests" / "broken"
SHOP = ROOT / "games" / "magic_shop.rules"
DERIVED = "FAILED: the same game with the cards a seat never saw dealt differently"


def check(path, **kw):
    """The check on a file the compiler would reject for its leaks: the dynamic tests are the second
    line of defence, so they are tested on their own (``allow_leaks``)."""
    kw.setdefault("allow_leaks", True)
    out, err = io.StringIO(), io.StringIO()
    code = run_check(str(path), out=out, err=err, **kw)
    return code, out.getvalue()


def test_an_announcement_of_a_card_passed_face_down_is_a_leak():
    code, out = check(BROKEN / "leaky_announce.rules", players=4, games=25)
    assert code == 1
    assert DERIVED in out
    assert "an announcement tells Player" in out and "passes" in out


def test_a_public_value_derived_from_a_hidden_hand_is_a_leak():
    """The resample test alone keeps the stored total and misses it; the twin test works it out again."""
    code, out = check(BROKEN / "leaky_total.rules", players=4, games=25)
    assert code == 1
    assert DERIVED in out and "'s total:" in out


def test_the_resample_test_alone_misses_a_stored_derived_value(monkeypatch):
    from rulesrun.interpreter.checking import properties as P
    monkeypatch.setattr(P.GameChecker, "twin_test", lambda *a: None)
    code, out = check(BROKEN / "leaky_total.rules", players=4, games=10)
    assert code == 0, "without the twin test the stored total goes unseen (so the twin test is what finds it)"


HIDDEN_SCORE = """game "Keep"
players 2

kind Suit: Red, Blue

cards:
    suit: Suit
    rank: number
    shown as "{suit} {rank}"
    for suit in Suit, rank in 1 to 4

zone deck: facedown
zone hand per player: owner
zone table: public

flow:
    shuffle deck
    deal 3 from deck to hand
    for p in players:
        p chooses c from p.hand as "play"
        move c to table

score(p) = sum(c.rank for c in p.hand)
winners p by highest sum(c.rank for c in p.hand)
"""


def test_scores_of_hands_left_hidden_are_public_at_the_end(tmp_path):
    path = tmp_path / "keep.rules"
    path.write_text(HIDDEN_SCORE, encoding="utf-8")
    code, out = check(path, games=30)
    assert code == 0, out


def test_an_error_on_a_resampled_copy_is_a_finding(monkeypatch, tmp_path):
    """A failure inside the leak test's copy is reported with property, configuration, seed and moves."""
    from rulesrun.interpreter.checking import leaks as L
    copies = set()
    real_resample, real_observe = L.resample, L.observe

    def resample(*a, **k):
        other = real_resample(*a, **k)
        copies.add(id(other))
        return other

    def observe(state, seat, log=True):
        if id(state) in copies and len(state.history()) >= 3:
            raise RulesRuntimeError("planted failure on the copy")
        return real_observe(state, seat, log=log)
    monkeypatch.setattr(L, "resample", resample)
    monkeypatch.setattr(L, "observe", observe)
    spaced = tmp_path / "a shop; rm -rf x.rules"
    spaced.write_text(SHOP.read_text(encoding="utf-8"), encoding="utf-8")
    code, out = check(spaced, players=3, games=5)
    assert code == 1
    assert "FAILED: the rules never fail at run time" in out
    assert "planted failure on the copy" in out and "on a copy of the state" in out
    assert "with 3 players, seed " in out
    command = out.split("Replay it step by step:\n", 1)[1].strip().splitlines()[0]
    argv = shlex.split(command)
    assert argv[1] == str(spaced)                   # quoted: the odd name survives the shell
    moves = Path(argv[argv.index("--moves") + 1])
    assert moves.read_text(encoding="utf-8").splitlines()
    folder = moves.parent
    assert folder.name.startswith("rulesrun-check-") and stat.S_IMODE(os.stat(folder).st_mode) == 0o700


def test_two_failures_write_to_two_private_folders():
    from rulesrun.interpreter.checking import Failure, write_moves
    f = Failure("runs", "x", 3, (), 1, ["a", "b"])
    one, two = write_moves(f, "g.rules"), write_moves(f, "g.rules")
    assert one.parent != two.parent and one.read_text() == two.read_text() == "a\nb\n"


@pytest.mark.parametrize("name", ["leaky", "leaky_announce", "leaky_total"])
def test_each_leaky_copy_fails_at_its_smallest_player_count_too(name):
    code, out = check(BROKEN / f"{name}.rules", players=3, games=25)
    assert code == 1 and ("leaves its observation and options unchanged" in out or DERIVED in out)


SHOWN_THEN_LEAKY = """game "Shown"
players 2

cards:
    rank: number
    for rank in 1 to 8

zone deck: facedown
zone hand per player: owner
zone table: public

player state total: number = 0

flow:
    shuffle deck
    let c = bottom(deck)
    reveal c                          # a card held in a local, shown to all
    announce "The bottom card is {c}."
    deal 3 from deck to hand
    for p in players:
        p.total = sum(x.rank for x in p.hand)     # BROKEN: everyone sees the sum of every hand
    for p in players:
        p chooses x from p.hand as "play"
        move x to table

score(p) = p.total
winners p by highest p.total
"""


def test_a_leak_after_a_card_held_in_a_local_is_revealed_is_still_found(tmp_path):
    """'reveal c' of a local used to stop the twin test for the rest of the game (it could not tell
    which card was shown); the card is now read from the state, so the leak after it is found."""
    path = tmp_path / "shown.rules"
    path.write_text(SHOWN_THEN_LEAKY, encoding="utf-8")
    code, out = check(path, games=30)
    assert code == 1 and DERIVED in out and "'s total:" in out, out
    fixed = SHOWN_THEN_LEAKY.replace("        p.total = sum(x.rank for x in p.hand)     # BROKEN: everyone sees the sum of every hand\n", "        p.total = 0\n")
    path.write_text(fixed, encoding="utf-8")
    code, out = check(path, games=30)
    assert code == 0, out
    assert "dealt differently shows that seat the same observations and announcements (0 checks)" not in out


def test_durak_and_whist_are_twin_tested_though_they_reveal_a_card_held_in_a_local():
    for name, players in (("durak.rules", 2), ("whist.rules", 4)):
        code, out = check(ROOT / "examples" / name, players=players, games=20, allow_leaks=False)
        assert code == 0, out
        line = next(x for x in out.splitlines() if "dealt differently" in x)
        assert "(0 checks)" not in line, line


TWO_DEALS = TINY.replace("players 2 to 4", "players 2") + """\
state deal_number: number = 0
flow:
    repeat 2 times:
        deal_number += 1
        move every card to deck
        shuffle deck
        deal 6 from deck to hand
        if deal_number == 2:
            announce "The first card of Player 1 is {top((player 1).hand)}."
        repeat 6 times:
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
"""


def test_a_leak_in_a_later_deal_is_found_though_every_card_was_seen_in_the_first(tmp_path):
    # every card is played face up in the first deal: only the twin dealt afresh from the second
    # shuffle on (the first deal as it was) can show the announcement naming a card of Player 1
    path = tmp_path / "two_deals.rules"
    path.write_text(TWO_DEALS)
    code, out = check(path, games=40, coverage=False)
    assert code == 1, out
    assert DERIVED in out and "The first card of Player 1 is" in out, out


def test_a_game_of_many_deals_is_twin_tested_in_its_later_deals(tmp_path):
    path = tmp_path / "two_deals.rules"
    path.write_text(TWO_DEALS.replace('        if deal_number == 2:\n'
                                      '            announce "The first card of Player 1 is {top((player 1).hand)}."\n', ""))
    code, out = check(path, games=40, coverage=False, allow_leaks=False)
    assert code == 0, out
    line = next(x for x in out.splitlines() if "dealt differently" in x)
    assert "steps compared)" in line and " 0 steps compared" not in line, line


@pytest.mark.parametrize("name", ["hearts", "goofspiel", "uno"])
def test_the_information_examples_are_twin_tested_in_every_configuration(name):
    # (check fails when a twin test was tried in a configuration and compared nothing there)
    code, out = check(ROOT / "examples" / f"{name}.rules", games=2, coverage=False, allow_leaks=False)
    assert code == 0, out
    line = next(x for x in out.splitlines() if "dealt differently" in x)
    assert "steps compared)" in line and " 0 steps compared" not in line, line
