"""Doppelkopf (examples/doppelkopf.rules) in stacked-deck scenarios: the order of the trumps,
following suit with the trumps as one suit, the first of two equal cards winning, the Re party by
the Queens of Clubs (each player's own secret until a Queen of Clubs or an announcement shows
it), the marriage and the silent solo, 121 to win (120 when only Kontra was announced), Re and
Kontra, and the extra points (Doppelkopf, a fox caught, Charlie, against the Queens)."""
from __future__ import annotations

import random

import pytest

from rulesrun.interpreter import load_game

from tests.support import ROOT

DOKO = ROOT / "examples" / "doppelkopf.rules"
FACES = {9: "9", 10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}
SUITS = ("Clubs", "Spades", "Hearts", "Diamonds")
SHORT = {"C": "Clubs", "S": "Spades", "H": "Hearts", "D": "Diamonds"}
EVERY_CARD = [f"{FACES[r]} of {s}" for s in SUITS for r in range(9, 15) for _ in range(2)]
_games: dict = {}


def game(deals: int = 1):
    if deals not in _games:
        _games[deals] = load_game(DOKO, players=4, params={"deals": deals})
    return _games[deals]


def name(short: str) -> str:
    """'QC' is the Queen of Clubs, '10H' the 10 of Hearts."""
    return f"{short[:-1]} of {SHORT[short[-1]]}"


def deal(hands: dict, deals: int = 1):
    """A deal from a stacked deck: ``hands`` {seat: short card names} — Player 1 (seat 0), on the
    first dealer's left, takes the first twelve cards; a hand given fewer is filled from the cards
    no hand names, in the order of the pack."""
    pool = list(EVERY_CARD)
    named = {seat: [name(c) for c in cards] for seat, cards in hands.items()}
    for cards in named.values():
        for c in cards:
            pool.remove(c)
    top = []
    for seat in range(4):
        cards = named.get(seat, [])
        top += cards + [pool.pop(0) for _ in range(12 - len(cards))]
    return game(deals).new_initial_state(seed=0, stack={"deck": top})


def options(s):
    return s.current_player(), [str(a) for a in s.legal_actions()]


def act(s, *texts):
    for t in texts:
        assert t in options(s)[1], (t, options(s))
        s.apply_action(t)
    return s


def healthy(s):
    return act(s, "healthy", "healthy", "healthy", "healthy")


def play(s, seat: int, card: str, say: str = "no announcement"):
    """Seat plays a card, answering the question of an announcement first when it is asked."""
    if "no announcement" in options(s)[1]:
        assert s.current_player() == seat
        act(s, say)
    assert s.current_player() == seat, (seat, card, options(s))
    act(s, f"play {name(card)}")


def play_tricks(s, tricks, says=None):
    """Tricks as (leader, four cards in the order played); says {(trick, seat): announcement}."""
    says = says or {}
    for t, (leader, cards) in enumerate(tricks):
        for k, card in enumerate(cards):
            seat = (leader + k) % 4
            play(s, seat, card, says.get((t, seat), "no announcement"))
    return s


def hands_of(tricks) -> dict:
    hands: dict = {0: [], 1: [], 2: [], 3: []}
    for leader, cards in tricks:
        for k, card in enumerate(cards):
            hands[(leader + k) % 4].append(card)
    return hands


def score(s):
    return [s.var("score", p) for p in range(4)]


def party(s):
    return [s.var("party", p) for p in range(4)]


