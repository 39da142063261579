"""examples/goofspiel.rules against OpenSpiel's own ``goofspiel``, through the OpenSpiel bridge:
many seeds of random play, every legal set compared at every decision, and the returns at the end.

Our bridge is turn-based: the seats of an ``at once`` block are asked one after another, and a seat
sees nothing of the picks made before its own until all have chosen — OpenSpiel's own transform of a
simultaneous-move game, ``pyspiel.convert_to_turn_based``, which is what we compare with. OpenSpiel
turns up each prize by a chance node: it is given the prize our deal turned up. OpenSpiel plays the
last round (one card left in every hand) by itself; ours asks it, with one option each."""
import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'rulesrun[openspiel]')")

from rulesrun.interpreter.bridges.openspiel import load_game  # noqa: E402

from tests.support import ROOT  # noqa: E402

GOOFSPIEL = ROOT / "examples/goofspiel.rules"


def _value(text: str) -> int:
    """'bid 7 of Clubs' -> 7; 'The prize is the 7 of Diamonds.' -> 7"""
    return int(text.split(" of ")[0].split()[-1])


def _prize(state) -> int:
    """The prize our game has turned up for this round (the newest 'The prize is ...' line)."""
    return _value(next(line for line in reversed(state.log()) if line.startswith("The prize is")))


def _play_both(ours_game, theirs_game, seed: int) -> tuple:
    """One game on both sides with the same random moves; gives (legal sets compared, our returns,
    OpenSpiel's returns, our winners)."""
    rng = random.Random(seed)
    ours = ours_game.new_initial_state()
    ours.apply_action(seed)                        # our deal: the order of the prizes
    theirs = theirs_game.new_initial_state()
    compared = 0
    while not ours.is_terminal():
        while theirs.is_chance_node():             # OpenSpiel turns up the prize ours turned up
            want = _prize(ours.table().state) - 1
            assert want in [a for a, _ in theirs.chance_outcomes()]
            theirs.apply_action(want)
        if theirs.is_terminal():                   # OpenSpiel plays the last round by itself: one card each
            assert len(ours.legal_actions()) == 1
            ours.apply_action(ours.legal_actions()[0])
            continue
        sequence = next(x for x in str(theirs).splitlines() if x.startswith("Point card sequence:"))
        assert int(sequence.split()[-1]) == _prize(ours.table().state)      # the same prize, chance or not
        assert ours.current_player() == theirs.current_player()
        seat = ours.current_player()
        ids = ours.legal_actions()
        mine = sorted(_value(ours.action_to_string(seat, a)) - 1 for a in ids)
        assert mine == sorted(theirs.legal_actions()), f"seed {seed}, step {len(ours.history())}"
        compared += 1
        a = rng.choice(ids)
        theirs.apply_action(_value(ours.action_to_string(seat, a)) - 1)
        ours.apply_action(a)
    assert theirs.is_terminal()
    return compared, ours.returns(), theirs.returns(), ours.table().state.winners()


@pytest.mark.parametrize("players, params", [
    (2, {}),                                                   # OpenSpiel's default: 13 cards, random order
    (3, {"cards_per_suit": 6}),
    (2, {"cards_per_suit": 5, "points_order": "descending"}),
    (4, {"cards_per_suit": 4, "points_order": "ascending"}),
])
def test_goofspiel_agrees_with_openspiel_on_every_legal_set_and_the_returns(players, params):
    ours_game = load_game(GOOFSPIEL, players=players, params=params)
    spiel = {"players": players, "num_cards": params.get("cards_per_suit", 13),
             "points_order": params.get("points_order", "random")}
    points = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", {**spiel, "returns_type": "total_points"}))
    win_loss = pyspiel.convert_to_turn_based(pyspiel.load_game("goofspiel", {**spiel, "returns_type": "win_loss"}))
    total = 0
    for seed in range(40):
        compared, mine, theirs, winners = _play_both(ours_game, points, seed)
        assert mine == theirs, f"seed {seed}: points {mine} / {theirs}"
        _, _, wl, _ = _play_both(ours_game, win_loss, seed)
        # OpenSpiel's win_loss: the winners share +1 and the others -1, or all 0 when all tie
        assert winners == ([p for p in range(players) if wl[p] > 0] or list(range(players))), f"seed {seed}"
        total += compared
    assert total >= 40 * players      # every decision of every game was compared


def test_a_seats_information_state_says_nothing_of_the_bid_before_its_own():
    """Turn-based as OpenSpiel's transform is: when Player 2 bids, its information state (and its
    observation) is the same whichever card Player 1 bid."""
    game = load_game(GOOFSPIEL, players=2, params={"cards_per_suit": 5})
    start = game.new_initial_state()
    start.apply_action(3)
    seen = set()
    for a in start.legal_actions():
        s = start.clone()
        s.apply_action(a)
        assert s.current_player() == 1
        seen.add((s.information_state_string(1), s.observation_string(1), tuple(s.legal_actions())))
    assert len(start.legal_actions()) == 5 and len(seen) == 1
