"""Uno (examples/uno.rules) in stacked-deck scenarios: the catch of a player who did not say "Uno"
(a window: every other seat asked in turn, the first to catch wins), the Wild Draw Four and its
challenge (the hand shown to the challenger alone, 'reveal ... to'; who draws tells the table the
verdict), the
action cards, the card drawn, and the score."""
from __future__ import annotations

import pytest

from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.observe import revealed_cards

from tests.support import ROOT

UNO = ROOT / "examples" / "uno.rules"
_games: dict = {}


def game(players: int):
    if players not in _games:
        _games[players] = load_game(UNO, players=players)
    return _games[players]


def deal(players: int, hands: dict, starter: str, then=()):
    """A hand dealt from a stacked deck: ``hands`` {seat: seven card names} (the deal starts at the
    dealer's left: Player 2, then round the table), then the first card turned up, then ``then``."""
    order = [k % players for k in range(1, players + 1)]     # seats 1, 2, ..., 0: Player 2, 3, ..., 1
    top = [name for seat in order for name in hands[seat]] + [starter] + list(then)
    return game(players).new_initial_state(seed=0, stack={"deck": top})


def act(s, *texts):
    for t in texts:
        options = [str(a) for a in s.legal_actions()]
        assert t in options, (t, s.current_player(), options)
        s.apply_action(t)
    return s


def options(s):
    return s.current_player(), [str(a) for a in s.legal_actions()]


def count(s, seat):
    return s.observation(seat)["players"][seat]["hand"]["count"]


def held(s, seat) -> set:
    """The ids of the cards in a seat's hand."""
    return set(s.zones[s.program.families["hand"] + seat])


def reds(*ns):
    return [f"Red {n}" for n in ns]


# Three players, all following red: Player 2 goes down to one card after six plays.
CATCH = {1: reds(1, 2, 3, 4, 5, 6, 7), 2: reds(8, 9, 1, 2, 3) + ["Blue 1", "Blue 2"],
         0: reds(4, 5, 6, 7, 8) + ["Blue 3", "Blue 4"]}
TO_ONE_CARD = [t for r in range(5) for t in (f"play Red {r + 1}", f"play {CATCH[2][r]}", f"play {CATCH[0][r]}")] \
    + ["play Red 6"]


def test_a_player_down_to_one_card_says_uno_or_keeps_quiet():
    s = act(deal(3, CATCH, "Red 0"), *TO_ONE_CARD)
    assert options(s) == (1, ["say Uno", "keep quiet"])
    act(s, "say Uno")
    assert "Player 2: “Uno!”" in s.log()
    assert s.observation(0)["players"][1]["said_uno"] is True
    assert options(s) == (2, ["draw"])          # no window: Player 3's turn (Blue 1 and 2 do not follow Red 6)


def test_anyone_may_catch_a_player_who_kept_quiet_the_first_to_catch_wins():
    s = act(deal(3, CATCH, "Red 0"), *TO_ONE_CARD, "keep quiet")
    # the window: every other seat, from the next one, asked the same question
    assert options(s) == (2, ["catch", "pass"])
    assert s.observation(0)["decision"]["label"] == "choose"
    act(s, "pass")
    assert options(s) == (0, ["catch", "pass"])
    act(s, "catch")
    assert count(s, 1) == 3                                   # the one card and two drawn
    assert "Player 1 catches Player 2, who did not say “Uno”: Player 2 draws two." in s.log()
    # nobody else is asked: Player 3's turn
    assert options(s)[0] == 2 and all(t.startswith(("play", "draw")) for t in options(s)[1])


def test_if_nobody_catches_play_goes_on():
    s = act(deal(3, CATCH, "Red 0"), *TO_ONE_CARD, "keep quiet", "pass", "pass")
    assert count(s, 1) == 1
    assert options(s)[0] == 2 and "play Blue 1" not in options(s)[1]


# Two players: Player 2 holds a Wild Draw Four, and (or not) a card of the colour to match.
def wd4(guilty: bool):
    p2 = ["Wild Draw Four", "Red 5" if guilty else "Blue 5"] + [f"Blue {n}" for n in (1, 2, 3, 4)] + ["Green 1"]
    p1 = [f"Yellow {n}" for n in range(1, 8)]
    return act(deal(2, {1: p2, 0: p1}, "Red 0"), "play Wild Draw Four", "name Blue")


def test_a_wild_draw_four_accepted_draws_four_and_loses_the_turn():
    s = wd4(guilty=True)
    assert options(s) == (0, ["challenge", "accept"])
    act(s, "accept")
    assert count(s, 0) == 11
    assert s.current_player() == 1                            # Player 1 lost the turn


