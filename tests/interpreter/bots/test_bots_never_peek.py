"""Bots guess at chance level what they cannot see.

Three guessing games, each with a secret that is 50/50 by chance: a hidden number, a card kept in
a procedure's local, and a card lying in one of two hidden zones. A bot that read the real state
would guess right every time; one that only sees what its seat sees guesses right about half the
time. The games are seeded, so the counts are fixed: the bounds are wide (chance over 40 games).
"""
from __future__ import annotations


import pytest

from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.bots.agents import make_agent
from tests.support import small_game, tiny_game, wins

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


# A choice among public options is seen by nobody else until the rules show it: the number stays
# in the frame of the procedure (a local), never in state.
NUMBER_IN_A_LOCAL = DECK + """
flow:
    player 1 chooses n from [0, 3] as "hide"
    player 2 chooses g from [0, 3] as "guess"
    if g == n:
        (player 2).points += 1
"""

# A value worked out from a card of a hand the guesser cannot see, kept in a local.
SUIT_IN_A_LOCAL = DECK + """
flow:
    shuffle deck
    deal 1 from deck to hand
    let s = top((player 1).hand).suit
    player 2 chooses g from Suit as "guess"
    if g == s:
        (player 2).points += 1
"""

# The seat that chose remembers its own choice, whether the rules name it (player 1) or hold it in
# a local (p); the guesser does not.
RECALL = DECK + """
flow:
    let p = player 1
    p chooses n from [0, 3] as "hide"
    player 2 chooses g from [0, 3] as "guess"
    p chooses r from [0, 3] as "recall"
    if r == n:
        p.points += 1
    if g == n:
        (player 2).points += 1
"""

# The chooser is the loop's seat: by the guess, the loop's local names another seat.
CHOSEN_IN_AN_EARLIER_ROUND = DECK + """
flow:
    let hidden = 0
    for p in players:
        if p == player 2:
            p chooses g from [0, 3] as "guess"
            if g == hidden:
                p.points += 1
        else:
            p chooses n from [0, 3] as "hide"
            hidden = n
"""

ANNOUNCED = NUMBER_IN_A_LOCAL.replace('as "hide"\n', 'as "hide"\n    announce "Player 1 picks {n}."\n')


def _rate(rules: str, bot: str, games: int = 40) -> float:
    g = tiny_game(rules, header="", path="guess.rules", allow_leaks=False)
    right = 0
    for seed in range(games):
        s = g.new_initial_state(seed=seed)
        seats = [make_agent("random", seed + 1000), make_agent(bot, seed)]
        while not s.is_terminal():
            s.apply_action(seats[s.current_player()].choose(s))
        right += s.returns()[1] > 0
    return right / games


@pytest.mark.parametrize("bot", ["greedy", "ismcts:30"])
@pytest.mark.parametrize("rules", [HIDDEN_NUMBER, CARD_IN_A_LOCAL, ONE_OF_TWO_BOXES, NUMBER_IN_A_LOCAL,
                                   SUIT_IN_A_LOCAL, RECALL, CHOSEN_IN_AN_EARLIER_ROUND],
                         ids=["hidden number", "card in a local", "one of two hidden zones",
                              "another seat's choice in a local", "a suit of a hand in a local",
                              "a choice kept in a local while its chooser is named by a local",
                              "a choice made in an earlier round of the loop"])
def test_a_bot_guesses_a_secret_at_chance_level(rules, bot):
    rate = _rate(rules, bot)
    assert 0.2 <= rate <= 0.8, f"{bot} guessed right {rate:.0%} of the time: it sees the secret"


def test_the_compiler_knows_what_a_hidden_value_can_hold_and_the_types_in_frames():
    g = tiny_game(HIDDEN_NUMBER, header="", path="guess.rules", allow_leaks=False)
    secret = next(v for v in g.program.player_vars if v.name == "secret")
    assert secret.domain == (0, 3)
    g = tiny_game(CARD_IN_A_LOCAL, header="", path="guess.rules", allow_leaks=False)
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
    g = tiny_game(REVEALED_NUMBER, header="", path="guess.rules", allow_leaks=False)
    s = g.new_initial_state(seed=1)
    s.apply_action("hide 3")
    assert s.shown == {("pv", 1, 0): 3}
    from rulesrun.interpreter import State
    assert State.from_json(g, s.to_json()) == s and s.clone().shown == s.shown


def _returns(rules: str, seats: list, games: int = 20) -> list:
    return wins(tiny_game(rules, header="", path="guess.rules", allow_leaks=False), seats, games)


@pytest.mark.parametrize("bot", ["greedy", "ismcts:30"])
def test_a_bot_remembers_its_own_choice_kept_in_a_local(bot):
    """What a seat chose itself is not imagined afresh: recalling it is right every time."""
    assert _returns(RECALL, [bot, "random"])[0] == 20


def test_a_choice_the_rules_announce_is_kept_by_the_bots():
    assert _rate(ANNOUNCED, "greedy", games=20) == 1.0


def test_the_compiler_says_which_frame_locals_hold_whose_secret():
    """``Program.frame_secrets``: at the guess, the hidden number (the local ``n``) is the secret
    of the seat held in the frame's local ``p``, and can be 0 or 3; announced, it is no secret."""
    g = tiny_game(RECALL, header="", path="guess.rules", allow_leaks=False)
    s = g.new_initial_state(seed=1)
    s.apply_action("hide 3")
    proc, label, locals_ = s.frames[-1]
    (i, knowers, values), = g.program.frame_secrets[proc][label]
    assert locals_[i] == 3 and values == (0, 3)
    (k,) = knowers
    assert k[0] == "at" and locals_[k[1]] == 0         # player 1, held in the local p
    g = tiny_game(ANNOUNCED, header="", path="guess.rules", allow_leaks=False)
    assert not any(g.program.frame_secrets)


