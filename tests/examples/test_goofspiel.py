"""Goofspiel (examples/goofspiel.rules): the bids are made at once and shown only once every player
has bid; the highest bid alone wins the prize, a shared highest bid wins nothing; the prizes come in
the order the parameter says."""
from __future__ import annotations

from rulesrun.interpreter import load_game

from tests.support import ROOT

FILE = ROOT / "examples" / "goofspiel.rules"


def game(players=2, **params):
    return load_game(FILE, players=players, params=params)


def bid(s, value: int) -> None:
    s.apply_action(next(a for a in s.legal_actions() if str(a).startswith(f"bid {value} of ")))


def test_each_player_holds_a_suit_and_the_prizes_come_highest_first_when_descending():
    s = game(3, cards_per_suit=5, points_order="descending").new_initial_state(seed=1)
    assert sorted(s.cards("hand", 0)) == sorted(f"{v} of Clubs" for v in range(1, 6))
    assert sorted(s.cards("hand", 1)) == sorted(f"{v} of Hearts" for v in range(1, 6))
    assert sorted(s.cards("hand", 2)) == sorted(f"{v} of Spades" for v in range(1, 6))
    assert s.cards("prize") == ["5 of Diamonds"] and s.log() == ["The prize is the 5 of Diamonds."]
    assert len(s.program.card_names) == 4 * 5            # the prizes and three suits: no card unused


def test_the_bids_are_hidden_until_every_player_has_bid_then_the_highest_wins_the_prize():
    s = game(2, cards_per_suit=5, points_order="descending").new_initial_state(seed=1)
    before = s.observation(1)
    bid(s, 2)                                   # Player 1 bids 2
    after = s.observation(1)
    # Player 2 sees nothing of it: no card has moved, nothing is said, only whose turn it is
    assert {k: v for k, v in after.items() if k not in ("to_move", "decision")} == \
        {k: v for k, v in before.items() if k not in ("to_move", "decision")}
    assert after["to_move"] == 1 and after["decision"]["label"] == "bid"
    assert len(s.legal_actions()) == 5          # Player 2's whole hand, whatever Player 1 bid
    bid(s, 4)
    assert s.log()[1:4] == ["Player 1 bids 2 of Clubs.", "Player 2 bids 4 of Hearts.",
                            "Player 2 wins the 5 of Diamonds."]
    assert s.var("points", 1) == 5 and s.var("points", 0) == 0
    assert s.cards("won", 1) == ["5 of Diamonds"]
    assert sorted(s.cards("spent")) == ["2 of Clubs", "4 of Hearts"]
    assert s.cards("prize") == ["4 of Diamonds"]


def test_a_shared_highest_bid_wins_nothing():
    s = game(3, cards_per_suit=4, points_order="descending").new_initial_state(seed=1)
    bid(s, 3)
    bid(s, 3)
    bid(s, 1)
    assert "The highest bid is shared: nobody wins the 4 of Diamonds." in s.log()
    assert [s.var("points", p) for p in range(3)] == [0, 0, 0]
    assert "4 of Diamonds" in s.cards("spent")


def test_the_prizes_come_lowest_first_when_ascending_and_as_shuffled_when_random():
    s = game(2, cards_per_suit=4, points_order="ascending").new_initial_state(seed=1)
    assert s.cards("prize") == ["1 of Diamonds"]
    order = ["3 of Diamonds", "1 of Diamonds", "4 of Diamonds", "2 of Diamonds"]
    s = game(2, cards_per_suit=4).new_initial_state(seed=1, stack={"prizes": order})
    seen = []
    while not s.is_terminal():
        seen.append(s.cards("prize")[0])
        bid(s, max(int(str(a).split()[1]) for a in s.legal_actions()))
        bid(s, min(int(str(a).split()[1]) for a in s.legal_actions()))
    assert seen == order


def test_the_game_ends_after_the_last_prize_and_the_most_points_win():
    s = game(2, cards_per_suit=3, points_order="descending").new_initial_state(seed=1)
    # Player 1 bids 3, 2, 1; Player 2 bids 1, 3, 2: Player 1 wins the 3, Player 2 the 2 and the 1
    for a, b in ((3, 1), (2, 3), (1, 2)):
        bid(s, a)
        bid(s, b)
    assert s.is_terminal()
    assert s.returns() == [3, 3] and s.winners() == [0, 1]
    s = game(2, cards_per_suit=3, points_order="descending").new_initial_state(seed=1)
    for a, b in ((3, 1), (1, 3), (2, 2)):
        bid(s, a)
        bid(s, b)
    assert s.returns() == [3, 2] and s.winners() == [0]
