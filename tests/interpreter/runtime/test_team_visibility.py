"""Zones and player values seen by their owner's team (`zone hand per player: team`, `player state
bid: number, team`): partners see each other's hands, the other team sees how many cards. The
observation, visible_cards, the determinisation, the web table, `check`'s twin test and the
bridges' tensor read them through the one rule (ZoneInfo.seen_by / VarInfo.seen_by); the
information-flow check's side is in tests/flow_corpus (team_*, *team_value*)."""
from __future__ import annotations

import io
import random

import pytest

from rulesrun.dsl import RulesError
from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.runtime.observe import hidden_cards, resample, visible_cards
from rulesrun.interpreter.web.views import public_view
from tests.support import tiny_game, tiny_header

TEAM_ZONES = ("deck: facedown", "pile: public", "hand per player: team")
HEADER = tiny_header("Open Partners", players=4, ranks=6, zones=TEAM_ZONES,
                     extra="teams 2\nplayer state bid: number = 0, team\n")
HONEST = """
flow:
    shuffle deck
    deal 3 from deck to hand
    for p in players:
        p.bid = sum(c.rank for c in p.hand)
    for p in players:
        partner(p) chooses c from p.hand as "play for your partner"
        move c to pile
    for p in players:
        p chooses c from p.hand where c.rank != partner(p).bid or size(p.hand) < 3 as "play"
        move c to pile
score(p) = sum(c.rank for c in p.hand)
"""
# an opponent (the next seat, of the other team) is told a card of the hand
LEAKING = HONEST.replace('''        p.bid = sum(c.rank for c in p.hand)
''', '''        p.bid = sum(c.rank for c in p.hand)
        announce to left(p) "Your left-hand opponent holds {top(p.hand)}."
''')


def dealt(seed=1):
    g = tiny_game(HONEST, 4, header=HEADER, allow_leaks=False)
    return g, g.new_initial_state(seed=seed)


def ids(g, names) -> set:
    return {g.card_id(n) for n in names}


def test_a_partner_sees_the_hand_and_an_opponent_sees_how_many():
    g, s = dealt()
    obs = s.observation(0)
    assert obs["players"][2]["hand"]["cards"] == s.cards("hand", 2)      # seat 2 is seat 0's partner
    assert obs["players"][0]["hand"]["cards"] == s.cards("hand", 0)
    assert obs["players"][1]["hand"] == {"count": 3} == obs["players"][3]["hand"]
    assert visible_cards(s, 0) == ids(g, s.cards("hand", 0) + s.cards("hand", 2))
    assert ids(g, s.cards("hand", 1) + s.cards("hand", 3)) <= set(hidden_cards(s, 0))
    assert not ids(g, s.cards("hand", 2)) & set(hidden_cards(s, 0))
    assert visible_cards(s, 1) == ids(g, s.cards("hand", 1) + s.cards("hand", 3))


def test_a_team_value_is_seen_by_the_players_team_only():
    g, s = dealt()
    bid = s.var("bid", 2)
    assert bid == sum(int(n.split()[1]) for n in s.cards("hand", 2))
    assert s.observation(0)["players"][2]["bid"] == bid == s.observation(2)["players"][2]["bid"]
    assert "bid" not in s.observation(1)["players"][2] and "bid" not in s.observation(3)["players"][2]


def test_the_determinisation_keeps_the_partners_hand_and_redraws_the_opponents():
    g, s = dealt()
    rng = random.Random(3)
    theirs = sorted(s.cards("hand", 1) + s.cards("hand", 3))
    changed = False
    for _ in range(20):
        copy = resample(s, 0, rng)
        assert copy.cards("hand", 0) == s.cards("hand", 0) and copy.cards("hand", 2) == s.cards("hand", 2)
        assert copy.var("bid", 2) == s.var("bid", 2)
        assert copy.observation(0) == s.observation(0)
        changed |= sorted(copy.cards("hand", 1) + copy.cards("hand", 3)) != theirs
    assert changed, "an opponent's hand is never imagined otherwise"
    for _ in range(20):                 # the other team imagines seat 0's and seat 2's hands
        copy = resample(s, 1, rng)
        assert copy.observation(1) == s.observation(1)
        if copy.cards("hand", 2) != s.cards("hand", 2):
            break
    else:
        pytest.fail("seat 1 never imagines seat 2's hand otherwise")


