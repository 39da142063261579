"""The bridges' shared core: integer action ids (actions.py) and observation tensors (encoding.py).
Needs only numpy (any of the bridge extras, or the plot extra, brings it)."""
import random

import pytest

np = pytest.importorskip("numpy", reason="the bridges' tensors need numpy (pip install 'rulesrun[gym]')")

from rulesrun.interpreter import load_game, load_game_text  # noqa: E402
from rulesrun.interpreter.bridges import ActionSpace, BridgeError, Encoder, Table, configurations  # noqa: E402
from rulesrun.interpreter.bridges.encoding import engine_game  # noqa: E402
from rulesrun.interpreter.runtime.observe import resample  # noqa: E402


from tests.support import ROOT  # noqa: E402
from tests.support import tiny_game, tiny_header
FILES = ["games/magic_shop.rules", "games/gachapon.rules", "games/magi.rules", "examples/crazy_eights.rules",
         "examples/hearts.rules", "examples/oh_hell.rules", "examples/whist.rules", "examples/uno.rules"]




HEADER = tiny_header(players="2 to 3", suits="Red, Green", ranks=3, extra="state round: number = 0\n")


def make(body: str, header: str = HEADER, players: int = 2):
    return tiny_game(body, players, header=header, allow_leaks=False)


def test_configurations_cover_every_player_count_and_variant():
    got = configurations(ROOT / "games/gachapon.rules")
    assert got == [(2, ("two_player",)), (3, ()), (4, ())]
    oh = configurations(ROOT / "examples/oh_hell.rules")
    assert {n for n, _ in oh} == {3, 4, 5, 6, 7}
    assert (5, ("no_hook",)) in oh and (5, ("up_and_down",)) in oh and (5, ("one_hand",)) in oh and len(oh) == 20


@pytest.mark.parametrize("path", FILES)
def test_ids_play_every_game_exactly_as_the_engine(path):
    """In one random game with the fewest players and one with the most and every variant: the
    legal ids are the engine's legal actions one for one (texts alike), and taking an id does what
    taking its engine action does. (The OpenSpiel tests play every configuration by ids.)"""
    configs = configurations(ROOT / path)
    for players, variants in {configs[0], configs[-1]}:
        _play_by_ids(path, players, variants)


def _play_by_ids(path, players, variants):
    game = engine_game(ROOT / path, players=players, variants=variants)
    space = ActionSpace(game)
    rng = random.Random(players * 7 + len(variants))
    table = Table(space, game.new_initial_state(seed=rng.randrange(1000)))
    twin = game.new_initial_state(seed=table.state.seed)
    steps = 0
    while not table.is_terminal():
        ids = table.legal_ids()
        assert ids == sorted(set(ids)) and all(0 <= i < space.num_actions for i in ids)
        legal = twin.legal_actions()
        grp = table.group()
        if not grp.subset:
            assert len(ids) == len(legal)
            if game.program.decisions[twin.pending[1]].unique_texts:
                assert sorted(space.text(i) for i in ids) == sorted(map(str, legal))
            pick = rng.choice(ids)
            index = table.action_index(pick)
            table.apply_id(pick)
            twin.apply_action(index)
        else:                       # a subset: element by element, then done
            index = rng.randrange(len(legal))
            for a in table.id_of(index):
                assert a in table.legal_ids()
                table.apply_id(a)
            twin.apply_action(index)
        assert table.state == twin, f"{path} with {players} players {variants}"
        steps += 1
    assert steps > 10 and table.state.returns() == twin.returns()


def _bids(space) -> list:
    grp = next(g for g in space.groups if g.label == "bid")
    return [space.text(grp.offset + i) for i in range(len(grp.keys))]


def test_a_number_range_whose_ends_change_is_bounded_by_what_they_are_worked_out_from():
    """Oh Hell bids 0 to hand_size; hand_size is only ever given the schedule's hand sizes, which
    run down from most_cards = min(cards, 51 / players): so 0 to 10, 0 to 8 with 6 players, and
    0 to the parameter 'cards' when it is smaller — from the file alone, no number_bounds."""
    assert _bids(ActionSpace(load_game(ROOT / "examples/oh_hell.rules", players=4))) == [f"bid {i}" for i in range(11)]
    assert _bids(ActionSpace(load_game(ROOT / "examples/oh_hell.rules", players=6, variants=("up_and_down",)))) \
        == [f"bid {i}" for i in range(9)]
    assert _bids(ActionSpace(load_game(ROOT / "examples/oh_hell.rules", players=3, params={"cards": 4}))) \
        == [f"bid {i}" for i in range(5)]
    space = ActionSpace(load_game(ROOT / "examples/oh_hell.rules", players=4), {"bid": (0, 12)})   # given: kept
    assert _bids(space)[-1] == "bid 12"


