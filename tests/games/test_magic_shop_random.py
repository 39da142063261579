"""Seeded random games of The Magic Shop for 3, 4 and 5 players: whatever the players choose, the
engine keeps its promises (cards conserved, invariants, clone/JSON/replay, hidden information) and
every round is scored by the rulebook's rules.

Every game: after every action, cards are conserved, ``loc`` agrees with the zones, the invariants
hold and the legal actions are sane; at the end, returns/winners/VP and each round's scoring (read
from the announcements) follow the rulebook, observations hide the other seats' cards, and replaying
the seed and history gives the same state. Every ``DEEP_EVERY``-th game also checks, at a few seeded
moments, clone (equal, independent, stays equal), JSON round trips (direct and through text, also
staying equal under the same action) and all observations - these are the dear checks (State
equality costs a few ms), sampled so that the file stays well under a minute on 2 cores.
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

RULES = ROOT / "games" / "magic_shop.rules"
GAMES_PER_COUNT = 200
DEEP_EVERY = 4           # every 4th game gets the dear checks ...
DEEP_MOMENTS = 4         # ... at this many seeded moments, and JSON round trips at its end
HAND = {3: 10, 4: 10, 5: 9}
TRICKS = {3: 9, 4: 9, 5: 8}
CARDS = {3: 35, 4: 45, 5: 45}

SCORE_LINE = re.compile(r"^Player (\d+): bid (\d+), won (\d+), thirst (\d+); total (\d+) VP\.$")
THIRST_LINE = re.compile(r"^Player (\d+) (?:is the first to play trump|uses another player's \w+) "
                         r"and takes a Thirst Token\.$")
EFFECT_LINE = re.compile(r"^Player (\d+) uses the (\w+) effect\.$")
ROUND_LINE = re.compile(r"^Round (\d+) begins; Player (\d+) leads\.$")

_GAMES: dict = {}


def game_for(n):
    if n not in _GAMES:
        _GAMES[n] = load_game(RULES, players=n)
    return _GAMES[n]


# ── checks ──────────────────────────────────────────────────────────────────
def check_observations(state, n, where):
    """A seat sees its own hand, and never another seat's hand, hidden or chosen card, nor the deck."""
    secret_of = {}
    for p in range(n):
        secret_of[p] = set(state.cards("hand", player=p)) | set(state.cards("hidden_bid", player=p)) \
            | set(state.cards("passing", player=p))
    undealt = set(state.cards("deck")) | set(state.cards("unused"))
    for seat in range(n):
        obs = state.observation(seat)
        json.dumps(obs)
        seen = set(strings(obs))
        others = set().union(*(secret_of[p] for p in range(n) if p != seat)) | undealt
        leak = seen & others
        assert not leak, f"{where}: seat {seat} can see {sorted(leak)}"
        own = set(state.cards("hand", player=seat))
        assert own <= seen, f"{where}: seat {seat} cannot see its own cards {sorted(own - seen)}"
        if not state.is_terminal() and state.current_player() == seat:
            assert obs["decision"]["options"] == [str(a) for a in state.legal_actions()]


def check_rounds(state, n, where):
    """Each round's scores follow Round End 2, and the tokens and tricks agree with the log."""
    log = state.log()
    rounds = []
    cur = None
    for line in log:
        m = ROUND_LINE.match(line)
        if m:
            cur = {"round": int(m[1]), "lead": int(m[2]) - 1, "thirst": Counter(), "effects": [],
                   "scores": {}}
            rounds.append(cur)
            continue
        m = THIRST_LINE.match(line)
        if m:
            cur["thirst"][int(m[1]) - 1] += 1
        m = EFFECT_LINE.match(line)
        if m:
            cur["effects"].append(m[2])
        m = SCORE_LINE.match(line)
        if m:
            cur["scores"][int(m[1]) - 1] = tuple(int(x) for x in m.groups()[1:])
    assert [r["round"] for r in rounds] == [1, 2, 3], f"{where}: rounds {[r['round'] for r in rounds]}"
    assert [r["lead"] for r in rounds] == [0, 1, 2], f"{where}: first leads {[r['lead'] for r in rounds]}"
    prev = [0] * n
    for r in rounds:
        sc = r["scores"]
        assert sorted(sc) == list(range(n)), f"{where}: round {r['round']} scores {sc}"
        assert len(r["effects"]) == TRICKS[n], f"{where}: round {r['round']} had {len(r['effects'])} tricks"
        # tricks chosen Invisible at the end of the round are gathered by nobody
        lost = 0
        for e in reversed(r["effects"]):
            if e != "Invisible":
                break
            lost += 1
        won = [sc[p][1] for p in range(n)]
        assert sum(won) == TRICKS[n] - lost, \
            f"{where}: round {r['round']}: tricks won {won}, {lost} lost to Invisible, of {TRICKS[n]}"
        thirst = [sc[p][2] for p in range(n)]
        assert thirst == [r["thirst"][p] for p in range(n)], \
            f"{where}: round {r['round']}: thirst {thirst} but tokens taken {dict(r['thirst'])}"
        for p in range(n):
            bid, w, t, total = sc[p]
            assert bid in range(0, 9)
            if w < bid:
                gain = w
            elif w == bid:
                gain = w + sum(thirst[q] for q in range(n) if q != p)
            else:
                gain = 0
            assert total - prev[p] == gain, \
                f"{where}: round {r['round']}, player {p + 1}: bid {bid}, won {w}, scored {total - prev[p]}, expected {gain}"
            prev[p] = total
    return prev