# A whole deal, trick by trick (the leader's seat, then the cards in the order played). Players 1
# and 3 hold the Queens of Clubs (Re); every trick is of one suit, or of Hearts ruffed by players
# who hold none. Re takes 121 card points, Kontra 119; no trick reaches 40, no fox changes party,
# the last trick is not won by a Jack of Clubs.
FULL_121 = [
    (0, ["AC", "KC", "9C", "10C"]),        # Player 1, 25 (Re)
    (0, ["9C", "AC", "10C", "KC"]),        # Player 2, 25 (Kontra)
    (1, ["AS", "KS", "9S", "10S"]),        # Player 2, 25
    (1, ["9S", "AS", "10S", "KS"]),        # Player 3, 25
    (2, ["KH", "9H", "AH", "9H"]),         # Player 1, 15
    (0, ["KH", "AH", "JD", "9D"]),         # Player 3 ruffs with the Jack of Diamonds, 17
    (2, ["QD", "10H", "10D", "AD"]),       # Player 4, 34
    (3, ["10H", "KD", "AD", "9D"]),        # Player 4 with the second 10 of Hearts, 25
    (3, ["JS", "QC", "JH", "KD"]),         # Player 1's Queen of Clubs, 11
    (0, ["QS", "QD", "QC", "10D"]),        # Player 3's Queen of Clubs over the Queen of Spades, 19
    (2, ["QS", "JC", "JS", "JH"]),         # Player 3, 9
    (2, ["JD", "QH", "JC", "QH"]),         # Player 4: of two Queens of Hearts the first wins, 10
]
# The same deal with Player 1's Jack of Clubs of the last trick and Player 2's Queen of Diamonds
# of the tenth changing hands: 120 to 120.
FULL_120 = [(leader, list(cards)) for leader, cards in FULL_121]
FULL_120[9][1][1] = "JC"
FULL_120[11][1][2] = "QD"


def test_the_trumps_rank_from_the_10s_of_hearts_down_to_the_9_of_diamonds():
    tricks = [
        (0, ["9D", "KD", "10D", "AD"]),        # Ace, 10, King, 9 of Diamonds: Player 4
        (3, ["AD", "JD", "JH", "JS"]),         # the Jacks over the Diamonds, by suit: Player 3
        (2, ["JC", "QD", "QH", "QS"]),         # the Queens over the Jacks, by suit: Player 2
        (1, ["QC", "10H", "9D", "KD"]),        # the 10 of Hearts over the Queen of Clubs: Player 3
    ]
    s = play_tricks(healthy(deal(hands_of(tricks))), tricks)
    assert [s.var("tricks", p) for p in range(4)] == [0, 1, 2, 1]
    assert "Player 3 wins the trick with the 10 of Hearts (17 points)." in s.log()
    assert s.current_player() == 2


P2_HAND = ["10H", "QH", "AH", "9H", "AC", "KC", "9C", "10C", "AS", "KS", "9S", "10S"]


@pytest.mark.parametrize("lead, follows", [
    ("KH", ["A of Hearts", "9 of Hearts"]),                   # the 10 and the Queen of Hearts are trumps
    ("9D", ["10 of Hearts", "Q of Hearts"]),                  # a Diamond led asks for a trump
    ("QD", ["10 of Hearts", "Q of Hearts"]),                  # ... and so does any trump
    ("AC", ["A of Clubs", "K of Clubs", "9 of Clubs", "10 of Clubs"]),
])
def test_a_player_follows_the_suit_led_and_the_trumps_are_one_suit(lead, follows):
    s = healthy(deal({0: [lead], 1: P2_HAND}))
    play(s, 0, lead)
    act(s, "no announcement")
    seat, legal = options(s)
    assert seat == 1 and sorted(legal) == sorted(f"play {c}" for c in follows)


def test_a_player_who_cannot_follow_plays_any_card():
    s = healthy(deal({0: ["KD"], 1: ["AH", "9H", "AC", "KC", "9C", "10C", "AS", "KS", "9S", "10S", "KH", "9H"]}))
    play(s, 0, "KD")
    act(s, "no announcement")
    assert len(options(s)[1]) == 11                           # every card of the hand (equal ones once)


def test_of_two_equal_cards_the_first_played_wins():
    tricks = [(0, ["10H", "10H", "9D", "9D"]), (0, ["AC", "AC", "9C", "9C"])]
    s = play_tricks(healthy(deal(hands_of(tricks))), tricks)
    assert s.var("tricks", 0) == 2 and s.var("tricks", 1) == 0
    assert s.var("card_points", 0) == 20 + 22


