"""The table in the file's words (``interpreter.terminal.layout``, the language's display options):
a pile shown from its top, marked, as many cards as the file says and as fit the width; labels
(``shown as``), values left off (``not shown``), columns that show several values (``shown in``),
a card's value under the cards of its zone only, the variants' lines, and an option's note."""
from __future__ import annotations

import io

from rich.console import Console

from rulesrun.interpreter.terminal import layout
from rulesrun.interpreter.terminal.table import CardStyle, render_view
from tests.support import tiny_game, tiny_header


def _screen(game, state, seat=0, width=80, compact=False) -> str:
    out = io.StringIO()
    Console(file=out, width=width, no_color=True).print(
        render_view(state.observation(seat), CardStyle(game), compact=compact, width=width))
    return out.getvalue()


def _pile_game(pile: str, extra: str = "", body: str = "", players: int = 2):
    header = tiny_header(zones=("deck: facedown", f"pile: {pile}", "hand per player: owner"), extra=extra)
    return tiny_game(body or """
        flow:
            repeat 7 times:
                move top(deck) to pile
            player 1 chooses c from [1, 2] as "pick"
        """, header=header, players=players)


def _names(state, zone: str) -> list[str]:
    prog = state.program
    return [prog.card_names[c] for c in state.zones[prog.zone_index[zone]]]


def _line(screen: str, head: str) -> str:
    return next(line for line in screen.splitlines() if line.startswith(head))


def test_a_pile_showing_its_top_shows_the_top_card_first_and_marked():
    game = _pile_game("public, showing top 3")
    state = game.new_initial_state(seed=1)
    bottom_to_top = _names(state, "pile")
    line = _line(_screen(game, state), "pile")
    top, second, third = bottom_to_top[-1], bottom_to_top[-2], bottom_to_top[-3]
    assert line.split()[1:3] == top.split() and f"{top} (top)" in line, line
    assert line.index(second) < line.index(third), line            # then the cards under it, in order
    assert bottom_to_top[0] not in line and "7 cards" in line, line  # three shown, and how many in all


def test_a_pile_without_a_count_shows_every_card_from_its_top():
    game = _pile_game("public, showing top")
    state = game.new_initial_state(seed=1)
    line = _line(_screen(game, state, width=120), "pile")
    cards = _names(state, "pile")
    assert [line.index(c) for c in reversed(cards)] == sorted(line.index(c) for c in cards), line
    assert "cards" not in line                                     # all shown: no count


def test_a_pile_shows_only_the_cards_that_fit_the_line_keeping_the_top():
    game = _pile_game("public, showing top 7")
    state = game.new_initial_state(seed=1)
    screen = _screen(game, state, width=40)
    line = _line(screen, "pile")
    assert len(line) <= 40 and "(top)" in line and "7 cards" in line, screen
    nxt = screen.splitlines()[screen.splitlines().index(line) + 1]
    assert not nxt.startswith(" "), screen                          # nothing wrapped onto the next line


def test_a_zone_without_showing_is_laid_out_as_the_cards_came():
    game = _pile_game("public")
    state = game.new_initial_state(seed=1)
    line = _line(_screen(game, state, width=120), "pile")
    cards = _names(state, "pile")
    assert "(top)" not in line
    assert [line.index(c) for c in cards] == sorted(line.index(c) for c in cards), line


def test_a_long_pile_in_the_compact_layout_is_shown_from_its_top():
    game = _pile_game("public")
    state = game.new_initial_state(seed=1)
    line = _line(_screen(game, state, compact=True), "pile")
    assert f"{_names(state, 'pile')[-1]} (top)" in line and "7 cards" in line, line


def test_values_and_zones_are_shown_in_the_files_words_and_left_off_when_it_says():
    game = _pile_game("public, shown as \"discard pile\"", extra="""
        state rounds_played: number = 0, shown as "rounds so far"
        state bookkeeping: number = 0, not shown
        player state spent: yes/no = no, shown as "has spent"
        """)
    screen = _screen(game, game.new_initial_state(seed=1), width=100)
    assert "discard pile" in screen and "rounds so far: 0" in screen and "has spent" in screen, screen
    assert "bookkeeping" not in screen and "rounds played" not in screen and "spent " not in screen.replace("has spent", "")