def test_bounds_are_worked_out_through_zones_cards_state_locals_and_defines():
    game = make("""
        state most: number = 0
        state level: number = 1 from 1 to 4
        define twice(x) = 2 * x
        flow:
            most = max(round, 2)
            round = 3
            move every card to player 1.hand
            let k = size(player 1.hand) - 1
            player 1 chooses a from 0 to k as "count"
            player 1 chooses b from 1 to top(player 1.hand).rank as "rank"
            level += 1
            player 2 chooses c from level to twice(most) + 1 as "level"
            for i in 1 to 3:
                player 2 chooses d from i to i * players as "step"
            player 1 chooses e from 0 to max(c.rank for c in player 1.hand) as "high"
            player 1 chooses f from 0 to count(c in player 1.hand where c.rank > 1) as "many"
    """)
    space = ActionSpace(game)
    keys = {g.label: g.keys for g in space.groups}
    assert keys["count"] == list(range(0, 6))           # k is -1 to 5: the hand holds at most the 6 cards
    assert keys["rank"] == [1, 2, 3]                    # the cards' ranks
    assert keys["level"] == list(range(1, 8))           # level 1..4 (declared); most 2..3, twice + 1 = 7
    assert keys["step"] == list(range(1, 7))
    assert keys["high"] == [0, 1, 2, 3] and keys["many"] == list(range(7))


def test_a_number_range_that_cannot_be_bounded_says_what_to_declare():
    game = make("""
        state total: number = 0
        flow:
            repeat 3 times:
                total += 2
                player 1 chooses n from 0 to total as "bid"
    """)
    with pytest.raises(BridgeError) as e:
        ActionSpace(game)
    msg = str(e.value)
    assert "t.rules:" in msg and "the decision 'bid' (player 1 chooses n from 0 to total" in msg
    assert "cannot bound state 'total', which '+=' changes at line" in msg
    assert "Declare the bounds of what its ends are worked out from (like 'state n: number = 0 from 0 to 20')" in msg
    assert "number_bounds={'bid': (low, high)}" in msg
    space = ActionSpace(game, {"bid": (0, 6)})
    assert _bids(space) == [f"bid {i}" for i in range(7)]


def test_a_number_outside_the_bounds_given_is_a_clear_error():
    game = load_game(ROOT / "examples/oh_hell.rules", players=3)
    space = ActionSpace(game, {"bid": (0, 2)})     # too narrow: the first round deals 10 cards
    table = Table(space, game.new_initial_state(seed=1))
    with pytest.raises(BridgeError, match=r"offers 3, which its action ids do not cover; pass number_bounds"):
        table.legal_ids()


def test_fixed_ranges_constants_and_literal_texts_are_worked_out_from_the_file():
    game = make("""
        const most = 2 * players - 1
        flow:
            player 1 chooses n from 1 to most where n != 2 as "call"
            player 1 chooses m from [5, 7] as "pick"
            player 2 chooses t from ["high", "low"] as "say"
            player 2 chooses f from [yes, no] as "fold?"
            player 2 chooses s from Suit as "name"
    """)
    space = ActionSpace(game)
    texts = [space.text(i) for i in range(space.num_actions)]
    assert texts == ["call 1", "call 2", "call 3", "pick 5", "pick 7", "say high", "say low",
                     "fold? yes", "fold? no", "name Red", "name Green"]


def test_a_text_computed_during_the_game_is_a_clear_error():
    game = make("""
        flow:
            player 1 chooses t from ["round {round}", "never"] as "say"
    """)
    with pytest.raises(BridgeError, match=r"t.rules:\d+:\d+: the decision 'say' .* chooses a text computed during the game"):
        ActionSpace(game)


def test_card_kinds_that_read_alike_are_told_apart():
    header = """
game "Coins"
players 2
cards:
    name: text
    points: number
    shown as "{name}"
    2 x {name: "Coin", points: 1}
    1 x {name: "Coin", points: 5}
zone deck: facedown
zone hand per player: owner
"""
    game = load_game_text(header + "flow:\n    move every card to player 1.hand\n"
                          "    player 1 chooses c from player 1.hand as \"play\"\n", 2, path="c.rules")
    space = ActionSpace(game)
    assert [space.text(i) for i in range(space.num_actions)] == ["play Coin (kind 1)", "play Coin (kind 2)"]
    table = Table(space, game.new_initial_state(seed=0))
    assert table.legal_ids() == [0, 1]        # the two interchangeable 1-point coins are one option


