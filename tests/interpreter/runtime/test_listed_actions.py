"""Options that are sets of cards (a ``chooses subset`` of a zone, a choice block's subset beside
named moves) whose texts can never read alike: the compiler says so (``Decision.unique_texts``),
and the engine offers each seat's Actions kept by the set (``Game._listed``), without numbering
them or looking them up through ``Game._legal``'s general path. Each check here fails if two
options could read alike and were not numbered, or if taking an Action lost its option."""
from __future__ import annotations

import random
import sys
import textwrap

import pytest

from rulesrun.interpreter import GameError, load_game, load_game_text
from rulesrun.interpreter.runtime.engine import Game

from tests.support import ROOT  # noqa: E402
sys.path.insert(0, str(ROOT))
from tests.support import SMALL_CARDS  # noqa: E402

FLOW = textwrap.dedent("""
    flow:
        shuffle deck
        deal 4 from deck to hand
        for p in players:
            p chooses:
                subset play from SOURCE such that size(play) == 2 as "play":
                    move play to pile
                "pass":
                    announce "{p} passes."
    score(p) = size(p.hand)
""")


def _game(cards: str = SMALL_CARDS, source: str = "p.hand"):
    return load_game_text(f'game "Sets"\nplayers 2\n{cards}' + FLOW.replace("SOURCE", source), 2,
                          path="t.rules", allow_leaks=True)


def test_sets_of_a_zones_cards_with_distinct_names_never_read_alike():
    game = _game()
    assert [d.unique_texts for d in game.program.decisions] == [True]
    assert game._listed[0] is not None
    big_two = load_game(ROOT / "examples" / "big_two.rules", players=4)
    assert all(d.unique_texts for d in big_two.program.decisions)


@pytest.mark.parametrize("change, why", [
    (lambda c: c.replace("{suit: s, rank: r} for s in Suit, r in 1 to 6",
                         '{suit: s, rank: r} for s in Suit, r in 1 to 6\n    shown as "card {rank}"'),
     "two cards with one name"),
    (lambda c: c.replace("{suit: s, rank: r} for s in Suit, r in 1 to 6",
                         '{suit: s, rank: r} for s in Suit, r in 1 to 6\n    shown as "{suit}, {rank}"'),
     "a name that reads as two"),
])
def test_sets_that_could_read_alike_are_numbered(change, why):
    game = _game(change(SMALL_CARDS))
    assert [d.unique_texts for d in game.program.decisions] == [False], why
    assert game._listed[0] is None


def test_sets_of_a_list_may_hold_a_card_twice_and_are_numbered():
    game = _game(source="[c for c in p.hand] + [c for c in p.hand]")
    assert [d.unique_texts for d in game.program.decisions] == [False]
    s = game.new_initial_state(seed=3)
    texts = [str(a) for a in s.legal_actions()]
    assert len(texts) == len(set(texts))        # numbered: "play Red 1, Red 1" once, then "(2)"


def test_the_listed_actions_are_kept_by_the_set_and_taken_by_action_text_or_number():
    game = _game()
    for how in ("action", "text", "index"):
        s = game.new_initial_state(seed=5)
        first = s.legal_actions()
        again = s.legal_actions()
        assert first == again and all(a is b for a, b in zip(first, again))
        assert first[-1] == "pass" and all(str(a).startswith("play ") for a in first[:-1])
        assert len(first) == 6 + 1                # two of four cards, or pass
        first.reverse()                            # the caller's list is its own
        pick = first[3]
        chosen = pick if how == "action" else str(pick) if how == "text" else s.legal_actions().index(pick)
        hand = list(s.z[2])
        s.apply_action(chosen)
        played = [game.card_name(c) for c in s.z[1]]
        assert str(pick) == "play " + ", ".join(played)
        assert sorted(s.z[2] + s.z[1]) == sorted(hand)
        assert s.history() == [str(pick)]


def test_an_action_of_another_seat_or_state_is_refused():
    game = _game()
    s = game.new_initial_state(seed=5)
    mine = s.legal_actions()[0]
    s.apply_action("pass")
    assert s.current_player() == 1
    assert mine not in s.legal_actions()        # player 2 holds none of player 1's cards
    with pytest.raises(GameError, match="not a legal action"):
        s.apply_action(mine)


def test_big_two_plays_the_same_games_by_action_and_by_text():
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    for seed in range(6):
        a, b = game.new_initial_state(seed=seed), game.new_initial_state(seed=seed)
        rng = random.Random(seed)
        while not a.is_terminal():
            acts = a.legal_actions()
            assert len(set(map(str, acts))) == len(acts)
            pick = acts[rng.randrange(len(acts))]
            a.apply_action(pick)
            b.apply_action(str(pick))
            assert a == b
        assert a.returns() == b.returns()


def test_a_set_of_cards_reads_as_its_names_and_a_missing_card_as_nothing():
    """The text of a list of cards (names joined in C) reads as it did item by item."""
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    lead = next(d for d in game.program.decisions if d.label == "play")
    names = game.program.card_names
    assert lead.display([0, 5, 51]) == ", ".join([names[0], names[5], names[51]])
    assert lead.display([]) == "nothing"
    assert lead.display([3, None]) == f"{names[3]}, nothing"