def test_a_column_shows_the_first_of_its_values_the_seat_sees():
    game = _pile_game("public", extra="""
        player state bid: number = none, owner, shown as "bid"
        player state shown_bid: list of number = [], shown in bid
        player state face: text = "", shown in bid
        """, body="""
        flow:
            player 1 chooses n from [3, 4] as "bid"
            (player 1).bid = n
            player 2 chooses m from [5, 6] as "bid"
            (player 2).bid = m
            (player 2).shown_bid = [m]
            (player 1).face = "face down"
            player 1 chooses c from [1, 2] as "pick"
        """)
    state = game.new_initial_state(seed=1)
    state.apply_action("bid 4")
    state.apply_action("bid 6")
    screen = _screen(game, state, seat=0, width=100)
    header = _line(screen.replace("players", "       "), "        ").split()
    assert header.count("bid") == 1 and "face" not in header and "shown" not in " ".join(header), screen
    rows = {line.split()[1]: line for line in screen.splitlines() if "Player " in line and "you are" not in line}
    assert rows["1"].split()[-1] == "4" and rows["2"].split()[-1] == "6", screen   # mine, and the one shown
    theirs = _screen(game, state, seat=1, width=100)
    assert "face down" in theirs and " 4" not in theirs.replace("Player 1", ""), theirs   # not my secret


def test_a_cards_value_is_shown_under_the_cards_of_its_zone_only():
    def game_with(option):
        return _pile_game("public", extra=f"card state played_by: player{option}", body="""
            flow:
                repeat 2 times:
                    let c = top(deck)
                    move c to pile
                    c.played_by = player 2
                move pile to (player 1).hand
                move top(deck) to pile
                (top(pile)).played_by = player 1
                player 1 chooses k from [1, 2] as "pick"
            """)
    game = game_with(", shown in pile")
    state = game.new_initial_state(seed=1)
    obs = state.observation(0)
    pile, hand = obs["zones"]["pile"]["cards"], obs["players"][0]["hand"]["cards"]
    assert layout.card_notes(game.program, obs["card_state"], "pile", pile) == {"played_by": {pile[0]: "Player 1"}}
    assert layout.card_notes(game.program, obs["card_state"], "hand", hand) == {}
    assert "(Player 1)" in _screen(game, state, width=120)
    from rulesrun.interpreter.web.views import table_layout
    notes = table_layout(game.program, obs, 0, {"hand": obs["players"][0]["hand"]["cards"]})["notes"]
    assert list(notes) == ["pile"] and "Player 2" not in str(notes), notes   # the page: not under the hand
    plain = game_with("")                # undeclared: shown wherever the card lies
    state = plain.new_initial_state(seed=1)
    obs = state.observation(0)
    assert layout.card_notes(plain.program, obs["card_state"], "hand", obs["players"][0]["hand"]["cards"])


def test_the_variants_in_force_are_named_with_their_lines():
    header = tiny_header(extra="""
        variant quick described as "the first to 3 wins":
            const goal = 3
        variant plain
        """)
    game = tiny_game("""
        flow:
            player 1 chooses c from [1, 2] as "pick"
        """, header=header, variants=("quick", "plain"))
    assert layout.variant_lines(game.program) == ["quick: the first to 3 wins", "plain"]
    screen = _screen(game, game.new_initial_state(seed=1))
    assert "quick: the first to 3 wins" in screen and "variants" in screen, screen


def test_an_options_note_is_worked_out_beside_each_option_and_is_not_its_text():
    game = _pile_game("public", extra="state bonus: number = 10", body="""
        flow:
            bonus = 100
            player 1 chooses subset s from [1, 2, 4] such that size(s) >= 1 as "take" showing "worth {sum(x for x in s) + bonus}"
        """)
    state = game.new_initial_state(seed=1)
    notes = layout.option_notes(state)
    assert notes["take 1, 2"] == "worth 103" and notes["take 4"] == "worth 104", notes
    assert "take 1, 2" in state.legal_actions()            # the action's text is as before


def test_the_final_scores_are_said_in_the_words_of_the_value_they_are():
    from rulesrun.interpreter.terminal.table import final_report

    def played(label):
        game = _pile_game("public", extra=f"player state pts: number = 0{label}", body="""
            flow:
                (player 1).pts = 4
            score(p) = p.pts
            """)
        return final_report(game.new_initial_state(seed=1))
    assert "Player 1: 4 penalty points" in played(', shown as "penalty points"')
    assert "Player 2: 0\n" in played("")                     # no words of the file's: the number alone


def test_the_files_words_are_shown_as_written_never_read_as_markup():
    game = _pile_game('public, shown as "[red]pile[/red]"', extra="""
        player state spent: yes/no = no, shown as "[bold]spent"
        """)
    screen = _screen(game, game.new_initial_state(seed=1), width=100)
    assert "[red]pile[/red]" in screen and "[bold]spent" in screen, screen
