"""examples/hearts.rules against OpenSpiel's own ``hearts``: the first hand of many seeded games
with random moves, every legal set compared — the three cards each player passes at once (ours one
choice of a subset, OpenSpiel's three cards one at a time, each seat in turn: the same sets) and
every card played — and the points of the hand at its end.

OpenSpiel plays one hand: its chance nodes choose the pass direction (given ours, Left in the first
hand) and deal the cards one at a time round the table (given the cards our deal gave each seat).
Its `qs_breaks_hearts` is set off, as in our file (only a heart breaks hearts). OpenSpiel asks the
holder of the 2 of Clubs to lead it; ours leads it without asking. A seat's OpenSpiel return is 26
minus the points it took in the hand (the moon counted), which our file adds to its score."""
import itertools
import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'rulesrun[openspiel]')")

from rulesrun.interpreter import load_game  # noqa: E402

from tests.support import ROOT  # noqa: E402

FACES = {"10": "T"}


def spiel_name(card: str) -> str:
    """'10 of Hearts' -> 'TH'; 'Q of Spades' -> 'QS'"""
    face, _, suit = card.partition(" of ")
    return FACES.get(face, face) + suit[0]


def _cards(option: str) -> set:
    """'pass 2 of Clubs, Q of Spades, 10 of Hearts' -> {'2C', 'QS', 'TH'}; 'play 4 of Hearts' -> {'4H'}"""
    return {spiel_name(c) for c in option.split(" ", 1)[1].split(", ")}


def _first_hand(game, spiel, seed: int) -> tuple:
    """(legal sets compared, our points of the first hand, OpenSpiel's returns)."""
    rng = random.Random(seed)
    ours = game.new_initial_state(seed=seed)
    theirs = spiel.new_initial_state()
    theirs.apply_action(next(a for a, _ in theirs.chance_outcomes()
                             if theirs.action_to_string(-1, a) == "Left"))
    hands = [[spiel_name(c) for c in ours.cards("hand", p)] for p in range(4)]   # as dealt, before the pass
    k = 0
    while theirs.is_chance_node():          # dealt round the table, one card at a time
        want = hands[k % 4][k // 4]
        theirs.apply_action(next(a for a, _ in theirs.chance_outcomes() if theirs.action_to_string(-1, a) == want))
        k += 1
    compared = 0
    while ours.var("hand_number") == 1:
        options = [str(a) for a in ours.legal_actions()]
        seat = ours.current_player()
        if ours.decision_label() == "pass":
            assert theirs.current_player() == seat
            # OpenSpiel: three cards one at a time; every set of three of the cards it offers
            first = [theirs.action_to_string(seat, a) for a in theirs.legal_actions()]
            assert {frozenset(_cards(o)) for o in options} == {frozenset(c) for c in itertools.combinations(first, 3)}
            compared += 1
            choice = rng.choice(options)
            ours.apply_action(choice)
            for name in sorted(_cards(choice)):
                theirs.apply_action(next(a for a in theirs.legal_actions() if theirs.action_to_string(seat, a) == name))
            continue
        legal = [theirs.action_to_string(theirs.current_player(), a) for a in theirs.legal_actions()]
        if legal == ["2C"] and theirs.current_player() != seat:   # the lead ours makes without asking
            theirs.apply_action(theirs.legal_actions()[0])
            continue
        assert theirs.current_player() == seat, f"seed {seed}"
        assert set().union(*map(_cards, options)) == set(legal), f"seed {seed}, {ours.history()[-3:]}"
        compared += 1
        choice = rng.choice(options)
        ours.apply_action(choice)
        (name,) = _cards(choice)
        theirs.apply_action(next(a for a in theirs.legal_actions() if theirs.action_to_string(seat, a) == name))
    assert theirs.is_terminal()
    return compared, [ours.var("score", p) for p in range(4)], theirs.returns()


def test_hearts_first_hand_agrees_with_openspiel_on_every_legal_set_and_the_points():
    game = load_game(ROOT / "examples/hearts.rules", players=4)
    spiel = pyspiel.load_game("hearts", {"qs_breaks_hearts": False})
    total = 0
    for seed in range(30):
        compared, points, returns = _first_hand(game, spiel, seed)
        assert [26 - p for p in points] == returns, f"seed {seed}"
        total += compared
    assert total >= 30 * (4 + 52 - 1)       # four passes and every card played but the 2 of Clubs