def test_groups_share_ids_between_decisions_with_the_same_label():
    game = load_game(ROOT / "games/magic_shop.rules", players=4)
    space = ActionSpace(game)
    plays = [d for d, dec in enumerate(game.program.decisions) if dec.label == "play"]
    assert len(plays) == 2 and space.group_of[plays[0]] == space.group_of[plays[1]]
    grp = space.groups[space.group_of[plays[0]]]
    assert len(grp.keys) == 45 and grp.texts[0] == "play Eye 0"
    assert space.num_actions == sum(len(g.keys) for g in space.groups)


def _to_buy(seed: int):
    game = load_game(ROOT / "games/gachapon.rules", players=3)
    space = ActionSpace(game)
    rng = random.Random(seed)
    table = Table(space, game.new_initial_state(seed=seed))
    while not (table.group() and table.group().subset):
        table.apply_id(rng.choice(table.legal_ids()))
    return game, space, table


def test_a_subset_is_chosen_one_element_at_a_time_in_one_order():
    game, space, table = _to_buy(3)
    grp = table.group()
    done = grp.offset + len(grp.keys) - 1
    options = table.state.pending[2]
    first = table.legal_ids()
    assert done not in first                 # 'such that size(got) >= 1': the empty subset is no choice
    assert all(space.text(i).startswith("buy: add ") for i in first)
    pick = max(first)                        # the last element in id order: nothing may follow it
    table.apply_id(pick)
    assert table.partial and table.state.pending is not None
    assert all(i >= pick for i in table.legal_ids())
    assert done in table.legal_ids()
    before = len(table.state.history())
    table.apply_id(done)
    assert table.partial == () and len(table.state.history()) == before + 1
    chosen = table.state.history()[-1]
    assert chosen == "buy " + space.class_names[grp.keys[pick - grp.offset]]
    assert len(options) > 1


def test_a_subset_in_progress_is_part_of_the_tensor():
    game, space, table = _to_buy(3)
    enc = Encoder(space)
    seat = table.current_player()
    before = enc.split(enc.tensor(table, seat))["subset"].copy()
    table.apply_id(table.legal_ids()[0])
    after = enc.split(enc.tensor(table, seat))["subset"]
    assert before.sum() == 0 and after.sum() == 1


@pytest.mark.parametrize("path", ["games/magic_shop.rules", "games/magi.rules", "games/gachapon.rules",
                                  "tests/flow_corpus/honest/others_hint_and_play.rules",     # hands facing out
                                  "tests/flow_corpus/honest/team_hands_seen_by_partners.rules"])   # seen by a team
def test_the_tensor_shows_nothing_the_seat_may_not_see(path):
    """Deal the cards a seat cannot see again (observe.resample): its tensor must not change;
    another seat's tensor, which sees other cards, does."""
    game = load_game(ROOT / path)
    space = ActionSpace(game)
    enc = Encoder(space)
    rng = random.Random(5)
    table = Table(space, game.new_initial_state(seed=5))
    changed = 0
    for step in range(60):
        if table.is_terminal():
            break
        for seat in range(game.players):
            other = Table(space, resample(table.state, seat, random.Random(step)), table.partial)
            mine = enc.tensor(table, seat)
            assert np.array_equal(mine, enc.tensor(other, seat)), f"seat {seat} sees a hidden card at step {step}"
            theirs = (seat + 1) % game.players
            changed += not np.array_equal(enc.tensor(table, theirs), enc.tensor(other, theirs))
        table.apply_id(rng.choice(table.legal_ids()))
    assert changed > 0


def test_the_tensor_layout_and_its_contents():
    game = load_game(ROOT / "games/magic_shop.rules", players=4)
    space = ActionSpace(game)
    enc = Encoder(space)
    assert enc.size == sum(int(np.prod(s)) for _, s in enc.layout) == 2579   # The Magic Shop at 4 players (with its face_up_bid and bid_made columns)
    table = Table(space, game.new_initial_state(seed=2))
    seat = table.current_player()
    parts = enc.split(enc.tensor(table, seat))
    hand_slot = len(enc.shared) + [f for f, _ in enc.families].index("hand") * game.players   # own hand
    hand = table.state.z[game.program.families["hand"] + seat]
    assert parts["cards"][:, hand_slot].sum() == len(hand) == parts["sizes"][hand_slot]
    for c in hand:
        assert parts["cards"][space.card_class[c], hand_slot] == 1
    assert parts["cards"].sum() == len(game.program.card_names)     # every card: seen somewhere or unseen
    assert parts["to_move"][0] == 1                                  # relative seat 0: the seat itself
    assert parts["decision"][space.group_of[table.state.pending[1]]] == 1
    other = enc.split(enc.tensor(table, (seat + 1) % 4))
    assert other["to_move"][3] == 1                                  # I sit 3 seats on from it
    assert other["cards"][:, hand_slot + 3].sum() == 0 and other["sizes"][hand_slot + 3] == len(hand)


