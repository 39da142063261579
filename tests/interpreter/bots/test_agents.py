"""The bots: seat specifications, legal play in every shipped game, determinisation that never peeks,
the memory of seen cards, the rewards, greedy on a toy game, and ISMCTS beating random with
statistical significance in every ``games/*.rules`` (seeded, small budgets)."""
from __future__ import annotations

import random

import pytest

from rulesrun.dsl import RulesRuntimeError, parse_file
from rulesrun.dsl.syntax.ast import PlayersDecl
from rulesrun.interpreter import State, load_game, load_game_text
from rulesrun.interpreter.bots.agents import (
    AGENTS,
    GreedyAgent,
    ISMCTSAgent,
    Memory,
    RandomAgent,
    determinise,
    make_agent,
    parse_kind,
    parse_seats,
    rewards,
    standings,
)
from rulesrun.interpreter.runtime.observe import announced_cards, observe, resample, visible_cards
from rulesrun.interpreter.simulate.runner import run_games, wilson

from tests.support import ROOT  # noqa: E402
GAMES = sorted((ROOT / "games").glob("*.rules"))
MAGIC = ROOT / "games" / "magic_shop.rules"


def player_range(path) -> tuple[int, int]:
    decl = next(i for i in parse_file(path).items if isinstance(i, PlayersDecl))
    return decl.low, decl.high


# ── seat specifications ────────────────────────────────────────────────────
def test_parse_seats_accepts_every_kind_and_budget():
    assert parse_seats(None, 3) == ["human", "random", "random"]
    assert parse_seats("human, Random,greedy", 3) == ["human", "random", "greedy"]
    assert parse_seats("ismcts,ismcts:500,ismcts:2s,ismcts:0.5s", 4) == ["ismcts", "ismcts:500", "ismcts:2s", "ismcts:0.5s"]
    assert parse_kind("ismcts:500") == ("ismcts", {"iterations": 500})
    assert parse_kind("ismcts:2s") == ("ismcts", {"seconds": 2.0})
    assert parse_kind("greedy") == ("greedy", {})


@pytest.mark.parametrize("spec, message", [
    ("human,robot", "unknown seat kind 'robot'"),
    ("human,ismcts:", "bad budget in 'ismcts:'"),
    ("human,ismcts:0", "bad budget in 'ismcts:0'"),
    ("human,ismcts:-3", "bad budget"),
    ("human,ismcts:fast", "use ismcts:N for N iterations"),
    ("human,ismcts:0s", "bad budget"),
    ("human,greedy:5", "'greedy' takes no budget"),
    ("human", "--seats names 1 seat but the game has 2 players"),
])
def test_parse_seats_rejects_bad_entries_with_a_message(spec, message):
    with pytest.raises(ValueError) as e:
        parse_seats(spec, 2)
    assert message in str(e.value)


def test_make_agent_builds_each_kind_with_its_budget():
    assert isinstance(make_agent("random", 1), RandomAgent)
    assert isinstance(make_agent("greedy", 1), GreedyAgent)
    a = make_agent("ismcts:7", 1)
    assert isinstance(a, ISMCTSAgent) and a.iterations == 7 and a.seconds is None
    b = make_agent("ismcts:0.25s", 1)
    assert b.seconds == 0.25 and b.iterations is None
    assert make_agent("ismcts", 1).iterations == 200
    with pytest.raises(ValueError):
        make_agent("human", 1)
    assert set(AGENTS) == {"random", "greedy", "ismcts"}


# ── legal play everywhere ──────────────────────────────────────────────────
@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_every_agent_plays_a_whole_game_legally(path):
    _, high = player_range(path)
    game = load_game(path, players=high)
    kinds = ["greedy", "ismcts:3"] + ["random"] * (high - 2)
    agents = [make_agent(k, 10 + p) for p, k in enumerate(kinds)]
    state = game.new_initial_state(seed=3)
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        a = agents[state.current_player()].choose(state)
        assert a in legal
        state.apply_action(a)
        steps += 1
    assert steps > 0 and len(state.returns()) == high


