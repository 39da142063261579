"""The picks of an open 'at once' block are seen by their seat alone: a bot's determinisation
(``resample(..., redraw=True)``) draws another seat's pending pick again from its options, and
keeps the seat's own."""
import random

from rulesrun.interpreter.runtime.observe import resample

from tests.support import tiny_game

# Four cards face up on the pile; every player at once says which one they want.
WANT = """\
flow:
    shuffle deck
    repeat 4 times:
        move top(deck) to pile
    for p in players at once:
        p chooses c from pile as "want"
    then:
        announce "{p} wants {c}."
"""


def _wanted_by_player_1(state) -> str:
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    return next(line for line in state.log() if line.startswith("Player 1 wants"))


def test_another_seats_pending_pick_is_drawn_again_from_its_options_and_ones_own_is_kept():
    g = tiny_game(WANT, players=2, allow_leaks=False)
    s = g.new_initial_state(seed=3)
    pile = [str(a)[len("want "):] for a in s.legal_actions()]
    s.apply_action(s.legal_actions()[2])          # Player 1 wants the third card of the pile
    truth = f"Player 1 wants {pile[2]}."
    theirs = {_wanted_by_player_1(resample(s, 1, random.Random(k), redraw=True)) for k in range(40)}
    mine = {_wanted_by_player_1(resample(s, 0, random.Random(k), redraw=True)) for k in range(40)}
    assert mine == {truth}
    assert len(theirs) > 2 and theirs <= {f"Player 1 wants {c}." for c in pile}


def test_once_the_block_closes_nothing_is_drawn_again():
    g = tiny_game(WANT + '    player 1 chooses x from [1, 2] as "end"\n', players=2, allow_leaks=False)
    s = g.new_initial_state(seed=3)
    s.apply_action(s.legal_actions()[2])
    s.apply_action(s.legal_actions()[0])
    assert s.at_once is None and s.decision_label() == "end"
    copies = {tuple(resample(s, 1, random.Random(k), redraw=True).log()) for k in range(10)}
    assert copies == {tuple(s.log())}