def test_the_web_table_shows_nobody_a_team_hand():
    g, s = dealt()
    view = public_view(s, log=False)
    assert all(p["hand"] == {"count": 3} for p in view["players"])
    assert all("bid" not in p for p in view["players"])


def _check(tmp_path, body: str) -> tuple[int, str]:
    path = tmp_path / "partners.rules"
    path.write_text(HEADER + body)
    out = io.StringIO()
    rc = run_check(str(path), players=4, games=20, out=out, err=io.StringIO(), coverage=False, allow_leaks=True)
    return rc, out.getvalue()


def test_the_twin_test_compares_and_passes_an_honest_team_game(tmp_path):
    rc, report = _check(tmp_path, HONEST)
    assert rc == 0, report
    assert "steps compared" in report and " 0 steps compared" not in report, report


def test_the_twin_test_finds_an_opponent_told_a_team_card(tmp_path):
    rc, report = _check(tmp_path, LEAKING)
    assert rc == 1, report
    assert "left-hand opponent holds" in report, report


def test_the_leak_check_refuses_an_opponent_told_a_team_card():
    with pytest.raises(RulesError) as err:
        tiny_game(LEAKING, 4, header=HEADER, allow_leaks=False)
    assert "hand (team)" in err.value.message and "cannot tell" in err.value.message


def test_the_tensor_of_a_seat_includes_its_partners_hand():
    np = pytest.importorskip("numpy", reason="the bridges' tensors need numpy")
    from rulesrun.interpreter.bridges import ActionSpace, Encoder, Table
    g = tiny_game(HONEST, 4, header=HEADER, allow_leaks=False)
    order = list(g.program.card_names)
    first = g.new_initial_state(seed=1, stack={"deck": order})
    x, y = first.cards("hand", 2)[0], first.cards("deck")[0]
    i, j = order.index(x), order.index(y)
    order[i], order[j] = y, x                   # the same deal but one card of seat 2's hand
    second = g.new_initial_state(seed=1, stack={"deck": order})
    assert second.cards("hand", 2) != first.cards("hand", 2)
    assert all(second.cards("hand", p) == first.cards("hand", p) for p in (0, 1, 3))
    space = ActionSpace(g)
    enc = Encoder(space)
    a, b = Table(space, first), Table(space, second)
    assert not np.array_equal(enc.tensor(a, 0), enc.tensor(b, 0))    # seat 2 is seat 0's partner
    assert not np.array_equal(enc.tensor(a, 2), enc.tensor(b, 2))
    assert np.array_equal(enc.tensor(a, 1), enc.tensor(b, 1)) and np.array_equal(enc.tensor(a, 3), enc.tensor(b, 3))


def test_team_visibility_needs_teams_that_stay_as_dealt():
    body = HONEST.replace("flow:\n", "flow:\n    for p in players:\n        p.team = item(teams, 1)\n")
    with pytest.raises(RulesError) as err:
        tiny_game(body, 4, header=HEADER)
    e = err.value
    assert e.message.startswith("a zone seen by a team needs teams that stay as dealt")
    assert "zone 'hand' (line 12)" in e.message and f"line {e.pos.line}" in e.message
    assert e.pos.line == HEADER.count("\n") + 4      # the assignment's line


def test_team_visibility_needs_teams():
    with pytest.raises(RulesError) as err:
        tiny_game("flow:\n    pass\n", 4, header=tiny_header(players=4, zones=TEAM_ZONES))
    assert "declares no teams" in err.value.message and "teams 2" in err.value.hint
    header = tiny_header(players=4, extra="player state bid: number = 0, team\n")
    with pytest.raises(RulesError) as err:
        tiny_game("flow:\n    pass\n", 4, header=header)
    assert "player state 'bid'" in err.value.message and "declares no teams" in err.value.message


def test_team_visibility_on_a_shared_zone_or_a_game_value_is_refused():
    zones = ("deck: facedown", "pile: team", "hand per player: owner")
    with pytest.raises(RulesError) as err:
        tiny_game("flow:\n    pass\n", 4, header=tiny_header(players=4, zones=zones, extra="teams 2\n"))
    assert "only a per-player zone" in err.value.message
    with pytest.raises(RulesError) as err:
        tiny_game("flow:\n    pass\n", 4, header=tiny_header(players=4, extra="teams 2\nstate t: number = 0, team\n"))
    assert "only a player state" in err.value.message
