"""Seeded random games of Gachapon Trick for 2, 3 and 4 players: whatever the players choose, the
engine keeps its promises (cards conserved, invariants, clone/JSON/replay, hidden information) and
every decision and every round's scoring follow the rulebook and its rulings.

Every game: after every action, cards are conserved (each card id in exactly one zone, and ``loc``
agrees), money is never negative, the invariants hold and the legal actions are sane; each decision
is checked by an oracle written from the rules (who may play what, who wins the trick and what they
may buy, the draw pile, the Refund Card, bankruptcy, the lead); at the end of each round the scores
are recomputed from the announcements (what each player bought and refunded, what they paid);
at the end, returns/winners follow the totals and the money tie-break, observations hide the other
seats' cards, and replaying the seed and history gives the same state. Every ``DEEP_EVERY``-th game
also checks, at a few seeded moments, clone (equal, independent, stays equal), JSON round trips
and all observations.
"""
from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from rulesrun.interpreter import TERMINAL, GameError, State, load_game

from tests.support import check_cards, check_clone, check_json, strings  # noqa: F401
from tests.support import ROOT

RULES = ROOT / "games" / "gachapon.rules"
GAMES_PER_COUNT = 110
DEEP_EVERY = 5
DEEP_MOMENTS = 3

COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "white"]       # ruling 1
TOYS = ["Robot", "Dinosaur", "Rocket", "Cat", "Duck", "Ninja", "Alien"]         # ruling 2
VALUES = [200, 300, 400, 500, 600, 700, 800]
HAND = {2: 10, 3: 12, 4: 10}
TRICKS = {2: 10, 3: 12, 4: 10}
MONEY = {2: 8000, 3: 5000, 4: 5000}
REFUND = "Refund Card"

CARD = re.compile(r"^(\w+) (\d+) \((\w+)\)$")
ROUND_LINE = re.compile(r"^Round (\d+) begins; Player (\d+) leads\.$")
BUY_LINE = re.compile(r"^Player (\d+) buys (.+) for (\d+)\.$")
DRAW_LINE = re.compile(r"^Player (\d+) buys the top of the draw pile for 500: (.+)\.$")
REFUND_LINE = re.compile(r"^Player (\d+) uses the Refund Card on (.+) and gets (\d+) back\.$")
SCORE_LINE = re.compile(r"^Player (\d+) scores (\d+): toys (\d+), money (\d+), bonus (\d+); total (\d+)\.$")
OUT_LINE = re.compile(r"^Player (\d+) is bankrupt and out of this round\.$")

_GAMES: dict = {}


def game_for(n):
    if n not in _GAMES:
        _GAMES[n] = load_game(RULES, players=n)
    return _GAMES[n]


def parse(card):
    """(colour, value, toy) of a Toy Card; None for the Refund Card."""
    if card == REFUND:
        return None
    m = CARD.match(card)
    assert m, card
    return m[1], int(m[2]), m[3]


def colour(card):
    return parse(card)[0]


def value(card):
    return parse(card)[1]


def split(cards: str):
    return [] if cards == "nothing" else cards.split(", ")


# ── checks ──────────────────────────────────────────────────────────────────
def check_observations(state, n, where):
    """A seat sees its own hand, never another seat's hand or personal pile, nor the draw pile."""
    secret_of = {}
    for p in range(n):
        secret_of[p] = set(state.cards("hand", player=p))
        if n == 2:
            secret_of[p] |= set(state.cards("personal", player=p))
    undealt = set(state.cards("deck")) | set(state.cards("draw_pile"))
    for seat in range(n):
        obs = state.observation(seat)
        json.dumps(obs)
        seen = set(strings(obs))
        others = set().union(*(secret_of[p] for p in range(n) if p != seat)) | undealt
        if n == 2:
            others |= set(state.cards("personal", player=seat))
        leak = seen & others
        assert not leak, f"{where}: seat {seat} can see {sorted(leak)}"
        own = set(state.cards("hand", player=seat))
        assert own <= seen, f"{where}: seat {seat} cannot see its own cards {sorted(own - seen)}"
        if not state.is_terminal() and state.current_player() == seat:
            assert obs["decision"]["options"] == [str(a) for a in state.legal_actions()]