def test_a_label_that_shows_the_option_is_the_whole_text():
    game = make("""
        flow:
            move every card to player 1.hand
            player 1 chooses c from player 1.hand as "lay {c} face down"
            player 2 chooses s from Suit as "call {s} trumps"
    """)
    space = ActionSpace(game)
    texts = [space.text(i) for i in range(space.num_actions)]
    assert texts[0] == "lay Red 1 face down" and texts[-2:] == ["call Red trumps", "call Green trumps"]
    table = Table(space, game.new_initial_state(seed=0))
    assert sorted(space.text(i) for i in table.legal_ids()) == sorted(map(str, table.state.legal_actions()))


def test_a_choice_block_gives_ids_to_its_pick_and_its_named_moves():
    game = make("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            repeat 3 times:
                for p in players:
                    p chooses:
                        "draw" if size(deck) > 0:
                            move top(deck) to p.hand
                        c from p.hand as "play":
                            move c to pile
                        "pass":
                            pass
            end game
    """)
    space = ActionSpace(game)
    texts = [space.text(i) for i in range(space.num_actions)]
    assert texts == [f"play {s} {r}" for s in ("Red", "Green") for r in (1, 2, 3)] + ["draw", "pass"]
    rng = random.Random(2)
    table = Table(space, game.new_initial_state(seed=4))
    twin = game.new_initial_state(seed=4)
    while not table.is_terminal():
        ids = table.legal_ids()
        assert sorted(space.text(i) for i in ids) == sorted(map(str, twin.legal_actions()))
        pick = rng.choice(ids)
        twin.apply_action(space.text(pick))
        table.apply_id(pick)
        assert table.state == twin


def test_a_variant_that_is_not_played_does_not_change_the_bounds():
    text = """
        state total: number = 0
        flow:
            bump()
            player 1 chooses n from 0 to total as "bid"
        procedure bump():
            total = 2
        variant grow:
            procedure bump():
                total += 1
    """
    assert _bids(ActionSpace(make(text))) == ["bid 0", "bid 1", "bid 2"]
    with pytest.raises(BridgeError, match="cannot bound state 'total', which '\\+=' changes"):
        ActionSpace(tiny_game(text, 2, header=HEADER, variants=("grow",)))


def test_a_window_gives_pass_and_each_take_an_id_and_asks_each_seat_with_them():
    game = make("""
        flow:
            shuffle deck
            deal 1 from deck to hand
            any q in players may:
                c from q.hand where c.rank > 1 as "show":
                    move c to pile
                "call":
                    pass
        """)
    space = ActionSpace(game)
    texts = [space.text(i) for i in range(space.num_actions)]
    assert texts[-2:] == ["call", "pass"] and sum(t.startswith("show ") for t in texts) == 6
    table = Table(space, game.new_initial_state(seed=0))
    seats = []
    while table.state.pending is not None:
        seats.append(table.state.current_player())
        ids = table.legal_ids()
        assert texts.index("pass") in ids and texts.index("call") in ids
        table.apply_id(texts.index("pass"))
    assert seats == [0, 1]                 # every seat asked, one after the other, none taking


def test_a_hint_on_the_backs_of_unseen_cards_is_in_the_tensor_by_place():
    game = load_game(ROOT / "tests/flow_corpus/honest/hints_on_backs.rules")
    space = ActionSpace(game)
    enc = Encoder(space)
    table = Table(space, game.new_initial_state(seed=5))
    before = enc.split(enc.tensor(table, 1))["backs"].copy()
    table.apply_id(table.legal_ids()[0])           # Player 1 hints Player 2's hand
    backs = enc.split(enc.tensor(table, 1))["backs"]
    told = table.state.observation(1)["players"][1]["hand"]["backs"]["told"]
    slot = len(enc.shared)        # the locations from a seat's view: shared zones, then its own zone first
    assert before.sum() == 0
    assert [bool(backs[slot, place].sum()) for place in range(len(told))] == [t is not None for t in told]
