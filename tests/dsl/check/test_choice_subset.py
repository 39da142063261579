"""A choice block whose pick is a subset or a combination (`subset NAME from SOURCE ... such that
...:` beside named moves — docs/language.md, "A choice with named moves"): the same options as
`chooses subset`, the moves beside them, the errors, and everything else that reads a choice block
(rulebook, diagram, coverage, language server, information-flow check, bridges' action ids)."""
from __future__ import annotations

import json
import random
import textwrap

import pytest

from rulesrun.dsl import RulesError, RulesRuntimeError
from rulesrun.interpreter import State
from rulesrun.interpreter.runtime.observe import resample
from tests.support import ROOT
from tests.support import tiny_game, tiny_header

HEADER = tiny_header("Climb", 2, "Diamonds, Clubs, Hearts, Spades", 13, "{rank}{suit}",
                     ("deck: facedown", "hand per player: owner", "table: public"), "state passes: number = 0\n")

# Two players climb: play a higher set of one rank, as many cards as the table, or pass.
CLIMB = """
define one_rank(s) = size(s) >= 1 and same(c.rank for c in s)
define beats(s) = size(s) == size(table) and one_rank(s) and leading(c.rank for c in s) > max(c.rank for c in table)
flow:
    shuffle deck
    deal 13 from deck to hand
    let p = player 1
    while passes < 1:
        p chooses:
            subset play from p.hand such that (empty(table) and one_rank(play)) or beats(play) as "play":
                move table to deck
                move play to table
                passes = 0
                announce "{p} plays {play}."
            "pass" if not empty(table):
                passes += 1
                announce "{p} passes."
        p = left(p)
    end game
"""

SAME = """
flow:
    shuffle deck
    deal 13 from deck to hand
    player 1 chooses subset play from player 1.hand such that COND as "play"
    move play to table
    player 1 chooses:
        subset play2 from player 1.hand such that COND2 as "play":
            move play2 to table
        "pass":
            pass
    end game
"""


def make(body: str, header: str = HEADER, allow_leaks: bool = True):
    return tiny_game(body, header=header, allow_leaks=allow_leaks)


def texts(state) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def test_a_subset_pick_offers_the_combinations_then_the_moves():
    g = make(CLIMB)
    s = g.new_initial_state(seed=3)
    first = texts(s)
    assert "pass" not in first                      # the table is empty: no move is offered
    assert all(a.startswith("play ") for a in first)
    pair = next(a for a in first if a.count(",") == 1)
    s.apply_action(pair)
    assert s.log()[-1] == f"Player 1 plays {pair[len('play '):]}." and len(s.cards("table")) == 2
    answers = texts(s)
    assert answers[-1] == "pass"                     # the moves come after the pick, as written
    assert all(a.count(",") == 1 for a in answers[:-1])     # as many cards as the table
    s.apply_action("pass")
    assert s.log()[-1] == "Player 2 passes." and s.is_terminal()


@pytest.mark.parametrize("seed", range(4))
def test_the_options_are_those_of_chooses_subset(seed):
    """The same condition, as a statement and as a choice block's pick: the same options in the same
    order (generated from the shapes), and the block adds its move after them."""
    cond = "(size(play) == 2 and same(c.rank for c in play)) or size(play) == 1 or " \
           "(size(play) == 5 and run(c.rank for c in play))"
    body = SAME.replace("COND2", cond.replace("play", "play2")).replace("COND", cond)
    g = make(body)
    s = g.new_initial_state(seed=seed)
    plain = texts(s)
    assert len(plain) > 13
    s.apply_action(plain[0])
    block = texts(s)
    rest = [a for a in plain if s.cards("table")[0] not in a[len("play "):].split(", ")]
    assert block == rest + ["pass"]


def test_when_no_subset_qualifies_only_the_moves_are_offered():
    g = make(SAME.replace("COND2", "size(play2) == 14").replace("COND", "size(play) == 1"))
    s = g.new_initial_state(seed=1)
    s.apply_action(texts(s)[0])
    assert texts(s) == ["pass"]
    s.apply_action("pass")
    assert s.is_terminal()


def test_nothing_at_all_to_choose_is_the_usual_runtime_error():
    body = SAME.replace("COND2", "size(play2) == 14").replace("COND", "size(play) == 1") \
        .replace('"pass":', '"pass" if no:')
    with pytest.raises(RulesRuntimeError, match="Player 1 has nothing to choose from"):
        s = make(body).new_initial_state(seed=1)
        s.apply_action(texts(s)[0])


def test_where_and_a_label_that_shows_the_subset():
    g = make("""
        flow:
            shuffle deck
            deal 13 from deck to hand
            player 1 chooses:
                "wait":
                    pass
                subset two from player 1.hand where c.suit == Spades such that size(two) == 2 as "lay {two} down":
                    move two to table
            end game
    """.replace("c.suit", "two.suit"))
    s = g.new_initial_state(seed=2)
    spades = [c for c in s.cards("hand", 0) if c.endswith("Spades")]
    got = texts(s)
    assert got[0] == "wait" and len(got) == 1 + len(spades) * (len(spades) - 1) // 2
    assert all(a.startswith("lay ") and a.endswith(" down") and a.count("Spades") == 2 for a in got[1:])
    s.apply_action(got[1])
    assert sorted(s.cards("table")) == sorted(got[1][len("lay "):-len(" down")].split(", "))