def expected_winner(trick, played_by, money):
    """Rulings 5 and 7: the winning card among the players who can pay, or None."""
    skipped = set()
    while True:
        cards = [c for c in trick if played_by[c] not in skipped]
        if not cards:
            return None, skipped
        freq = Counter(colour(c) for c in cards)
        best = max(cards, key=lambda c: (freq[colour(c)], value(c), trick.index(c)))
        p = played_by[best]
        if any(value(c) <= money[p] for c in trick):
            return best, skipped
        skipped.add(p)


def all_subsets(cards, budget):
    out = set()
    k = len(cards)
    for mask in range(1, 1 << k):
        pick = [cards[i] for i in range(k) if mask >> i & 1]
        if sum(value(c) for c in pick) <= budget:
            out.add(frozenset(pick))
    return out


def rules_oracle(state, action, n, where):
    """Check this decision against the rules; return a check for the state after ``action``."""
    label = state.decision_label()
    p = state.current_player()
    legal = [str(x) for x in state.legal_actions()]
    money = [state.var("money", player=q) for q in range(n)]
    out = [state.var("out", player=q) for q in range(n)]
    # a player out of the round is asked nothing, but may still use a Refund Card at round end
    assert not out[p] or label == "refund", f"{where}: Player {p + 1} is out of the round but asked to {label}"
    bought = state.cards("bought", player=p)
    rnd = state.var("round")
    if label == "play":
        trick = state.cards("trick")
        hand = state.cards("hand", player=p)
        played = {colour(c) for c in trick}
        follow = [c for c in hand if colour(c) in played]
        assert sorted(legal) == sorted(f"play {c}" for c in (follow or hand)), \
            f"{where}: may play {legal} with {trick} on the table"
        if not trick:
            assert p == state.var("lead"), f"{where}: Player {p + 1} leads but the lead is {state.var('lead')}"
        else:
            # clockwise from the lead, skipping players who are out; twice round with 2 players
            last = state.card_var("played_by", trick[-1])
            nxt = (last + 1) % n
            while out[nxt]:
                nxt = (nxt + 1) % n
            assert p == nxt, f"{where}: Player {p + 1} plays after Player {last + 1}"
    elif label == "buy":
        trick = state.cards("trick")
        per = 2 if n == 2 else 1
        assert len(trick) == per * (n - sum(out)), f"{where}: buying from {trick}"
        played_by = {c: state.card_var("played_by", c) for c in trick}
        best, _ = expected_winner(trick, played_by, money)
        assert best is not None and played_by[best] == p, f"{where}: {trick} won by Player {p + 1}, expected {best}"
        want = all_subsets(trick, money[p])
        got = {frozenset(split(a[len("buy "):])) for a in legal}
        assert got == want, f"{where}: may buy {sorted(map(sorted, got))}"
        cost = sum(value(c) for c in split(str(action)[4:]))

        def after(s2):
            if s2.var("round") != rnd:
                return        # the round's last trick
            assert s2.var("money", player=p) == money[p] - cost, f"{where}: paid {cost}"
            assert s2.var("spent", player=p)
            assert s2.cards("trick") == [] or s2.decision_label() == "play"
        return after
    elif label == "buy the top of the draw pile for 500:":
        assert legal == ["buy the top of the draw pile for 500: yes", "buy the top of the draw pile for 500: no"]
        pile = state.cards("draw_pile")
        assert pile and money[p] >= 500, f"{where}: draw pile {len(pile)} cards, money {money[p]}"
        top = pile[-1]
        take = str(action).endswith("yes")

        def after(s2):
            if s2.var("round") != rnd:
                return        # the round ended (last player standing) and the next one began
            assert s2.var("money", player=p) == money[p] - 500 * take, f"{where}: money after the draw pile"
            assert len(s2.cards("draw_pile")) == len(pile) - take, where
            if take:
                assert top in s2.cards("bought", player=p), f"{where}: drew {top}"
        return after
    elif label == "refund":
        assert REFUND in bought, f"{where}: Player {p + 1} may refund without the Refund Card"
        toys = [c for c in bought if c != REFUND]
        assert sorted(legal) == sorted(["refund nothing"] + [f"refund {c}" for c in toys]), f"{where}: {legal}"
        card = str(action)[len("refund "):]

        def after(s2):
            if card == "nothing" or s2.var("round") != rnd:
                return
            assert REFUND not in s2.cards("bought", player=p) and card not in s2.cards("bought", player=p)
            assert REFUND in s2.cards("discard") and card in s2.cards("discard")
        return after
    elif label == "buy from hand:":
        assert sum(1 for q in range(n) if not out[q]) == 1, f"{where}: buying from hand with {out}"
        hand = state.cards("hand", player=p)
        want = ["buy from hand: nothing"] + [f"buy from hand: {c}" for c in hand if value(c) <= money[p]]
        assert sorted(legal) == sorted(want), f"{where}: {legal}"
    else:
        raise AssertionError(f"{where}: unexpected decision {label!r}")
    return None


