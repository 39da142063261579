"""Card state seen on the cards' backs (`on back`): what a holder was told of cards it cannot see
(Hanabi's hints). The observation shows it by place; the determinisation deals the seat's unseen
cards so that the file's invariants of each card (`invariant "..." for every card c`) hold of them;
`check`'s twin test compares it, and finds a hint whose reveal is missing."""
from __future__ import annotations

import io
import random

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.runtime.observe import resample
from tests.support import ROOT

HINTS = ROOT / "tests" / "flow_corpus" / "honest" / "hints_on_backs.rules"
TEXT = HINTS.read_text()


def hinted(text=TEXT, seed=5):
    g = load_game_text(text, 2, path=HINTS.name)
    s = g.new_initial_state(seed=seed)
    s.apply_action(s.legal_actions()[0])       # Player 1 tells Player 2 of one suit
    return g, s


def test_a_hint_shows_on_the_backs_of_the_cards_by_place():
    g, s = hinted()
    hand = s.cards("hand", 1)
    view = s.observation(1)["players"][1]["hand"]
    told = view["backs"]["told"]
    assert "cards" not in view and len(told) == len(hand)
    assert any(told) and all(t is None or name.startswith(t) for t, name in zip(told, hand))
    # the others see the faces, and the hint with them
    assert s.observation(0)["players"][1]["hand"]["cards"] == hand
    assert set(s.observation(0)["card_state"]["told"]) == {n for n, t in zip(hand, told) if t}


def consistent(copy, told) -> bool:
    return all(t is None or name.startswith(t) for t, name in zip(told, copy.cards("hand", 1)))


def test_a_seats_copies_agree_with_what_it_was_told():
    g, s = hinted()
    told = s.observation(1)["players"][1]["hand"]["backs"]["told"]
    rng = random.Random(1)
    copies = [resample(s, 1, rng) for _ in range(100)]
    assert all(consistent(c, told) for c in copies)
    assert all(c.observation(1) == s.observation(1) for c in copies[:10])
    assert len({tuple(c.cards("hand", 1)) for c in copies}) > 1, "the copies are all the real deal"


def test_without_the_invariant_the_copies_ignore_the_hints():
    text = "\n".join(line for line in TEXT.splitlines() if not line.startswith("invariant"))
    g, s = hinted(text)
    told = s.observation(1)["players"][1]["hand"]["backs"]["told"]
    rng = random.Random(1)
    assert sum(consistent(resample(s, 1, rng), told) for _ in range(100)) < 60


def test_check_passes_the_hints_and_finds_one_whose_reveal_is_missing(tmp_path):
    out = io.StringIO()
    assert run_check(str(HINTS), games=30, out=out, err=io.StringIO(), coverage=False) == 0, out.getvalue()
    missing = tmp_path / "missing.rules"
    missing.write_text(TEXT.replace("reveal s, [c.suit == s for c in left(p).hand]", "reveal s"))
    out = io.StringIO()
    assert run_check(str(missing), games=30, out=out, err=io.StringIO(), coverage=False) == 1
    assert "backs" in out.getvalue() and "cannot see" in out.getvalue()


def test_a_broken_hint_breaks_the_invariant_of_each_card(tmp_path):
    broken = tmp_path / "broken.rules"
    broken.write_text(TEXT.replace("                if c.suit == s:\n                    c.told = s",
                                   "                c.told = s"))
    out = io.StringIO()
    assert run_check(str(broken), games=20, out=out, err=io.StringIO(), coverage=False) == 1
    assert 'invariant "a hint is true of its card" does not hold' in out.getvalue()


def test_on_back_is_for_card_state_only():
    with pytest.raises(RulesError) as err:
        load_game_text(TEXT.replace("zone table: public", "zone table: public\nstate marker: number = 0, on back"), 2)
    assert "only a card has a back" in err.value.message


def test_the_tables_show_a_hint_by_place():
    from rulesrun.interpreter.terminal.table import backs_text
    from rulesrun.interpreter.web.views import public_view
    g, s = hinted()
    view = s.observation(1)["players"][1]["hand"]
    told = view["backs"]["told"]
    text = backs_text(view)
    assert text.startswith(" — told: ") and all(f"{i} {t}" in text for i, t in enumerate(told, 1) if t)
    assert public_view(s, log=False)["players"][1]["hand"] == {"count": len(told), "backs": {"told": told}}



def by_place(state) -> tuple:
    """Every zone's cards by name, in order, and each card state of the card in each place."""
    names = state.program.card_names
    cards = [[names[c] for c in z] for z in state.zones]
    backs = [[[row[c] for c in z] for z in state.zones] for row in state.card_values]
    return cards, backs


@pytest.mark.parametrize("hints", [0, 1])
def test_a_copy_depends_on_what_the_seat_sees_and_the_generator_not_on_where_the_cards_really_lie(hints):
    """Two states that differ only in what Player 2 cannot see, determinised for Player 2 with the
    same generator, give the same copy: a bot seeded alike chooses alike on both — with a hint to
    keep (the invariant of each card) and without. (The cards are drawn in the order of their ids,
    not in the order they really lie.)"""
    g = load_game_text(TEXT, 2, path=HINTS.name)
    differ = 0
    for seed in range(20):
        s = g.new_initial_state(seed=seed)
        for _ in range(hints):
            s.apply_action(s.legal_actions()[0])
        twin = resample(s, 1, random.Random(seed), redraw=True)
        differ += twin.cards("hand", 1) != s.cards("hand", 1)
        a, b = (resample(x, 1, random.Random(99), redraw=True) for x in (s, twin))
        assert by_place(a) == by_place(b)
    assert differ >= 15
