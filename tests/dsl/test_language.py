"""Each language construct on its own, in tiny games written inline."""
from __future__ import annotations

import json

import pytest

from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.interpreter import GameError, State, load_game_text
from tests.support import TINY, tiny_game

HEADER = TINY


def make(body: str, players: int = 2, variants=(), header: str = HEADER):
    # constructs one by one, not secrets: leaks are allowed here (tests/dsl/analysis/test_infoflow.py checks them)
    return tiny_game(body, players, header=header, variants=variants)


def play(game, actions=(), seed=0, stack=None):
    s = game.new_initial_state(seed=seed, stack=stack)
    for a in actions:
        s.apply_action(a)
    return s


def test_cards_from_a_product_with_a_player_count_condition():
    g = make("""
        flow:
            pass
    """, header=HEADER.replace("for suit in Suit, rank in 1 to 4", "for suit in Suit, rank in 1 to 4 where players > 2 or rank < 4"))
    assert len(g.program.card_names) == 9
    g3 = load_game_text(HEADER.replace("for suit in Suit, rank in 1 to 4", "for suit in Suit, rank in 1 to 4 where players > 2 or rank < 4")
                        + "flow:\n    pass\n", 3, path="t.rules")
    assert len(g3.program.card_names) == 12


def test_record_entries_with_copies_and_defaults():
    header = """
game "Records"
players 2
kind Colour: Red, Blue
kind Effect: Again, Skip
cards:
    name: text
    colour: Colour
    points: number = 1
    effects: list of Effect = []
    shown as "{name} ({colour})"
    3 x {name: "Coin", points: 2} for colour in Colour
    1 x {name: "Wizard", colour: Red, points: 15, effects: [Again, Skip]}
zone deck: facedown
zone hand per player: owner
"""
    g = load_game_text(header + "flow:\n    pass\n", 2, path="t.rules")
    names = g.program.card_names
    assert names.count("Coin (Red)") == 3 and names.count("Coin (Blue)") == 3
    wiz = g.card_id("Wizard (Red)")
    assert g.program.card_attrs["effects"][wiz] == ["Again", "Skip"]
    assert g.program.card_attrs["points"][g.card_id("Coin (Blue)")] == 2


def test_deal_gives_blocks_from_the_top_and_stacking_sets_the_order():
    g = make("""
        flow:
            shuffle deck
            deal 2 from deck to hand
    """)
    s = play(g, stack={"deck": ["Red 1", "Red 2", "Blue 3", "Blue 4"]})
    assert s.cards("hand", 0) == ["Red 1", "Red 2"]
    assert s.cards("hand", 1) == ["Blue 3", "Blue 4"]
    assert len(s.cards("deck")) == 8


def test_deal_starting_with_a_player_goes_round_the_table_from_there():
    g = make("""
        state starting: number = 0          # 'starting' stays free as a name
        flow:
            shuffle deck
            let dealer = player 3
            deal 2 from deck to hand starting with left(dealer)
            deal 1 from deck to hand
    """, players=3)
    names = ["Red 1", "Red 2", "Red 3", "Red 4", "Green 1", "Green 2", "Blue 1", "Blue 2", "Blue 3"]
    s = play(g, stack={"deck": names})
    # left of Player 3 is Player 1: then 2, then 3. The second deal starts with Player 1 as always
    assert s.cards("hand", 0) == ["Red 1", "Red 2", "Blue 1"]
    assert s.cards("hand", 1) == ["Red 3", "Red 4", "Blue 2"]
    assert s.cards("hand", 2) == ["Green 1", "Green 2", "Blue 3"]
    g2 = make("""
        flow:
            shuffle deck
            deal 2 from deck to hand starting with player 2
    """, players=3)
    s = play(g2, stack={"deck": names})
    assert s.cards("hand", 1) == ["Red 1", "Red 2"] and s.cards("hand", 2) == ["Red 3", "Red 4"]
    assert s.cards("hand", 0) == ["Green 1", "Green 2"]


def test_deal_starting_with_needs_a_player():
    with pytest.raises(RulesError) as e:
        make("""
            flow:
                deal 2 from deck to hand starting with 2
        """)
    assert "who is dealt to first" in str(e.value) and "player" in str(e.value)
    g = make("""
        state nobody_yet: player = none
        flow:
            deal 2 from deck to hand starting with nobody_yet
    """)
    with pytest.raises(RulesRuntimeError) as e:
        play(g)
    assert "nobody is there to deal to first" in str(e.value) and "t.rules:" in str(e.value)


