"""The Magic Shop, hand-written in plain Python: the performance baseline for the rules engine.

Written from the rulebook (shared/seeds/the_magic_shop.txt) and its rulings
(shared/rules/the_magic_shop.md), not from the engine. It asks the same questions, in the same
order and with the same action texts, as ``games/magic_shop.rules``, so that a differential test
can drive both side by side (tests/games/test_reference_magic_shop.py):

    bidding, seat by seat:  "bid with <card>", then "place it face up" /
                            "place it face down, bidding 0" / "place it face down, bidding 3"
    tricks, from the lead:  "play <card>" (follow the lead suit if able)
    the trick's winner:     "use <Suit>" (the suits played, in the order they were played)
    Door, seat by seat:     "pass <card>"
    Wine:                   "move the Trump Marker to <Suit>" (previous, then next on the ring)
    Machine:                "new Bid Card <card>"

The API has the shape of the engine's ``State``: ``current_player()``, ``legal_actions()`` (a list
of str), ``apply_action(str)``, ``is_terminal()``, ``returns()``, ``clone()``.

    game = MagicShop(players=4)
    state = game.new_initial_state(seed=7)                  # deals from the seed
    state = game.new_initial_state(deals=[deck1, deck2, deck3])  # each a list of card names, top first

A deck given for a round is dealt as the engine deals: seat 0 takes the top N cards, seat 1 the
next N, and so on; the rest is unused. Rounds without a given deck are shuffled from the seed (``random.Random(seed)``, so the
deals differ from a seeded engine's).

Representation: a card is an int ``suit * 9 + rank`` with the suits in ring order (Eye, Invisible,
Door, Wine, Machine); hands are lists of ints; the action texts are built once per card and kept
in module-level tables, so producing the legal actions is a list comprehension over a hand.
"""
from __future__ import annotations

import random

TERMINAL = -4                      # current_player() once the game is over (as the engine)
ROUNDS = 3
SUITS = ("Eye", "Invisible", "Door", "Wine", "Machine")   # the Stage Disc's ring (ruling 2)
EYE, INVISIBLE, DOOR, WINE, MACHINE = range(5)
NAMES = tuple(f"{SUITS[c // 9]} {c % 9}" for c in range(45))
CARD_ID = {name: c for c, name in enumerate(NAMES)}

# The action texts, built once.
BID_TEXT = tuple("bid with " + n for n in NAMES)
PLAY_TEXT = tuple("play " + n for n in NAMES)
PASS_TEXT = tuple("pass " + n for n in NAMES)
NEW_BID_TEXT = tuple("new Bid Card " + n for n in NAMES)
USE_TEXT = tuple("use " + s for s in SUITS)
MOVE_TEXT = tuple("move the Trump Marker to " + s for s in SUITS)
FACE_UP, FACE_DOWN_0, FACE_DOWN_3 = "place it face up", "place it face down, bidding 0", "place it face down, bidding 3"
PLACE_TEXTS = (FACE_UP, FACE_DOWN_0, FACE_DOWN_3)
# text -> value, for each kind of decision
BID_OF = {t: c for c, t in enumerate(BID_TEXT)}
PLAY_OF = {t: c for c, t in enumerate(PLAY_TEXT)}
PASS_OF = {t: c for c, t in enumerate(PASS_TEXT)}
NEW_BID_OF = {t: c for c, t in enumerate(NEW_BID_TEXT)}
USE_OF = {t: s for s, t in enumerate(USE_TEXT)}
MOVE_OF = {t: s for s, t in enumerate(MOVE_TEXT)}
PLACE_OF = {FACE_UP: None, FACE_DOWN_0: 0, FACE_DOWN_3: 3}   # None: bid the card's rank

# Phases: which question is open.
BID, PLACE, PLAY, USE, PASS, MOVE, NEW_BID, OVER = range(8)


class IllegalAction(ValueError):
    pass


class MagicShop:
    """The game for one player count (3 to 5)."""

    def __init__(self, players: int = 4):
        if not 3 <= players <= 5:
            raise ValueError("The Magic Shop is for 3 to 5 players")
        self.players = players
        self.hand_size = 9 if players == 5 else 10
        self.tricks_per_round = 8 if players == 5 else 9
        # 3 players: the 0s and 8s are removed (35 cards)
        self.cards = tuple(c for c in range(45) if players > 3 or c % 9 not in (0, 8))

    def num_players(self) -> int:
        return self.players

    def new_initial_state(self, seed: int | None = None, deals=None) -> "State":
        return State(self, seed, deals)


def new_initial_state(players: int, seed: int | None = None, deals=None) -> "State":
    return State(MagicShop(players), seed, deals)