def test_ismcts_is_repeatable_for_a_seed_and_budget():
    game = load_game(MAGIC, players=3)

    def play():
        agents = [make_agent("ismcts:6", 1), make_agent("random", 2), make_agent("greedy", 3)]
        state = game.new_initial_state(seed=11)
        while not state.is_terminal():
            state.apply_action(agents[state.current_player()].choose(state))
        return state.history()

    assert play() == play()


def test_a_time_budget_stops_in_time():
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=2)
    agent = make_agent("ismcts:0.05s", 1)
    import time
    t = time.perf_counter()
    a = agent.choose(state)
    assert a in state.legal_actions()
    assert time.perf_counter() - t < 2.0
    assert agent.stats["iterations"] >= 1


# ── never peeking ──────────────────────────────────────────────────────────
def states_along(game, seed: int, every: int, limit: int = 400):
    rng = random.Random(seed)
    state = game.new_initial_state(seed=seed)
    k = 0
    while not state.is_terminal() and k < limit:
        if k % every == 0:
            yield state.clone()
        state.apply_action(rng.randrange(len(state.legal_actions())))
        k += 1


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_determinisation_depends_only_on_what_the_seat_sees(path):
    low, _ = player_range(path)
    game = load_game(path, players=low)
    checked = 0
    for a in states_along(game, 5, every=23):
        seat = a.current_player()
        known = visible_cards(a, seat)
        b = resample(a, seat, random.Random(99), known)        # the same view, other hidden cards
        assert observe(a, seat, log=False) == observe(b, seat, log=False)
        da = determinise(a, seat, random.Random(7), known)
        db = determinise(b, seat, random.Random(7), known)
        assert da == db
        assert observe(da, seat, log=False) == observe(a, seat, log=False)
        assert [str(x) for x in da.legal_actions()] == [str(x) for x in a.legal_actions()]
        assert da.rng != a.rng and da.forced == []       # future shuffles are not the real ones
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_ismcts_and_greedy_choose_the_same_whatever_the_hidden_cards(path):
    low, _ = player_range(path)
    game = load_game(path, players=low)
    checked = 0
    for a in states_along(game, 8, every=41, limit=250):
        seat = a.current_player()
        if len(a.legal_actions()) < 2:
            continue
        b = resample(a, seat, random.Random(3), visible_cards(a, seat))
        for kind in ("ismcts:8", "greedy"):
            assert str(make_agent(kind, 4).choose(a)) == str(make_agent(kind, 4).choose(b)), kind
        checked += 1
    assert checked >= 2


def test_memory_keeps_cards_seen_this_deal_and_forgets_them_at_a_shuffle():
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=4)
    rng = random.Random(4)
    memory = Memory(0)
    first_round_played: set = set()
    while state.var("round") == 1:
        if state.current_player() == 0:
            known = memory.update(state)
            assert visible_cards(state, 0) <= known
            # every card played so far this round was announced, and is remembered though gathered face down
            assert announced_cards(state) - known == set() or state.var("tricks_played") == 0
            first_round_played = announced_cards(state)
        state.apply_action(rng.randrange(len(state.legal_actions())))
    assert first_round_played
    while state.current_player() != 0:
        state.apply_action(rng.randrange(len(state.legal_actions())))
    known = memory.update(state)
    assert known == visible_cards(state, 0)     # the new deal was shuffled: only what is seen now


def test_memory_starts_afresh_for_a_new_game():
    game = load_game(MAGIC, players=3)
    memory = Memory(0)
    a = game.new_initial_state(seed=1)
    memory.update(a)
    b = game.new_initial_state(seed=2)
    while b.current_player() != 0:
        b.apply_action(0)
    assert memory.update(b) == visible_cards(b, 0)


