"""The language's display options compile into ``program.display`` and change nothing else: the
same game with and without them plays, observes and logs alike."""
from __future__ import annotations

import random

from tests.support import tiny_game, tiny_header

PLAIN = dict(zones=("deck: facedown", "pile: public", "hand per player: owner"), extra="""
    state rounds_played: number = 0
    player state bid: number = 0, owner
    player state shown_bid: list of number = []
    card state played_by: player
    variant quick
    """)
SHOWN = dict(zones=("deck: facedown", 'pile: public, showing top 2, shown as "discard pile"', "hand per player: owner, not shown"),
             extra="""
    state rounds_played: number = 0, shown as "rounds so far"
    player state bid: number = 0, owner, shown as "bid"
    player state shown_bid: list of number = [], shown in bid
    card state played_by: player, shown in pile
    variant quick described as "one round"
    """)
BODY = """
    flow:
        shuffle deck
        deal 3 from deck to hand
        for p in players:
            p chooses c from p.hand as "play" showing "{c.rank} points"
            move c to pile
            c.played_by = p
            p.bid = c.rank
            p.shown_bid = [c.rank]
        rounds_played += 1
    score(p) = p.bid
    """


def test_the_display_options_are_gathered_into_the_programs_display():
    d = tiny_game(BODY, header=tiny_header(**SHOWN), variants=("quick",)).program.display
    assert d.labels == {("game", "pile"): "discard pile", ("game", "rounds_played"): "rounds so far",
                        ("player", "bid"): "bid"}
    assert d.hidden == {("player", "hand")} and d.column == {"shown_bid": "bid"}
    assert d.piles == {("game", "pile"): ("top", 2)} and d.card_zones == {"played_by": ("pile",)}
    assert d.variants == {"quick": "one round"} and d.score == "bid"
    assert tiny_game(BODY, header=tiny_header(**PLAIN)).program.display.labels == {}


def test_the_display_options_change_nothing_of_the_play_or_what_a_seat_sees():
    plain = tiny_game(BODY, header=tiny_header(**PLAIN), players=3, variants=("quick",))
    shown = tiny_game(BODY, header=tiny_header(**SHOWN), players=3, variants=("quick",))
    for seed in range(5):
        a, b = plain.new_initial_state(seed=seed), shown.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not a.is_terminal():
            assert a.legal_actions() == b.legal_actions()
            assert all(a.observation(p) == b.observation(p) for p in range(3))
            i = rng.randrange(len(a.legal_actions()))
            a.apply_index(i)
            b.apply_index(i)
        assert a.returns() == b.returns() and a.log() == b.log()


def test_a_cards_value_may_be_shown_under_the_cards_of_several_zones():
    header = tiny_header(extra="card state seen: yes/no = no, shown in pile, shown in hand\n")
    game = tiny_game("""
        flow:
            player 1 chooses c from [1, 2] as "pick"
        """, header=header)
    assert game.program.display.card_zones == {"seen": ("pile", "hand")}