class State:
    __slots__ = ("game", "n", "decks", "round", "first_lead", "lead", "trump", "power_open",
                 "hands", "bid_card", "bid", "thirst", "tricks", "vp", "trick", "trick_seats",
                 "trump_played", "tricks_played", "accumulated", "passing", "winner", "phase",
                 "player", "_legal")

    def __init__(self, game: MagicShop, seed: int | None = None, deals=None):
        n = game.players
        self.game = game
        self.n = n
        # The three rounds' decks, top first: the given ones, then shuffles from the seed. They are
        # fixed at the start (as a seeded engine's deals are) and shared, never changed, by clones.
        given = [tuple(c if isinstance(c, int) else CARD_ID[c] for c in d) for d in (deals or ())]
        rng = random.Random(seed)
        while len(given) < ROUNDS:
            deck = list(game.cards)
            rng.shuffle(deck)
            given.append(tuple(deck))
        self.decks = tuple(given)
        self.round = 0
        self.first_lead = 0                # ruling 4: seat 0 leads the first round
        self.vp = [0] * n
        self.hands = [[] for _ in range(n)]
        self.bid_card = [None] * n
        self.bid = [0] * n
        self.thirst = [0] * n
        self.tricks = [0] * n
        self.trick = []                     # the cards of the current trick, in play order
        self.trick_seats = []               # who played them
        self.passing = []                   # Door: the cards chosen so far, by seat
        self.lead = self.winner = 0
        self.trump, self.power_open = WINE, True
        self.trump_played = False
        self.tricks_played = self.accumulated = 0
        self._legal = None
        self._start_round()

    # ── the flow ───────────────────────────────────────────────────────────
    def _start_round(self) -> None:
        self.round += 1
        n, size = self.n, self.game.hand_size
        deck = self.decks[self.round - 1]
        self.hands = [list(deck[p * size:(p + 1) * size]) for p in range(n)]
        self.bid_card = [None] * n
        self.trump, self.power_open = WINE, True    # Setup 1 each round
        self.thirst = [0] * n
        self.tricks = [0] * n
        self.accumulated = 0
        self.tricks_played = 0
        self.phase, self.player = BID, 0

    def _start_trick(self) -> None:
        self.trick = []
        self.trick_seats = []
        self.trump_played = False
        self.phase, self.player = PLAY, self.lead

    def _end_trick(self) -> None:
        """All have played: find the winner, who chooses an effect."""
        trick, trump = self.trick, self.trump
        pool = [c for c in trick if c // 9 == trump]
        if not pool:
            led = trick[0] // 9
            pool = [c for c in trick if c // 9 == led]
        best = max(pool) if self.power_open else min(pool)   # same suit: the id orders by rank
        self.winner = self.trick_seats[trick.index(best)]
        self.tricks_played += 1
        self.phase, self.player = USE, self.winner

    def _after_effect(self) -> None:
        self.lead = self.winner
        if self.tricks_played < self.game.tricks_per_round:
            self._start_trick()
        else:
            self._end_round()

    def _end_round(self) -> None:
        # ruling 8: tricks still accumulated are gathered by nobody
        self.accumulated = 0
        thirst, total = self.thirst, sum(self.thirst)
        for p in range(self.n):
            won, bid = self.tricks[p], self.bid[p]
            if won < bid:
                self.vp[p] += won
            elif won == bid:
                self.vp[p] += won + total - thirst[p]
        self.first_lead = (self.first_lead + 1) % self.n
        if self.round == ROUNDS:
            self.phase, self.player = OVER, TERMINAL
        else:
            self._start_round()

    # ── the API ────────────────────────────────────────────────────────────
    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def legal_actions(self) -> list[str]:
        if self._legal is None:
            self._legal = self._actions()
        return list(self._legal)

    def _actions(self) -> list[str]:
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[self.player]
            if self.trick:
                led = self.trick[0] // 9
                follow = [PLAY_TEXT[c] for c in hand if c // 9 == led]
                if follow:
                    return follow
            return [PLAY_TEXT[c] for c in hand]
        if phase == USE:
            return [USE_TEXT[s] for s in dict.fromkeys(c // 9 for c in self.trick)]
        if phase == BID:
            return [BID_TEXT[c] for c in self.hands[self.player]]
        if phase == PLACE:
            return list(PLACE_TEXTS)
        if phase == PASS:
            return [PASS_TEXT[c] for c in self.hands[self.player]]
        if phase == MOVE:
            return [MOVE_TEXT[(self.trump - 1) % 5], MOVE_TEXT[(self.trump + 1) % 5]]
        if phase == NEW_BID:
            return [NEW_BID_TEXT[c] for c in self.hands[self.player]]
        return []

    def apply_action(self, action: str) -> None:
        if self._legal is None:
            self._legal = self._actions()
        if action not in self._legal:
            raise IllegalAction(f"{action!r} is not legal now; legal: {self._legal}")
        self._legal = None
        phase, p, n = self.phase, self.player, self.n
        if phase == PLAY:
            c = PLAY_OF[action]
            self.hands[p].remove(c)
            self.trick.append(c)
            self.trick_seats.append(p)
            if c // 9 == self.trump and not self.trump_played:   # ruling 5
                self.trump_played = True
                self.thirst[p] += 1
            if len(self.trick) == n:
                self._end_trick()
            else:
                self.player = (p + 1) % n
        elif phase == USE:
            effect = USE_OF[action]
            if self.trick[self.trick_seats.index(p)] // 9 != effect:   # another player's suit
                self.thirst[p] += 1
            if effect == INVISIBLE:
                self.accumulated += 1                               # ruling 8
                self._after_effect()
                return
            self.tricks[p] += 1 + self.accumulated
            self.accumulated = 0
            if self.tricks_played == self.game.tricks_per_round:   # last trick: no effect
                self._after_effect()
            elif effect == EYE:
                self.power_open = not self.power_open
                self._after_effect()
            elif effect == DOOR:
                self.passing = []
                self.phase, self.player = PASS, 0
            elif effect == WINE:
                self.phase = MOVE
            else:                                                   # MACHINE
                self.phase = NEW_BID
        elif phase == BID:
            c = BID_OF[action]
            self.hands[p].remove(c)
            self.bid_card[p] = c
            self.phase = PLACE
        elif phase == PLACE:
            bid = PLACE_OF[action]
            self.bid[p] = self.bid_card[p] % 9 if bid is None else bid
            if p + 1 < n:
                self.phase, self.player = BID, p + 1
            else:
                self.lead = self.first_lead
                self._start_trick()
        elif phase == PASS:
            c = PASS_OF[action]
            self.hands[p].remove(c)
            self.passing.append(c)
            if p + 1 < n:
                self.player = p + 1
            else:                                   # all pass to the left at once (ruling 9)
                for q, c in enumerate(self.passing):
                    self.hands[(q + 1) % n].append(c)
                self._after_effect()
        elif phase == MOVE:
            self.trump = MOVE_OF[action]
            self._after_effect()
        elif phase == NEW_BID:
            c = NEW_BID_OF[action]
            hand = self.hands[p]
            hand.remove(c)
            hand.append(self.bid_card[p])           # the old Bid Card goes to the hand (ruling 10)
            self.bid_card[p] = c
            self.bid[p] = c % 9
            self._after_effect()
        else:
            raise IllegalAction("the game is over")

    def returns(self) -> list[int]:
        if self.phase != OVER:
            raise IllegalAction("the game is not over yet")
        return list(self.vp)

    def clone(self) -> "State":
        S = State.__new__(State)
        S.game, S.n, S.decks = self.game, self.n, self.decks    # decks are never changed
        S.round, S.first_lead, S.lead, S.winner = self.round, self.first_lead, self.lead, self.winner
        S.trump, S.power_open, S.trump_played = self.trump, self.power_open, self.trump_played
        S.tricks_played, S.accumulated = self.tricks_played, self.accumulated
        S.phase, S.player = self.phase, self.player
        S.hands = [h[:] for h in self.hands]
        S.bid_card, S.bid = self.bid_card[:], self.bid[:]
        S.thirst, S.tricks, S.vp = self.thirst[:], self.tricks[:], self.vp[:]
        S.trick, S.trick_seats, S.passing = self.trick[:], self.trick_seats[:], self.passing[:]
        S._legal = self._legal
        return S

    # ── reading (tests) ────────────────────────────────────────────────────
    def hand(self, p: int) -> list[str]:
        return [NAMES[c] for c in self.hands[p]]

    def to_json(self) -> dict:
        """Plain data, for the bytes-per-state figure."""
        return {"round": self.round, "first_lead": self.first_lead, "lead": self.lead,
                "winner": self.winner, "trump": self.trump, "power_open": self.power_open,
                "trump_played": self.trump_played, "tricks_played": self.tricks_played,
                "accumulated": self.accumulated, "phase": self.phase, "player": self.player,
                "hands": self.hands, "bid_card": self.bid_card, "bid": self.bid, "thirst": self.thirst,
                "tricks": self.tricks, "vp": self.vp, "trick": self.trick, "trick_seats": self.trick_seats,
                "passing": self.passing, "decks": self.decks}

    def __repr__(self):
        who = "over" if self.phase == OVER else f"seat {self.player} to move"
        return f"<Magic Shop reference, round {self.round}: {who}>"
