"""The bridges' action ids of a choice block with several picks (each option of every branch an
id), of a pick of several values (an id a combination) and of a move whose text shows values (one
id whatever the text)."""
import random

import pytest

pytest.importorskip("numpy", reason="the bridges' tensors need numpy (pip install 'rulesrun[gym]')")

from rulesrun.interpreter.bridges import ActionSpace, Table  # noqa: E402
from tests.interpreter.runtime.test_picks_play import HINTS  # noqa: E402
from tests.support import tiny_game, tiny_header  # noqa: E402
from rulesrun.interpreter import load_game_text  # noqa: E402

HEADER = tiny_header(players="2", suits="Red, Green", ranks=3)


def test_every_option_of_every_branch_has_an_id_of_its_own():
    game = load_game_text(HINTS, 2, path="hints.rules")
    space = ActionSpace(game)
    texts = [space.text(i) for i in range(space.num_actions)]
    # play 1..n and discard 1..n (n: the bound of the hand's size), every (player, colour) hint, one
    # id to wait, in the order written
    n = sum(t.startswith("play ") for t in texts)
    assert n >= 3 and texts[:2 * n] == [f"play {i}" for i in range(1, n + 1)] + [f"discard {i}" for i in range(1, n + 1)]
    assert texts[2 * n:] == [f"hint Player {p} {c}" for p in (1, 2) for c in ("Red", "Green", "Blue")] + \
        ["wait with {tokens} tokens"]
    table = Table(space, game.new_initial_state(seed=2))
    legal = [str(a) for a in table.state.legal_actions()]
    ids = table.legal_ids()
    assert len(ids) == len(legal) and ids[-1] == space.num_actions - 1      # "wait with 2 tokens"
    assert [space.text(i) for i in ids[:-1]] == legal[:-1] and legal[-1] == "wait with 2 tokens"


def test_ids_play_a_game_of_several_picks_exactly_as_the_engine():
    game = load_game_text(HINTS, 3, path="hints.rules")
    space = ActionSpace(game)
    for seed in range(4):
        rng = random.Random(seed)
        table = Table(space, game.new_initial_state(seed=seed))
        twin = game.new_initial_state(seed=seed)
        while not table.is_terminal():
            ids = table.legal_ids()
            assert len(ids) == len(twin.legal_actions())
            pick = rng.choice(ids)
            index = table.action_index(pick)
            assert table.id_of(index) == [pick]
            table.apply_id(pick)
            twin.apply_action(index)
            assert table.state == twin


def test_a_pick_of_pairs_in_a_statement_has_an_id_a_combination():
    game = tiny_game("""
        flow:
            player 1 chooses n, s from 1 to 2, Suit as "bid"
            announce "{n} {s}"
            end game
    """, header=HEADER)
    space = ActionSpace(game)
    assert [space.text(i) for i in range(space.num_actions)] == ["bid 1 Red", "bid 1 Green", "bid 2 Red",
                                                                  "bid 2 Green"]
    table = Table(space, game.new_initial_state(seed=1))
    table.apply_id(2)
    assert table.state.log() == ["2 Red"]


def test_a_subset_beside_other_picks_is_chosen_item_by_item_then_its_own_done():
    game = tiny_game("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            player 1 chooses:
                subset two from player 1.hand such that size(two) == 2 as "pair":
                    move two to pile
                c from player 1.hand as "play":
                    move c to pile
                "pass":
                    pass
            end game
    """, header=HEADER)
    space = ActionSpace(game)
    texts = [space.text(i) for i in range(space.num_actions)]
    assert texts[:2] == ["pair: add Red 1", "pair: add Red 2"] and "pair: done" in texts
    assert texts[texts.index("pair: done") + 1:] == [f"play {c} {r}" for c in ("Red", "Green") for r in (1, 2, 3)] \
        + ["pass"]
    state = game.new_initial_state(seed=3, stack={"deck": ["Red 1", "Green 2", "Red 3"]})
    table = Table(space, state)
    first = [space.text(i) for i in table.legal_ids()]      # in id order: the card table's
    assert first == ["pair: add Red 1", "pair: add Red 3", "play Red 1", "play Red 3", "play Green 2", "pass"]
    table.apply_id(texts.index("pair: add Red 3"))
    assert [space.text(i) for i in table.legal_ids()] == ["pair: add Green 2"]   # Red 1 comes before Red 3
    table.apply_id(texts.index("pair: add Green 2"))
    assert [space.text(i) for i in table.legal_ids()] == ["pair: done"]
    index = table.action_index(texts.index("pair: done"))
    assert str(table.state.legal_actions()[index]) in ("pair Green 2, Red 3", "pair Red 3, Green 2")
    assert table.id_of(index) == [texts.index("pair: add Red 3"), texts.index("pair: add Green 2"), texts.index("pair: done")]
    table.apply_id(texts.index("pair: done"))
    assert sorted(table.state.cards("pile")) == ["Green 2", "Red 3"] and table.is_terminal()


def test_random_ids_play_a_block_with_a_subset_beside_picks_as_the_engine():
    game = tiny_game("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            repeat 3 times:
                for p in players:
                    p chooses:
                        subset some from p.hand such that size(some) <= 2 as "lay":
                            move some to pile
                        c from p.hand as "play":
                            move c to pile
                        "draw" if size(deck) > 0:
                            move top(deck) to p.hand
            end game
    """, header=HEADER)
    space = ActionSpace(game)
    for seed in range(6):
        rng = random.Random(seed)
        table = Table(space, game.new_initial_state(seed=seed))
        twin = game.new_initial_state(seed=seed)
        while not table.is_terminal():
            taken = []
            while True:             # a whole option: one id, or a subset's items then its done
                pick = rng.choice(table.legal_ids())
                taken.append(pick)
                index = table.action_index(pick)
                if index is not None:
                    break
                table.apply_id(pick)
            assert table.id_of(index) == taken[-len(table.id_of(index)):]
            table.apply_id(pick)
            twin.apply_action(index)
            assert table.state == twin