def check_round_scores(state, n, where):
    """Recompute every round's scores from the announcements (ruling 11) and the leads (ruling 13)."""
    log = state.log()
    rounds = []
    cur = None
    for line in log:
        m = ROUND_LINE.match(line)
        if m:
            cur = {"round": int(m[1]), "lead": int(m[2]) - 1, "owned": [Counter() for _ in range(n)],
                   "money": [MONEY[n]] * n, "spent": [False] * n, "scores": {}, "out": []}
            rounds.append(cur)
            continue
        m = BUY_LINE.match(line)
        if m:
            p = int(m[1]) - 1
            cards = split(m[2])
            assert cards and int(m[3]) == sum(value(c) for c in cards), f"{where}: {line}"
            for c in cards:
                cur["owned"][p][c] += 1
            cur["money"][p] -= int(m[3])
            cur["spent"][p] = True
            continue
        m = DRAW_LINE.match(line)
        if m:
            p = int(m[1]) - 1
            cur["owned"][p][m[2]] += 1
            cur["money"][p] -= 500
            cur["spent"][p] = True
            continue
        m = REFUND_LINE.match(line)
        if m:
            p = int(m[1]) - 1
            assert cur["owned"][p][REFUND] == 1 and cur["owned"][p][m[2]] == 1, f"{where}: {line}"
            assert int(m[3]) == value(m[2])
            cur["owned"][p][REFUND] -= 1
            cur["owned"][p][m[2]] -= 1
            cur["money"][p] += int(m[3])
            continue
        m = OUT_LINE.match(line)
        if m:
            p = int(m[1]) - 1
            assert cur["money"][p] in (0, 100), f"{where}: {line} with {cur['money'][p]}"
            cur["out"].append(p)
            continue
        m = SCORE_LINE.match(line)
        if m:
            cur["scores"][int(m[1]) - 1] = tuple(int(x) for x in m.groups()[1:])
    assert [r["round"] for r in rounds] == [1, 2, 3], f"{where}: rounds {[r['round'] for r in rounds]}"
    assert [r["lead"] for r in rounds] == [0 % n, 1 % n, 2 % n], f"{where}: first leads"
    totals = [0] * n
    for r in rounds:
        assert sorted(r["scores"]) == list(range(n)), f"{where}: round {r['round']} scores {r['scores']}"
        assert len(r["out"]) == len(set(r["out"])) and len(r["out"]) < n
        owned_all = Counter()
        for p in range(n):
            points, toys, coins, bonus, total = r["scores"][p]
            counts = Counter(parse(c)[2] for c, k in r["owned"][p].items() for _ in range(k) if c != REFUND)
            owned_all.update(c for c, k in r["owned"][p].items() for _ in range(k))
            assert toys == sum(k * k for k in counts.values()), f"{where}: round {r['round']} P{p + 1} toys"
            assert r["money"][p] >= 0
            assert coins == r["money"][p] // 200, f"{where}: round {r['round']} P{p + 1} money {r['money'][p]}"
            assert bonus == (0 if r["spent"][p] else 5), f"{where}: round {r['round']} P{p + 1} bonus"
            assert points == toys + coins + bonus and total == totals[p] + points
            totals[p] = total
        assert all(k == 1 for k in owned_all.values()), f"{where}: a card was bought twice"
    return totals, rounds[-1]["money"]