def test_memory_reads_only_the_steps_since_its_last_update_and_starts_afresh_on_a_past_it_cannot_find():
    from rulesrun.interpreter.bots.agents import _steps_since
    game = load_game(MAGIC, players=3)
    state = game.new_initial_state(seed=6)
    memory = Memory(0)
    memory.update(state)
    mark = state.steps
    texts = []
    for _ in range(5):
        texts.append(str(state.legal_actions()[0]))
        state.apply_action(0)
    assert _steps_since(state.steps, mark) == texts[::-1]           # the new steps, newest first
    assert _steps_since(state.steps, state.steps) == []
    assert _steps_since(mark, state.steps) is None                  # a later point is not in an earlier past
    memory.update(state)
    assert memory.steps is state.steps
    # a state read back from a file shares no link with what was remembered: the seat starts afresh
    loaded = State.from_json(game, state.to_json())
    assert _steps_since(loaded.steps, memory.steps) is None
    memory.known.add(-1)                                             # (a marker a fresh start drops)
    assert memory.update(loaded) == visible_cards(loaded, 0) and -1 not in memory.known
    # a clone shares its past: the memory goes on from it (the marker is kept)
    twin = loaded.clone()
    twin.apply_action(0)
    memory.known.add(-1)
    assert -1 in memory.update(twin)


# ── rewards and greedy ─────────────────────────────────────────────────────
TOY = """
game "Take"
players 2 to 3
cards:
    rank: number
    for rank in 1 to 6
zone deck: facedown
zone hand per player: owner
player state points: number = 0
flow:
    shuffle deck
    deal 1 from deck to hand
    repeat 2 times:
        for p in players:
            p chooses n from [1, 2, 3, 4, 5] as "take"
            p.points += n
score(p) = p.points
winners p by {order} p.points
"""


@pytest.mark.parametrize("order, best", [("highest", "take 5"), ("lowest", "take 1")])
def test_greedy_and_ismcts_follow_the_winners_ordering(order, best):
    game = load_game_text(TOY.format(order=order), 2)
    for kind in ("greedy", "ismcts:60"):
        state = game.new_initial_state(seed=1)
        agent = make_agent(kind, 1)
        assert str(agent.choose(state)) == best, kind


SHED = """
game "Shed"
players 2 to 3
cards:
    rank: number
    for rank in 1 to 9
zone deck: facedown
zone pile: public
zone hand per player: owner
player state points: number = 0
flow:
    shuffle deck
    deal 4 from deck to hand
    repeat 2 times:
        for p in players:
            p chooses n from [0, 1, 2] as "shed"
            repeat n times:
                move top(p.hand) to pile
    # the score comes only at the very end: before it, nothing tells a good move from a bad one
    for p in players:
        p.points = 0 - size(p.hand)
score(p) = p.points
{heuristic}
"""


@pytest.mark.parametrize("heuristic, choices", [("heuristic(p) = 0 - size(p.hand)", {"shed 2"}),
                                                ("", {"shed 0", "shed 1", "shed 2"})])
def test_greedy_follows_the_files_heuristic_where_the_score_says_nothing_yet(heuristic, choices):
    game = load_game_text(SHED.format(heuristic=heuristic), 2)
    assert (game.program.heuristic is not None) == bool(heuristic)
    picked = set()
    for seed in range(12):
        state = game.new_initial_state(seed=seed)
        picked.add(str(make_agent("greedy", seed).choose(state)))
    assert picked == choices      # with it: always the most shed; without it: anything, at random


@pytest.mark.parametrize("heuristic", ["heuristic(p) = 0 - size(p.hand)", ""])
def test_ismcts_playouts_stop_after_two_rounds_of_turns_where_the_file_has_a_heuristic(heuristic):
    # after the shedding, thirty rounds of waiting before the score: a playout to the end is long
    text = SHED.format(heuristic=heuristic).replace("    # the score comes only", """    repeat 30 times:
        for p in players:
            p chooses k from [1, 2] as "wait"
    # the score comes only""")
    game = load_game_text(text, 2)
    agent = make_agent("ismcts:30", 1)
    assert str(agent.choose(game.new_initial_state(seed=1))) == "shed 2"
    per_iteration = agent.stats["steps"] / agent.stats["iterations"]
    if heuristic:
        assert per_iteration < 15                # the tree's few steps, then 2 rounds of 2 players
    else:
        assert per_iteration > 60                # to the end of the game


def test_a_heuristic_that_fails_is_a_rules_error_naming_its_line():
    game = load_game_text(SHED.format(heuristic="state who: player = none\nheuristic(p) = who.points"), 2)
    state = game.new_initial_state(seed=1)
    with pytest.raises(RulesRuntimeError) as e:
        GreedyAgent._value(state, 0)
    assert "heuristic(p) = who.points" in str(e.value)
    assert str(make_agent("greedy", 1).choose(state)).startswith("shed ")    # it still picks a move


