"""At the table as players expect it: colours that mean something, options in the hand's
order, typing any run of words, `explain CARD`, human names for state, the compact layout, the
games' own fixes (a tie-break said, the Refund Card asked only when it helps, a current lead)."""
from __future__ import annotations

import io
import random
import re
from types import SimpleNamespace

import pytest

from rulesrun.interpreter import load_game, load_game_text
from rulesrun.interpreter.terminal.options import find_card, hand_order, resolve_input
from rulesrun.interpreter.terminal.repl import Repl
from rulesrun.interpreter.terminal.table import (
    CardStyle,
    colour_attribute,
    colour_word,
    display_name,
    option_lines,
    render_view,
)

from tests.support import ROOT  # noqa: E402
from tests.support import feed
MAGI = ROOT / "games" / "magi.rules"
SHOP = ROOT / "games" / "magic_shop.rules"
GACHA = ROOT / "games" / "gachapon.rules"
COLOUR_CODE = re.compile(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*38;[25];")


def with_extra(prog, **extra):
    """The program as the language will give it, with a declaration it does not have yet."""
    import attrs
    return SimpleNamespace(**{**{f.name: getattr(prog, f.name) for f in attrs.fields(type(prog))}, **extra})




def play(path, players, seats, seed, lines, interactive=None, **kw):
    game = load_game(path, players=players)
    out = io.StringIO()
    repl = Repl(game, game.new_initial_state(seed=seed), seats, seed, out=out, readline=feed(lines),
                interactive=interactive, **kw)
    repl.run()
    return repl, out.getvalue()


# ── 3. colours that mean something ─────────────────────────────────────────
def test_colour_words_map_to_terminal_colours():
    assert colour_word("red") == "red" and colour_word("Blue") == "blue"
    assert colour_word("purple") == "magenta" and colour_word("orange") == "dark_orange"
    assert colour_word("grey") and colour_word("black") and colour_word("white")
    assert colour_word("Guild") is None and colour_word("Eye") is None and colour_word("500") is None


def test_cards_are_coloured_by_the_attribute_whose_values_are_colours():
    magi = load_game(MAGI, players=4)
    assert colour_attribute(magi.program) == "colour"      # not the first kind, `group`
    style = CardStyle(magi)
    assert style.style["blue Scales"] == "blue" and style.style["red Scales"] == "red"
    assert style.style["yellow Grail"] == "yellow"
    gacha = load_game(GACHA, players=3)
    assert CardStyle(gacha).style["purple 500 (Dinosaur)"] == "magenta"
    assert "Refund Card" not in CardStyle(gacha).style        # no colour: drawn plain
    shop = load_game(SHOP, players=4)
    assert colour_attribute(shop.program) == "suit"          # no colour words: the first kind
    s = CardStyle(shop).style
    assert len({s["Eye 1"], s["Door 1"], s["Wine 1"], s["Machine 1"], s["Invisible 1"]}) == 5
    assert s["Eye 1"] == s["Eye 7"]


def test_the_shipped_games_say_which_attribute_colours_their_cards():
    assert load_game(MAGI, players=4).program.colour_attr == "colour"
    assert load_game(GACHA, players=3).program.colour_attr == "colour"
    assert load_game(SHOP, players=4).program.colour_attr == "suit"


def test_coloured_by_colours_the_table_by_that_attribute(monkeypatch):
    # Magi coloured by its group instead: every Guild card one colour, whatever its own
    src = MAGI.read_text().replace("    coloured by colour ", "    coloured by group  ")
    game = load_game_text(src, 4, path="magi_by_group.rules")
    assert game.program.colour_attr == "group"
    style = CardStyle(game)
    assert style.attr == "group"
    assert style.style["blue Scales"] == style.style["red Scales"] == style.style["yellow Grail"]
    assert style.style["blue Scales"] != style.style["grey Witch"] != style.style["red Staff"]
    # ... and so the terminal draws it (seed 3 deals Player 1 blue and yellow Guild cards, a blue
    # Item and grey Magicians): by group — Guild red, Item green, Magician blue — not by colour
    monkeypatch.delenv("NO_COLOR", raising=False)

    def table(g):
        out = io.StringIO()
        Repl(g, g.new_initial_state(seed=3), ["human", "random", "random", "random"], 3, out=out,
             readline=feed(["quit"]), interactive=True).run()
        return out.getvalue()
    by_group = table(game)
    assert "\x1b[31mblue Crystal" in by_group and "\x1b[31myellow Shield" in by_group
    assert "\x1b[32mblue Cloak" in by_group and "\x1b[34mgrey Magician" in by_group
    by_colour = table(load_game(MAGI, players=4))
    assert "\x1b[34mblue Crystal" in by_colour and "\x1b[33myellow Shield" in by_colour
    monkeypatch.setenv("NO_COLOR", "1")       # NO_COLOR wins over the file's choice
    plain = table(game)
    assert not COLOUR_CODE.search(plain) and "blue Crystal" in plain
    # the web table draws the same colours (in CSS)
    from rulesrun.interpreter.web.views import CSS, Display
    web = Display(game).colour
    assert web["blue Crystal"] == web["yellow Shield"] == CSS["red"] != web["grey Magician"]
    assert Display(load_game(MAGI, players=4)).colour["blue Crystal"] == CSS["blue"]


def test_coloured_by_an_unknown_or_list_attribute_is_an_error():
    from rulesrun.dsl import RulesError
    with pytest.raises(RulesError) as err:
        load_game_text(MAGI.read_text().replace("coloured by colour ", "coloured by color  "), 4, path="m.rules")
    assert "cards have no attribute 'color' to be coloured by" in err.value.message
    assert "did you mean 'colour'" in str(err.value.hint)
    with pytest.raises(RulesError) as err:
        load_game_text(MAGI.read_text().replace("coloured by colour ", "coloured by effects"), 4, path="m.rules")
    assert "it is a list" in err.value.message
    twice = MAGI.read_text().replace("    coloured by colour ", "    coloured by group\n    coloured by colour ")
    with pytest.raises(RulesError) as err:
        load_game_text(twice, 4, path="m.rules")
    assert "twice" in err.value.message


def test_without_coloured_by_the_table_guesses(monkeypatch):
    src = MAGI.read_text().replace("    coloured by colour ", "    # no colour ")
    game = load_game_text(src, 4, path="magi_plain.rules")
    assert game.program.colour_attr is None
    assert colour_attribute(game.program) == "colour"      # the colour words, not the first kind


def test_magi_hands_are_sorted_by_colour():
    style = CardStyle(load_game(MAGI, players=4))
    assert style.sort(["grey Witch", "yellow Grail", "blue Scales", "red Staff", "blue Grail"]) == \
        ["red Staff", "blue Grail", "blue Scales", "yellow Grail", "grey Witch"]


def test_no_color_is_honoured(monkeypatch):
    lines = ["state", "quit"]
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, coloured = play(MAGI, 4, ["human", "random", "random", "random"], 3, lines, interactive=True)
    assert COLOUR_CODE.search(coloured)
    monkeypatch.setenv("NO_COLOR", "1")
    _, plain = play(MAGI, 4, ["human", "random", "random", "random"], 3, lines, interactive=True)
    assert not COLOUR_CODE.search(plain)
    assert "blue" in plain or "red" in plain or "yellow" in plain     # the cards are still there


# ── 4. options in the hand's order ─────────────────────────────────────────
def test_options_are_numbered_in_the_order_the_hand_is_shown():
    game = load_game(SHOP, players=4)
    state = game.new_initial_state(seed=3)
    style = CardStyle(game)
    hand = state.observation(0)["players"][0]["hand"]["cards"]
    ordered = hand_order(state, style)
    assert [a[len("bid with "):] for a in ordered] == style.sort(hand)
    assert sorted(map(str, ordered)) == sorted(map(str, state.legal_actions()))
    assert [str(a) for a in ordered] != [str(a) for a in state.legal_actions()]   # deal order differs here


def test_the_number_typed_is_the_number_shown():
    game = load_game(SHOP, players=4)
    state = game.new_initial_state(seed=3)
    first_shown = str(hand_order(state, CardStyle(game))[0])
    repl, out = play(SHOP, 4, ["human", "random", "random", "random"], 3, ["1"])
    assert f"   1. {first_shown}" in out
    assert repl.moves[0] == (0, first_shown)


def test_nothing_comes_first_and_the_cards_follow_in_hand_order():
    game = load_game(MAGI, players=4)
    rng = random.Random(1)
    style = CardStyle(game)
    for seed in range(40):
        state = game.new_initial_state(seed=seed)
        for _ in range(400):
            if state.is_terminal():
                break
            if state.decision_label() == "magic phase: play" and len(state.legal_actions()) > 2:
                ordered = [str(a) for a in hand_order(state, style)]
                assert ordered[0] == "magic phase: play nothing"
                cards = [a[len("magic phase: play "):] for a in ordered[1:]]
                assert cards == style.sort(cards)
                return
            state.apply_action(rng.choice(state.legal_actions()))
    pytest.fail("no magic phase with a choice of cards came up")


# ── 5. type what you mean ──────────────────────────────────────────────────
def test_any_unique_run_of_words_chooses_an_option():
    colours = ["name the colour red", "name the colour blue", "name the colour yellow"]
    assert resolve_input("blue", colours) == ("name the colour blue", None)
    assert resolve_input("BLUE", colours) == ("name the colour blue", None)
    plays = ["play red Shield", "play blue Shield", "play red Staff"]
    assert resolve_input("red shield", plays) == ("play red Shield", None)
    assert resolve_input("play red sh", plays) == ("play red Shield", None)
    assert resolve_input("2", plays) == ("play blue Shield", None)
    action, problem = resolve_input("shield", plays)
    assert action is None and "1. play red Shield" in problem and "2. play blue Shield" in problem


def test_an_ambiguous_beginning_lists_the_candidates_with_their_numbers():
    acts = ["after drawing: play", "after drawing: Pass"]
    action, problem = resolve_input("P", acts)
    assert action is None
    assert "could mean" in problem and " 1. after drawing: play" in problem and " 2. after drawing: Pass" in problem
    assert resolve_input("pa", acts) == ("after drawing: Pass", None)
    assert resolve_input("pass", acts) == ("after drawing: Pass", None)
    assert resolve_input("nonsense", acts)[1].startswith("'nonsense' is not a legal option")


def test_whole_words_beat_beginnings():
    acts = ["play Wine 5", "play Wine 50"]
    assert resolve_input("wine 5", acts) == ("play Wine 5", None)


# ── 7. explain CARD ────────────────────────────────────────────────────────
def test_explain_shows_what_the_file_says_about_a_card():
    _, out = play(MAGI, 4, ["human", "random", "random", "random"], 3,
                  ["explain fire magician", "explain witch", "explain nothing-like-it", "explain", "quit"])
    assert "grey Fire Magician (2 copies)" in out
    assert "group: Magician" in out and "points: 15" in out and "effects: SELECT, DRAW" in out
    assert "draw x: 3" in out
    assert "could be:" in out and "grey Witch" in out and "grey Careless Witch" in out
    assert "There is no card 'nothing-like-it' in Magi." in out
    assert "Say which card: explain CARD" in out


def test_find_card_by_words():
    names = ["red Scales", "blue Scales", "grey Supreme Magician"]
    assert find_card("supreme", names) == ("grey Supreme Magician", [])
    assert find_card("Blue scales", names) == ("blue Scales", [])
    assert find_card("scales", names) == (None, ["red Scales", "blue Scales"])


def test_explain_uses_card_descriptions_when_the_language_gives_them():
    from rulesrun.interpreter.terminal.table import explain_card
    prog = with_extra(load_game(SHOP, players=4).program, card_descriptions={"Wine 5": "Move the Trump Marker."})
    assert explain_card(prog, "Wine 5").endswith("Move the Trump Marker.")


# ── 9. human names, values that apply, the compact layout ──────────────────
def test_state_is_shown_by_human_names_and_values_that_do_not_apply_are_hidden():
    game = load_game(MAGI, players=4)
    state = game.new_initial_state(seed=3)
    obs = state.observation(0)
    obs["state"]["pile_colour"] = None
    out = io.StringIO()
    from rich.console import Console
    Console(file=out, width=100, no_color=True).print(render_view(obs, CardStyle(game)))
    text = out.getvalue()
    assert "draw count: 0" in text and "hand number: 1" in text
    assert "draw_count" not in text and "pile colour" not in text


def test_a_file_may_give_a_display_name():
    prog = with_extra(load_game(MAGI, players=4).program, display_names={"draw_count": "cards to draw"})
    assert display_name(prog, "draw_count") == "cards to draw"
    assert display_name(prog, "hand_number") == "hand number"


def test_compact_layout_fits_a_turn_into_24_lines():
    """The table as printed at 80×24: from its title to the prompt, within the screen."""
    for players in (4, 8):
        game = load_game(MAGI, players=players)
        out = io.StringIO()
        seats = ["human"] + ["random"] * (players - 1)
        repl = Repl(game, game.new_initial_state(seed=3), seats, 3, out=out, readline=feed(["1"] * 30),
                    interactive=True)
        repl.console.size = (80, 24)
        repl.run()
        text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.getvalue())
        turns = text.split("── ")[1:]
        assert len(turns) > 5
        for turn in turns:
            body = turn.split("Player 1>")[0]
            assert body.count("\n") + 1 <= 23, body
            assert all(len(line) <= 80 for line in body.splitlines())
            assert "draw count" in body


