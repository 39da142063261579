"""Private announcements (`announce to p "..."`): told to one seat, and nobody else sees them —
not in observations, nor in the log a seat reads, nor in what bots may remember."""
from __future__ import annotations


from rulesrun.interpreter import State, load_game_text
from rulesrun.interpreter.runtime.observe import announced_cards
from tests.support import WHISPER

RULES = WHISPER + '    player 1 chooses x from [1] as "done"\n'


def test_a_private_announcement_reaches_its_seat_only():
    g = load_game_text(RULES, 3, path="whisper.rules")
    s = g.new_initial_state(seed=2)
    mine = s.cards("hand", 0)[0]
    assert s.log(0) == [f"You draw {mine}.", "Player 1 draws a card.", "Player 2 draws a card.",
                        "Player 3 draws a card."]
    assert s.log() == ["Player 1 draws a card.", "Player 2 draws a card.", "Player 3 draws a card."]
    assert f"You draw {mine}." not in s.observation(1)["log"] and f"You draw {mine}." in s.observation(0)["log"]
    assert s.log(everything=True)[0] == f"(to Player 1) You draw {mine}."
    # bots remember only what their seat heard
    c0 = g.card_id(mine)
    assert c0 in announced_cards(s, seat=0) and c0 not in announced_cards(s, seat=1)
    # saved and read back, and a determinised copy keeps the seat's own whisper
    assert State.from_json(g, s.to_json()).log(0) == s.log(0)


def test_a_private_announcement_needs_a_player():
    import pytest
    from rulesrun.dsl import RulesError
    with pytest.raises(RulesError) as err:
        load_game_text(RULES.replace("announce to p", "announce to 3"), 3, path="whisper.rules")
    assert "who an announcement is told to must be a player" in err.value.message
