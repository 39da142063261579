"""The engine's speed paths: each one keeps play exactly as it was (tests/dsl/test_equivalence.py checks
every step of seeded games; these check the shapes and the edge cases on their own)."""
from __future__ import annotations

import ast
import random
import sys

import pytest

from rulesrun.dsl.errors import Pos
from rulesrun.dsl.ir import K, Comp, Local, St, compare, sub
from rulesrun.dsl.passes import fastpaths
from rulesrun.interpreter import GameError, load_game, load_game_text

from tests.support import ROOT  # noqa: E402
sys.path.insert(0, str(ROOT))
P = Pos("t.rules", 1, 1)
TABLE = ["Red", "Blue", "Red", "Green"]


def test_a_list_of_the_items_whose_attribute_equals_a_value_becomes_a_filter_over_a_set():
    x = Local(1, "temp")
    node = Comp("list", x, x, sub(St("z"), K(0)), compare(sub(K(TABLE), x), "==", Local(0, "frame")))
    out = fastpaths.run(node)
    # list(filter(by_colour[l0], S.z[0])): by_colour[v] is the bound membership test of a frozenset
    assert out.func.id == "list" and out.args[0].func.id == "filter"
    members = out.args[0].args[0]
    index = members.value.value
    assert index["Red"].__self__ == {0, 2} and index["Blue"].__self__ == {1}
    assert index["Purple"].__self__ == frozenset() and index["Red"].__name__ == "__contains__"
    assert list(filter(index["Red"], [3, 2, 1, 0])) == [2, 0]     # the zone's order
    # the value on the left works too; a value that depends on the item does not
    flipped = Comp("list", x, x, sub(St("z"), K(0)), compare(Local(0, "frame"), "==", sub(K(TABLE), x)))
    assert fastpaths.run(flipped).args[0].func.id == "filter"
    same = Comp("list", x, x, sub(St("z"), K(0)), compare(sub(K(TABLE), x), "==", sub(K(TABLE), x)))
    assert fastpaths.run(same) is same


def test_follow_suit_if_able_is_generated_as_a_set_test_and_still_follows_suit():
    game = load_game(ROOT / "games" / "magic_shop.rules", players=4)
    source = "\n".join(game.program.code.sources.values())
    assert "[*filter(" in source and "_contains[l" in source and ".__contains__" not in source
    rng = random.Random(5)
    state = game.new_initial_state(seed=5)
    checked = 0
    while not state.is_terminal():
        trick = state.cards("trick")
        if state.decision_label() == "play" and trick:
            led = trick[0].split()[0]
            hand = state.cards("hand", state.current_player())
            follow = [c for c in hand if c.split()[0] == led]
            assert [a.text.removeprefix("play ") for a in state.legal_actions()] == (follow or hand)
            checked += 1
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])
    assert checked > 50


MOVE_ALL = """
game "T"
players 2
cards:
    n: number
    for n in 1 to 6
zone deck: public
zone pile: public
zone hand per player: public
flow:
    deal 2 from deck to hand
    move top(deck) to pile
    move every card to pile
    announce "{size(pile)} {size(deck)} {size(player 1.hand)}"
    player 1 chooses c from pile as "take"
    move c to player 1.hand
"""


def test_moving_every_card_empties_the_other_zones_and_keeps_the_order_of_the_cards():
    game = load_game_text(MOVE_ALL, players=2)
    state = game.new_initial_state(seed=1)
    assert state.log()[-1] == "6 0 0"
    assert state.cards("pile") == [game.card_name(c) for c in range(6)]       # every card in card order
    assert state.loc == [game.program.zone_index["pile"]] * 6
    state.apply_action(0)
    assert state.cards("hand", 0) == [game.card_name(0)]


def test_apply_index_checks_its_number_and_the_end():
    game = load_game(ROOT / "games" / "magic_shop.rules", players=3)
    state = game.new_initial_state(seed=1)
    n = state.num_legal_actions()
    assert n == len(state.legal_actions()) > 0
    for bad in (n, -1):
        with pytest.raises(GameError, match="out of range"):
            state.apply_index(bad)
    while not state.is_terminal():
        state.apply_index(state.num_legal_actions() - 1)
    assert state.num_legal_actions() == 0 and state.history() == []
    with pytest.raises(GameError, match="game is over"):
        state.apply_index(0)


ZONE_MOVES = """
game "T"
players 2
cards:
    n: number
    for n in 1 to 6
zone deck: public
zone pile: public
zone spare: public
zone hand per player: public
flow:
    deal 2 from deck to hand
    move spare to pile
    move deck to pile
    move pile to pile
    move (player 1).hand to (player 2).hand
    move pile to (player 1 if size(pile) > 0 else player 2).hand
    announce "{size(deck)} {size(pile)} {size(spare)} {size((player 1).hand)} {size((player 2).hand)}"
    player 1 chooses c from (player 1).hand as "take"
    move c to pile
"""


def test_a_zone_moved_whole_is_written_out_and_moves_as_move_zone_did():
    game = load_game_text(ZONE_MOVES, players=2)
    source = "\n".join(game.program.code.sources.values())
    assert "move_zone(" not in source and ".extend(_m)" in source
    state = game.new_initial_state(seed=3)
    # the empty zone moved nothing; the deck went onto the pile, the pile onto itself kept its 2
    # cards, hand 1 went to hand 2, and the pile's destination was worked out before it was emptied
    assert state.log()[-1] == "0 0 0 2 4"
    prog = game.program
    for zi, zone in enumerate(state.z):                  # every card is where loc says
        assert all(state.loc[c] == zi for c in zone)
    dealt = state.history()          # no decision yet
    assert dealt == [] and sorted(c for z in state.z for c in z) == list(range(6))
    hand2 = state.cards("hand", 1)
    assert len(hand2) == 4 and state.cards("pile") == [] and prog.zone_index["pile"] not in list(state.loc)


def test_compile_emit_prints_the_generated_python_and_its_constants(capsys):
    import ast as pyast

    from rulesrun.interpreter.cli.main import main
    assert main(["compile", str(ROOT / "games" / "magic_shop.rules"), "--players", "4", "--emit"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# Python generated for The Magic Shop, 4 players")
    assert "def _R0_0(S, F):" in out and "magic_shop.rules: flow>" in out
    assert "# _k9_getitem = _k9.__getitem__" in out and "_contains = {" in out
    pyast.parse(out)                 # the listing is Python (the constants are comments)


def test_compile_emit_is_the_same_text_in_every_run():
    """No memory address in the constants (a method of a table shows as ``_k9.__getitem__``, of
    a table that is no constant as ``<frozenset>.__contains__``), and nothing in the hash seed's
    order: two runs print the same listing, so listings can be compared across changes."""
    import os
    import subprocess
    outs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        r = subprocess.run([sys.executable, "-m", "rulesrun.interpreter.cli.main", "compile", "examples/big_two.rules",
                            "--players", "4", "--emit"], cwd=ROOT, env=env, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    assert " at 0x" not in outs[0]
    assert "Plan(((" in outs[0] and ".__getitem__)" in outs[0]   # (they held addresses)
