"""Zones and values seen by every seat but their owner (`others`): hands held facing out, as in
Hanabi. The observation, the determinisation, the web table and `check` read them so; the
bridges' tensor in tests/interpreter/bridges/test_bridges_actions.py, the information-flow check's
side in tests/flow_corpus (others_*, *facing_out*)."""
from __future__ import annotations

import io
import random

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.runtime.observe import hidden_cards, resample, visible_cards
from rulesrun.interpreter.web.views import public_view
from tests.support import ROOT

FACING_OUT = ROOT / "tests" / "flow_corpus" / "honest" / "others_hint_and_play.rules"


def game():
    return load_game_text(FACING_OUT.read_text(), 3, path=FACING_OUT.name)


def dealt(seed=1):
    g = game()
    return g, g.new_initial_state(seed=seed)


def test_a_seat_sees_every_hand_but_its_own():
    g, s = dealt()
    obs = s.observation(0)
    assert obs["players"][0]["hand"] == {"count": 3}
    for p in (1, 2):
        assert obs["players"][p]["hand"]["cards"] == s.cards("hand", p)
    assert visible_cards(s, 0) == {g.card_id(n) for p in (1, 2) for n in s.cards("hand", p)}
    mine = {g.card_id(n) for n in s.cards("hand", 0)}
    assert mine <= set(hidden_cards(s, 0)) and not mine & visible_cards(s, 0)


def test_a_value_for_the_others_is_hidden_from_its_player_only():
    g, s = dealt()
    s.apply_action(s.legal_actions()[0])          # Player 1 points out a suit of Player 2's hand
    told = s.var("told", 1)
    assert told is not None
    assert "told" not in s.observation(1)["players"][1]
    assert s.observation(0)["players"][1]["told"] == told == s.observation(2)["players"][1]["told"]


def test_the_determinisation_redraws_only_the_seats_own_hand():
    g, s = dealt()
    rng = random.Random(3)
    own = sorted(s.cards("hand", 0))
    changed = False
    for _ in range(20):
        copy = resample(s, 0, rng)
        assert copy.cards("hand", 1) == s.cards("hand", 1) and copy.cards("hand", 2) == s.cards("hand", 2)
        assert copy.observation(0) == s.observation(0)
        changed |= sorted(copy.cards("hand", 0)) != own
    assert changed, "a seat's own facing-out hand is never imagined otherwise"


def test_the_web_table_shows_nobody_a_facing_out_hand():
    g, s = dealt()
    view = public_view(s, log=False)
    assert all(p["hand"] == {"count": 3} for p in view["players"])
    assert all("told" not in p for p in view["players"])


def test_check_finds_no_leak_in_a_game_of_hands_facing_out():
    out = io.StringIO()
    assert run_check(str(FACING_OUT), players=3, games=30, out=out, err=io.StringIO(), coverage=False) == 0, \
        out.getvalue()


def test_others_on_a_shared_zone_or_a_game_value_is_refused():
    text = FACING_OUT.read_text()
    with pytest.raises(RulesError) as err:
        load_game_text(text.replace("zone table: public", "zone table: others"), 3)
    assert "per-player zone" in err.value.message
    with pytest.raises(RulesError) as err:
        load_game_text(text.replace("state played: number = 0", "state played: number = 0, others"), 3)
    assert "only a player state" in err.value.message