def test_rewards_are_in_0_1_and_follow_the_winners():
    game = load_game_text(TOY.format(order="lowest"), 3)
    state = game.new_initial_state(seed=1)
    for a in ["take 1", "take 3", "take 3", "take 1", "take 5", "take 3"]:
        state.apply_action(a)
    assert state.is_terminal() and state.winners() == [0]
    r = rewards(state)
    assert all(0 <= x <= 1 for x in r)
    assert r == [1.0, 0.0, 0.25]           # 2 points wins; 6 beats 8 (lowest wins), 8 beats nobody
    assert standings(state) == [(-2,), (-8,), (-6,)]


# ── strength ───────────────────────────────────────────────────────────────
# Per shipped game: the player count, budget and number of games. The most players makes the test
# cheapest (fewer moves for the one ismcts seat, a lower chance level); a new game gets DEFAULT.
STRENGTH = {
    "magic_shop": {"players": 5, "seat": "ismcts:30", "games": 16},
    "gachapon": {"players": 4, "seat": "ismcts:8", "games": 12},
    "magi": {"players": 8, "seat": "ismcts:12", "games": 10},
}
DEFAULT = {"players": None, "seat": "ismcts:10", "games": 12}
ALPHA = 0.01


def rank_test_p(ranks: list[int], n: int) -> float:
    """P(a sum of len(ranks) independent uniform draws from 0 … n-1 is at least sum(ranks)): under
    the null hypothesis (the ismcts seat is no better than the others) the number of seats it
    beats is uniform, and counting only strict wins (ties against it) makes the test conservative."""
    dist = {0: 1.0}
    for _ in ranks:
        nxt: dict = {}
        for s, p in dist.items():
            for r in range(n):
                nxt[s + r] = nxt.get(s + r, 0.0) + p / n
        dist = nxt
    total = sum(ranks)
    return sum(p for s, p in dist.items() if s >= total)


def test_rank_test_p():
    assert rank_test_p([1], 2) == 0.5
    assert rank_test_p([3, 3], 4) == pytest.approx(1 / 16)
    assert rank_test_p([0, 0], 4) == 1.0


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
@pytest.mark.slow
def test_ismcts_beats_random_significantly(path):
    cfg = STRENGTH.get(path.stem, DEFAULT)
    n = cfg["players"] or player_range(path)[1]
    game = load_game(path, players=n)
    spec = {"path": str(path), "text": path.read_text(encoding="utf-8"), "players": n, "variants": [],
            "seats": [cfg["seat"]] + ["random"] * (n - 1), "seed": 1, "rotate": True}
    records = run_games(spec, cfg["games"])
    ranks, sole = [], 0
    for r in records:
        seat = r["agents"].index(cfg["seat"])
        keys = [tuple(k) for k in r["standings"]]
        ranks.append(sum(1 for q in range(n) if q != seat and keys[q] < keys[seat]))
        sole += r["winners"] == [seat]
    p = rank_test_p(ranks, n)
    low, _ = wilson(sole, len(records))
    summary = f"{path.stem}, {n} players, {cfg['seat']}: ranks {ranks}, sole wins {sole}/{len(records)}, p = {p:.2g}"
    print(summary)
    assert p < ALPHA, summary
    assert low > 1 / n, summary


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.stem)
def test_the_fast_step_of_playouts_is_apply_action_without_history(path):
    low, _ = player_range(path)
    game = load_game(path, players=low)
    a = game.new_initial_state(seed=2)
    b = a.clone()
    rng = random.Random(2)
    for _ in range(300):
        if a.is_terminal():
            break
        i = rng.randrange(len(a.legal_actions()))
        assert b.num_legal_actions() == len(a.legal_actions())
        a.apply_action(i)
        b.apply_index(i)
        assert (a.z, a.g, a.pv, a.cv, a.frames, a.pending, a.rng) == (b.z, b.g, b.pv, b.cv, b.frames, b.pending, b.rng)