RING = ["Eye", "Invisible", "Door", "Wine", "Machine"]     # ruling 2


def suit(card):
    return card.rsplit(" ", 1)[0]


def rank(card):
    return int(card.rsplit(" ", 1)[1])


def rules_oracle(state, action, n, where):
    """Check this decision against the rulebook and return a check for the state after ``action``."""
    label = state.decision_label()
    p = state.current_player()
    legal = sorted(str(x) for x in state.legal_actions())
    thirst = [state.var("thirst", player=q) for q in range(n)]
    last_round = state.var("round") == 3
    if label == "bid with":
        want = sorted(f"bid with {c}" for c in state.cards("hand", player=p))
        assert legal == want, f"{where}: may bid with {legal}, expected {want}"
    elif label == "place it":
        assert legal == ["place it face down, bidding 0", "place it face down, bidding 3", "place it face up"], \
            f"{where}: {legal}"
    elif label == "pass":
        hand = state.cards("hand", player=p)
        assert legal == sorted(f"pass {c}" for c in hand), f"{where}: may pass {legal}"
        passing = {q: state.cards("passing", player=q) for q in range(n)}
        passing[p] = [str(action)[5:]]

        def after(s2):
            if p == n - 1:    # all have chosen: every card went to the left neighbour at once
                for q in range(n):
                    assert s2.cards("passing", player=q) == []
                    assert passing[q][0] in s2.cards("hand", player=(q + 1) % n), \
                        f"{where}: {passing[q][0]} passed by seat {q} is not with seat {(q + 1) % n}"
        return after
    elif label == "new Bid Card":
        card = str(action)[len("new Bid Card "):]
        old = state.cards("bid_card", player=p) + state.cards("hidden_bid", player=p)

        def after(s2):
            assert s2.var("bid", player=p) == rank(card) and s2.var("bid_face", player=p) == "up", where
            assert s2.cards("bid_card", player=p) == [card] and s2.cards("hidden_bid", player=p) == []
            assert set(old) <= set(s2.cards("hand", player=p)), f"{where}: old Bid Card {old} not in hand"
        return after
    elif label == "move the Trump Marker to":
        i = RING.index(state.var("trump"))
        want = sorted(f"move the Trump Marker to {RING[(i + d) % 5]}" for d in (-1, 1))
        assert legal == want, f"{where}: Wine offers {legal}, expected {want}"
    elif label == "play":
        trick = state.cards("trick")
        hand = state.cards("hand", player=p)
        follow = [c for c in hand if trick and suit(c) == suit(trick[0])]
        want = sorted(f"play {c}" for c in (follow or hand))
        assert legal == want, f"{where}: may play {legal}, expected {want}"
        trump = state.var("trump")
        first_trump = suit(str(action)[5:]) == trump and not any(suit(c) == trump for c in trick)

        def after(s2):
            # the effect is always chosen after the last card, so the round is still on
            assert s2.var("thirst", player=p) == thirst[p] + first_trump, \
                f"{where}: {action}: thirst {thirst[p]} -> {s2.var('thirst', player=p)}, first trump: {first_trump}"
        return after
    elif label == "use":
        trick = state.cards("trick")
        assert len(trick) == n, f"{where}: effect chosen with {len(trick)} cards in the trick"
        trump, power = state.var("trump"), state.var("power")
        pool = [c for c in trick if suit(c) == trump] or [c for c in trick if suit(c) == suit(trick[0])]
        best = (max if power == "Open" else min)(pool, key=rank)
        assert state.card_var("played_by", best) == p, f"{where}: {trick} won by seat {p}, expected {best}"
        suits = list(dict.fromkeys(suit(c) for c in trick))
        assert legal == sorted(f"use {x}" for x in suits), f"{where}: effects {legal}"
        effect = str(action)[4:]
        own = any(suit(c) == effect and state.card_var("played_by", c) == p for c in trick)
        last = state.var("tricks_played") == TRICKS[n]
        acc = state.var("accumulated_tricks")
        tricks = state.var("tricks", player=p)

        def after(s2):
            if last and not (last_round and s2.is_terminal()):
                # the next round has begun: no effect may have asked anything
                assert s2.decision_label() == "bid with", f"{where}: last trick's {effect} did something"
                return
            assert s2.var("thirst", player=p) == thirst[p] + (not own), f"{where}: {action} thirst"
            if effect == "Invisible":
                assert s2.var("tricks", player=p) == tricks
                assert s2.var("accumulated_tricks") == (0 if last else acc + 1), f"{where}: Invisible"
            else:
                assert s2.var("tricks", player=p) == tricks + 1 + acc, f"{where}: gathered tricks"
                assert s2.var("accumulated_tricks") == 0
            if last:
                assert s2.var("power") == power and s2.var("trump") == trump
                assert s2.is_terminal()
                return
            nxt = s2.decision_label()
            if effect == "Eye":
                assert s2.var("power") == ("Closed" if power == "Open" else "Open"), f"{where}: Eye"
            else:
                assert s2.var("power") == power
            if effect == "Wine":
                assert nxt == "move the Trump Marker to" and s2.current_player() == p, f"{where}: Wine"
            elif effect == "Door":
                assert nxt == "pass" and s2.current_player() == 0, f"{where}: Door"
            elif effect == "Machine":
                assert nxt == "new Bid Card" and s2.current_player() == p, f"{where}: Machine"
            else:
                assert nxt == "play" and s2.current_player() == p, f"{where}: {effect}: next {nxt}"
        return after
    return None