def test_option_columns_in_the_compact_layout():
    acts = [f"play card number {i}" for i in range(1, 13)]
    lines = option_lines(acts, 80, compact=True)
    assert len(lines) < len(acts) and all(len(line) <= 80 for line in lines)
    assert option_lines(acts, 80, compact=False) == [f"  {i:>2}. {a}" for i, a in enumerate(acts, 1)]


def test_magic_shop_shows_this_rounds_lead_from_the_start_of_the_round():
    game = load_game(SHOP, players=3)
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    rounds_seen = set()
    while not state.is_terminal():
        if state.decision_label() == "bid with":
            assert state.var("lead") == state.var("first_lead")
            rounds_seen.add(state.var("round"))
        state.apply_action(rng.choice(state.legal_actions()))
    assert rounds_seen == {1, 2, 3}


# ── 10. small ones at the table ────────────────────────────────────────────
def test_the_opening_line_names_the_variants():
    game = load_game(MAGI, players=4, variants=("catastrophe",))
    out = io.StringIO()
    Repl(game, game.new_initial_state(seed=1), ["human"] + ["random"] * 3, 1, out=out, readline=feed([])).run()
    assert out.getvalue().splitlines()[0].endswith("random); variant catastrophe")   # no seed while a human plays


def test_delay_works_when_every_seat_is_a_bot(monkeypatch):
    from rulesrun.interpreter.terminal import repl as repl_module
    naps = []
    monkeypatch.setattr(repl_module.time, "sleep", naps.append)
    game = load_game(SHOP, players=3)
    repl = Repl(game, game.new_initial_state(seed=1), ["random"] * 3, 1, out=io.StringIO(),
                readline=feed([]), delay=0.25)
    repl.run()
    # a pause after each move that was a choice; none after a forced move (one legal option)
    replayed, choices = game.new_initial_state(seed=1), 0
    for _, move in repl.moves:
        choices += len(replayed.legal_actions()) > 1
        replayed.apply_action(move)
    assert len(naps) == choices > 20 and choices < len(repl.moves) and set(naps) == {0.25}


