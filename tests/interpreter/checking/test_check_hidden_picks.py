"""``check`` and simultaneous choices: the twin test that chooses another seat's pending pick
otherwise (``leaks.pick_twin_leak``), and the report's count of the steps each comparison made."""
import io
import random
import textwrap

from rulesrun.interpreter.checking import run_check
from rulesrun.interpreter.checking.leaks import Leak, pick_twin_leak

from tests.support import ROOT, TINY, tiny_game

# Player by player, each keeps a card and — only when it is high — is asked once more: whose turn
# it is then tells the others about the card kept (the compiler refuses it unless leaks are allowed).
ASKED_AGAIN = """\
flow:
    shuffle deck
    deal 3 from deck to hand
    for p in players at once:
        p chooses c from p.hand as "keep"
        if c.rank > 2:
            p chooses n from [1, 2] as "how many"
    then:
        move c to pile
"""


def _play(game, seed):
    s = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    indices = []
    while not s.is_terminal():
        i = rng.randrange(s.num_legal_actions())
        indices.append(i)
        s.apply_index(i)
    return indices


def test_a_pick_that_decides_whose_turn_it_is_is_found_by_the_pick_twin():
    g = tiny_game(ASKED_AGAIN, players=2, allow_leaks=True)
    found = []
    for seed in range(30):
        try:
            pick_twin_leak(g, seed, _play(g, seed), 1, random.Random(seed))
        except Leak as e:
            found.append(e.message)
    assert found and all("another player chose in an 'at once' block" in m for m in found)
    assert any("to_move" in m or "decision" in m for m in found)


def test_the_honest_goofspiel_shows_nothing_of_a_pending_bid_and_compares_steps():
    from rulesrun import load_game
    g = load_game(ROOT / "examples/goofspiel.rules", players=3, params={"cards_per_suit": 5})
    compared = 0
    for seed in range(20):
        compared += pick_twin_leak(g, seed, _play(g, seed), seed % 3, random.Random(seed))
    assert compared >= 10


def test_the_report_says_how_many_steps_each_twin_test_compared():
    out, err = io.StringIO(), io.StringIO()
    assert run_check(str(ROOT / "examples/goofspiel.rules"), players="2", games=6, coverage=False,
                     params={"cards_per_suit": 4, "points_order": "descending"}, out=out, err=err) == 0
    text = out.getvalue()
    line = next(x for x in text.splitlines() if "'at once' block" in x)
    assert "tries" in line and "steps compared" in line and " 0 steps" not in line


def test_a_twin_test_that_compared_nothing_fails(tmp_path):
    # the hands are dealt without a shuffle: no deal of the unseen cards can differ, and nothing is compared
    path = tmp_path / "fixed.rules"
    path.write_text(TINY + textwrap.dedent("""\
        flow:
            deal 2 from deck to hand
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
        """))
    out = io.StringIO()
    assert run_check(str(path), players="2", games=3, coverage=False, out=out, err=io.StringIO()) == 1
    assert "FAILED, COMPARED NOTHING" in out.getvalue() and out.getvalue().startswith("FAILED")
    assert "not applicable: no 'at once' block" in out.getvalue()


def test_a_twin_test_that_compared_nothing_in_one_configuration_fails_naming_it(tmp_path):
    # shuffled, the twin compares; unshuffled (shuffled=no), no other deal can differ: the run fails
    # although the total over both configurations compared steps
    path = tmp_path / "partly.rules"
    path.write_text(TINY.replace('players 2 to 4', 'players 2') + textwrap.dedent("""\
        param shuffled: yes/no = yes
        flow:
            if shuffled:
                shuffle deck
            deal 2 from deck to hand
            for p in players:
                p chooses c from p.hand as "play"
                move c to pile
        """))
    out = io.StringIO()
    assert run_check(str(path), games=3, coverage=False, out=out, err=io.StringIO()) == 1, out.getvalue()
    line = next(x for x in out.getvalue().splitlines() if "dealt differently" in x)
    assert "FAILED, COMPARED NOTHING in 2 players, shuffled=no:" in line, line
    assert "steps compared in the other configurations" in line and " 0 steps" not in line, line