def test_resampling_for_the_seat_that_chose_keeps_the_value_and_for_another_draws_it():
    import random
    from rulesrun.interpreter.runtime.observe import resample
    g = tiny_game(NUMBER_IN_A_LOCAL, header="", path="guess.rules", allow_leaks=False)
    s = g.new_initial_state(seed=1)
    s.apply_action("hide 3")
    proc, label, _ = s.frames[-1]
    (i, _, _), = g.program.frame_secrets[proc][label]
    rng = random.Random(5)
    assert {resample(s, 1, rng, redraw=True).frames[-1][2][i] for _ in range(40)} == {0, 3}
    assert {resample(s, 0, rng, redraw=True).frames[-1][2][i] for _ in range(10)} == {3}
    assert {resample(s, 1, rng).frames[-1][2][i] for _ in range(10)} == {3}    # twins: not redrawn
    assert s.frames[-1][2][i] == 3                       # the state itself is untouched


# A card in a facedown zone of one's own is seen by nobody, its owner neither: a suit worked out
# from it is imagined by every seat.
OWN_FACEDOWN = DECK + """
zone stash per player: facedown
flow:
    shuffle deck
    move top(deck) to (player 1).stash
    let p = player 1
    let s = top(p.stash).suit
    player 2 chooses g from Suit as "guess"
    p chooses r from Suit as "recall"
    if r == s:
        p.points += 1
"""


def test_a_value_from_a_facedown_zone_of_ones_own_is_imagined_too():
    right = _returns(OWN_FACEDOWN, ["ismcts:30", "random"], games=40)[0]
    assert 8 <= right <= 32, f"player 1 named the suit of its facedown card {right} times of 40"


# Player 1 gives a card to player 2 (and is told which), then player 2 passes one of its two cards
# on to player 3, in secret. Player 1 may believe its card is still with player 2 — it cannot know
# whether it was passed on.
PASSED_ON = small_game("Pass on", 3, """
    player state points: number = 0
    score(p) = p.points
    flow:
        shuffle deck
        deal 1 from deck to hand
        player 1 chooses c from (player 1).hand as "give"
        move c to (player 2).hand
        announce to player 1 "You give {c} to Player 2."
        player 1 chooses r from ["go on", "wait"] as "ready"
        player 2 chooses d from (player 2).hand as "pass on"
        move d to (player 3).hand
        player 1 chooses g from ["Player 2", "Player 3"] as "who holds it?"
        if g == "Player 2" and any(x in (player 2).hand where x == c) or g == "Player 3" and any(x in (player 3).hand where x == c):
            (player 1).points += 1
""")


@pytest.mark.parametrize("bot", ["greedy", "ismcts:30"])
def test_a_card_passed_on_in_secret_is_believed_where_the_seat_saw_it_go(bot):
    """Player 2 keeps the given card half the time: a bot that followed it would be right every time."""
    g = load_game_text(PASSED_ON, 3, path="pass.rules", allow_leaks=True)
    right = wins(g, [bot, "random", "random"])[0]
    assert 8 <= right <= 32, f"{bot} knew where its card went {right} times of 40"


def test_the_copy_is_the_same_whether_the_card_was_passed_on_or_kept():
    """Two games alike to player 1 but for player 2's secret choice give player 1 the same copies,
    its card in player 2's hand in both (``Memory``'s beliefs, ``observe.resample``)."""
    import random
    from rulesrun.interpreter.bots.agents import Memory, determinise
    from rulesrun.interpreter.runtime.observe import observe
    g = load_game_text(PASSED_ON, 3, path="pass.rules", allow_leaks=True)
    for seed in range(4):
        worlds = []
        for passed in (0, 1):
            s = g.new_initial_state(seed=seed)
            memory = Memory(0)
            memory.update(s)
            s.apply_action(0)               # give
            memory.update(s)
            s.apply_action(0)               # ready
            s.apply_action(passed)          # player 2 passes the given card, or its own
            worlds.append((s, memory.update(s)))
        (a, ka), (b, kb) = worlds
        given = next(iter(ka.where.keys() - set(a.z[a._prog.families["hand"]])))
        assert observe(a, 0) == observe(b, 0) and ka.where == kb.where
        assert {a.loc[given], b.loc[given]} == {a._prog.families["hand"] + 1, a._prog.families["hand"] + 2}
        da, db = determinise(a, 0, random.Random(7), ka), determinise(b, 0, random.Random(7), kb)
        assert da == db
        assert da.loc[given] == a._prog.families["hand"] + 1        # with player 2, where it was given


def test_a_card_believed_in_a_facedown_zone_of_ones_own_is_put_there():
    """A facedown zone is unseen by its owner too: a card believed there but really elsewhere (out
    of the seat's sight) is placed there in the copy, like one believed in another seat's hand."""
    import random
    from rulesrun.interpreter.bots.agents import Known
    from rulesrun.interpreter.runtime.observe import _beliefs, resample
    g = load_game_text(small_game("Stash", 2, """
        zone stash per player: facedown
        flow:
            shuffle deck
            deal 2 from deck to hand
            move top(deck) to (player 1).stash
            player 1 chooses c from ["go on", "wait"] as "ready"
    """), 2, path="stash.rules")
    s = g.new_initial_state(seed=3)
    prog = g.program
    stash = prog.families["stash"]                  # player 1's facedown stash
    card = s.z[prog.families["hand"] + 1][0]        # really in player 2's hand
    known = Known([card])
    known.where = {card: stash}
    assert _beliefs(s, 0, known) == (set(), [(card, stash)])
    copy = resample(s, 0, random.Random(1), known)
    assert copy.loc[card] == stash
