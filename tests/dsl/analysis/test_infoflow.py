"""The information-flow check (dsl/analysis/infoflow.py): hidden information that reaches what every seat
sees while the game is on is a compile-time error, with a way to say the rules reveal it."""
from __future__ import annotations

import textwrap

import pytest

from rulesrun.dsl import RulesError, parse_text
from rulesrun.dsl.compiler import compile_rules
from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.cli.main import main
from tests.support import tiny_header

HEADER = tiny_header("Leaks", 2, "Red, Blue", 3, zones=("deck: facedown", "pile: public", "hand per player: owner",
                                                      "passing per player: owner"), extra="""
    player state total: number = 0
    player state secret_total: number = 0, owner
""".lstrip("\n"))


def compile_text(body: str, allow_leaks: bool = False):
    return compile_rules(parse_text(HEADER + textwrap.dedent(body), "leak.rules"), 2, (), allow_leaks)


def leak(body: str) -> RulesError:
    with pytest.raises(RulesError) as err:
        compile_text(body)
    return err.value


def test_announcing_a_card_passed_face_down_is_a_leak():
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                p chooses c from p.hand as "pass"
                move c to p.passing
                announce "{p} passes {c}."
    """)
    assert "this announcement shows a card chosen from each player's hand" in e.message
    assert "from  from" not in e.message        # the source of the choice reads as English
    assert e.pos.line == HEADER.count("\n") + 8 and "reveal" in e.hint


def test_public_state_set_from_a_hidden_hand_is_a_leak_but_owner_state_is_not():
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                p.secret_total = sum(c.rank for c in p.hand)
                p.total = sum(c.rank for c in p.hand)
            player 1 chooses x from [1] as "done"
    """)
    assert "public state 'total' is set from the cards of each player's hand (owner)" in e.message
    assert e.pos.line == HEADER.count("\n") + 7


def test_a_leak_through_a_procedure_argument_and_a_local():
    e = leak("""
        procedure tell(p, n):
            announce "{p} holds {n} points."
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                let n = sum(c.rank for c in p.hand)
                tell(p, n)
            player 1 chooses x from [1] as "done"
    """)
    assert "this announcement shows" in e.message and e.pos.line == HEADER.count("\n") + 3


def test_a_card_moved_to_a_public_zone_and_what_was_worked_out_from_it_are_public():
    compile_text("""
        state led: Suit = Red
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                p chooses c from p.hand as "play"
                led = c.suit if p == player 1 else led
                move c to pile
                announce "{p} plays {c}."
    """)


def test_reveal_says_the_rules_show_a_value_and_a_hand():
    compile_text("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                p.secret_total = sum(c.rank for c in p.hand)
                reveal p.secret_total
                announce "{p} shows {p.secret_total}."
            for p in players:
                reveal p.hand
                p.total = sum(c.rank for c in p.hand)
            player 1 chooses x from [1] as "done"
    """)


def test_the_size_of_a_hidden_zone_is_secret_but_a_face_down_one_is_not():
    body = """
        zone box: ZONEKIND
        flow:
            shuffle deck
            move top(deck) to box
            (player 1).total = size(box)
            player 1 chooses x from [1] as "done"
    """
    compile_text(body.replace("ZONEKIND", "facedown"))
    assert "how many cards box holds" in leak(body.replace("ZONEKIND", "hidden")).message


def test_scores_are_not_sinks_and_allow_leaks_gives_warnings():
    compile_text("""
        score(p) = sum(c.rank for c in p.hand)
        flow:
            shuffle deck
            deal 2 from deck to hand
    """)
    prog = compile_text("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            (player 1).total = size(deck) + top(deck).rank
    """, allow_leaks=True)
    assert len(prog.warnings) == 1 and "the cards of the deck" in prog.warnings[0].message


def test_reveal_changes_nothing_at_run_time():
    g = load_game_text(HEADER + textwrap.dedent("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            reveal (player 1).hand
            player 1 chooses x from [1] as "done"
    """), 2, path="leak.rules")
    s = g.new_initial_state(seed=1)
    assert s.observation(1)["players"][0]["hand"] == {"count": 2}


def test_cli_compile_reports_a_leak_and_allows_it_as_a_warning(tmp_path, capsys):
    f = tmp_path / "leak.rules"
    f.write_text(HEADER + textwrap.dedent("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            (player 1).total = top(deck).rank
    """))
    assert main(["compile", str(f)]) == 1
    assert "error: public state 'total'" in capsys.readouterr().err
    assert main(["compile", str(f), "--allow-leaks"]) == 0
    out = capsys.readouterr()
    assert "warning: public state 'total'" in out.err and out.out.startswith("ok:")