def test_a_subset_pick_survives_clone_json_replay_and_resampling():
    g = make(CLIMB)
    s = g.new_initial_state(seed=5)
    s.apply_action(texts(s)[0])
    t = State.from_json(g, json.loads(json.dumps(s.to_json())))
    assert t == s and texts(t) == texts(s)
    assert s.clone() == s and g.replay(5, s.history()) == s
    twin = resample(s, 1, random.Random(5), redraw=True)
    assert texts(twin) == texts(s)
    s.apply_action(texts(s)[0])
    t.apply_action(texts(t)[0])
    assert t == s


@pytest.mark.parametrize("body, message, line", [
    ("""
    flow:
        player 1 chooses:
            subset s from table such that 3:
                pass
            "pass":
                pass
    """, "a 'such that' condition must be a yes/no, but this is a number", 3),
    ("""
    flow:
        player 1 chooses:
            subset s from table such that size(s) == 1:
                pass
            "pass" if size(s) == 0:
                pass
    """, "the move's condition reads 's', which is chosen by this choice", 5),
    ("""
    flow:
        player 1 chooses:
            c from table such that size(c) == 1:
                pass
            "pass":
                pass
    """, "expected ',', ':', 'as' or 'where' after 'table', but found 'such'", 3),
])
def test_misuse_is_a_compile_error_at_its_place(body, message, line):
    with pytest.raises(RulesError) as err:
        make(body)
    assert message in err.value.message
    assert err.value.pos.line == HEADER.count("\n") + 1 + line      # the line of the body (flow: is 1)


def test_such_that_without_subset_gets_a_hint():
    with pytest.raises(RulesError) as err:
        make("""
            flow:
                player 1 chooses:
                    c from table such that size(c) == 1:
                        pass
        """)
    assert "subset NAME from" in err.value.hint


def test_the_rulebook_the_diagram_coverage_and_the_language_server_read_it():
    from rulesrun.dsl.syntax.parser import parse_text
    from rulesrun.interpreter.checking.coverage import branches_of
    from rulesrun.interpreter.authoring.diagram import to_dot
    from rulesrun.interpreter.authoring.lsp_index import Index
    from rulesrun.interpreter.authoring.rulebook import rulebook_text
    text = HEADER + textwrap.dedent(CLIMB)
    rules = parse_text(text, "t.rules")
    assert sorted(b.kind for b in branches_of(rules)).count("option") == 2
    dot = to_dot(list(rules.items))
    assert "play (subset) / pass" in dot
    book = rulebook_text(make(CLIMB))
    assert "makes one choice of these" in book and "any number of cards (play) from" in book
    assert "such that" in book and "“pass” (offered when" in book
    line = text.splitlines().index("                move play to table") + 1
    local = next(s for s in Index(rules).locals_at(line) if s.name == "play")
    assert local.detail == "list of card"


def test_the_information_flow_check_follows_the_chosen_subset():
    """Announcing the cards chosen from a hand leaks them — unless they were laid on the table first."""
    leaky = """
        flow:
            shuffle deck
            deal 3 from deck to hand
            player 1 chooses:
                subset s from player 1.hand such that size(s) == 2 as "give":
                    move s to player 2.hand
                    announce "Player 1 gives {s}."
                "keep":
                    pass
            end game
    """
    with pytest.raises(RulesError) as err:
        make(leaky, allow_leaks=False)
    assert "a card chosen from" in err.value.message
    make(leaky.replace("move s to player 2.hand", "move s to table"), allow_leaks=False)


def test_the_bridges_give_ids_to_the_elements_done_and_the_moves():
    pytest.importorskip("numpy", reason="the bridges need numpy (pip install 'rulesrun[gym]')")
    from rulesrun.interpreter.bridges import ActionSpace, Table
    g = make(CLIMB)
    space = ActionSpace(g)
    grp = space.groups[0]
    names = [space.text(i) for i in range(space.num_actions)]
    assert names[-2:] == ["pass", "play: done"] and names[0].startswith("play: add ")
    rng = random.Random(4)
    table = Table(space, g.new_initial_state(seed=4))
    twin = g.new_initial_state(seed=4)
    passes = 0
    while not table.is_terminal():
        legal = twin.legal_actions()
        move = grp.offset + grp.index[("<move>", "pass")]
        assert (move in table.legal_ids()) == ("pass" in legal)
        index = rng.randrange(len(legal))
        ids = table.id_of(index)
        for a in ids:
            assert a in table.legal_ids()
            table.apply_id(a)
            assert move not in table.legal_ids() or not table.partial
        passes += legal[index] == "pass"
        twin.apply_action(index)
        assert table.state == twin
    assert passes == 1


def test_openspiel_plays_big_two_by_ids():
    """OpenSpiel's random-simulation test on Big Two, whose turn is a combination or the move "pass"."""
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'rulesrun[openspiel]')")

    from rulesrun.interpreter.bridges.openspiel import load_game
    game = load_game(ROOT / "examples/big_two.rules", players=4)
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.filterwarnings("ignore")      # PettingZoo's advice about Dict observations
def test_pettingzoo_api_test_on_president():
    pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install 'rulesrun[pettingzoo]')")

    from pettingzoo.test import api_test

    from rulesrun.interpreter.bridges.pettingzoo import env
    api_test(env(ROOT / "examples/president.rules", 4, ()), num_cycles=300)


def test_a_moves_condition_may_use_the_picks_name_for_a_comprehensions_own():
    # the 'c' of [c for c in ...] is the comprehension's, not the card this choice picks
    game = tiny_game("""\
        flow:
            move every card to pile
            player 1 chooses:
                c from pile where c.rank == 4:
                    announce "picked {c}"
                "pass" if size([c for c in pile where c.rank == 1]) > 0:
                    announce "passed"
        """, allow_leaks=False)
    state = game.new_initial_state(seed=1)
    texts = [a.text for a in state.legal_actions()]
    assert "pass" in texts and len(texts) == 4
