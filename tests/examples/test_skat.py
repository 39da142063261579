"""Skat (examples/skat.rules), as OpenSpiel's ``skat`` plays it: the 3-2-4-3 deal, the first to
declare plays alone, the skat taken up and two cards laid away (counted for the declarer), the Jacks
as trumps (and only they in Grand), Null with its own order and its end at the declarer's first
trick, and the returns times 240. Then both engines over many seeds: the same deal, the same random
moves, every legal set and the returns compared."""
from __future__ import annotations

import random
import re

import pytest

from rulesrun.interpreter import load_game

from tests.support import ROOT

FILE = ROOT / "examples" / "skat.rules"
SUITS = ["Diamonds", "Hearts", "Spades", "Clubs"]                             # OpenSpiel's order
RANKS = ["Seven", "Eight", "Nine", "Queen", "King", "Ten", "Ace", "Jack"]
BIDS = ["pass"] + [f"declare {s}" for s in SUITS] + ["declare Grand", "declare Null"]

# A deal: Player 1 the Jacks of Clubs and Spades and four Clubs, Player 2 the Jack of Hearts,
# Player 3 the Jack of Diamonds; the skat the Seven of Spades and the Eight of Diamonds.
HANDS = [
    ["Jack of Clubs", "Jack of Spades", "Ace of Clubs", "Ten of Clubs", "King of Clubs",
     "Ace of Hearts", "Ten of Hearts", "Seven of Hearts", "Ace of Spades", "Seven of Diamonds"],
    ["Jack of Hearts", "Queen of Clubs", "Nine of Clubs", "King of Hearts", "Queen of Hearts",
     "Ten of Spades", "King of Spades", "Ace of Diamonds", "Ten of Diamonds", "King of Diamonds"],
    ["Jack of Diamonds", "Eight of Clubs", "Seven of Clubs", "Nine of Hearts", "Eight of Hearts",
     "Queen of Spades", "Nine of Spades", "Eight of Spades", "Queen of Diamonds", "Nine of Diamonds"],
]
SKAT = ["Seven of Spades", "Eight of Diamonds"]


def deal_order(hands, skat) -> list[str]:
    """The deck, top first, that deals these hands: three each, the skat, four each, three each."""
    h1, h2, h3 = hands
    return (h1[:3] + h2[:3] + h3[:3] + skat + h1[3:7] + h2[3:7] + h3[3:7] + h1[7:] + h2[7:] + h3[7:])


def start(hands=HANDS, skat=SKAT):
    game = load_game(FILE, players=3)
    return game.new_initial_state(seed=1, stack={"deck": deal_order(hands, skat)})


def legal(s) -> set[str]:
    return {str(a) for a in s.legal_actions()}


def play(s, *texts: str) -> None:
    for t in texts:
        assert t in legal(s), f"{t!r} is not legal: {sorted(legal(s))}"
        s.apply_action(t)


def test_the_deal_is_three_each_two_to_the_skat_four_each_three_each():
    order = [f"{r} of {s}" for s in SUITS for r in RANKS]              # a deck in a known order
    s = load_game(FILE, players=3).new_initial_state(seed=1, stack={"deck": order})
    assert sorted(s.cards("hand", player=0)) == sorted(order[0:3] + order[11:15] + order[23:26])
    assert sorted(s.cards("hand", player=1)) == sorted(order[3:6] + order[15:19] + order[26:29])
    assert sorted(s.cards("hand", player=2)) == sorted(order[6:9] + order[19:23] + order[29:32])
    assert sorted(s.cards("skat")) == sorted(order[9:11])
    assert s.current_player() == 0 and legal(s) == set(BIDS)


def test_the_first_to_declare_is_the_declarer_and_nobody_after_is_asked():
    s = start()
    play(s, "pass", "declare Hearts")
    assert s.var("declarer") == 1 and s.var("contract") == "Suit_game" and s.var("trump") == "Hearts"
    assert s.current_player() == 1                                       # Player 3 is not asked
    assert s.log()[:2] == ["Player 1 passes.", "Player 2 declares Hearts: Hearts and the Jacks are trumps."]


def test_when_all_three_pass_the_game_is_over_and_nobody_scores():
    s = start()
    play(s, "pass", "pass", "pass")
    assert s.is_terminal() and s.returns() == [0, 0, 0]
    assert s.log()[-1] == "Everyone passes: the game is over."


def test_the_declarer_takes_up_the_skat_and_lays_two_cards_away_then_player_1_leads():
    s = start()
    play(s, "pass", "declare Clubs")
    assert sorted(s.cards("hand", player=1)) == sorted(HANDS[1] + SKAT) and s.cards("skat") == []
    assert legal(s) == {f"lay away {c}" for c in HANDS[1] + SKAT}
    play(s, "lay away Ace of Diamonds", "lay away Ten of Diamonds")
    assert sorted(s.cards("laid_away", player=1)) == ["Ace of Diamonds", "Ten of Diamonds"]
    assert len(s.cards("hand", player=1)) == 10
    # the defenders do not see the cards laid away; the declarer does
    assert "cards" not in s.observation(0)["players"][1]["laid_away"]
    assert s.observation(1)["players"][1]["laid_away"]["cards"] == ["Ace of Diamonds", "Ten of Diamonds"]
    assert s.current_player() == 0                                       # Player 1 leads the first trick