def test_a_set_is_kept_from_the_second_time_it_is_offered(monkeypatch):
    """Sets offered once (most five-card sets of a long Big Two run) are not kept: each kept Action
    is one more object every full garbage collection walks. The second time, the set is kept, and
    the third time its Action is the kept one."""
    from rulesrun.interpreter.runtime import actions
    monkeypatch.setattr(actions, "MARKS", 1 << 22)     # (two of the 7 sets sharing a mark: one in 600,000)
    game = _game()
    row = game._listed[0][0]
    s = game.new_initial_state(seed=5)
    first = s.legal_actions()
    assert len(row) == 0 and row.marks is not None and sum(row.marks) == len(first)
    second = game.new_initial_state(seed=5).legal_actions()
    assert second == first and len(row) == len(first) and not any(a is b for a, b in zip(first, second))
    third = game.new_initial_state(seed=5).legal_actions()
    assert all(a is b for a, b in zip(second, third))
    from rulesrun.interpreter.runtime import actions
    monkeypatch.setattr(actions, "KEPT", 0)     # none kept beyond the cap, marked or not
    game2 = _game()
    for _ in range(3):
        game2.new_initial_state(seed=5).legal_actions()
    assert len(game2._listed[0][0]) == 0


def test_a_set_taken_by_its_text_without_asking_for_the_actions_first():
    """apply_action with a text and no legal_actions() before: Game._legal lists the Actions (the
    same ones legal_actions() lists inline)."""
    game = _game()
    texts = [str(a) for a in game.new_initial_state(seed=5).legal_actions()]
    s = game.new_initial_state(seed=5)
    s.apply_action(texts[2])
    assert s.history() == [texts[2]]
    t = game.new_initial_state(seed=5)
    assert [str(a) for a in game._legal(t.pending)] == texts


def test_a_combinations_sets_are_offered_as_tuples_and_the_rules_get_each_as_a_list_of_its_own():
    """A combination's options are tuples (the keys its Actions are kept by); whichever way a set is
    taken — an Action, its text, ``apply_index`` — the rules are handed a new list of its cards
    (``put_down(p, play)`` sees it), and a named move its text."""
    program = load_game(ROOT / "examples" / "big_two.rules", players=4).program
    ns = program.code.ns
    put_down = next(name for name, fn in ns.items() if getattr(fn, "__code__", None) is not None
                    and fn.__code__.co_filename.endswith("procedure put_down>"))
    seen = []
    real = ns[put_down]
    ns[put_down] = lambda S, p, play: seen.append(play) or real(S, p, play)
    game = Game(program)
    for how in ("action", "text", "index"):
        s = game.new_initial_state(seed=4)
        rng = random.Random(4)
        for _ in range(30):
            opts = s.pending[2]
            assert all(type(o) is tuple or o == "pass" for o in opts)
            i = rng.randrange(len(opts))
            if how == "index":
                s.apply_index(i)
            else:
                a = s.legal_actions()[i]
                s.apply_action(a if how == "action" else str(a))
            if opts[i] == "pass":
                assert not seen
            else:
                v = seen.pop()
                assert type(v) is list and v == list(opts[i]) and not seen


def test_a_saved_state_with_a_combinations_sets_loads_equal_and_offers_the_same_actions():
    """Saved as JSON lists and read back as lists, the open decision still equals the tuples it was,
    its Actions read the same, and both states play on alike."""
    from rulesrun.interpreter.runtime.engine import State
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    s = game.new_initial_state(seed=9)
    rng = random.Random(9)
    for _ in range(25):
        s.apply_action(rng.choice(s.legal_actions()))
    while len(s.pending[2]) < 3:        # a decision with sets to choose from
        s.apply_action(rng.choice(s.legal_actions()))
    t = State.from_json(game, s.to_json())
    assert any(type(o) is list for o in t.pending[2]) and any(type(o) is tuple for o in s.pending[2])
    assert t == s and [str(a) for a in t.legal_actions()] == [str(a) for a in s.legal_actions()]
    for _ in range(10):
        i = rng.randrange(len(s.legal_actions()))
        s.apply_index(i)
        t.apply_action(t.legal_actions()[i])
        assert [str(a) for a in t.legal_actions()] == [str(a) for a in s.legal_actions()]


def test_a_named_move_beside_sets_is_kept_by_its_text():
    """'pass' is kept by its own text (no tuple of its letters made at every decision): from the
    second time a seat is offered it (_Actions.fill), the same Action every time."""
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    s = game.new_initial_state(seed=2)
    rng = random.Random(2)
    passes = []
    while not s.is_terminal() and len(passes) < 40:
        legal = s.legal_actions()
        passes += [a for a in legal if a == "pass"]
        s.apply_action(rng.choice(legal))
    rows = [game._listed[d] for d in range(len(game._listed)) if game._listed[d] is not None]
    assert len(passes) >= 40 and any("pass" in row for rs in rows for row in rs)
    by_seat: dict = {}
    for a in passes:
        by_seat.setdefault(a.player, []).append(a)
    for seat in by_seat.values():
        assert len(seat) >= 3 and all(a is seat[1] for a in seat[1:])
