"""Hot-seat play of simultaneous choices: the seats are asked in seat order, and the screen the next
player sees, after the pass screen, shows nothing of the pick the one before made."""
from __future__ import annotations

import io

from rulesrun.interpreter import load_game_text
from rulesrun.interpreter.terminal.hotseat import CLEAR_SCROLLBACK
from rulesrun.interpreter.terminal.repl import Repl
from tests.support import feed

LAY = """
game "Lay"
players 2
cards:
    rank: number
    shown as "card {rank}"
    for rank in 1 to 8
zone deck: facedown
zone hand per player: owner
zone table: public
flow:
    deal 4 from deck to hand
    for p in players at once:
        p chooses c from p.hand as "lay"
    then:
        move c to table
        announce "{p} lays {c}."
"""


def test_the_next_seat_sees_nothing_of_the_pick_before_its_own():
    game = load_game_text(LAY, 2)
    state = game.new_initial_state(seed=3)
    first = str(state.legal_actions()[0])           # what Player 1 will lay
    card = first[len("lay "):]
    out = io.StringIO()
    repl = Repl(game, state, ["human", "human"], 3, out=out, readline=feed([first, "", "lay card 8", "quit"]),
                interactive=True)
    repl.run()
    text = out.getvalue()
    screen = text.split("Pass to Player 2")[1]
    at_keyboard = screen.split(CLEAR_SCROLLBACK)[-1].split("Player 2>")[0]   # after the pass screen's clearing
    assert CLEAR_SCROLLBACK in text.split("Pass to Player 2")[0]           # Player 1's screen was cleared
    assert "Player 2, lay" in at_keyboard
    assert card not in at_keyboard and "lays" not in at_keyboard
    assert repl.state.history()[0] == first
