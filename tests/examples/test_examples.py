"""The example games in examples/: every rules file compiles for every player count it allows,
plays seeded random games to the end with its invariants holding at every step, and behaves as
its rulebook says in a few stacked-deck scenarios. The API example script runs cleanly."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.engine import State

from tests.support import ROOT  # noqa: E402
EXAMPLES = ROOT / "examples"
RULES = sorted(EXAMPLES.glob("*.rules"))
GAMES_PER_COUNT = 20
VARIANT_GAMES = 5
# Clone / JSON round trips (whose cost grows with the history) at these steps and at the end.
ROUND_TRIP_AT = {0, 1, 2, 5, 13, 34, 89, 233, 610, 1597, 4181}
REPLAYS = 5                    # games per player count that are also replayed from their history
MAX_DECISIONS = 50_000         # a random game longer than this is deemed not to end

FACES = {"J": 11, "Q": 12, "K": 13, "A": 14, "Jack": 11, "Queen": 12, "King": 13, "Ace": 14}


def rank(name: str) -> int:
    face = name.split(" of ")[0]
    return FACES.get(face) or int(face)


def suit(name: str) -> str:
    return name.split(" of ")[1]


def card_of(action: str) -> str:
    """The card in an action such as 'play Q of Spades'."""
    return action.split(" ", 1)[1]


_games: dict = {}


def game(name: str, players: int, variants: tuple = ()):
    key = (name, players, variants)
    if key not in _games:
        _games[key] = load_game(EXAMPLES / name, players=players, variants=variants)
    return _games[key]


def player_counts(path: Path) -> range:
    prog = load_game(path).program
    return range(prog.min_players, prog.max_players + 1)


CASES = [pytest.param(p.name, n, id=f"{p.stem}-{n}p") for p in RULES for n in player_counts(p)]
VARIANT_CASES = [pytest.param(p.name, v, id=f"{p.stem}-{v}")
                 for p in RULES for v in load_game(p).program.available_variants]


# ── checks made at every step of a random game ──────────────────────────────
def check_cards_partition(state: State) -> None:
    """Each card id is in exactly one zone, and ``loc`` agrees."""
    ncards = len(state.game.program.card_names)
    ids = [c for z in state.z for c in z]
    assert sorted(ids) == list(range(ncards)), "a card is missing or in two zones"
    for zi, z in enumerate(state.z):
        for c in z:
            assert state.loc[c] == zi


def check_round_trips(state: State) -> None:
    g = state.game
    twin = state.clone()
    assert twin == state
    restored = State.from_json(g, json.loads(json.dumps(state.to_json())))
    assert restored == state
    assert restored.to_json() == state.to_json()
    if not state.is_terminal():
        assert restored.legal_actions() == state.legal_actions() == twin.legal_actions()
        # The copies go on exactly like the original.
        a = state.legal_actions()[-1]
        twin.apply_action(a)
        restored.apply_action(a)
        assert twin == restored


def card_in(action: str, names) -> str:
    """The card named in an action ('play 7 of Hearts from dummy' -> '7 of Hearts')."""
    return max((n for n in names if n in action), key=len)


def check_follow_suit(state: State) -> None:
    """Trick games: a player holding the suit led, in the hand the card is played from (their own,
    or Bridge's dummy for the declarer), may play only that suit."""
    prog = state.game.program
    if state.is_terminal() or "trick" not in prog.zone_index or state.decision_label() != "play":
        return
    trick = state.cards("trick")
    if not trick:
        return
    led = suit(trick[0])
    names = prog.card_names
    cards = [card_in(a, names) for a in state.legal_actions()]
    source = state.z[state.loc[names.index(cards[0])]]
    if any(suit(names[c]) == led for c in source):
        assert all(suit(c) == led for c in cards), (led, state.legal_actions())


def hearts_rules(state: State) -> None:
    """Hearts: no hearts led before they are broken; no points on the first trick if avoidable."""
    if state.is_terminal() or state.decision_label() != "play":
        return
    hand = state.cards("hand", state.current_player())
    cards = [card_of(a) for a in state.legal_actions()]
    points = lambda c: suit(c) == "Hearts" or c == "Q of Spades"
    if not state.cards("trick") and not state.var("broken") and any(suit(c) != "Hearts" for c in hand):
        assert all(suit(c) != "Hearts" for c in cards)
    if state.var("tricks_played") == 0 and any(not points(c) for c in cards):
        assert not any(points(c) for c in cards)


def spades_rules(state: State) -> None:
    """Spades: no spade led before spades are broken, unless the leader holds nothing else."""
    if state.is_terminal() or state.decision_label() != "play" or state.cards("trick"):
        return
    hand = state.cards("hand", state.current_player())
    if not state.var("spades_broken") and any(suit(c) != "Spades" for c in hand):
        assert all(suit(card_of(a)) != "Spades" for a in state.legal_actions())


BOWER_PARTNER = {"Hearts": "Diamonds", "Diamonds": "Hearts", "Clubs": "Spades", "Spades": "Clubs"}


def euchre_suit(card: str, trump: str) -> str:
    """The suit a Euchre card follows: the left bower (the other Jack of trump's colour) is a trump."""
    return trump if rank(card) == 11 and suit(card) == BOWER_PARTNER[trump] else suit(card)


def euchre_follow_suit(state: State) -> None:
    """Euchre: follow the suit led if able, the left bower counting as a trump; the partner of a
    lone maker is never asked to play."""
    if state.is_terminal() or state.decision_label() != "play":
        return
    me = state.current_player()
    assert not state.var("sits_out", me)
    trick = state.cards("trick")
    if not trick:
        return
    trump = state.var("trump")
    led = euchre_suit(trick[0], trump)
    hand = state.cards("hand", me)
    legal = [card_of(a) for a in state.legal_actions()]
    if any(euchre_suit(c, trump) == led for c in hand):
        assert sorted(legal) == sorted(c for c in hand if euchre_suit(c, trump) == led), (led, legal)
    else:
        assert sorted(legal) == sorted(hand)


def skat_suit(card: str, contract: str, trump: str | None) -> str:
    """The suit a Skat card follows: the Jacks (and a suit game's trump suit) are trumps, but not in Null."""
    if contract != "Null" and (card.startswith("Jack ") or suit(card) == trump):
        return "trumps"
    return suit(card)


def doppelkopf_suit(card: str) -> str:
    """The suit a Doppelkopf card follows: the Queens, the Jacks, the Diamonds and the 10s of
    Hearts are all trumps."""
    if rank(card) in (11, 12) or suit(card) == "Diamonds" or card == "10 of Hearts":
        return "trumps"
    return suit(card)


def skat_follow_suit(state: State) -> None:
    """Skat: follow the suit led if able, the Jacks counting as trumps except in Null."""
    if state.is_terminal() or state.decision_label() != "play" or not state.cards("trick"):
        return
    contract, trump = state.var("contract"), state.var("trump")
    led = skat_suit(state.cards("trick")[0], contract, trump)
    hand = state.cards("hand", state.current_player())
    legal = [card_of(a) for a in state.legal_actions()]
    following = [c for c in hand if skat_suit(c, contract, trump) == led]
    assert sorted(legal) == sorted(following or hand), (led, legal)


def doppelkopf_follow_suit(state: State) -> None:
    """Doppelkopf: follow the suit led if able, the trumps counting as one suit."""
    if state.is_terminal() or state.decision_label() != "play" or not state.cards("trick"):
        return
    led = doppelkopf_suit(state.cards("trick")[0])
    hand = state.cards("hand", state.current_player())
    legal = sorted(card_of(a) for a in state.legal_actions())
    if any(doppelkopf_suit(c) == led for c in hand):
        assert legal == sorted({c for c in hand if doppelkopf_suit(c) == led}), (led, legal)
    else:
        assert legal == sorted(set(hand))


EXTRA_CHECKS = {"hearts.rules": [hearts_rules], "spades.rules": [spades_rules]}
# Games whose following rule is not the plain suit printed on the card.
FOLLOW_CHECKS = {"euchre.rules": euchre_follow_suit, "skat.rules": skat_follow_suit,
                 "doppelkopf.rules": doppelkopf_follow_suit}


def play_random(g, seed: int, checks=()) -> State:
    state = g.new_initial_state(seed=seed)
    rng = random.Random(seed * 7919 + 1)
    steps = 0
    while True:
        assert state.check_invariants() == [], f"seed {seed}, step {steps}"
        check_cards_partition(state)
        for check in checks:
            check(state)
        if steps in ROUND_TRIP_AT:
            check_round_trips(state)
        if state.is_terminal():
            break
        actions = state.legal_actions()
        assert actions, "a live game with no legal actions"
        assert len(set(actions)) == len(actions), "two legal actions with the same text"
        state.apply_action(rng.choice(actions))
        steps += 1
        assert steps < MAX_DECISIONS, f"seed {seed}: the game does not end"
    check_round_trips(state)
    return state


# ── every example, every player count ───────────────────────────────────────
@pytest.mark.parametrize("name,players", CASES)
@pytest.mark.slow
def test_random_games(name, players):
    g = game(name, players)
    checks = [FOLLOW_CHECKS.get(name, check_follow_suit)] + EXTRA_CHECKS.get(name, [])
    for seed in range(GAMES_PER_COUNT):
        end = play_random(g, seed, checks)
        returns = end.returns()
        assert len(returns) == players
        assert all(isinstance(r, (int, float)) for r in returns)
        winners = end.winners()
        assert winners and all(0 <= w < players for w in winners)
        if seed < REPLAYS:
            assert g.replay(seed, end.history()) == end


@pytest.mark.parametrize("name,variant", VARIANT_CASES)
def test_variants(name, variant):
    prog = load_game(EXAMPLES / name).program
    for players in {prog.min_players, prog.max_players}:
        g = game(name, players, (variant,))
        assert variant in g.variants
        for seed in range(VARIANT_GAMES):
            end = play_random(g, seed, [FOLLOW_CHECKS.get(name, check_follow_suit)])
            assert len(end.returns()) == players


def test_the_examples_exist():
    names = {p.name for p in RULES}
    assert {"oh_hell.rules", "crazy_eights.rules", "hearts.rules", "whist.rules", "spades.rules",
            "euchre.rules"} <= names


@pytest.mark.slow
def test_api_example_script_runs(tmp_path):
    script = EXAMPLES / "api_random_playout.py"
    for cwd in (ROOT, tmp_path):
        done = subprocess.run([sys.executable, str(script)], cwd=cwd, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "returns" in done.stdout


# ── Oh Hell ─────────────────────────────────────────────────────────────────
def test_oh_hell_schedule():
    for players, first in [(3, 10), (4, 10), (5, 10), (6, 8), (7, 7)]:
        s = game("oh_hell.rules", players).new_initial_state(seed=1)
        assert s.var("hand_size") == first
        assert all(len(s.cards("hand", p)) == first for p in range(players))
        end = play_random(game("oh_hell.rules", players), 3)
        sizes = [int(line.split(": ")[1].split()[0]) for line in end.log() if line.startswith("Round ")]
        assert sizes == list(range(first, 0, -1))          # first, first - 1, ..., 1
        # One point a trick (all the tricks of the game), plus 10 for each exact bid.
        tricks = first * (first + 1) // 2
        assert sum(end.returns()) == tricks + 10 * sum(end.var("bids_made", p) for p in range(players))


def test_oh_hell_up_and_down_the_river():
    end = play_random(game("oh_hell.rules", 4, ("up_and_down",)), 1)
    sizes = [int(line.split(": ")[1].split()[0]) for line in end.log() if line.startswith("Round ")]
    assert sizes == list(range(10, 0, -1)) + list(range(2, 11))


# Three players: Player 1 deals, so Player 2 bids first and leads; trumps are Spades.
OH_HELL_DECK = (
    ["K of Hearts", "Q of Hearts"] + [f"{r} of Clubs" for r in range(2, 10)]                   # Player 1
    + ["A of Hearts", "J of Hearts", "10 of Hearts"] + [f"{r} of Diamonds" for r in range(2, 9)]  # Player 2
    + ["2 of Spades", "3 of Spades", "4 of Spades", "6 of Spades", "7 of Spades",
       "9 of Diamonds", "10 of Diamonds", "J of Diamonds", "Q of Diamonds", "K of Diamonds"]   # Player 3
    + ["5 of Spades"])                                                                        # turned up


def test_oh_hell_trump_turned_up_and_hook():
    s = game("oh_hell.rules", 3).new_initial_state(seed=4, stack={"deck": OH_HELL_DECK})
    # 'deal' gives Player 1 the top 10 cards, Player 2 the next 10, Player 3 the next 10.
    for p in range(3):
        assert set(s.cards("hand", p)) == set(OH_HELL_DECK[10 * p:10 * p + 10])
    assert s.cards("turned") == ["5 of Spades"]
    assert s.var("trump") == "Spades"
    assert s.current_player() == 1                         # left of the dealer bids first
    assert s.legal_actions() == [f"bid {n}" for n in range(11)]
    s.apply_action("bid 3")
    s.apply_action("bid 4")
    assert s.current_player() == 0                         # the dealer bids last ...
    assert "bid 3" not in s.legal_actions()                # ... and may not make 10
    assert len(s.legal_actions()) == 10
    variant = game("oh_hell.rules", 3, ("no_hook",)).new_initial_state(seed=4, stack={"deck": OH_HELL_DECK})
    variant.apply_action("bid 3")
    variant.apply_action("bid 4")
    assert "bid 3" in variant.legal_actions()


def test_oh_hell_follow_suit_and_trump_wins():
    s = game("oh_hell.rules", 3).new_initial_state(seed=4, stack={"deck": OH_HELL_DECK})
    for _ in range(3):
        s.apply_action("bid 0")
    assert s.current_player() == 1
    assert len(s.legal_actions()) == 10                    # the leader may lead anything
    s.apply_action("play A of Hearts")
    assert len(s.legal_actions()) == 10                    # Player 3 has no hearts: anything goes
    s.apply_action("play 2 of Spades")
    assert sorted(s.legal_actions()) == ["play K of Hearts", "play Q of Hearts"]   # must follow
    s.apply_action("play K of Hearts")
    assert s.var("tricks", 2) == 1                         # the lowest trump beats the Ace led
    assert s.current_player() == 2                         # and the winner leads
    assert "Player 3 wins the trick with the 2 of Spades." in s.log()


# ── Crazy Eights ────────────────────────────────────────────────────────────
# Two players: Player 1 deals, Player 2 plays first; 7 cards each, then the starter.
C8_P1 = ["2 of Spades", "K of Spades", "8 of Hearts", "3 of Clubs", "4 of Clubs", "6 of Clubs", "7 of Clubs"]
C8_P2_EIGHT = ["8 of Clubs", "2 of Diamonds", "3 of Diamonds", "4 of Diamonds", "6 of Diamonds",
               "7 of Diamonds", "9 of Diamonds"]
C8_P2_NOTHING = ["10 of Diamonds", "2 of Diamonds", "3 of Diamonds", "4 of Diamonds", "6 of Diamonds",
                 "7 of Diamonds", "9 of Diamonds"]


def test_crazy_eights_eight_is_wild_and_names_the_suit():
    g = game("crazy_eights.rules", 2)
    s = g.new_initial_state(seed=2, stack={"stock": C8_P1 + C8_P2_EIGHT + ["5 of Hearts"]})
    assert s.cards("discard") == ["5 of Hearts"]
    assert s.current_player() == 1
    assert sorted(s.legal_actions()) == ["decide to draw", "decide to play"]
    s.apply_action("decide to play")
    assert s.legal_actions() == ["play 8 of Clubs"]        # nothing matches the 5 of Hearts but the eight
    s.apply_action("play 8 of Clubs")
    assert s.current_player() == 1
    assert s.legal_actions() == ["name Clubs", "name Diamonds", "name Hearts", "name Spades"]
    s.apply_action("name Spades")
    assert s.var("suit_to_match") == "Spades"
    assert "Player 2 plays the 8 of Clubs and names Spades." in s.log()
    assert s.current_player() == 0
    s.apply_action("decide to play")
    # The named suit, or another eight; not the Clubs of the eight itself.
    assert sorted(s.legal_actions()) == ["play 2 of Spades", "play 8 of Hearts", "play K of Spades"]


def test_crazy_eights_must_draw_until_able():
    g = game("crazy_eights.rules", 2)
    stack = C8_P1 + C8_P2_NOTHING + ["5 of Hearts", "J of Clubs", "9 of Hearts"]
    s = g.new_initial_state(seed=2, stack={"stock": stack})
    # Player 2 cannot play, but is asked the same question as anyone (nobody learns that).
    assert s.current_player() == 1
    assert s.legal_actions() == ["decide to draw"]
    s.apply_action("decide to draw")
    # Player 2 drew the Jack of Clubs (useless), then the 9 of Hearts.
    assert len(s.cards("hand", 1)) == 9
    assert s.legal_actions() == ["play 9 of Hearts"]
    assert s.log().count("Player 2 draws a card.") == 2


def test_crazy_eights_choosing_to_draw():
    g = game("crazy_eights.rules", 2)
    s = g.new_initial_state(seed=2, stack={"stock": C8_P1 + C8_P2_EIGHT + ["5 of Hearts", "K of Hearts"]})
    s.apply_action("decide to draw")
    assert "K of Hearts" in s.cards("hand", 1)
    assert sorted(s.legal_actions()) == ["play 8 of Clubs", "play K of Hearts"]   # no second choice to draw


def test_crazy_eights_starter_eight_is_buried():
    g = game("crazy_eights.rules", 2)
    s = g.new_initial_state(seed=2, stack={"stock": C8_P1 + C8_P2_NOTHING + ["8 of Spades", "6 of Hearts"]})
    assert s.cards("discard") == ["6 of Hearts"]
    assert s.cards("stock")[0] == "8 of Spades"            # at the bottom of the stock
    assert s.var("suit_to_match") == "Hearts"


def test_crazy_eights_one_hand_ends_as_openspiel_does():
    """The variant benchmarks/run.py sets beside OpenSpiel's crazy_eights: one hand, which ends when a
    player goes out, when every player passes in a row, or after 100 turns; never a new stock."""
    g = game("crazy_eights.rules", 4, variants=("one_hand",))
    ends = set()
    for seed in range(40):
        s = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        assert s.var("hand_number") == 1
        assert s.var("turns") <= 100
        assert all(not isinstance(e, tuple) or e[0] != "shuffle" or len(e[2]) == 52 for e in s.events())
        out = [p for p in range(4) if not s.cards("hand", p)]
        ends.add("out" if out else "blocked" if s.var("passes") == 4 else "turns" if s.var("turns") == 100 else "?")
    assert ends <= {"out", "blocked", "turns"} and "out" in ends


PENALTY = lambda c: 50 if rank(c) == 8 else 10 if 11 <= rank(c) <= 13 else 1 if rank(c) == 14 else rank(c)


@pytest.mark.parametrize("players", [2, 4])
def test_crazy_eights_penalties_and_reshuffles(players):
    """Replays random games, checking the final hand's penalty points and every reshuffle."""
    g = game("crazy_eights.rules", players)
    reshuffles = 0
    for seed in range(5):
        s = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        before = None
        while not s.is_terminal():
            before = [s.var("penalty", p) for p in range(players)]
            n_steps = len(s.hist)                          # decisions and chance events so far
            s.apply_action(rng.choice(s.legal_actions()))
            if all(isinstance(h, str) for h in s.hist[n_steps:]):
                continue                                   # no shuffle in this step
            for e in s.events()[n_steps:]:
                if isinstance(e, tuple) and e[1] == "stock" and len(e[2]) < 52:
                    reshuffles += 1                        # the discard pile made a new stock ...
                    assert len(s.cards("discard")) == 1      # ... all but its top card
        after = [s.var("penalty", p) for p in range(players)]
        for p in range(players):
            assert after[p] - before[p] == sum(PENALTY(c) for c in s.cards("hand", p))
        assert max(after) >= 100
        assert s.winners() == [p for p in range(players) if after[p] == min(after)]
    assert reshuffles > 0


# ── Hearts ──────────────────────────────────────────────────────────────────
H = "Hearts"
MOON_DECK = (
    # Player 1: will hold the Ace of Clubs, Ace-King of Spades and the ten top hearts
    ["A of Clubs", "A of Spades", "K of Spades"] + [f"{f} of Hearts" for f in ["A", "K", "Q", "J", "10", "9", "8"]]
    + ["2 of Diamonds", "3 of Diamonds", "4 of Diamonds"]
    # Player 2: the Queen of Spades and no other spade
    + ["Q of Spades", "4 of Hearts"] + [f"{f} of Clubs" for f in ["K", "Q", "J", "10", "9"]]
    + [f"{f} of Diamonds" for f in ["A", "K", "Q", "J", "10", "9"]]
    # Player 3
    + ["3 of Hearts"] + [f"{f} of Spades" for f in ["J", "10", "9", "8", "7"]]
    + [f"{f} of Clubs" for f in ["8", "7", "6", "5"]] + ["8 of Diamonds", "7 of Diamonds", "6 of Diamonds"]
    # Player 4: the 2 of Clubs
    + ["7 of Hearts", "6 of Hearts", "5 of Hearts", "2 of Hearts"] + [f"{f} of Spades" for f in "65432"]
    + ["4 of Clubs", "3 of Clubs", "2 of Clubs", "5 of Diamonds"])
MOON_PASSES = [["2 of Diamonds", "3 of Diamonds", "4 of Diamonds"], ["A of Diamonds", "K of Diamonds", "Q of Diamonds"],
               ["8 of Diamonds", "7 of Diamonds", "6 of Diamonds"], ["7 of Hearts", "6 of Hearts", "5 of Hearts"]]


def pass_three(s, cards) -> None:
    """Player to move passes these three cards: the option that names them (in any order)."""
    want = set(cards)
    s.apply_action(next(a for a in s.legal_actions() if set(str(a)[len("pass "):].split(", ")) == want))


def test_hearts_passing_hides_the_cards_and_hands_them_left():
    g = game("hearts.rules", 4)
    s = g.new_initial_state(seed=1, stack={"deck": MOON_DECK})
    assert s.var("direction") == "Left"
    for p in range(4):
        # every player is asked once, at once: three cards of their hand, 286 ways
        assert s.current_player() == p and s.decision_label() == "pass" and s.at_once is not None
        assert len(s.legal_actions()) == 286
        pass_three(s, MOON_PASSES[p])
        if p < 3:
            # Nothing has moved yet: every hand still holds 13 cards, and nobody is told anything.
            for q in range(4):
                assert all(view["hand"]["count"] == 13 for view in s.observation(q)["players"])
            assert not any("Diamonds" in line or "Hearts" in line for line in s.log())
    # Passed to the left: each player's cards went to the next player.
    for p in range(4):
        assert set(MOON_PASSES[p]) <= set(s.cards("hand", (p + 1) % 4))
        assert not set(MOON_PASSES[p]) & set(s.cards("hand", p))
    # The holder of the 2 of Clubs (Player 4) led it without being asked.
    assert s.cards("trick") == ["2 of Clubs"]
    assert [len(s.cards("hand", p)) for p in range(4)] == [13, 13, 13, 12]
    assert s.current_player() == 0
    assert s.legal_actions() == ["play A of Clubs"]         # Player 1's only club


def test_hearts_queen_of_spades_and_shooting_the_moon():
    g = game("hearts.rules", 4)
    s = g.new_initial_state(seed=1, stack={"deck": MOON_DECK})
    for p in range(4):
        pass_three(s, MOON_PASSES[p])
    points = lambda c: suit(c) == H or c == "Q of Spades"
    checked = set()
    while s.var("hand_number") == 1:
        cards = [card_of(a) for a in s.legal_actions()]
        leading = not s.cards("trick")
        if leading and s.var("tricks_played") == 1:
            # Player 1 leads to the second trick: hearts are not broken, so no heart may be led.
            assert s.current_player() == 0 and sorted(cards) == ["A of Spades", "K of Spades"]
            checked.add("no hearts led")
        if leading and s.var("tricks_played") == 2:
            # Player 2, void in spades, dropped the Queen on the Ace: 13 points at once.
            assert s.var("hand_points", 0) == 13 and not s.var("broken")
            checked.add("queen")
        # Player 1 plays high; the others give Player 1 every point they can.
        if s.current_player() == 0:
            pick = max(cards, key=rank)
        else:
            pick = next((c for c in cards if c == "Q of Spades"), None) or \
                next((c for c in cards if points(c)), None) or min(cards, key=rank)
        s.apply_action(f"play {pick}")
    assert checked == {"no hearts led", "queen"}
    assert "Player 1 shoots the moon!" in s.log()
    assert [s.var("score", p) for p in range(4)] == [0, 26, 26, 26]
    assert s.var("direction") == "Right"                    # the second hand passes right


def test_hearts_pass_rotation():
    g = game("hearts.rules", 4)
    for seed in range(3):
        end = play_random(g, seed)
        hands = [line for line in end.log() if line.startswith("Hand ")]
        cycle = ["Left", "Right", "Across", "Keep"]
        assert len(hands) >= 4
        for i, line in enumerate(hands):
            d = cycle[i % 4]
            assert line == (f"Hand {i + 1}: no passing." if d == "Keep" else f"Hand {i + 1}: pass {d}.")
        passing_hands = sum(1 for i in range(len(hands)) if cycle[i % 4] != "Keep")
        assert sum(1 for a in end.history() if a.startswith("pass ")) == 4 * passing_hands   # three cards at once each
        assert max(end.var("score", p) for p in range(4)) >= 100
        assert end.returns() == [-end.var("score", p) for p in range(4)]


# ── Whist ───────────────────────────────────────────────────────────────────
def full_deck(g) -> list[str]:
    return list(g.program.card_names)


def test_whist_deal_one_at_a_time_and_trump_turned_up():
    g = game("whist.rules", 4)
    order = full_deck(g)
    random.Random(5).shuffle(order)
    order.remove("2 of Spades")
    order.append("2 of Spades")                             # the dealer's last card
    s = g.new_initial_state(seed=1, stack={"deck": order})
    # Player 4 deals, starting with Player 1: every fourth card goes to the same player.
    for p in range(3):
        assert set(s.cards("hand", p)) == set(order[p::4])
    assert set(s.cards("hand", 3)) == set(order[3::4]) - {"2 of Spades"}
    assert s.cards("turned_up") == ["2 of Spades"]
    assert s.var("trump") == "Spades"
    assert s.current_player() == 0                         # the dealer's left leads
    s.apply_action(s.legal_actions()[0])
    s.apply_action(s.legal_actions()[0])
    s.apply_action(s.legal_actions()[0])
    assert s.current_player() == 3
    assert s.cards("turned_up") == []                      # the dealer took it up to play
    assert "2 of Spades" in s.cards("hand", 3) and len(s.cards("hand", 3)) == 13


def test_whist_honours_and_tricks_scoring():
    g = game("whist.rules", 4)
    order = full_deck(g)
    random.Random(9).shuffle(order)
    honours = ["A of Spades", "K of Spades", "Q of Spades", "J of Spades"]
    for c in honours + ["2 of Spades"]:
        order.remove(c)
    # Players 1 and 3 are dealt all four honours (positions 0 and 2 mod 4); 2 of Spades turned up.
    for pos, c in zip([0, 2, 4, 6], honours):
        order.insert(pos, c)
    order.append("2 of Spades")
    for seed in range(6):
        s = g.new_initial_state(seed=seed, stack={"deck": order})
        assert s.var("honours", 0) + s.var("honours", 2) == 4
        rng = random.Random(seed)
        while s.var("deal_number") == 1 and not s.is_terminal():
            s.apply_action(rng.choice(s.legal_actions()))
        log = s.log()
        t13 = next(int(line.split(" take ")[1].split()[0]) for line in log if line.startswith("Player 1 and Player 3 take"))
        t24 = 13 - t13
        won_on_tricks = max(0, t24 - 6) >= 5 or max(0, t13 - 6) >= 5
        expected13 = max(0, t13 - 6) + (0 if won_on_tricks else 4)
        assert s.var("points", 0) == s.var("points", 2) == expected13
        assert s.var("points", 1) == s.var("points", 3) == max(0, t24 - 6)


# ── Contract Bridge ─────────────────────────────────────────────────────────
def bridge_rules(state: State) -> None:
    """Bridge: once the play has begun the dummy never decides - the declarer plays the dummy's
    cards, from the dummy's hand face up on the table."""
    dummy = state.var("dummy")
    if state.is_terminal() or dummy is None or state.decision_label() != "play":
        return
    assert state.current_player() != dummy
    if any(a.endswith(" from dummy") for a in map(str, state.legal_actions())):
        assert state.current_player() == state.var("declarer")
        assert all(str(a).endswith(" from dummy") for a in state.legal_actions())
        assert not state.cards("hand", dummy) and state.cards("dummy_hand")


EXTRA_CHECKS["bridge.rules"] = [bridge_rules]

# Law 77, written out again: the undertrick penalties by the number of undertricks (cumulative).
UNDER_NV_DOUBLED = [0, 100, 300, 500, 800, 1100, 1400, 1700, 2000, 2300, 2600, 2900, 3200, 3500]
UNDER_V_DOUBLED = [0, 200, 500, 800, 1100, 1400, 1700, 2000, 2300, 2600, 2900, 3200, 3500, 3800]


def law77(level: int, strain: str, risk: str, vul: bool, tricks: int) -> int:
    """The declaring side's duplicate score for a contract and the tricks it took."""
    times = {"undoubled": 1, "doubled": 2, "redoubled": 4}[risk]
    need = 6 + level
    if tricks < need:
        down = need - tricks
        if risk == "undoubled":
            return -down * (100 if vul else 50)
        return -(UNDER_V_DOUBLED if vul else UNDER_NV_DOUBLED)[down] * times // 2
    per = 20 if strain in ("Clubs", "Diamonds") else 30
    first = 40 if strain == "No Trump" else per
    trick_score = (first + per * (level - 1)) * times
    score = trick_score + (50 if trick_score < 100 else 500 if vul else 300)
    score += {6: 750 if vul else 500, 7: 1500 if vul else 1000}.get(level, 0)
    score += {"undoubled": 0, "doubled": 50, "redoubled": 100}[risk]
    over = tricks - need
    score += over * (per if risk == "undoubled" else (200 if vul else 100) * times // 2)
    return score


@pytest.mark.parametrize("vulnerable", ["nobody", "north_south", "east_west", "both"])
def test_bridge_scores_by_law_77(vulnerable):
    """Random deals with mostly low auctions (a call is a pass two times in three, a double or
    redouble is made when it may be, half the time), and a play in which the declarer plays high
    and the defenders low, half the time: each side's score is the one Law 77 gives, worked out
    again here."""
    g = load_game(EXAMPLES / "bridge.rules", players=4, params={"vulnerable": vulnerable})
    seen = set()
    for seed in range(150):
        state = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            actions = [str(a) for a in state.legal_actions()]
            if state.var("declarer") is None:
                doubles = [a for a in actions if a in ("double", "redouble")]
                if doubles and rng.random() < 1 / 2:
                    choice = doubles[0]
                else:
                    choice = "pass" if rng.random() < 2 / 3 else rng.choice(actions)
            elif rng.random() < 1 / 2:
                by_rank = sorted(actions, key=lambda a: rank(card_of(a).removesuffix(" from dummy")))
                high = state.current_player() == state.var("declarer")
                choice = by_rank[-1] if high else by_rank[0]
            else:
                choice = rng.choice(actions)
            state.apply_action(choice)
        returns = state.returns()
        level, strain = state.var("level"), state.var("strain")
        if level is None:
            assert returns == [0, 0, 0, 0]
            continue
        side = state.var("declarer") % 2
        tricks = state.var("tricks of " + ["North-South", "East-West"][side])
        vul = vulnerable in ("both", ["north_south", "east_west"][side])
        want = law77(level, strain, state.var("risk"), vul, tricks)
        assert returns[side] == returns[side + 2] == want, (seed, level, strain, state.var("risk"), tricks)
        assert returns[1 - side] == returns[3 - side] == -want
        seen.add((state.var("risk"), want > 0))
    assert seen == {(r, m) for r in ("undoubled", "doubled", "redoubled") for m in (True, False)}, seen


# ── Spades ──────────────────────────────────────────────────────────────────
def side_value(state: State, name: str, seat: int):
    """A partnership's value (team state) for the team of ``seat``: Players 1 and 3 are
    North-South, Players 2 and 4 East-West."""
    return state.var(f"{name} of {'North-South' if seat % 2 == 0 else 'East-West'}")


def spades_side_score(bids, nils, blinds, tricks, bags):
    """What one side scores in a hand, and its bags after, by the rules in the file's header."""
    contract = sum(b for b, n in zip(bids, nils) if not n)
    made = sum(t for t, n in zip(tricks, nils) if not n)
    new_bags = sum(t for t, n in zip(tricks, nils) if n)          # a Nil bidder's tricks are bags
    points = 0
    if contract > 0:
        if made >= contract:
            points += 10 * contract
            new_bags += made - contract
        else:
            points -= 10 * contract
    for n, b, t in zip(nils, blinds, tricks):
        if n:
            points += (200 if b else 100) * (1 if t == 0 else -1)
    points += new_bags
    bags += new_bags
    if bags >= 10:
        bags -= 10
        points -= 100
    return points, bags


def test_spades_scores_follow_the_rules():
    """Random games: every hand's score and bags for each side, worked out again from the bids
    and the tricks; the game ends exactly when a side reaches 500 or falls to -200."""
    g = game("spades.rules", 4)
    hands = nils = blinds = 0
    for seed in range(12):
        s = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        playing = None
        while not s.is_terminal():
            if s.var("phase") == "Playing":
                playing = {k: [s.var(k, p) for p in range(4)] for k in ("bid", "nil", "blind", "tricks")}
                playing.update({k: [side_value(s, k, p) for p in range(4)] for k in ("score", "bags")})
            hand = s.var("hand_number")
            seen = len(s.log())
            s.apply_action(rng.choice(s.legal_actions()))
            if s.is_terminal() or s.var("hand_number") != hand:
                hands += 1
                last = next(line for line in s.log()[seen:] if "wins the trick" in line)
                tricks = list(playing["tricks"])
                tricks[int(last.split()[1]) - 1] += 1
                assert sum(tricks) == 13
                for side in ((0, 2), (1, 3)):
                    pts, bags = spades_side_score([playing["bid"][p] for p in side], [playing["nil"][p] for p in side],
                                                  [playing["blind"][p] for p in side], [tricks[p] for p in side],
                                                  playing["bags"][side[0]])
                    for p in side:
                        assert side_value(s, "score", p) == playing["score"][p] + pts
                        assert side_value(s, "bags", p) == bags
                nils += sum(playing["nil"])
                blinds += sum(playing["blind"])
                scores = [side_value(s, "score", p) for p in (0, 1)]
                ended = (max(scores) >= 500 or min(scores) <= -200) and scores[0] != scores[1]
                assert s.is_terminal() == ended
    assert hands > 12 and nils > 0 and blinds > 0


@pytest.mark.parametrize("name", ["spades.rules", "euchre.rules"])
def test_the_first_dealer_is_chosen_at_random(name):
    g = game(name, 4)
    dealers = [g.new_initial_state(seed=seed).var("dealer") for seed in range(24)]
    assert set(dealers) == {0, 1, 2, 3}
    s = g.new_initial_state(seed=5)
    assert ("random", f"Player {s.var('dealer') + 1}") in s.events()
    assert s.current_player() == (s.var("dealer") + 1) % 4      # the dealer's left speaks first


# ── Euchre ──────────────────────────────────────────────────────────────────
def test_euchre_points_follow_the_rules():
    """Random games: each deal's points — 1 for 3 or 4 tricks, 2 for a march, 4 for a lone march,
    2 to the defenders for a euchre — and the game ends when a side reaches 10."""
    g = game("euchre.rules", 4)
    seen_kinds = set()
    kinds = {"alone march", "march", "made", "euchred"}
    for seed in range(100):
        if seed >= 10 and seen_kinds == kinds:
            break
        s = g.new_initial_state(seed=seed)
        rng = random.Random(seed)
        playing = None
        while not s.is_terminal():
            if s.var("phase") == "Playing":
                playing = {"maker": s.var("maker"), "alone": s.var("alone"),
                           "tricks": [s.var("tricks", p) for p in range(4)],
                           "points": [side_value(s, "points", p) for p in range(4)]}
            deal = s.var("deal_number")
            seen = len(s.log())
            s.apply_action(rng.choice(s.legal_actions()))
            new = s.log()[seen:]
            if (s.is_terminal() or s.var("deal_number") != deal) and not any("thrown in" in line for line in new):
                last = next(line for line in new if "wins the trick" in line)
                tricks = list(playing["tricks"])
                tricks[int(last.split()[1]) - 1] += 1
                maker = playing["maker"]
                makers = (maker, (maker + 2) % 4)
                taken = sum(tricks[p] for p in makers)
                if taken == 5:
                    kind, gain = ("alone march", 4) if playing["alone"] else ("march", 2)
                elif taken >= 3:
                    kind, gain = "made", 1
                else:
                    kind, gain = "euchred", 2
                    makers = ((maker + 1) % 4, (maker + 3) % 4)
                seen_kinds.add(kind)
                for p in range(4):
                    assert side_value(s, "points", p) == playing["points"][p] + (gain if p in makers else 0)
        points = [side_value(s, "points", p) for p in range(4)]
        assert max(points) >= 10 and min(points) < 10
        assert s.winners() == [p for p in range(4) if points[p] >= 10]
    assert seen_kinds == kinds