def clubs_by_player_1():
    s = start()
    play(s, "declare Clubs", "lay away Seven of Spades", "lay away Eight of Diamonds")
    return s


def test_in_a_suit_game_the_jacks_are_trumps_and_rank_clubs_spades_hearts_diamonds():
    s = clubs_by_player_1()
    play(s, "play Jack of Spades")
    # a trump led: the Jack of Hearts and the Clubs follow it
    assert legal(s) == {"play Jack of Hearts", "play Queen of Clubs", "play Nine of Clubs"}
    play(s, "play Jack of Hearts")
    assert legal(s) == {"play Jack of Diamonds", "play Eight of Clubs", "play Seven of Clubs"}
    play(s, "play Jack of Diamonds")
    assert s.log()[-1] == "Player 1 takes the trick with the Jack of Spades."
    assert s.var("points", player=0) == 6
    # Hearts led: the Jack of Hearts is no Heart, so it need not (and may not) follow
    play(s, "play Seven of Hearts")
    assert legal(s) == {"play King of Hearts", "play Queen of Hearts"}


def test_a_jack_beats_the_ace_of_trumps():
    s = clubs_by_player_1()
    play(s, "play Jack of Spades", "play Queen of Clubs", "play Seven of Clubs")     # Player 1 leads again
    play(s, "play Ace of Clubs", "play Nine of Clubs")
    play(s, "play Jack of Diamonds")
    assert s.log()[-1] == "Player 3 takes the trick with the Jack of Diamonds."
    assert s.var("points", player=2) == 11 + 2


def test_in_grand_only_the_jacks_are_trumps():
    s = start()
    play(s, "declare Grand", "lay away Seven of Spades", "lay away Eight of Diamonds")
    play(s, "play Jack of Clubs")
    assert legal(s) == {"play Jack of Hearts"}                           # the Clubs are no trumps
    play(s, "play Jack of Hearts", "play Jack of Diamonds")
    play(s, "play Ace of Clubs")                                         # Clubs led: a plain suit
    assert legal(s) == {"play Queen of Clubs", "play Nine of Clubs"}


def test_the_cards_laid_away_count_for_the_declarer_and_the_returns_are_times_240():
    s = start()
    play(s, "declare Clubs", "lay away Ace of Hearts", "lay away Ten of Hearts")     # 21 points laid away
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    taken = s.var("points", player=0)
    defenders = s.var("points", player=1) + s.var("points", player=2)
    assert taken + defenders == 120 and s.var("tricks_played") == 10
    assert f"Player 1 has {taken} points with the skat, the defenders {defenders}." in s.log()
    assert s.returns() == [2 * (taken - 60), 60 - taken, 60 - taken]
    assert 21 <= taken                                                   # the 21 laid away are in it


def test_taking_every_trick_scores_the_card_points_and_no_more():
    """OpenSpiel scores no schneider or schwarz: a declarer with every trick scores 120 card points."""
    trumps = [f"Jack of {s}" for s in SUITS] + [f"{r} of Clubs" for r in ("Ace", "Ten", "King", "Queen", "Nine", "Eight")]
    rest = [f"{r} of {s}" for s in SUITS[:3] for r in RANKS if r != "Jack" and f"{r} of {s}" != "Ace of Hearts"]
    s = start([trumps, rest[:10], rest[10:]], ["Seven of Clubs", "Ace of Hearts"])
    play(s, "declare Clubs", "lay away Seven of Clubs", "lay away Ace of Hearts")
    while not s.is_terminal():                   # Player 1 holds every trump: it takes every trick
        s.apply_action(s.legal_actions()[0])
    assert s.var("tricks", player=0) == 10 and s.var("points", player=0) == 120
    assert s.returns() == [120, -60, -60]                # OpenSpiel: 0.5, -0.25, -0.25


def test_in_null_the_jacks_follow_their_suit_and_rank_between_ten_and_queen():
    s = start()
    play(s, "pass", "declare Null", "lay away Ace of Diamonds", "lay away King of Diamonds")
    play(s, "play Jack of Spades")                                       # Player 1 leads
    assert legal(s) == {"play Seven of Spades", "play Ten of Spades", "play King of Spades"}
    play(s, "play Ten of Spades", "play Queen of Spades")
    assert s.log()[-1] == "Player 3 takes the trick with the Queen of Spades."
    assert not s.is_terminal()
    play(s, "play Eight of Hearts", "play Seven of Hearts")
    # the Jack of Hearts is a Heart in Null
    assert legal(s) == {"play Jack of Hearts", "play Queen of Hearts", "play King of Hearts"}


