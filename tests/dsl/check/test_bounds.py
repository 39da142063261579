"""A number declared with bounds (``player state reds: number = 0 from 0 to 2, owner``): what a bot
imagines another seat's secret number among, and what ``rulesrun check`` holds the number to.
"""
from __future__ import annotations

import io

import pytest

from rulesrun.dsl import RulesError
from rulesrun.dsl.syntax.format import format_text
from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.checking import run_check
from tests.support import small_game, wins

from tests.support import ROOT  # noqa: E402

# Player 1's count of red cards is worked out by arithmetic from a hand player 2 cannot see: without
# bounds the compiler infers them (a count over a zone: 0 to the number of cards), and a bot
# imagines the count among them.
COUNT = small_game("Guess", 2, """
    player state points: number = 0
    score(p) = p.points
    player state reds: number = 0BOUNDS, owner
    flow:
        shuffle deck
        deal 2 from deck to hand
        (player 1).reds = count(c in (player 1).hand where c.suit == Red)
        player 2 chooses g from 0 to 2 as "guess"
        if g == (player 1).reds:
            (player 2).points += 1
""")


def _game(bounds: str):
    return load_game_text(COUNT.replace("BOUNDS", bounds), 2, path="guess.rules")


def _rate(bounds: str, bot: str, games: int = 40) -> float:
    return wins(_game(bounds), ["random", bot], games)[1] / games


def test_the_bounds_are_the_values_a_number_worked_out_by_arithmetic_can_hold():
    reds = next(v for v in _game(" from 0 to 2").program.player_vars if v.name == "reds")
    assert reds.bounds == (0, 2) and reds.domain == (0, 1, 2)


def test_without_bounds_a_secret_number_gets_the_values_inferred_from_what_it_is_given():
    """A count over a hand (twelve cards in all): 0 to 12, never kept as it is."""
    g = _game("")
    reds = next(v for v in g.program.player_vars if v.name == "reds")
    assert reds.bounds is None and reds.domain == tuple(range(13))
    assert g.program.kept_secrets == []


@pytest.mark.parametrize("bot", ["greedy", "ismcts:30"])
def test_a_bot_imagines_another_seats_secret_number_with_or_without_bounds(bot):
    assert _rate("", bot) <= 0.8                   # not the real count: before inference it was 1.0
    assert 0.2 <= _rate(" from 0 to 2", bot) <= 0.8


# A hidden number of five values, worked out by arithmetic from a card nobody sees: player 1 must
# guess it. A bot that read it would always be right; one that imagines it guesses at chance (1/5).
GUESS_FIVE = """game "Guess Five"
players 2
cards:
    rank: number
    shown as "{rank}"
    for rank in 1 to 5
zone deck: facedown
player state points: number = 0
state secret: number = 0, hidden
score(p) = p.points
flow:
    shuffle deck
    secret = top(deck).rank - 1
    player 1 chooses g from 0 to 4 as "guess"
    if g == secret:
        (player 1).points += 1
"""


@pytest.mark.parametrize("bot", ["greedy", "ismcts:30"])
def test_a_hidden_number_of_five_values_is_guessed_at_chance(bot):
    g = load_game_text(GUESS_FIVE, 2, path="guess5.rules")
    assert next(v for v in g.program.globals if v.name == "secret").domain == (0, 1, 2, 3, 4)
    games = 150
    rate = wins(g, [bot, "random"], games)[0] / games
    assert 0.07 <= rate <= 0.36, rate             # chance is 0.2 (sd 0.033); reading it would be 1.0


def test_a_secret_number_no_bound_can_be_inferred_for_asks_for_bounds_at_the_assignment():
    text = COUNT.replace("BOUNDS", "").replace(
        "(player 1).reds = count(c in (player 1).hand where c.suit == Red)",
        "for c in (player 1).hand:\n        (player 1).reds += c.rank")
    with pytest.raises(RulesError) as e:
        load_game_text(text, 2, path="guess.rules")
    assert "player state 'reds' is a secret number (owner) whose values the compiler cannot bound" in e.value.message
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "(player 1).reds += c.rank" in ln)
    assert f"'+=' changes at line {line}" in e.value.message and e.value.pos.line == line
    assert "from 0 to 20" in e.value.hint