def test_with_a_person_at_the_table_every_bot_move_waits_alike(monkeypatch):
    """A bot's forced move must not come quicker than its choices while someone watches: the
    difference would tell them the bot had one legal option (in a trick game, one card of the suit)."""
    from rulesrun.interpreter.terminal import repl as repl_module
    naps = []
    monkeypatch.setattr(repl_module.time, "sleep", naps.append)
    game = load_game(SHOP, players=3)
    repl = Repl(game, game.new_initial_state(seed=1), ["human", "random", "random"], 1, out=io.StringIO(),
                readline=feed(["1"] * 400), delay=0.25)
    repl.run()
    bot_moves = sum(1 for p, _ in repl.moves if p in (1, 2))
    replayed, forced = game.new_initial_state(seed=1), 0
    for p, move in repl.moves:
        forced += p in (1, 2) and len(replayed.legal_actions()) == 1
        replayed.apply_action(move)
    assert forced > 0 and naps.count(0.25) == bot_moves


# ── 6 and 10: the games say why and ask only when it helps ─────────────────
def test_gachapon_says_when_the_later_card_won_a_tie():
    game = load_game(GACHA, players=3)
    said = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
        trick: list[str] = []
        for line in state.log():
            m = re.match(r"Player \d plays (.*)\.$", line)
            if m:
                trick.append(m.group(1))
                continue
            m = re.match(r"Player \d wins the trick with (.*?)\.( It ties with an earlier card)?", line)
            if m:
                value = m.group(1).split()[1]
                same = [c for c in trick if c.split()[1] == value and c != m.group(1)]
                if m.group(2):
                    said += 1
                    assert same and trick.index(same[0]) < trick.index(m.group(1)), (line, trick)
                trick = []
            elif "trick is discarded" in line:
                trick = []
    assert said > 0