def choose(state, legal, rng, spendthrift):
    """Uniformly random, or (every other game) a spendthrift who buys the dearest cards and always
    draws, so that bankruptcies, players who cannot pay and last players standing are common."""
    label = state.decision_label()
    if spendthrift and rng.random() < 0.9:
        if label == "buy":
            return max(legal, key=lambda a: sum(value(c) for c in split(a[4:])))
        if label == "buy the top of the draw pile for 500:":
            return legal[0]
        if label == "buy from hand:":
            return legal[-1]
    return rng.choice(legal)


def play_one(n, seed, stats):
    game = game_for(n)
    rng = random.Random(seed * 1009 + n)
    state = game.new_initial_state(seed=seed)
    where = f"{n} players, seed {seed}"
    steps = 0
    deep = seed % DEEP_EVERY == 0
    moments = set(rng.sample(range(150), DEEP_MOMENTS)) if deep else set()
    replay_at = rng.randrange(20, 150) if deep else -1
    mid = None
    round_no = 0
    spendthrift = seed % 2 == 1
    while not state.is_terminal():
        p = state.current_player()
        assert 0 <= p < n, f"{where}: current player {p}"
        legal = state.legal_actions()
        assert legal, f"{where}: no legal actions for a live state"
        assert len(set(legal)) == len(legal), f"{where}: duplicate actions {legal}"
        assert all(a.player == p for a in legal)
        assert state.legal_actions(player=(p + 1) % n) == []
        if state.var("round") != round_no:
            # a round's first decision: full hands, the rest (and the Refund Card) in the draw pile
            round_no = state.var("round")
            assert [len(state.cards("hand", player=q)) for q in range(n)] == [HAND[n]] * n, where
            if n == 2:
                assert [len(state.cards("personal", player=q)) for q in range(n)] == [10, 10], where
            pile = state.cards("draw_pile")
            assert REFUND in pile and len(pile) == 50 - n * HAND[n] - (20 if n == 2 else 0), where
            assert [state.var("money", player=q) for q in range(n)] == [MONEY[n]] * n, where
            assert state.var("lead") == (round_no - 1) % n, where
        a = choose(state, legal, rng, spendthrift)
        stats[state.decision_label()] += 1
        dear = steps in moments
        twin = restored = None
        if dear:
            twin = check_clone(state, a, rng.choice(legal), f"{where}, step {steps}")
            restored = check_json(game, state, f"{where}, step {steps}")
            check_observations(state, n, f"{where}, step {steps}")
        oracle = rules_oracle(state, a, n, f"{where}, step {steps}")
        state.apply_action(a)
        steps += 1
        if oracle:
            oracle(state)
        check_cards(state, f"{where}, step {steps}")
        assert all(state.var("money", player=q) >= 0 for q in range(n)), f"{where}, step {steps}: money"
        broken = state.check_invariants()
        assert broken == [], f"{where}, step {steps}: invariants fail: {broken}"
        if dear:
            twin.apply_action(a)
            restored.apply_action(a)
            assert twin == state, f"{where}, step {steps}: the clone diverged under the same action"
            assert restored == state, f"{where}, step {steps}: the restored state diverged under the same action"
        if steps == replay_at:
            mid = (state.history(), state.clone())
    # the end
    for line in state.log():
        for key in ("cannot pay", "Nobody can buy", "bankrupt", "last player standing", "Refund Card on"):
            if key in line:
                stats[key] += 1
    assert state.current_player() == TERMINAL and state.legal_actions() == []
    with pytest.raises(GameError):
        state.apply_action(0)
    returns = state.returns()
    totals = [state.var("total", player=p) for p in range(n)]
    assert all(isinstance(r, int) and r >= 0 for r in returns), f"{where}: {returns}"
    assert returns == totals, f"{where}: returns {returns} but totals {totals}"
    money = [state.var("money", player=p) for p in range(n)]
    best = max((totals[p], money[p]) for p in range(n))
    assert sorted(state.winners()) == [p for p in range(n) if (totals[p], money[p]) == best], f"{where}: winners"
    log_totals, log_money = check_round_scores(state, n, where)
    assert log_totals == totals and log_money == money, f"{where}: {log_totals} {log_money}"
    assert state.var("round") == 3
    check_observations(state, n, f"{where}, end")
    if deep:
        check_json(game, state, f"{where}, end")
    assert game.replay(seed, state.history()) == state, f"{where}: replay differs"
    if mid is not None:
        assert game.replay(seed, mid[0]) == mid[1], f"{where}: replay of the first {replay_at} steps differs"
    return steps


