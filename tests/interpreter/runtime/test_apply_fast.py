"""The hot path of applying an action: the chosen value is an argument of the decision's entry,
Actions of decisions that need no numbering know their option, and ``apply_action`` takes one of
``legal_actions()`` without a search. Each check here would fail if the fast path took an action
it should refuse, or lost one it should take."""
from __future__ import annotations

import json
import random
import textwrap

import pytest

from rulesrun.dsl import RulesRuntimeError

from rulesrun.interpreter import GameError, State, load_game
from rulesrun.interpreter.runtime.engine import STATE_FORMAT

from tests.support import ROOT  # noqa: E402
from tests.support import tiny_game, tiny_header
HEADER = tiny_header(players="2 to 3", extra="state total: number = 0\n")
# each player in turn plays a card from the hand, twice round: the same decision, the same seat
PLAY = HEADER + textwrap.dedent("""
    flow:
        shuffle deck
        deal 3 from deck to hand
        repeat 2 times:
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
                total += c.rank
        player 1 chooses n from 1 to 2 as "last"
        total += 100 * n
""")


def make(text: str = PLAY, players: int = 2):
    return tiny_game(text, players, header="")


def test_an_action_taken_before_is_refused_when_its_option_is_gone():
    g = make()
    s = g.new_initial_state(seed=3)
    first = s.legal_actions()
    s.apply_action(first[0])            # player 1 plays that card
    s.apply_action(s.legal_actions()[0])
    assert s.current_player() == 0 and first[0] not in s.legal_actions()
    with pytest.raises(GameError, match="not a legal action"):
        s.apply_action(first[0])        # the same decision and seat, but the card has left the hand
    assert s.legal_actions()[0] in s.legal_actions() and not s.is_terminal()


def test_an_action_of_another_seat_or_decision_is_refused():
    g = make()
    s = g.new_initial_state(seed=3)
    mine = s.legal_actions()
    s.apply_action(mine[0])
    with pytest.raises(GameError):      # player 1's action while player 2 is to choose
        s.apply_action(mine[1])


def test_actions_of_a_clone_by_text_and_by_number_play_the_same_game():
    g = load_game(ROOT / "games" / "magic_shop.rules", players=4)
    rng = random.Random(5)
    a = g.new_initial_state(seed=11)
    b, c, d = a.clone(), a.clone(), a.clone()
    while not a.is_terminal():
        acts = a.legal_actions()
        i = rng.randrange(len(acts))
        b_acts = b.legal_actions()
        a.apply_action(acts[i])
        b.apply_action(acts[i])          # an Action made for another state of the same game
        c.apply_action(str(acts[i]))     # its text
        d.apply_index(i)
        assert b_acts[i] == acts[i]
    assert a == b == c and a.history() == b.history() == c.history()
    assert a.returns() == b.returns() == c.returns() == d.returns()


def test_an_action_of_another_game_is_taken_by_its_text():
    g1, g2 = make(), make()
    s1, s2 = g1.new_initial_state(seed=3), g2.new_initial_state(seed=3)
    act = s2.legal_actions()[1]
    s1.legal_actions()
    s1.apply_action(act)                 # not one of g1's Actions: found by its text instead
    assert s1.history() == [str(act)] and s1.current_player() == 1


def test_the_chosen_value_is_an_argument_of_the_entry_not_a_frame_local():
    g = make()
    src = "\n".join(g.program.code.sources.values())
    assert "(S, F, l" in src             # a decision's entry: def _R0_1(S, F, l3)
    s = g.new_initial_state(seed=3)
    n = len(s.frames[-1][2])
    s.apply_action(s.legal_actions()[0])
    assert len(s.frames[-1][2]) == n and None not in s.frames[-1][2]


def test_a_state_saved_in_format_2_still_loads_and_plays_on():
    g = make()
    s = g.new_initial_state(seed=3)
    s.apply_action(s.legal_actions()[0])
    data = json.loads(json.dumps(s.to_json()))
    assert data["format"] == STATE_FORMAT
    old = json.loads(json.dumps(data))
    old["format"] = "rulesrun-state/2"           # frames then kept a slot for the decision's value
    old["frames"][-1][2].append(None)
    loaded = State.from_json(g, old)
    assert loaded == s
    for t in (s, loaded):
        while not t.is_terminal():
            t.apply_action(t.legal_actions()[-1])
    assert loaded == s and loaded.var("total") == s.var("total")


def test_none_among_the_options_of_a_card_decision_still_has_its_action():
    # card decisions find their Actions in a list by card id; none (never in a zone, but the
    # lookup must not fail on it) falls back to the general table
    g = make()
    assert g._lookups[0] is not None and g.program.decisions[0].type == "card"
    s = g.new_initial_state(seed=3)
    p, did, opts = s.pending
    s.pending = [p, did, list(opts) + [None]]
    acts = s.legal_actions()
    assert len(acts) == len(opts) + 1 and acts[-1] == "play nothing"
    s.pending = [p, did, list(opts)]
    s.apply_action(s.legal_actions()[0])
    assert s.current_player() == 1


def test_a_seats_actions_for_sets_of_cards_are_kept_only_up_to_a_bound(monkeypatch):
    """Sets of cards seldom come again (Big Two's five-card hands): their Actions are made on
    demand past a bound, so a long run does not keep every set it ever offered; play is the same."""
    from rulesrun.interpreter.runtime import actions

    def play(seeds):
        game = load_game(str(ROOT / "examples" / "big_two.rules"), players=4)
        seen = []
        for seed in seeds:
            pick = random.Random(seed)
            state = game.new_initial_state(seed=seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                seen.append(list(map(str, legal)))
                state.apply_action(legal[pick.randrange(len(legal))])
            seen.append((state.returns(), state.history()))
        return game, seen

    _, unbounded = play(range(3))
    monkeypatch.setattr(actions, "KEPT", 10)
    game, bounded = play(range(3))
    assert bounded == unbounded
    listy = [rows for rows, kind in zip(game._acts, game._listy) if kind]
    assert listy and all(len(row) <= 10 for rows in listy for row in rows)
    assert max(len(row) for rows in listy for row in rows) == 10


def test_the_open_decision_is_cleared_when_the_game_ends_or_the_rules_fail():
    # apply_action's fast path leaves the taken decision in place until the entry opens the next
    # one; the run loop clears it when no frame is left, and a failure in the rules clears it too
    g = make()
    s = g.new_initial_state(seed=3)
    while not s.is_terminal():
        taken = s.legal_actions()[0]
        before = s.pending
        s.apply_action(taken)
        assert s.pending is not before          # a new decision, or none at the end
    assert s.pending is None and s.legal_actions() == [] and s.current_player() < 0
    with pytest.raises(GameError, match="over"):
        s.apply_action(taken)
    failing = make(PLAY.replace("state total: number = 0", "state total: number = 0\nstate unset: number = none")
                   .replace("total += 100 * n", "total += 100 * n + unset"))
    f = failing.new_initial_state(seed=3)
    with pytest.raises(RulesRuntimeError, match="none"):
        while not f.is_terminal():
            f.apply_action(f.legal_actions()[0])
    assert f.pending is None and f.is_terminal() and f.legal_actions() == []


def test_a_loaded_or_cloned_state_takes_actions_by_the_fast_path():
    g = make()
    s = g.new_initial_state(seed=4)
    for twin in (s.clone(), State.from_json(g, json.loads(json.dumps(s.to_json())))):
        actions = twin.legal_actions()
        assert actions[0].row is twin._row is not None     # the Actions of the fast path
        twin.apply_action(actions[0])
        assert twin.history() == [str(actions[0])] and s.history() == []