def test_gachapon_never_asks_about_the_refund_twice_in_a_row():
    """Declined once, the Refund Card is not offered again before the holder has done something
    else (before: after buying, and again at once before leading the next trick)."""
    game = load_game(GACHA, players=3)
    declined = 0
    for seed in range(60):
        rng = random.Random(seed)
        state = game.new_initial_state(seed=seed)
        last = None
        while not state.is_terminal():
            p = state.current_player()
            if state.decision_label() == "refund" and last is not None and last[:2] == (p, "refund nothing"):
                standing = [q for q in range(3) if not state.var("out", q)]
                # but before scoring, everyone is offered it once more (the last player standing too)
                assert state.var("tricks_left") == 0 or len(standing) == 1, (seed, state.log()[last[2]:])
            action = "refund nothing" if state.decision_label() == "refund" else rng.choice(state.legal_actions())
            declined += action == "refund nothing"
            last = (p, str(action), len(state.log()))
            state.apply_action(action)
    assert declined > 10      # the Refund Card came up often enough for the check to mean something


def test_a_face_up_bid_of_0_is_shown_to_everyone_and_nothing_before_the_reveal():
    game = load_game(SHOP, players=4)
    state = game.new_initial_state(seed=3)
    state.apply_action("bid with Eye 0")
    state.apply_action("place it face up")
    assert [state.observation(1)["players"][p]["bid_face"] for p in range(4)] == [None] * 4   # not yet revealed
    for p in range(1, 4):
        state.apply_action(state.legal_actions()[0])
        state.apply_action("place it face down, bidding 3")
    seen = state.observation(1)["players"]
    assert seen[0]["face_up_bid"] == [0] and seen[0]["bid_face"] == "up"
    assert [seen[p]["face_up_bid"] for p in (1, 2, 3)] == [[], [], []]
    out = io.StringIO()
    from rich.console import Console
    Console(file=out, width=140, no_color=True).print(render_view(state.observation(1), CardStyle(game)))
    header = next(line for line in out.getvalue().splitlines() if " bid " in line)
    rows = {p: next(line for line in out.getvalue().splitlines() if line.strip().startswith(f"Player {p} "))
            for p in (1, 3)}
    column = header.index(" bid ") + 1        # the one bid column: the face-up card's bid, to everyone
    assert rows[1][column:].split()[0] == "0" and rows[3][column:].split()[0] == "down", out.getvalue()
    assert "face up bid" not in header and "bid face" not in header, header