def test_a_heuristic_is_a_number_per_player_worked_out_on_any_state():
    g = make("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            move top((player 2).hand) to pile
            player 1 chooses x from [1] as "done"
        heuristic(p) = 10 - size(p.hand)
    """)
    s = play(g)
    assert [g.program.heuristic(s, p) for p in range(2)] == [7, 8]
    assert make("""
        flow:
            pass
    """).program.heuristic is None
    with pytest.raises(RulesError) as e:
        make("""
            flow:
                pass
            heuristic(p) = p == player 1
        """)
    assert "the heuristic must be a number" in str(e.value)


def test_shuffle_is_seeded_and_a_recorded_chance_step():
    g = make("""
        flow:
            shuffle deck
            p1chooses()
        procedure p1chooses():
            player 1 chooses c from deck as "take"
    """)
    a, b, c = play(g, seed=4), play(g, seed=4), play(g, seed=5)
    assert a.cards("deck") == b.cards("deck")
    assert a.cards("deck") != c.cards("deck")
    ev = a.events()
    assert ev[0][0] == "shuffle" and ev[0][1] == "deck" and len(ev[0][2]) == 12


def test_choose_where_if_able_falls_back_to_everything():
    g = make("""
        state led: Suit = Red
        flow:
            shuffle deck
            deal 2 from deck to hand
            player 1 chooses c from player 1.hand where c.suit == led if able as "play"
            player 2 chooses d from player 2.hand where d.suit == led if able as "play"
    """)
    s = play(g, stack={"deck": ["Red 1", "Blue 2", "Green 3", "Blue 4"]})
    assert s.legal_actions() == ["play Red 1"]
    s.apply_action("play Red 1")
    assert sorted(s.legal_actions()) == ["play Blue 4", "play Green 3"]


def test_choose_without_if_able_and_no_option_is_a_runtime_error():
    g = make("""
        flow:
            player 1 chooses c from pile as "take"
    """)
    with pytest.raises(RulesRuntimeError) as e:
        play(g)
    assert "Player 1 has nothing to choose from" in str(e.value)
    assert "t.rules:" in str(e.value)


def test_choose_from_values_numbers_players_and_yes_no():
    g = make("""
        state n: number = 0
        state who: player = player 1
        state ok: yes/no = no
        state s: Suit = Red
        flow:
            player 1 chooses x from 0 to 2 as "bid"
            n = x
            player 1 chooses q from [r in players where r != player 1] as "target"
            who = q
            player 2 chooses b from [yes, no] as "accept"
            ok = b
            player 2 chooses t from Suit where t != Red as "name"
            s = t
    """, players=3)
    s = play(g)
    assert s.legal_actions() == ["bid 0", "bid 1", "bid 2"]
    s.apply_action("bid 2")
    assert s.legal_actions() == ["target Player 2", "target Player 3"]
    s.apply_action("target Player 3")
    assert s.legal_actions() == ["accept yes", "accept no"]
    s.apply_action("accept yes")
    assert s.legal_actions() == ["name Green", "name Blue"]
    s.apply_action(1)
    assert (s.var("n"), s.var("who"), s.var("ok"), s.var("s")) == (2, 2, True, "Blue")
    assert s.is_terminal()


def test_identical_cards_give_one_option():
    header = HEADER.replace("for suit in Suit, rank in 1 to 4", "2 x {suit: Red, rank: 1}\n    1 x {suit: Blue, rank: 1}")
    g = load_game_text(header + "zone row: public\nflow:\n    move deck to row\n"
                       "    player 1 chooses c from row as \"take\"\n", 2, path="t.rules")
    s = g.new_initial_state(seed=0)
    assert sorted(s.legal_actions()) == ["take Blue 1", "take Red 1"]


def test_subset_under_a_budget():
    g = make("""
        player state money: number = 5
        zone bought per player: public
        flow:
            shuffle deck
            move top(deck, 3) to pile
            player 1 chooses subset cs from pile such that size(cs) >= 1 and sum(c.rank for c in cs) <= player 1.money as "buy"
            move cs to player 1.bought
            player 1.money -= sum(c.rank for c in cs)
    """)
    s = play(g, stack={"deck": ["Red 1", "Red 2", "Red 4"]})
    assert sorted(s.legal_actions()) == sorted(["buy Red 1", "buy Red 2", "buy Red 4", "buy Red 1, Red 2", "buy Red 1, Red 4"])
    s.apply_action("buy Red 1, Red 4")
    assert s.cards("bought", 0) == ["Red 1", "Red 4"]
    assert s.var("money", 0) == 0
    assert s.cards("pile") == ["Red 2"]


def test_highest_with_tie_breaks_and_aggregates():
    g = make("""
        state best: card = none
        state total: number = 0
        state reds: number = 0
        state anyblue: yes/no = no
        state allsmall: yes/no = no
        state top_rank: number = 0
        flow:
            move [c in deck where c.rank >= 3] to pile
            # most frequent suit first, then higher rank, then the later card
            best = highest c in pile by count(d in pile where d.suit == c.suit) then c.rank then position(c, pile)
            total = sum(c.rank for c in pile)
            reds = count(c in pile where c.suit == Red)
            anyblue = any(c in pile where c.suit == Blue)
            allsmall = all(c.rank < 4 for c in pile)
            top_rank = max(c.rank for c in pile where c.suit != Blue)
    """)
    s = play(g)
    assert s.cards("pile") == ["Red 3", "Red 4", "Green 3", "Green 4", "Blue 3", "Blue 4"]
    assert s.var("best") == "Blue 4"       # all suits tie on count and rank: the later card
    assert s.var("total") == 21 and s.var("reds") == 2
    assert s.var("anyblue") is True and s.var("allsmall") is False and s.var("top_rank") == 4


def test_lowest_and_players_from_and_neighbours():
    g = make("""
        state order: list of player = []
        state l: player = player 1
        state r: player = player 1
        state far: player = player 1
        state low: player = player 1
        player state pts: number = 0
        flow:
            order = players from player 3
            l = left(player 4)
            r = right(player 1)
            far = player_at(player 2, 0 - 3)
            for p in players:
                p.pts = 10 - p.pts - 2 * size([q in players where q == p])
            player 3.pts = 1
            low = lowest p in players by p.pts
    """, players=4)
    s = play(g)
    assert s.var("order") == [2, 3, 0, 1]
    assert (s.var("l"), s.var("r"), s.var("far"), s.var("low")) == (0, 3, 2, 2)


def test_next_and_previous_go_round_the_ring():
    g = make("""
        state a: Suit = Blue
        state b: Suit = Red
        flow:
            a = next(Suit, a)
            b = previous(Suit, b)
    """)
    s = play(g)
    assert (s.var("a"), s.var("b")) == ("Red", "Blue")


def test_move_to_bottom_top_and_whole_zones():
    g = make("""
        state t: card = none
        state b: card = none
        flow:
            shuffle deck
            move top(deck) to pile
            move top(deck) to bottom of pile
            t = top(pile)
            b = bottom(pile)
            move pile to player 2.hand
    """)
    s = play(g, stack={"deck": ["Red 1", "Green 2"]})
    assert (s.var("t"), s.var("b")) == ("Red 1", "Green 2")
    assert s.cards("hand", 1) == ["Green 2", "Red 1"] and s.cards("pile") == []


def test_loops_procedures_with_arguments_and_end_game():
    g = make("""
        state n: number = 0
        state k: number = 0
        flow:
            repeat 3 times:
                add(2)
            while n < 100:
                n += 10
                if n >= 30:
                    end game
            k = 99
        procedure add(x):
            n += x
            k += 1
    """)
    s = play(g)
    assert s.is_terminal()
    assert s.var("n") == 36 and s.var("k") == 3


def test_if_elif_else_and_ternary():
    g = make("""
        state out: list of number = []
        flow:
            for i in 1 to 4:
                if i == 1:
                    out = out + [10]
                elif i == 2:
                    out = out + [20]
                else:
                    out = out + [i * 100 if i mod 2 == 0 else 0 - i]
    """)
    assert play(g).var("out") == [10, 20, -3, 400]


def test_announce_interpolates_values():
    g = make("""
        flow:
            shuffle deck
            deal 1 from deck to hand
            for p in players:
                announce "{p} holds {size(p.hand)} card, the {top(p.hand)}; yes is {1 < 2}."
    """)
    s = play(g, stack={"deck": ["Red 1", "Blue 2"]})
    assert s.log() == ["Player 1 holds 1 card, the Red 1; yes is yes.", "Player 2 holds 1 card, the Blue 2; yes is yes."]


def test_card_state():
    g = make("""
        card state marked_by: player
        flow:
            player 2 chooses c from deck as "mark"
            c.marked_by = player 2
    """)
    s = play(g, ["mark Red 2"])
    assert s.card_var("marked_by", "Red 2") == 1
    assert s.card_var("marked_by", "Red 1") is None


def test_visibility_in_observations():
    g = make("""
        zone secret: hidden
        zone drawn per player: facedown
        zone shown per player: public
        state pub: number = 1
        state hid: number = 2, hidden
        player state mine: number = 3, owner
        player state everyone: number = 4
        flow:
            shuffle deck
            deal 2 from deck to hand
            deal 1 from deck to drawn
            deal 1 from deck to shown
            move top(deck) to secret
            player 1 chooses c from player 1.hand as "play"
    """)
    s = play(g, stack={"deck": ["Red 1", "Red 2", "Green 1", "Green 2", "Blue 1", "Blue 2", "Blue 3", "Red 3"]})
    o = s.observation(0)
    assert o["zones"]["secret"] == {}
    assert o["zones"]["pile"] == {"cards": [], "count": 0}
    assert o["zones"]["deck"] == {"count": 3}
    me, other = o["players"]
    assert me["hand"]["cards"] == ["Red 1", "Red 2"]
    assert other["hand"] == {"count": 2}
    assert me["drawn"] == {"count": 1} and other["drawn"] == {"count": 1}
    assert me["shown"]["cards"] == ["Blue 3"] and other["shown"]["cards"] == ["Red 3"]
    assert me["mine"] == 3 and "mine" not in other and other["everyone"] == 4
    assert o["state"] == {"pub": 1}
    assert o["decision"]["options"] == ["play Red 1", "play Red 2"]
    o2 = s.observation(1)
    assert "options" not in o2["decision"] and o2["to_move"] == 0
    text = json.dumps(o2)
    for hidden in ("Red 1", "Red 2", "Blue 1", "Blue 2"):   # Player 1's hand; both face-down cards
        assert hidden not in text
    secret = s.cards("secret")[0]
    assert secret not in text and secret not in json.dumps(o)


def test_variants_override_by_name_and_select_by_player_count():
    g_text = """
        const bonus = 1
        state total: number = 0
        define value(n) = n * bonus
        flow:
            total = value(10)
        variant double:
            const bonus = 2
        variant crowd when players >= 3:
            define value(n) = n * bonus + 100
    """
    assert play(make(g_text)).var("total") == 10
    assert play(make(g_text, variants=("double",))).var("total") == 20
    assert play(make(g_text, players=3)).var("total") == 110
    assert make(g_text, players=3).variants == ("crowd",)
    assert play(make(g_text, players=3, variants=("double",))).var("total") == 120
    with pytest.raises(RulesError) as e:
        make(g_text, variants=("dubble",))
    assert "unknown variant 'dubble'" in str(e.value) and "did you mean 'double'" in str(e.value)


def test_a_variant_can_change_the_player_count():
    text = """
        flow:
            pass
        variant solo when players == 1:
            players 1
    """
    assert make(text, players=1).variants == ("solo",)
    with pytest.raises(RulesError) as e:
        make(text, players=5)
    assert "is for 2 to 4 players, not 5" in e.value.message


def test_invariants_are_checked_on_demand():
    g = make("""
        state money: number = 3
        invariant "money is never negative": money >= 0
        invariant "at most 12 cards": count(c in every card where yes) == 12
        flow:
            player 1 chooses n from 1 to 5 as "spend"
            money -= n
    """)
    s = play(g)
    assert s.check_invariants() == []
    s.apply_action("spend 5")
    assert s.check_invariants() == ["money is never negative"]


def test_scores_and_shared_winners():
    g = make("""
        player state vp: number = 0
        player state money: number = 0
        flow:
            player 1.vp = 5
            player 2.vp = 5
            player 3.vp = 1
            player 1.money = 2
            player 2.money = 2
        score(p) = p.vp
        winners p by highest p.vp then highest p.money
    """, players=3)
    s = play(g)
    assert s.returns() == [5, 5, 1]
    assert s.winners() == [0, 1]


def test_lowest_score_wins():
    g = make("""
        player state penalty: number = 0
        flow:
            player 1.penalty = 50
        score(p) = 0 - p.penalty
        winners p by lowest p.penalty
    """)
    assert play(g).winners() == [1]


def test_returns_before_the_end_is_an_error():
    g = make("""
        flow:
            player 1 chooses c from deck as "take"
    """)
    s = play(g)
    with pytest.raises(GameError):
        s.returns()


def test_a_loop_that_never_asks_anything_is_stopped():
    g = make("""
        state n: number = 0
        flow:
            while yes:
                n += 1
    """)
    with pytest.raises(RulesRuntimeError) as e:
        play(g)
    assert "without asking anyone anything" in str(e.value)


def test_illegal_actions_are_refused_and_the_state_kept():
    g = make("""
        flow:
            player 1 chooses c from deck where c.suit == Red as "take"
    """)
    s = play(g)
    before = s.clone()
    with pytest.raises(GameError) as e:
        s.apply_action("take Blue 1")
    assert "'take Blue 1' is not a legal action" in str(e.value)
    assert s == before
    with pytest.raises(GameError):
        s.apply_action(17)


def test_clone_json_and_replay_round_trip():
    g = make("""
        player state n: number = 0
        flow:
            shuffle deck
            deal 3 from deck to hand
            repeat 3 times:
                for p in players:
                    p chooses c from p.hand as "play"
                    move c to pile
                    p.n += c.rank
            announce "done"
    """)
    s = play(g, seed=12)
    s.apply_action(s.legal_actions()[1])
    c = s.clone()
    assert c == s
    d = State.from_json(g, json.loads(json.dumps(s.to_json())))
    assert d == s
    for x in (s, c, d):
        while not x.is_terminal():
            x.apply_action(x.legal_actions()[0])
    assert s == c == d
    assert g.replay(12, s.history()) == s
    assert s.log() == ["done"]


def test_damaged_json_is_a_clear_error():
    g = make("flow:\n    player 1 chooses c from deck as \"take\"\n")
    s = play(g)
    data = s.to_json()
    del data["z"]
    with pytest.raises(GameError) as e:
        State.from_json(g, data)
    assert "damaged" in str(e.value)
    with pytest.raises(GameError):
        State.from_json(g, {"format": "something else"})


def test_constants_and_variant_conditions_may_loop():
    g = make("""
        const xs = [i * 2 for i in 1 to 3]
        const k = sum(i for i in 1 to 3)
        state total: number = sum(x for x in xs)
        state seen: number = k
        flow:
            pass
        variant big when sum(i for i in 1 to players) > 5:
            const k = 100
    """, players=3)
    s = play(g)
    assert s.var("total") == 12 and s.var("seen") == 100
    assert play(make("""
        const k = sum(i for i in 1 to 3)
        state seen: number = k
        flow:
            pass
        variant big when sum(i for i in 1 to players) > 5:
            const k = 100
    """, players=2)).var("seen") == 6


def test_item_and_holder():
    g = make("""
        state second: number = 0
        state owner_of: player = none
        state shared: player = player 1
        flow:
            shuffle deck
            deal 2 from deck to hand
            second = item([10, 20, 30], 2)
            owner_of = holder(item(player 2.hand, 1))
            shared = holder(top(deck))
    """)
    s = play(g, stack={"deck": ["Red 1", "Red 2", "Blue 3", "Blue 4"]})
    assert s.var("second") == 20
    assert s.var("owner_of") == 1
    assert s.var("shared") is None


def test_an_empty_list_learns_its_type_from_an_assignment():
    g = make("""
        state total: number = 0
        flow:
            let xs = []
            xs = [c in deck where c.rank == 4]
            for c in xs:
                total += c.rank
    """)
    assert play(g).var("total") == 12


def test_holder_of_none_is_a_rules_error_and_invariants_are_declared_once():
    g = make("""
        state who: player = player 1
        state c: card = none
        flow:
            who = holder(c)
    """)
    with pytest.raises(RulesRuntimeError) as err:
        play(g)
    assert "holder() of none" in err.value.message and err.value.pos.line == HEADER.count("\n") + 5
    with pytest.raises(RulesError) as e:
        make("""
            invariant "same": yes
            invariant "same": yes
            flow:
                pass
        """)
    assert "declared twice" in e.value.message


def test_endless_recursion_is_stopped():
    g = make("""
        flow:
            again()
        procedure again():
            again()
    """)
    with pytest.raises(RulesRuntimeError) as e:
        play(g)
    assert "call one another without end" in str(e.value)