@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.slow
def test_random_games(n):
    game = game_for(n)
    assert len(game.program.card_names) == 50
    assert game.variants == (("two_player",) if n == 2 else ())
    stats = Counter()
    total = 0
    for seed in range(GAMES_PER_COUNT):
        total += play_one(n, 1000 * n + seed, stats)
    assert total > GAMES_PER_COUNT * 100
    # the random games reach every rule, not just the common ones
    for key in ("play", "buy", "buy the top of the draw pile for 500:", "refund", "cannot pay", "bankrupt",
                "last player standing", "Refund Card on", "buy from hand:") + (("Nobody can buy",) if n == 3 else ()):
        assert stats[key] > 0, f"{n} players: no random game reached {key!r}: {dict(stats)}"


def test_the_toys_are_the_latin_square_of_ruling_2():
    game = game_for(4)
    names = game.program.card_names
    attrs = game.program.card_attrs
    toys = [n for n in names if n != REFUND]
    assert len(toys) == 49 and names.count(REFUND) == 1
    for cid, name in enumerate(names):
        if name == REFUND:
            assert attrs["refund"][cid] and attrs["toy"][cid] is None
            continue
        c, v, t = parse(name)
        assert (attrs["colour"][cid], attrs["value"][cid], attrs["toy"][cid]) == (c, v, t)
        assert TOYS.index(t) == (COLOURS.index(c) + VALUES.index(v)) % 7, name
    for t in TOYS:   # once per colour and once per value
        assert sorted(parse(n)[0] for n in toys if parse(n)[2] == t) == sorted(COLOURS)
        assert sorted(parse(n)[1] for n in toys if parse(n)[2] == t) == VALUES


def test_clone_and_json_in_the_middle_of_buying_and_refunding():
    """Decisions in the middle of a trick's resolution survive clone and JSON."""
    found = Counter()
    for n in (2, 3, 4):
        game = game_for(n)
        for seed in range(6):
            rng = random.Random(seed)
            state = game.new_initial_state(seed=seed)
            while not state.is_terminal():
                label = state.decision_label()
                if label in ("buy", "buy the top of the draw pile for 500:", "refund", "buy from hand:"):
                    found[label] += 1
                    copy = state.clone()
                    restored = State.from_json(game, json.loads(json.dumps(state.to_json())))
                    for _ in range(8):
                        if copy.is_terminal():
                            break
                        a = rng.choice(copy.legal_actions())
                        copy.apply_action(a)
                        restored.apply_action(str(a))
                    assert copy == restored
                state.apply_action(rng.choice(state.legal_actions()))
    assert all(found[k] > 0 for k in ("buy", "buy the top of the draw pile for 500:", "refund")), found