def test_hot_seat_on_a_small_screen_repeats_the_latest_announcements_after_the_pass_screen():
    game = load_game(SHOP, players=3)
    out = io.StringIO()
    repl = Repl(game, game.new_initial_state(seed=2), ["human", "human", "random"], 2, out=out,
                readline=feed(["1", "1", "", "1"]), interactive=True)
    repl.console.size = (80, 24)
    repl.run()
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", out.getvalue())
    after_pass = text.split("Pass to Player 2")[1]
    assert "Round 1 begins; Player 1 leads." in after_pass.split("── ")[0]


def _shop_screen(state, game, width, seat=0, compact=False) -> str:
    out = io.StringIO()
    from rich.console import Console
    Console(file=out, width=width, no_color=True).print(
        render_view(state.observation(seat), CardStyle(game), compact=compact, width=width))
    return out.getvalue()


def test_the_magic_shops_players_table_has_one_bid_column_and_fits_110_columns():
    game = load_game(SHOP, players=5)
    state = game.new_initial_state(seed=3)
    rng = random.Random(2)
    for _ in range(40):
        state.apply_action(rng.choice(state.legal_actions()))
    screen = _shop_screen(state, game, 110)
    header = next(line for line in screen.splitlines() if line.startswith("players"))
    assert header.split()[1:] == ["player", "bid", "thirst", "tricks", "won", "VP", "hand"], screen
    assert "…" not in screen and all(len(line.rstrip()) <= 110 for line in screen.splitlines()), screen
    for gone in ("chosen face", "bid face", "face up bid", "bid card", "hidden bid", "gathered"):
        assert gone not in screen, screen