@pytest.mark.parametrize("bad, message", [
    ("player state reds: yes/no = no from 0 to 2, owner", "only a number has bounds, and 'reds' is a yes/no"),
    ("player state reds: number = 5 from 0 to 2, owner", "the starting value of 'reds', 5, is not from 0 to 2"),
    ("player state reds: number = 0 from 3 to 2, owner", "are the wrong way round: 3 is more than 2"),
    ("player state reds: number = 0 from 0 to 100000, owner", "'reds' may hold 100,001 numbers"),
    ("player state reds: number = 0 from 0 to Red, owner", "a bound must be a number"),
])
def test_bad_bounds_are_rules_errors_at_the_place(bad, message):
    text = COUNT.replace("BOUNDS", " from 0 to 2").replace(
        "player state reds: number = 0 from 0 to 2, owner", bad)
    with pytest.raises(RulesError) as e:
        load_game_text(text, 2, path="guess.rules")
    assert message in str(e.value)
    assert e.value.pos.line == text.splitlines().index(bad) + 1


def test_fmt_keeps_the_bounds():
    text = COUNT.replace("BOUNDS", " from 0 to 2").replace("from 0 to 2", "from  0  to 2")
    out = format_text(text, "guess.rules")
    assert "player state reds: number = 0 from 0 to 2, owner" in out


COUNT_ONLY = small_game("Reds", 2, """
    player state points: number = 0
    score(p) = p.points
    player state reds: number = 0 from 0 to 1, owner
    flow:
        shuffle deck
        deal 2 from deck to hand
        for p in players:
            p.reds = count(c in p.hand where c.suit == Red)
        player 1 chooses g from [1, 2] as "pick"
""")


def test_check_finds_a_number_outside_its_bounds(tmp_path):
    """The rules may set any number: ``rulesrun check`` holds the value to its declared bounds as it
    holds the file's invariants, and names the seat and the value."""
    text = COUNT_ONLY
    path = tmp_path / "reds.rules"
    path.write_text(text)
    out = io.StringIO()
    assert run_check(str(path), games=20, out=out, err=io.StringIO()) == 1
    assert "the file's own invariants hold at every step" in out.getvalue()
    assert "'reds' is from 0 to 1 (Player " in out.getvalue() and "'s reds is 2)" in out.getvalue()
    path.write_text(text.replace("from 0 to 1", "from 0 to 2"))
    out = io.StringIO()
    assert run_check(str(path), games=20, out=out, err=io.StringIO()) == 0, out.getvalue()


def test_a_bounded_number_may_start_as_none():
    """``none`` (not set yet) is within any bounds, and a bot may imagine it too."""
    text = COUNT.replace("BOUNDS", " from 0 to 2").replace("number = 0 from", "number = none from")
    g = load_game_text(text, 2, path="guess.rules")
    reds = next(v for v in g.program.player_vars if v.name == "reds")
    assert reds.domain == (0, 1, 2, None)
    assert g.new_initial_state(seed=1).check_invariants() == []


def test_the_rulebook_shows_the_bounds(tmp_path):
    from rulesrun.interpreter.authoring.rulebook import Rulebook
    from rulesrun.interpreter.authoring.rulebook_render import to_markdown
    path = tmp_path / "guess.rules"
    path.write_text(COUNT.replace("BOUNDS", " from 0 to 2"))
    assert "| **reds** | number from 0 to 2 | 0 | only that player |" in to_markdown(Rulebook(str(path)).blocks)


def test_check_says_nothing_of_a_secret_number_whose_bounds_are_inferred(tmp_path):
    """The bots imagine the count among the inferred values: ``rulesrun check`` has no note of a
    value the bots' copies keep. No shipped game or example keeps one."""
    text = COUNT_ONLY.replace(" from 0 to 1", "")
    path = tmp_path / "reds.rules"
    path.write_text(text)
    out = io.StringIO()
    assert run_check(str(path), games=5, out=out, err=io.StringIO()) == 0
    assert "note:" not in out.getvalue()
    from rulesrun.interpreter import load_game
    assert load_game(str(ROOT / "examples" / "whist.rules"), 4).program.kept_secrets == []


def test_a_hidden_total_of_cards_played_face_up_needs_no_bounds():
    """A running total of cards seen on the table holds no secret: no domain, no bounds asked for."""
    text = small_game("Played", 2, """
        state played: number = 0, hidden
        player state shown_total: number = 0
        score(p) = p.shown_total
        flow:
            shuffle deck
            deal 3 from deck to hand
            repeat 3 times:
                for p in players:
                    p chooses c from p.hand as "play"
                    move c to pile
                    played += c.rank
                    p.shown_total = played
                    announce "{p} plays {c}."
    """)
    g = load_game_text(text, 2, path="played.rules")
    assert next(v for v in g.program.globals if v.name == "played").domain is None