def test_the_holders_of_the_queens_of_clubs_are_re_each_knowing_only_its_own_party():
    s = healthy(deal(hands_of(FULL_121)))
    assert [s.var("re", p) for p in range(4)] == [True, False, True, False]
    assert party(s) == [None] * 4                             # nobody's party is shown yet
    obs = s.observation(1)
    assert "re" in obs["players"][1] and "re" not in obs["players"][0]   # Player 2 sees its own only
    play_tricks(s, FULL_121[:9])
    assert party(s) == ["Re", None, None, None]               # Player 1's Queen of Clubs shows it
    assert "Player 1 is Re." in s.log()
    play_tricks(s, FULL_121[9:10])
    assert party(s) == ["Re", "Kontra", "Re", "Kontra"]       # both are out: every party is known


def test_re_wins_with_121_card_points():
    s = play_tricks(healthy(deal(hands_of(FULL_121))), FULL_121)
    assert [s.var("card_points", p) for p in range(4)] == [51, 50, 70, 69]
    assert s.var("last_value") == 1
    assert score(s) == [1, -1, 1, -1]
    assert "Re wins with 121 to 119, worth 1." in s.log()
    assert s.is_terminal() and s.returns() == [1, -1, 1, -1]


def test_with_120_each_kontra_wins_and_scores_against_the_queens():
    s = play_tricks(healthy(deal(hands_of(FULL_120))), FULL_120)
    assert sum(s.var("card_points", p) for p in (0, 2)) == 120
    assert score(s) == [-2, 2, -2, 2]                         # won 1, against the Queens 1


def test_when_only_kontra_is_announced_re_wins_with_120():
    s = play_tricks(healthy(deal(hands_of(FULL_120))), FULL_120, says={(0, 1): "Kontra"})
    assert s.var("kontra_said") and not s.var("re_said")
    assert score(s) == [3, -3, 3, -3]                         # won 1, Kontra announced 2


def test_with_both_announced_re_needs_121_again():
    s = play_tricks(healthy(deal(hands_of(FULL_120))), FULL_120, says={(0, 0): "Re", (0, 1): "Kontra"})
    assert score(s) == [-6, 6, -6, 6]                         # won 1, Re 2, Kontra 2, against the Queens 1


def test_re_and_kontra_each_add_two_whoever_wins():
    s = play_tricks(healthy(deal(hands_of(FULL_121))), FULL_121, says={(0, 0): "Re", (0, 1): "Kontra"})
    assert "Player 1: Re!" in s.log() and "Player 2: Kontra!" in s.log()
    assert score(s) == [5, -5, 5, -5]
    # Re announced alone needs 121: with 120 it loses, and Kontra adds against the Queens.
    s = play_tricks(healthy(deal(hands_of(FULL_120))), FULL_120, says={(0, 0): "Re"})
    assert score(s) == [-4, 4, -4, 4]


def test_an_announcement_is_made_before_the_second_card_and_shows_the_party():
    s = healthy(deal(hands_of(FULL_121)))
    assert options(s) == (0, ["Re", "no announcement"])      # Player 1 holds a Queen of Clubs
    act(s, "no announcement", "play A of Clubs")
    assert options(s) == (1, ["Kontra", "no announcement"])
    act(s, "Kontra")
    assert party(s) == [None, "Kontra", None, None]
    act(s, "play K of Clubs")
    assert options(s) == (2, ["Re", "no announcement"])       # Re is still to be said; Kontra is said
    act(s, "no announcement", "play 9 of Clubs")
    # Kontra is said, and Player 4 is of Kontra: asked all the same, as everyone is in the time
    # for it (whom the rules ask must not tell the table a party).
    assert options(s) == (3, ["no announcement"])
    act(s, "no announcement", "play 10 of Clubs")
    assert options(s) == (0, ["Re", "no announcement"])       # the second card: the last time
    act(s, "no announcement", "play 9 of Clubs", "no announcement", "play A of Clubs")
    act(s, "Re", "play 10 of Clubs")
    assert s.var("re_said") and party(s)[2] == "Re"
    assert options(s) == (3, ["play K of Clubs"])             # both parties have spoken: no question
    act(s, "play K of Clubs")
    assert all(t.startswith("play") for t in options(s)[1])   # Player 2 leads with 10 cards: too late