def test_a_new_magic_shop_round_shows_nothing_left_from_the_last_one():
    game = load_game(SHOP, players=4)
    state = game.new_initial_state(seed=3)
    rng = random.Random(1)
    while not (state.var("round") == 2 and state.decision_label() == "bid with"):
        state.apply_action(rng.choice(state.legal_actions()))
    screen = _shop_screen(state, game, 80, compact=True)
    assert "tricks played: 0" in screen and "trump played this trick: no" in screen, screen
    header = next(line for line in screen.splitlines() if line.startswith("players"))
    assert " bid " not in header + " ", screen                     # no bid made yet: no bid column
    from rulesrun.interpreter.web.views import table_layout
    obs = state.observation(0)
    assert table_layout(game.program, obs, 0, {"hand": obs["players"][0]["hand"]["cards"]})["notes"] == {}


def test_gachapons_buy_question_lists_each_subset_with_its_price():
    game = load_game(GACHA, players=3)
    state = game.new_initial_state(seed=5)
    rng = random.Random(5)
    while state.decision_label() != "buy":
        state.apply_action(rng.choice(state.legal_actions()))
    from rulesrun.interpreter.terminal import layout
    from rulesrun.interpreter.web.views import Display, frame
    notes = layout.option_notes(state)
    values = {n: game.program.card_attrs["value"][i] for i, n in enumerate(game.program.card_names)}
    for action in state.legal_actions():
        cards = str(action)[len("buy "):].split(", ")
        assert notes[str(action)] == f"for {sum(values[c] for c in cards)}", (action, notes)
    seat = state.current_player()
    out = io.StringIO()
    repl = Repl(game, state, ["human"] * 3, 5, out=out, readline=feed([]))
    repl.show_options(seat, list(state.legal_actions()))
    listed = out.getvalue()
    assert all(f"{a} — {notes[str(a)]}" in listed for a in state.legal_actions()), listed
    page = frame(state, seat, Display(game), {})
    assert page["notes"] == notes and set(page["options"]) == set(notes)