def test_a_null_game_is_lost_the_moment_the_declarer_takes_a_trick():
    s = start()
    play(s, "pass", "declare Null", "lay away Ace of Diamonds", "lay away King of Diamonds")
    play(s, "play Jack of Spades", "play Ten of Spades", "play Queen of Spades")
    play(s, "play Eight of Hearts", "play Seven of Hearts", "play King of Hearts")
    assert s.is_terminal() and s.var("tricks_played") == 2
    assert s.log()[-1] == "Player 2 takes a trick and loses the Null game."
    assert s.returns() == [30, -60, 30]              # OpenSpiel: 30 points against 90, times 240


def test_a_null_game_without_a_trick_is_won_whatever_is_laid_away():
    low = [f"{r} of {s}" for s in SUITS for r in ("Seven", "Eight", "Nine")]
    high = [f"{r} of {s}" for s in SUITS for r in ("Queen", "King", "Ten", "Ace", "Jack")]
    skat = ["Nine of Spades", "Nine of Clubs"]
    declarer = [c for c in low if c not in skat]
    # Player 2 holds every card below the Ten: whoever leads, a defender's higher card wins
    s = start([high[:10], declarer, high[10:]], skat)
    play(s, "pass", "declare Null", "lay away Nine of Spades", "lay away Seven of Hearts")
    while not s.is_terminal():
        s.apply_action(random.Random(len(s.history())).choice(s.legal_actions()))
    assert s.var("tricks_played") == 10 and s.var("tricks", player=1) == 0
    assert s.returns() == [-30, 60, -30]


def test_the_game_agrees_with_openspiel_skat_on_every_legal_set_and_the_returns():
    """200 seeds: OpenSpiel's 32 dealing chance nodes are fed our deal, then both take the same
    random moves (a bid a pass one time in two); at every decision the same player, the same legal
    actions and the same card points taken, at the end the same returns (ours divided by 240)."""
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'rulesrun[openspiel]')")

    def card_id(name: str) -> int:
        rank, suit = name.split(" of ")
        return SUITS.index(suit) * 8 + RANKS.index(rank)

    def action_id(text: str) -> int:
        if text in BIDS:
            return 32 + BIDS.index(text)
        return card_id(text.removeprefix("lay away ").removeprefix("play "))

    def openspiel_points(state) -> tuple | None:
        """(the declarer's card points, the defenders'), from its text in the play: 'Points (Solo / Team): (12 / 30)'."""
        m = re.search(r"Points \(Solo / Team\): \((\d+) / (\d+)\)", str(state))
        return (int(m.group(1)), int(m.group(2))) if m else None

    def card_points(state) -> tuple | None:
        """The same from ours, once the declarer has laid two cards away (OpenSpiel's play)."""
        declarer = state.var("declarer")
        if declarer is None or len(state.cards("laid_away", player=declarer)) < 2:
            return None
        return (state.var("points", player=declarer),
                sum(state.var("points", player=p) for p in range(3) if p != declarer))

    game = load_game(FILE, players=3)
    spiel = pyspiel.load_game("skat")
    compared = 0
    seen = {"contracts": set(), "null lost early": 0, "all passed": 0}
    for seed in range(200):
        rng = random.Random(seed)
        ours = game.new_initial_state(seed=seed)
        hands = [ours.cards("hand", player=p) for p in range(3)]
        theirs = spiel.new_initial_state()
        for card in deal_order(hands, ours.cards("skat")):
            theirs.apply_action(card_id(card))
        while not theirs.is_terminal():
            where = f"seed {seed}, after {ours.history()}"
            assert not ours.is_terminal(), where
            assert ours.current_player() == theirs.current_player(), where
            mine = {action_id(str(a)): a for a in ours.legal_actions()}
            assert sorted(mine) == theirs.legal_actions(), where
            assert card_points(ours) == openspiel_points(theirs), where
            compared += 1
            # random moves; a bid is a pass one time in two, so that some games see every seat pass
            a = 32 if 32 in mine and rng.random() < 0.5 else rng.choice(theirs.legal_actions())
            theirs.apply_action(a)
            ours.apply_action(mine[a])
        assert ours.is_terminal(), f"seed {seed}: OpenSpiel's game is over, ours is not"
        assert [r / 240 for r in ours.returns()] == theirs.returns(), f"seed {seed}"
        seen["contracts"].add(ours.var("contract"))
        seen["null lost early"] += ours.var("contract") == "Null" and ours.var("tricks_played") < 10
        seen["all passed"] += ours.var("declarer") is None
    assert seen["contracts"] == {"Suit_game", "Grand", "Null", None}      # None: all passed
    assert seen["null lost early"] > 0 and seen["all passed"] > 0
    assert compared > 200 * 20