def test_losers_under_90_add_a_point_and_60_is_not_under_60():
    tricks = [(leader, list(cards)) for leader, cards in FULL_121]
    tricks[6] = (2, ["AD", "10D", "10H", "QD"])                # Player 1 holds the 10s of Hearts now:
    tricks[7] = (0, ["10H", "9D", "AD", "KD"])                 # 34 and 25 more for Re, the foxes its own
    tricks[8] = (0, ["QC", "JH", "KD", "JS"])
    s = play_tricks(healthy(deal(hands_of(tricks))), tricks)
    assert sum(s.var("card_points", p) for p in (1, 3)) == 60
    assert score(s) == [2, -2, 2, -2]                         # won 1, under 90 1


def test_a_deal_without_a_trick_for_the_losers_adds_every_step_down_to_black():
    tricks = [
        (0, ["AC", "KC", "9C", "10C"]), (0, ["AC", "KC", "9C", "10C"]),
        (0, ["AS", "KS", "9S", "10S"]), (0, ["AS", "KS", "9S", "10S"]),
        (0, ["AH", "KH", "9H", "KH"]), (0, ["AH", "9H", "10H", "9D"]),
        (2, ["10H", "9D", "JS", "KD"]), (2, ["QC", "KD", "JC", "10D"]),
        (2, ["JC", "10D", "QC", "AD"]), (0, ["QS", "JD", "QD", "AD"]),
        (0, ["QD", "JH", "QS", "JD"]), (2, ["QH", "JH", "QH", "JS"]),
    ]
    s = play_tricks(healthy(deal(hands_of(tricks))), tricks)
    assert [s.var("tricks", p) for p in range(4)] == [7, 0, 5, 0]
    # won 1, under 90, 60 and 30 3, black 1; Kontra's two foxes caught by Player 1: 2
    assert score(s) == [7, -7, 7, -7]


def test_extra_points_doppelkopf_fox_and_charlie_are_set_against_each_other():
    tricks = [(leader, list(cards)) for leader, cards in FULL_121]
    tricks[0] = (0, ["AC", "AC", "10C", "10C"])                # Player 1's Doppelkopf: 42 (Re)
    tricks[1] = (0, ["9C", "KC", "9C", "KC"])
    tricks[6] = (2, ["QD", "10H", "AD", "10D"])                # Player 1's fox caught by Player 4
    tricks[10] = (2, ["QS", "QH", "JS", "QH"])
    tricks[11] = (2, ["JD", "JC", "JC", "JH"])                 # Player 4's Charlie in the last trick
    s = play_tricks(healthy(deal(hands_of(tricks))), tricks)
    assert s.var("doppelkopfs", 0) == 1
    assert "A Doppelkopf: 42 points in the trick." in s.log()
    assert s.var("charlie") == 3
    assert s.var("fox_from") == [0, 1] and s.var("fox_to") == [3, 3]   # the second fox stays in its party
    # Re wins 140 to 100: 1, Re's extra point 1, Kontra's 2: worth 0.
    assert sum(s.var("card_points", p) for p in (0, 2)) == 140
    assert s.var("last_value") == 0 and score(s) == [0, 0, 0, 0]


def marriage_hands():
    hands = hands_of(FULL_121)
    hands[0][hands[0].index("QS")] = "QC"                      # Player 1 holds both Queens of Clubs
    hands[2][hands[2].index("QC")] = "QS"
    return hands