def test_a_guilty_wild_draw_four_costs_its_player_four_cards_and_the_challenger_plays_on():
    s = wd4(guilty=True)
    hand = held(s, 1)
    act(s, "challenge")
    assert hand <= revealed_cards(s, 0)                       # shown to the challenger ('reveal p.hand to v')
    assert count(s, 1) == 10 and count(s, 0) == 7
    assert "Player 2 held a Red card, and draws four." in s.log()
    assert s.current_player() == 0                            # the challenger plays on


def test_a_fair_wild_draw_four_costs_the_challenger_six_cards_and_the_turn():
    s = act(wd4(guilty=False), "challenge")
    assert count(s, 0) == 13 and count(s, 1) == 6
    assert "Player 2 played it fairly: Player 1 draws six." in s.log()
    assert s.current_player() == 1


def test_the_challenged_hand_is_shown_to_the_challenger_and_nobody_else():
    p2 = ["Wild Draw Four", "Red 5"] + [f"Blue {n}" for n in (1, 2, 3, 4)] + ["Green 1"]
    p3 = [f"Yellow {n}" for n in range(1, 8)]
    p1 = [f"Green {n}" for n in range(2, 9)]
    s = act(deal(3, {1: p2, 2: p3, 0: p1}, "Red 0"), "play Wild Draw Four", "name Blue")
    hand = held(s, 1)
    assert options(s) == (2, ["challenge", "accept"])         # Player 3, next
    act(s, "challenge")
    assert hand <= revealed_cards(s, 2)
    assert not hand & revealed_cards(s, 0)                    # Player 1 learns only who draws
    assert count(s, 1) == 10


def test_reverse_with_two_players_acts_as_a_skip_and_draw_two_makes_the_next_draw():
    p2 = ["Red Reverse", "Red Draw Two"] + [f"Red {n}" for n in (1, 2, 3, 4, 5)]
    p1 = [f"Yellow {n}" for n in range(1, 8)]
    s = act(deal(2, {1: p2, 0: p1}, "Red 0"), "play Red Reverse")
    assert "Player 1 loses their turn." in s.log() and s.current_player() == 1
    act(s, "play Red Draw Two")
    assert count(s, 0) == 9 and s.current_player() == 1


def test_a_player_who_cannot_play_draws_and_may_play_the_card_drawn():
    p2 = [f"Blue {n}" for n in range(1, 8)]
    p1 = [f"Yellow {n}" for n in range(1, 8)]
    s = deal(2, {1: p2, 0: p1}, "Red 0", then=["Red 9", "Green 2"])
    assert options(s) == (1, ["draw"])
    act(s, "draw")
    assert options(s) == (1, ["play Red 9", "keep"])
    act(s, "play Red 9")
    assert options(s) == (0, ["draw"])
    act(s, "draw")
    assert options(s) == (0, ["keep"])                        # Green 2 cannot be played: asked all the same
    act(s, "keep")
    assert count(s, 0) == 8


def test_going_out_scores_the_cards_left_in_the_others_hands():
    p2 = ["Red 1", "Red 2"] + [f"Red {n}" for n in (3, 4, 5, 6, 7)]
    p1 = ["Wild", "Yellow Skip", "Yellow 7", "Yellow 3", "Blue 8", "Green 2", "Green 4"]
    s = deal(2, {1: p2, 0: p1}, "Red 0", then=["Blue 1"] * 0)
    # Player 1 cannot play red: draws each turn and keeps what cannot be played
    while not s.is_terminal():
        seat, opts = options(s)
        pick = next((o for o in opts if o.startswith("play Red")), None) or \
            ("say Uno" if "say Uno" in opts else None) or ("keep" if "keep" in opts else opts[0])
        if seat == 0 and pick.startswith("play "):
            pick = "keep" if "keep" in opts else "draw" if "draw" in opts else pick
        act(s, pick)
    assert s.returns()[1] > 0 and s.returns()[0] == 0
    assert "Player 2 goes out and scores" in s.log()[-2]


def test_check_passes_and_its_twin_test_compares_steps_with_three_players():
    import io
    from rulesrun.interpreter.checking import run_check
    out, err = io.StringIO(), io.StringIO()
    code = run_check(str(UNO), out=out, err=err, games=4, players=3)
    text = out.getvalue()
    assert code == 0, text
    line = next(x for x in text.splitlines() if "dealt differently" in x)
    assert "steps compared)" in line and " 0 steps compared" not in line, line
