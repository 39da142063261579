"""Seeded random games of Magi for 4 to 8 players, with and without Catastrophe: whatever the
players choose, the engine keeps its promises and the decisions follow the rulebook.

Every game: after every action, cards are conserved (each card id in exactly one zone of
``state.z``, and ``state.loc`` agrees), the invariants hold and the legal actions are sane; every
decision's options are checked against the rules (shared/rules/magi.md) by an oracle written here
in Python; at the end, penalties, winners, the hands' scoring (read from the announcements) and the
start-player rotation follow §5, observations hide the other seats' hands and the deck, and replaying
the seed and history gives the same state. Every ``DEEP_EVERY``-th game also checks, at a few seeded
moments, clone (equal, independent, stays equal), JSON round trips and every seat's observation.

Random players rarely empty their hands, so a random game usually ends after one long hand (someone
passes 50 penalty points at once); the file keeps to well under a minute on 2 cores.
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

RULES = ROOT / "games" / "magi.rules"
GAMES = {4: 60, 5: 55, 6: 50, 7: 45, 8: 40}       # per player count, half of them with Catastrophe
EAGER = (0.0, 0.6, 0.9)  # how often a player picks a play (or a "yes") when it can: 0 is uniform
DEEP_EVERY = 6
DEEP_MOMENTS = 3

# §7 of shared/rules/magi.md, written out again here: (name, points, copies per colour or copies, effects)
COLOURS = ("red", "blue", "yellow")
COLOURED = [("Grail", 1, 3, []), ("Coin", 2, 3, []), ("Sword", 3, 3, []), ("Shield", 4, 2, []),
            ("Crystal", 5, 2, []), ("Scales", 6, 2, []), ("Broom", 7, 2, []),
            ("Hourglass", 10, 2, ["REVERSE"]), ("Amulet", 10, 2, ["RESET"]), ("Scroll", 10, 1, ["SHOOT"]),
            ("Cloak", 10, 1, ["THROUGH"]), ("Staff", 10, 3, ["DRAW[2]"])]
GREY = [("Magician", 15, 2, ["SELECT", "AGAIN"]), ("Witch", 15, 2, ["FREE", "DRAW[2]"]),
        ("Time Magician", 15, 2, ["SELECT", "AGAIN", "THROUGH"]),
        ("Guardian Magician", 15, 2, ["SELECT", "RESET"]), ("Water Magician", 15, 2, ["SELECT", "REVERSE"]),
        ("Fire Magician", 15, 2, ["SELECT", "DRAW[3]"]), ("Wind Magician", 15, 2, ["SELECT", "SHOOT"]),
        ("Capricious Witch", 15, 2, ["FREE", "REVERSE", "DRAW[1]"]),
        ("Fickle Witch", 15, 2, ["FREE", "SHOOT", "DRAW[1]"]), ("Careless Witch", 15, 2, ["FREE", "THROUGH"]),
        ("Supreme Magician", 25, 1, ["ORIGINAL"])]
CARD = {}        # "red Staff" -> (colour, name, points, effects)
for _name, _pts, _k, _eff in COLOURED:
    for _c in COLOURS:
        CARD[f"{_c} {_name}"] = (_c, _name, _pts, _eff, _k)
for _name, _pts, _k, _eff in GREY:
    CARD[f"grey {_name}"] = ("grey", _name, _pts, _eff, _k)
HEX = {"AGAIN", "REVERSE", "SHOOT", "THROUGH", "RESET", "ORIGINAL"}

SCORE_LINE = re.compile(r"^Player (\d+) takes (\d+) penalty points: (\d+) in all\.$")
HAND_LINE = re.compile(r"^Hand (\d+): Player (\d+) is the start player\.$")
FIRST_LINE = re.compile(r"^Player (\d+) is the first start player\.$")
DRAW_LINE = re.compile(r"^Player (\d+) draws (.+) \((\d+)\)\.$")

_GAMES: dict = {}


def game_for(n, cat):
    key = (n, cat)
    if key not in _GAMES:
        _GAMES[key] = load_game(RULES, players=n, variants=("catastrophe",) if cat else ())
    return _GAMES[key]


def colour(card):
    return CARD[card][0]


def kind(card):
    return CARD[card][1]


def points(card):
    return CARD[card][2]


def effects(card):
    return CARD[card][3]


def hexagram(card, cat):
    return any(e in HEX or (cat and e.startswith("DRAW")) for e in effects(card))


def matches(card, state):
    """§3: same colour as the pile, same name as the top card, or a grey card; after FREE, anything."""
    pile = state.var("pile_colour")
    top = state.cards("discard")[-1]
    return colour(card) == "grey" or pile is None or colour(card) == pile or kind(card) == kind(top)


# ── checks ──────────────────────────────────────────────────────────────────
def check_observations(state, n, where):
    """A seat sees its own hand and the discard pile; of the other hands, the deck and the face-down
    discards only how many cards they hold."""
    for seat in range(n):
        obs = state.observation(seat)
        json.dumps(obs)
        for q in range(n):
            hand = obs["players"][q]["hand"]
            if q == seat:
                assert sorted(hand["cards"]) == sorted(state.cards("hand", player=q)), where
            else:
                assert "cards" not in hand and hand["count"] == len(state.cards("hand", player=q)), \
                    f"{where}: seat {seat} sees {hand} of seat {q}"
        for z in ("deck", "set_aside", "start_draw"):
            assert "cards" not in obs["zones"][z], f"{where}: seat {seat} sees the {z}"
        assert obs["zones"]["discard"]["cards"] == state.cards("discard")
        assert "drawn_by" not in json.dumps(obs.get("card_state", {}))
        for hidden in ("again", "shot", "turn_over", "hand_over", "in_hand"):
            assert hidden not in obs["state"], f"{where}: seat {seat} sees {hidden}"
        if not state.is_terminal():
            assert obs["decision"]["label"] == state.decision_label()
            if state.current_player() == seat:
                assert obs["decision"]["options"] == [str(a) for a in state.legal_actions()]
            else:
                assert "options" not in obs["decision"]


def rules_oracle(state, action, n, cat, where):
    """Check this decision against the rulebook; return a check for the state after ``action``."""
    label = state.decision_label()
    p = state.current_player()
    legal = sorted(str(x) for x in state.legal_actions())
    hand = state.cards("hand", player=p)
    count = state.var("draw_count")
    hand_number = state.var("hand_number")
    if label in ("discard face down", "discard one more face down"):
        assert legal == sorted({f"{label} {c}" for c in hand}), f"{where}: {legal}"
        assert state.cards("discard") == [], where
        if label == "discard one more face down":
            assert p == state.var("start") and len(hand) == 6, where
        return None
    if label == "magic phase: play":
        # §3.1 a hexagram card that matches; asked whenever there is a draw count to dodge
        assert count > 0, f"{where}: Magic phase with no draw count"
        want = {"magic phase: play nothing"} | {f"{label} {c}" for c in hand if hexagram(c, cat) and matches(c, state)}
        assert legal == sorted(want), f"{where}: magic phase offers {legal}, expected {sorted(want)}"
        if str(action) == "magic phase: play nothing":
            deck, disc = len(state.cards("deck")), len(state.cards("discard"))
            can = min(count, deck + max(disc - 1, 0))

            def after(s2):
                # §3.2: the whole count is drawn (as far as the deck and the reshuffle allow)
                if not s2.is_terminal() and s2.var("hand_number") == hand_number:
                    assert s2.var("draw_count") == 0, f"{where}: the draw count stays after drawing"
                    grew = len(s2.cards("hand", player=p)) - len(hand)
                    assert grew in (can, can + 1), f"{where}: drew {grew}, count {count}"  # +1: Magi penalty
            return after
        card = str(action)[len(label) + 1:]
        return _after_play(state, p, card, count, where, magic=True)
    if label == "main phase:":
        assert count == 0, f"{where}: Main phase with a draw count of {count}"
        want = {"main phase: draw"} | ({"main phase: play"} if any(matches(c, state) for c in hand) else set())
        assert legal == sorted(want), f"{where}: {legal}"
        return None
    if label == "after drawing:":
        want = {"after drawing: Pass"} | ({"after drawing: play"} if any(matches(c, state) for c in hand) else set())
        assert legal == sorted(want), f"{where}: {legal}"
        return None
    if label == "play":
        want = {f"play {c}" for c in hand if matches(c, state)}
        assert legal == sorted(want), f"{where}: may play {legal}, expected {sorted(want)}"
        return _after_play(state, p, str(action)[5:], count, where, magic=False)
    if label == "name the colour":
        assert legal == ["name the colour blue", "name the colour red", "name the colour yellow"], where
        col = str(action).rsplit(" ", 1)[1]

        def after(s2):
            if not s2.is_terminal() and s2.var("hand_number") == hand_number:
                assert s2.var("pile_colour") == col, f"{where}: named {col}, pile is {s2.var('pile_colour')}"
        return after
    if label == "shoot":
        assert legal == sorted(f"shoot Player {q + 1}" for q in range(n) if q != p), f"{where}: {legal}"
        return None
    if label == "call Magi?":
        assert len(hand) == 1, f"{where}: Magi call with {len(hand)} cards"
        assert legal == ["call Magi? no", "call Magi? yes"]
        return None
    if label == "point out the missing Magi call?":
        assert legal == ["point out the missing Magi call? no", "point out the missing Magi call? yes"]
        return None
    if label.startswith("ORIGINAL"):
        return None
    raise AssertionError(f"{where}: unknown decision {label!r}")


def _after_play(state, p, card, count, where, magic):
    """After a card is played and its effects applied (§4): the pile, the colour, the draw count,
    the direction and who plays next."""
    assert card in state.cards("hand", player=p), f"{where}: {card} is not in hand"
    n = state.game.num_players()
    direction = state.var("direction")
    eff = effects(card)
    hand_number = state.var("hand_number")
    x = sum(int(e[5:-1]) for e in eff if e.startswith("DRAW"))
    want_count = 0 if "RESET" in eff else count + x
    want_dir = direction
    if "REVERSE" in eff:
        want_dir = "counterclockwise" if direction == "clockwise" else "clockwise"
    step = 1 if want_dir == "clockwise" else -1

    def after(s2):
        if s2.is_terminal() or s2.var("hand_number") != hand_number:
            return   # the hand ended: what is left to see is the scoring (check_hands)
        assert s2.cards("discard")[-1] == card, f"{where}: {card} is not on top of the discard pile"
        nxt = s2.decision_label()
        if nxt in ("name the colour", "shoot") or nxt.startswith("ORIGINAL"):
            return   # the card's effects are still being applied
        assert s2.var("direction") == want_dir, f"{where}: {card}: direction {s2.var('direction')}"
        assert s2.var("draw_count") == want_count, \
            f"{where}: {card}: the draw count is {s2.var('draw_count')}, expected {want_count}"
        if colour(card) != "grey":
            assert s2.var("pile_colour") == colour(card), f"{where}: {card} left the colour {s2.var('pile_colour')}"
        elif "FREE" in eff:
            assert s2.var("pile_colour") is None, f"{where}: {card} (FREE) left the colour {s2.var('pile_colour')}"
        if nxt in ("magic phase: play", "main phase:"):
            # the next turn: the same player after AGAIN, else the next in the direction of play
            who = p if "AGAIN" in eff else (p + step) % n
            assert s2.current_player() == who, f"{where}: after {card} seat {s2.current_player()} plays, expected {who}"
        else:
            assert nxt in ("call Magi?", "point out the missing Magi call?"), f"{where}: after {card}: {nxt}"
    return after


def check_hands(state, n, where):
    """§5: each hand scores the cards left in hand; someone scored 0 (they went out) unless the hand
    ended another way; the start player moves left each hand; totals add up; the game ends at 50."""
    log = state.log()
    hands = []
    first = None
    for line in log:
        m = FIRST_LINE.match(line)
        if m:
            first = int(m[1]) - 1
        m = HAND_LINE.match(line)
        if m:
            hands.append({"n": int(m[1]), "start": int(m[2]) - 1, "scores": {}})
        m = SCORE_LINE.match(line)
        if m:
            hands[-1]["scores"][int(m[1]) - 1] = (int(m[2]), int(m[3]))
    assert first is not None and hands, where
    assert [h["n"] for h in hands] == list(range(1, len(hands) + 1)), where
    totals = [0] * n
    for i, h in enumerate(hands):
        assert h["start"] == (first + i) % n, f"{where}: hand {h['n']} start {h['start']}"
        assert sorted(h["scores"]) == list(range(n)), f"{where}: hand {h['n']} scores {h['scores']}"
        assert any(s == 0 for s, _ in h["scores"].values()), f"{where}: nobody went out in hand {h['n']}"
        for q, (s, t) in h["scores"].items():
            assert t == totals[q] + s, f"{where}: hand {h['n']}, player {q + 1}: {totals[q]} + {s} != {t}"
            totals[q] = t
        if i < len(hands) - 1:
            assert max(totals) < 50, f"{where}: the game went on after {totals}"
    assert max(totals) >= 50, f"{where}: the game ended at {totals}"
    return totals


def check_first_start_player(state, n, where):
    """§2.1: the highest point value starts; the tied highest draw again until one is left."""
    draws = []
    for line in state.log():
        m = DRAW_LINE.match(line)
        if m:
            draws.append((int(m[1]) - 1, int(m[3])))
        if FIRST_LINE.match(line):
            break
    contenders = list(range(n))
    i = 0
    while len(contenders) > 1:
        got = draws[i:i + len(contenders)]
        assert [q for q, _ in got] == contenders, f"{where}: {got} drawn by {contenders}"
        best = max(v for _, v in got)
        contenders = [q for q, v in got if v == best]
        i += len(got)
    assert i == len(draws), where
    assert state.var("start") is not None
    return contenders[0]


def pick(rng, legal, eager):
    """A random player; an eager one mostly plays a card when it can, so hands end sooner."""
    if eager and rng.random() < eager:
        plays = [a for a in legal if (" play" in a or a.startswith("play")) and "nothing" not in a
                 or a.endswith("yes")]
        if plays:
            return rng.choice(plays)
    return rng.choice(legal)


def play_one(n, cat, seed, eager=0.0):
    game = game_for(n, cat)
    rng = random.Random(seed * 7919 + n)
    state = game.new_initial_state(seed=seed)
    where = f"{n} players{' catastrophe' if cat else ''}, seed {seed}"
    steps = 0
    deep = seed % DEEP_EVERY == 0
    moments = set(rng.sample(range(300), DEEP_MOMENTS)) if deep else set()
    replay_at = rng.randrange(20, 300) if deep else -1
    mid = None
    labels = Counter()
    while not state.is_terminal():
        p = state.current_player()
        assert 0 <= p < n, f"{where}: current player {p}"
        legal = state.legal_actions()
        assert legal, f"{where}: no legal actions for a live state"
        assert len(set(legal)) == len(legal), f"{where}: duplicate actions {legal}"
        assert all(a.player == p for a in legal)
        assert state.legal_actions(player=(p + 1) % n) == []
        a = pick(rng, legal, eager)
        labels[state.decision_label()] += 1
        dear = steps in moments
        twin = restored = None
        if dear:
            twin = check_clone(state, a, rng.choice(legal), f"{where}, step {steps}")
            restored = check_json(game, state, f"{where}, step {steps}")
            check_observations(state, n, f"{where}, step {steps}")
        oracle = rules_oracle(state, a, n, cat, f"{where}, step {steps}")
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
    penalty = [state.var("penalty", player=q) for q in range(n)]
    assert state.returns() == penalty, f"{where}: returns {state.returns()} but penalties {penalty}"
    assert max(penalty) >= 50
    assert sorted(state.winners()) == [q for q in range(n) if penalty[q] == min(penalty)], f"{where}: winners"
    assert check_hands(state, n, where) == penalty
    check_first_start_player(state, n, where)
    check_observations(state, n, f"{where}, end")
    if deep:
        check_json(game, state, f"{where}, end")
    assert game.replay(seed, state.history()) == state, f"{where}: replay differs"
    if mid is not None:
        assert game.replay(seed, mid[0]) == mid[1], f"{where}: replay of the first {replay_at} steps differs"
    labels["hands"] += state.var("hand_number")
    labels["reshuffles"] += sum("The deck is empty" in line for line in state.log())
    return steps, labels


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
@pytest.mark.slow
def test_random_games(n):
    total = 0
    labels = Counter()
    for i in range(GAMES[n]):
        steps, seen = play_one(n, i % 2 == 1, 1000 * n + i, EAGER[i % 3])
        total += steps
        labels += seen
    assert total > GAMES[n] * 100
    assert labels["hands"] > GAMES[n] * 1.2, labels      # some games go on to later hands
    assert labels["reshuffles"] > 0, labels             # the deck runs out somewhere
    # the random games reach every kind of decision
    for label in ("discard face down", "discard one more face down", "magic phase: play", "main phase:",
                  "play", "after drawing:", "name the colour", "shoot", "call Magi?",
                  "point out the missing Magi call?", "ORIGINAL, group 1:", "ORIGINAL, group 2:",
                  "ORIGINAL, group 3: DRAW"):
        assert labels[label] > 0, f"{n} players: no {label!r} decision in {GAMES[n]} games: {labels}"


def test_card_table_is_section_7():
    """The card table compiled from games/magi.rules is the reconstructed list of §7: 99 cards."""
    game = game_for(4, False)
    names = Counter(game.program.card_names)
    want = Counter({name: spec[4] for name, spec in CARD.items()})
    assert names == want
    attrs = game.program.card_attrs
    groups = Counter(attrs["group"])
    assert groups == Counter({"Guild": 51, "Item": 27, "Magician": 21})
    for cid, name in enumerate(game.program.card_names):
        printed = list(attrs["effects"][cid])
        eff = [f"DRAW[{attrs['draw_x'][cid]}]" if e == "DRAW" else e for e in printed]
        assert eff == effects(name), f"{name}: {eff}"
        assert attrs["points"][cid] == points(name) and attrs["colour"][cid] == colour(name)


def test_game_lengths_and_hands_are_reasonable():
    """Random games end; some of them take more than one hand (so the next start player is seen)."""
    multi = 0
    for seed in range(30):
        game = game_for(4, seed % 2 == 1)
        state = game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
            assert steps < 20000
        multi += state.var("hand_number") > 1
    assert multi > 0
