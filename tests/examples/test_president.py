"""President (examples/president.rules): the game is three hands; each hand gives the places
players - 1 ... 0 points; the most points win; a lead is any number of cards of one rank, checked
against a plain-Python enumeration."""
from __future__ import annotations

import itertools
import random

import pytest

from rulesrun.interpreter import load_game

from tests.support import ROOT  # noqa: E402


@pytest.mark.parametrize("players", [4, 7])
def test_three_hands_points_by_place_and_the_winner(players):
    game = load_game(ROOT / "examples" / "president.rules", players=players)
    for seed in range(4):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        points = [state.var("points", p) for p in range(players)]
        assert sum(points) == 3 * sum(range(players))
        assert sum("is the President" in line for line in state.log()) == 3
        best = max(points)
        assert state.winners() == [p for p in range(players) if points[p] == best]


def test_leads_and_answers_equal_a_plain_enumeration():
    """Every decision of random games: the options are the sets of one rank (as many as the table,
    higher) — identical cards once — that trying every subset finds."""
    game = load_game(ROOT / "examples" / "president.rules", players=5)
    checked = 0
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.decision_label() == "play":
                hand = state.cards("hand", state.current_player())
                table = state.cards("table")
                want = set()
                for n in range(len(hand) + 1):
                    for combo in itertools.combinations(hand, n):
                        one_rank = len(set(combo)) == 1
                        if not table and combo and one_rank:
                            want.add(combo)
                        elif table and (not combo or (one_rank and len(combo) == len(table)
                                                      and value(combo[0]) > value(table[0]))):
                            want.add(combo)
                got = {tuple(a[len("play "):].split(", ")) if a != "pass" else ()
                       for a in state.legal_actions()}
                assert got == {tuple(sorted(w, key=hand.index)) for w in want}
                checked += 1
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked > 100


def value(name: str) -> int:
    return {"J": 11, "Q": 12, "K": 13, "A": 14, "2": 15}.get(name) or int(name)


@pytest.mark.parametrize("hands", [1, 5])
def test_the_number_of_hands_is_a_parameter(hands):
    game = load_game(ROOT / "examples" / "president.rules", players=4, params={"hands": hands})
    state = game.new_initial_state(seed=1)
    rng = random.Random(1)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    assert sum("is the President" in line for line in state.log()) == hands
    assert sum(state.var("points", p) for p in range(4)) == hands * 6


@pytest.mark.parametrize("players", [4, 5, 7])
def test_the_vice_president_and_vice_scum_exchange_one_card(players):
    """At the start of hand 2: the Vice-Scum's highest card goes to the Vice-President, who gives
    any one back; the President and the Scum exchange two; the players between keep their hands."""
    game = load_game(ROOT / "examples" / "president.rules", players=players)
    for seed in range(3):
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while state.decision_label() != "give the Scum":
            state.apply_action(rng.choice(state.legal_actions()))
        roles = {r: state.var(r) for r in ("president", "vice_president", "vice_scum", "scum")}
        assert len(set(roles.values())) == 4
        places = {p: players - state.var("points", p) for p in range(players)}    # hand 1's places
        assert [places[roles[r]] for r in roles] == [1, 2, players - 1, players]
        before = {p: sorted(state.cards("hand", p), key=value) for p in range(players)}
        state.apply_action(rng.choice(state.legal_actions()))
        assert state.decision_label() == "give the Vice-Scum"
        vp, vs = roles["vice_president"], roles["vice_scum"]
        assert state.current_player() == vp
        best = max(before[vs], key=value)
        assert sorted(state.cards("hand", vp), key=value) == sorted(before[vp] + [best], key=value)
        left = list(before[vs])
        left.remove(best)
        assert sorted(state.cards("hand", vs), key=value) == left
        give = rng.choice(state.legal_actions())
        state.apply_action(give)
        card = give[len("give the Vice-Scum "):]
        assert sorted(state.cards("hand", vs), key=value) == sorted(left + [card], key=value)
        for p in range(players):
            if places[p] not in (1, 2, players - 1, players):
                assert sorted(state.cards("hand", p), key=value) == before[p]      # no exchange
        # given face down: the announcement names the players, not the cards
        assert state.log()[-2] == (f"Player {vs + 1} gives the Vice-President their best card; "
                                   f"Player {vp + 1} gives one back.")