def play_one(n, seed):
    game = game_for(n)
    rng = random.Random(seed * 1009 + n)
    state = game.new_initial_state(seed=seed)
    where = f"{n} players, seed {seed}"
    steps = 0
    deals = 0
    deep = seed % DEEP_EVERY == 0
    moments = set(rng.sample(range(150), DEEP_MOMENTS)) if deep else set()
    replay_at = rng.randrange(20, 150) if deep else -1
    mid = None
    while not state.is_terminal():
        p = state.current_player()
        assert 0 <= p < n, f"{where}: current player {p}"
        legal = state.legal_actions()
        assert legal, f"{where}: no legal actions for a live state"
        assert len(set(legal)) == len(legal), f"{where}: duplicate actions {legal}"
        assert all(a.player == p for a in legal)
        assert state.legal_actions(player=(p + 1) % n) == [] or n == 1
        if state.decision_label() == "bid with" and all(
                not state.cards("hidden_bid", player=q) and not state.cards("bid_card", player=q)
                for q in range(n)):
            # a round's first bid: everyone holds a full hand, the rest is unused
            deals += 1
            assert [len(state.cards("hand", player=q)) for q in range(n)] == [HAND[n]] * n, where
            assert len(state.cards("unused")) == CARDS[n] - n * HAND[n], where
        a = rng.choice(legal)
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
    assert state.current_player() == TERMINAL and state.legal_actions() == []
    with pytest.raises(GameError):
        state.apply_action(0)
    returns = state.returns()
    vp = [state.var("vp", player=p) for p in range(n)]
    assert all(isinstance(r, int) and not isinstance(r, bool) and r >= 0 for r in returns), f"{where}: {returns}"
    assert returns == vp, f"{where}: returns {returns} but VP {vp}"
    best = max(returns)
    assert sorted(state.winners()) == [p for p in range(n) if returns[p] == best], f"{where}: winners"
    assert check_rounds(state, n, where) == vp
    assert state.var("round") == 3
    assert deals == 3, f"{where}: {deals} deals seen"
    check_observations(state, n, f"{where}, end")
    if deep:
        check_json(game, state, f"{where}, end")
    assert game.replay(seed, state.history()) == state, f"{where}: replay differs"
    if mid is not None:
        assert game.replay(seed, mid[0]) == mid[1], f"{where}: replay of the first {replay_at} steps differs"
    return steps


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.slow
def test_random_games(n):
    game = game_for(n)
    assert len(game.program.card_names) == CARDS[n]
    total = 0
    for seed in range(GAMES_PER_COUNT):
        total += play_one(n, 1000 * n + seed)
    assert total > GAMES_PER_COUNT * 100


def test_clone_is_deep_during_effects():
    """Decisions in the middle of an effect (Door passing, Machine, Wine) survive clone and JSON."""
    game = game_for(4)
    found = Counter()
    for seed in range(12):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            label = state.decision_label()
            if label in ("pass", "new Bid Card", "move the Trump Marker to"):
                found[label] += 1
                copy = state.clone()
                restored = State.from_json(game, json.loads(json.dumps(state.to_json())))
                actions = []
                while not copy.is_terminal() and len(actions) < 12:
                    a = rng.choice(copy.legal_actions())
                    actions.append(a)
                    copy.apply_action(a)
                    restored.apply_action(str(a))
                assert copy == restored
            state.apply_action(rng.choice(state.legal_actions()))
    assert all(found[k] > 0 for k in ("pass", "new Bid Card", "move the Trump Marker to")), found


def test_json_round_trip_keeps_stacked_deals():
    game = game_for(4)
    names = game.program.card_names
    round2 = names[:40]
    state = game.new_initial_state(seed=1, stack={"deck": [[], round2]})
    restored = State.from_json(game, json.loads(json.dumps(state.to_json())))
    assert restored == state
    while state.var("round") < 2:
        a = state.legal_actions()[0]
        state.apply_action(a)
        restored.apply_action(a)
    assert state.cards("hand", player=0) == round2[:10]
    assert restored == state