def test_a_decision_s_options_are_what_the_deciding_seat_sees():
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            player 2 chooses s from [c.suit for c in (player 1).hand] as "guess"
    """)
    assert "this decision's options show the cards of another seat's hand (owner)" in e.message
    assert e.pos.line == HEADER.count("\n") + 5


def test_options_from_the_deciding_seat_s_own_hand_or_a_seat_held_in_state_are_honest():
    compile_text("""
        state first: player = none
        flow:
            shuffle deck
            deal 2 from deck to hand
            first = player 1
            first chooses c from first.hand as "lead"
            move c to pile
            for p in players:
                p chooses s from [x.suit for x in p.hand] as "name a suit"
    """)


def test_options_reading_another_seat_s_owner_state_are_a_leak():
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            (player 1).secret_total = 2
            player 2 chooses n from 0 to (player 1).secret_total as "guess"
    """)
    assert "'secret_total' (owner)" in e.message and "options" in e.message


def test_who_holds_a_card_is_secret_until_the_card_is_shown():
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            let one = lowest c in every card where c.suit == Red by c.rank
            announce "{holder(one)} holds the red 1."
    """)
    assert "who holds a card (holder())" in e.message
    compile_text("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            let one = lowest c in every card where c.suit == Red by c.rank
            reveal one
            announce "{holder(one)} holds the red 1."
    """)


def test_a_zone_passed_to_a_define_is_as_secret_as_the_zone_and_shown_once_revealed():
    body = """
        define strength(s) = max(c.rank for c in s)
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                REVEAL
                p.total = strength(p.hand)
            player 1 chooses x from [1] as "done"
    """
    e = leak(body.replace("REVEAL", "pass"))
    assert "public state 'total' is set from the cards of each player's hand" in e.message
    compile_text(body.replace("REVEAL", "reveal p.hand"))


def test_a_card_chosen_from_cards_chosen_before_names_their_source_once():
    e = leak("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            for p in players:
                p chooses subset two from p.hand such that size(two) == 2 as "pick"
                p chooses c from two as "one"
                p.total = c.rank
            player 1 chooses x from [1] as "done"
    """)
    assert "set from a card chosen from each player's hand (owner)," in e.message
    assert "chosen from a card chosen" not in e.message


def test_a_choice_among_numbers_worked_out_from_a_hand_is_not_called_a_card():
    e = leak("""
        flow:
            shuffle deck
            deal 3 from deck to hand
            for p in players:
                p chooses n from [c.rank for c in p.hand] as "name a rank"
                p.total = n
            player 1 chooses x from [1] as "done"
    """)
    assert "set from a choice made from the cards of each player's hand (owner)," in e.message
    assert "a card chosen" not in e.message


def test_a_card_played_to_a_public_zone_and_cleared_before_anyone_looks_is_not_seen():
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
                p.total = c.rank
                move pile to deck
            player 1 chooses x from [1] as "done"
    """)
    assert "public state 'total'" in e.message and "moved on before any seat observed it" in e.message
    assert e.pos.line == HEADER.count("\n") + 8


def test_a_card_played_to_a_public_zone_and_seen_there_may_be_scored_after():
    compile_text("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
                p.total = c.rank
                announce "{p} plays {c}."
                move pile to deck
            player 1 chooses x from [1] as "done"
    """)


def test_telling_a_seat_the_hand_of_another_is_a_leak_but_its_own_is_not():
    compile_text("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                announce to p "You hold {p.hand}."
            player 1 chooses x from [1] as "done"
    """)
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                announce to left(p) "{p} holds {p.hand}."
            player 1 chooses x from [1] as "done"
    """)
    assert "this announcement to one seat shows the cards of another seat's hand (owner)" in e.message
    assert e.pos.line == HEADER.count("\n") + 6


def test_telling_a_seat_the_cards_passed_to_it_is_honest():
    compile_text("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                p chooses c from p.hand as "pass"
                move c to p.passing
            for p in players:
                announce to left(p) "You receive {top(p.passing)}."
                move p.passing to left(p).hand
            player 1 chooses x from [1] as "done"
    """)


def test_telling_a_seat_the_card_moved_to_it_from_another_hand_is_honest_but_not_if_it_stays():
    told = """
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                announce to left(p) "You receive {top(p.hand)}."
                MOVE
            player 1 chooses x from [1] as "done"
    """
    compile_text(told.replace("MOVE", "move top(p.hand) to left(p).hand"))
    e = leak(told.replace("MOVE", "move top(p.hand) to p.passing"))
    assert "this announcement to one seat shows the cards of another seat's hand (owner)" in e.message


def test_telling_a_seat_a_whole_hand_is_a_leak_though_one_card_of_it_is_passed():
    e = leak("""
        flow:
            shuffle deck
            deal 2 from deck to hand
            for p in players:
                announce to left(p) "{p} holds {p.hand}."
                move top(p.hand) to left(p).hand
            player 1 chooses x from [1] as "done"
    """)
    assert "this announcement to one seat shows the cards of another seat's hand (owner)" in e.message
