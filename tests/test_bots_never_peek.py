"""Bots guess at chance level what they cannot see (issue 22, item 1).

Three guessing games, each with a secret that is 50/50 by chance: a hidden number, a card kept in
a procedure's local, and a card lying in one of two hidden zones. A bot that read the real state
would guess right every time; one that only sees what its seat sees guesses right about half the
time. The games are seeded, so the counts are fixed: the bounds are wide (chance over 40 games).
"""
from __future__ import annotations

import textwrap

import pytest

from interpreter import load_game_text
from interpreter.agents import make_agent

DECK = """
game "Guess"
players 2
kind Suit: Red, Blue
cards:
    suit: Suit
    rank: number
    shown as "{suit} {rank}"
    for suit in Suit, rank in 1 to 2
zone deck: facedown
zone hand per player: owner
zone pile: public
player state points: number = 0
score(p) = p.points
"""

HIDDEN_NUMBER = DECK + """
player state secret: number = 0, owner
flow:
    player 1 chooses n from [0, 3] as "hide"
    (player 1).secret = n
    player 2 chooses g from [0, 3] as "guess"
    if g == (player 1).secret:
        (player 2).points += 1
"""

CARD_IN_A_LOCAL = DECK + """
flow:
    shuffle deck
    deal 1 from deck to hand
    player 1 chooses c from (player 1).hand as "keep"
    player 2 chooses g from Suit as "guess"
    if g == c.suit:
        (player 2).points += 1
"""

ONE_OF_TWO_BOXES = DECK + """
zone box_a: hidden
zone box_b: hidden
flow:
    shuffle deck
    if top(deck).suit == Red:
        move top(deck) to box_a
    else:
        move top(deck) to box_b
    player 2 chooses g from ["a", "b"] as "guess"
    if g == "a" and size(box_a) == 1 or g == "b" and size(box_b) == 1:
        (player 2).points += 1
"""


def _rate(rules: str, bot: str, games: int = 40) -> float:
    g = load_game_text(textwrap.dedent(rules), 2, path="guess.rules")
    right = 0
    for seed in range(games):
        s = g.new_initial_state(seed=seed)
        seats = [make_agent("random", seed + 1000), make_agent(bot, seed)]
        while not s.is_terminal():
            s.apply_action(seats[s.current_player()].choose(s))
        right += s.returns()[1] > 0
    return right / games


@pytest.mark.parametrize("bot", ["greedy", "ismcts:30"])
@pytest.mark.parametrize("rules", [HIDDEN_NUMBER, CARD_IN_A_LOCAL, ONE_OF_TWO_BOXES],
                         ids=["hidden number", "card in a local", "one of two hidden zones"])
def test_a_bot_guesses_a_secret_at_chance_level(rules, bot):
    rate = _rate(rules, bot)
    assert 0.2 <= rate <= 0.8, f"{bot} guessed right {rate:.0%} of the time: it sees the secret"


def test_the_compiler_knows_what_a_hidden_value_can_hold_and_the_types_in_frames():
    g = load_game_text(textwrap.dedent(HIDDEN_NUMBER), 2, path="guess.rules")
    secret = next(v for v in g.program.player_vars if v.name == "secret")
    assert secret.domain == (0, 3)
    g = load_game_text(textwrap.dedent(CARD_IN_A_LOCAL), 2, path="guess.rules")
    s = g.new_initial_state(seed=1)
    s.apply_action(s.legal_actions()[0])        # player 1 keeps a card: the local is in the frame
    proc, label, locals_ = s.frames[-1]
    assert "card" in g.program.frame_types[proc][label]


REVEALED_NUMBER = HIDDEN_NUMBER.replace('''    (player 1).secret = n
''', '''    (player 1).secret = n
    reveal (player 1).secret
    announce "Player 1 shows {(player 1).secret}."
''')


def test_a_value_the_rules_reveal_is_kept_by_the_bots():
    """What the rules show (``reveal``) is not imagined afresh: the guess is right every time."""
    assert _rate(REVEALED_NUMBER, "greedy", games=20) == 1.0
    g = load_game_text(textwrap.dedent(REVEALED_NUMBER), 2, path="guess.rules")
    s = g.new_initial_state(seed=1)
    s.apply_action("hide 3")
    assert s.shown == {("pv", 1, 0): 3}
    from interpreter import State
    assert State.from_json(g, s.to_json()) == s and s.clone().shown == s.shown