def test_a_marriage_takes_as_partner_the_first_other_player_to_win_a_trick():
    s = deal(marriage_hands())
    assert options(s) == (0, ["healthy", "marriage"])
    act(s, "marriage")
    assert options(s) == (1, ["healthy"])                      # one pair of Queens of Clubs
    act(s, "healthy", "healthy", "healthy")
    assert party(s) == ["Re", None, None, None]
    # No announcement before the partner is found: the first trick is Player 1's own.
    act(s, "play A of Clubs", "play K of Clubs", "play 9 of Clubs", "play 10 of Clubs")
    act(s, "play 9 of Clubs", "play A of Clubs", "play 10 of Clubs", "play K of Clubs")
    assert "Player 2 wins a trick of the bride's: Player 1 and Player 2 are Re." in s.log()
    assert party(s) == ["Re", "Re", "Kontra", "Kontra"]
    assert s.var("re", 1) is True
    # Found by the second trick: an announcement needs one card fewer (10).
    assert s.var("announce_from") == 10
    assert options(s) == (1, ["Re", "no announcement"])


def test_a_marriage_partner_found_by_the_first_trick_announces_in_the_usual_time():
    s = act(deal(marriage_hands()), "marriage", "healthy", "healthy", "healthy")
    act(s, "play 9 of Clubs", "play A of Clubs", "play 10 of Clubs", "play K of Clubs")
    assert party(s) == ["Re", "Re", "Kontra", "Kontra"] and s.var("announce_from") == 11
    assert options(s) == (1, ["Re", "no announcement"])


def test_a_bride_who_wins_the_first_three_tricks_plays_alone_for_three_times_the_score():
    tricks = [(0, ["AC", "KC", "9C", "10C"]), (0, ["AC", "KC", "9C", "10C"]), (0, ["AS", "9S", "KS", "10S"])]
    hands = hands_of(tricks)
    hands[0] += ["QC", "QC"]
    s = act(deal(hands), "marriage", "healthy", "healthy", "healthy")
    play_tricks(s, tricks)
    assert "Player 1 won the first three tricks and plays alone." in s.log()
    assert party(s) == ["Re", "Kontra", "Kontra", "Kontra"] and s.var("announce_from") == 9
    finish(s)
    value = s.var("last_value")
    assert value > 0
    assert score(s) in ([3 * value] + [-value] * 3, [-3 * value] + [value] * 3)


def test_a_silent_marriage_is_a_solo_shown_by_the_second_queen_of_clubs():
    tricks = [(leader, list(cards)) for leader, cards in FULL_121]
    tricks[9] = (0, ["QC", "QD", "QS", "10D"])                 # Player 1's second Queen of Clubs
    tricks[10] = (0, ["JS", "JH", "QS", "JC"])
    s = healthy(deal(hands_of(tricks)))
    play_tricks(s, tricks[:9])
    assert party(s) == ["Re", None, None, None]
    play_tricks(s, tricks[9:10])
    assert party(s) == ["Re", "Kontra", "Kontra", "Kontra"]   # both from one hand: a solo
    play_tricks(s, tricks[10:])
    assert s.var("card_points", 0) == 70
    # Kontra wins 170 to 70: won 1, under 90 1 — no extra points, nothing against the Queens in
    # a solo; the soloist pays three times.
    assert "Kontra wins with 170 to 70 (a solo), worth 2." in s.log()
    assert score(s) == [-6, 2, 2, 2]


def finish(s):
    """Play the deal out with the first legal card, announcing nothing."""
    while not s.is_terminal():
        legal = options(s)[1]
        act(s, "no announcement" if "no announcement" in legal else legal[0])


def test_random_games_end_with_every_party_known_and_the_scores_adding_up_to_nothing():
    g = game(deals=4)
    for seed in range(6):
        s = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
            steps += 1
        assert steps < 4 * (4 + 48 + 8) + 1
        assert sum(score(s)) == 0 and s.var("deal_number") == 4
        assert sum(s.var("card_points", p) for p in range(4)) == 240
        assert None not in party(s)
