"""beats(NEW, OLD, KEY[, BOMB]) (docs/language.md "Combinations"): comparing two combinations of the
same size by a key, with bombs; how a combination choice uses it (the size it implies, OLD's key
worked out once, a pure key remembered per program), and the errors for its misuse."""
from __future__ import annotations

import itertools

import pytest

from rulesrun.dsl import RulesError
from rulesrun.dsl.emit import combos
from tests.support import ROOT
from tests.support import tiny_game, tiny_header

HEADER = tiny_header("Beats", 2, "Diamonds, Clubs, Hearts, Spades", 13, "{rank} {suit}",
                     ("deck: facedown", "hand per player: owner", "pile: public"), """
    state bonus: number = 0
    state answer: yes/no = no
    define one_rank(s) = same(c.rank for c in s)
    define rank_of(s) = leading(c.rank for c in s)
    define top_rank(s) = max(c.rank for c in s)
    define four(s) = size(s) == 4 and one_rank(s)
""".lstrip("\n"))


def make(body: str):
    return tiny_game(body, header=HEADER)


def options(state):
    """The options as sorted lists of card names ([] for playing nothing)."""
    return sorted(sorted(t.split(", ")) if t != "nothing" else [] for t in
                  (a[len("play "):] for a in state.legal_actions()))


def parsed(name):
    r, s = name.split(" ")
    return s, int(r)


def brute(hand, ok, upto=None):
    """Every subset of the hand (of at most `upto` cards: a larger one cannot qualify), one by one."""
    out = []
    for k in range((len(hand) if upto is None else upto) + 1):
        for combo in itertools.combinations(hand, k):
            if ok(list(combo)):
                out.append(sorted(f"{r} {s}" for s, r in combo))
    return sorted(out)


def pile_game(pile: str, such: str, deal: int = 13, extra: str = ""):
    """Player 1 holds `deal` cards; the pile holds the cards `pile` selects; player 1 answers it."""
    return make(f"""
        {extra}
        flow:
            move [c in deck where {pile}] to pile
            shuffle deck
            move top(deck, {deal}) to player 1.hand
            player 1 chooses subset play from player 1.hand such that {such} as "play"
    """.replace("\n        ", "\n"))


# ── what it means ────────────────────────────────────────────────────────────

def test_the_runtime_rule_same_size_higher_key_and_bombs():
    def key(S, s):
        return max(s)

    def bomb(S, s):
        return len(s) == 4

    b = combos._beats
    assert b(None, [9], [5], key, None, None, None)                    # a higher single
    assert not b(None, [5], [9], key, None, None, None)                # a lower one
    assert not b(None, [5], [5], key, None, None, None)                # as high is not higher
    assert not b(None, [9, 9], [5], key, None, None, None)             # not as many cards
    assert b(None, [2, 2, 2, 2], [9], key, None, bomb, None)           # a bomb beats anything else
    assert not b(None, [9], [2, 2, 2, 2], key, None, bomb, None)       # and nothing else beats a bomb
    assert b(None, [3, 3, 3, 3], [2, 2, 2, 2], key, None, bomb, None)  # a higher bomb beats a lower
    assert not b(None, [2, 2, 2, 2], [3, 3, 3, 3], key, None, bomb, None)


@pytest.mark.parametrize("seed", range(6))
def test_the_options_are_those_of_trying_every_subset(seed):
    """'Cards of one rank, as many as on the pile and higher': a 13-card hand against the 7s pair."""
    game = pile_game("c.rank == 7 and c.suit in [Hearts, Spades]",
                     "empty(play) or (one_rank(play) and beats(play, pile, rank_of))")
    state = game.new_initial_state(seed=seed)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    want = brute(hand, lambda cs: not cs or (len(cs) == 2 and cs[0][1] == cs[1][1] and cs[0][1] > 7))
    assert options(state) == want


def bomb_game(pile: str):
    """Player 1 holds every card of ranks 1-4 and 11-13 (seven bombs) and answers the pile."""
    return make(f"""
        flow:
            shuffle deck
            move [c in deck where {pile}] to pile
            move [c in deck where c.rank <= 4 or c.rank >= 11] to player 1.hand
            player 1 chooses subset play from player 1.hand such that empty(play) or (one_rank(play) and beats(play, pile, rank_of, four)) as "play"
    """)


@pytest.mark.parametrize("seed", range(2))
def test_bombs_beat_any_play_and_only_a_higher_bomb_beats_a_bomb(seed):
    state = bomb_game("c.rank == 7 and c.suit == Hearts").new_initial_state(seed=seed)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    want = brute(hand, lambda cs: not cs or (len({r for _, r in cs}) == 1
                 and (len(cs) == 4 or (len(cs) == 1 and cs[0][1] > 7))), upto=5)
    assert options(state) == want
    assert sum(len(o) == 4 for o in want) == 7       # every bomb, the low ones too, beats a single 7
    state = bomb_game("c.rank == 12").new_initial_state(seed=seed)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    assert options(state) == [[], ["13 Clubs", "13 Diamonds", "13 Hearts", "13 Spades"]]


def test_beats_alone_says_the_size_so_a_large_hand_is_not_tried_subset_by_subset():
    """Without a shape, 30 cards would be 2**30 subsets (a runtime error); beats(play, pile, ...)
    holds only for as many cards as the pile, so only the pairs are generated."""
    lower = pile_game("c.rank == 3 and c.suit in [Hearts, Spades]", "beats(play, pile, top_rank)", deal=30)
    state = lower.new_initial_state(seed=3)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    want = brute(hand, lambda cs: len(cs) == 2 and max(r for _, r in cs) > 3, upto=3)
    assert options(state) == want and len(want) > 100


def test_beats_works_outside_a_choice_and_with_a_key_that_reads_the_state():
    """A key that reads the state is worked out each time (not remembered): the bonus counts."""
    game = make("""
        define scored(s) = sum(c.rank for c in s) + bonus
        flow:
            move [c in deck where c.rank == 5 and c.suit == Spades] to pile
            move [c in deck where c.rank == 4 and c.suit == Hearts] to player 1.hand
            answer = beats(player 1.hand, pile, scored)
            announce "first {answer}"
            bonus = 3
            answer = beats(player 1.hand, [c for c in pile], scored)
            announce "second {answer}"
            player 1 chooses c from player 1.hand as "play"
    """)
    state = game.new_initial_state(seed=0)
    # the bonus is added to both sides: 4 + b never beats 5 + b
    assert any("first no" in line for line in state.log()) and any("second no" in line for line in state.log())
    source = "\n".join(game.program.code.sources.values())
    assert "_beats(S," in source


def test_a_key_that_reads_only_the_cards_is_remembered_for_the_program():
    game = pile_game("c.rank == 7 and c.suit in [Hearts, Spades]", "one_rank(play) and beats(play, pile, rank_of)")
    game.new_initial_state(seed=1)
    memos = [v for v in game.program.code.ns.values() if isinstance(v, dict) and v
             and all(isinstance(k, tuple) for k in v)]
    assert memos, "rank_of reads only its cards: its values are kept"
    impure = pile_game("c.rank == 7 and c.suit in [Hearts, Spades]", "beats(play, pile, scored)",
                       extra="define scored(s) = sum(c.rank for c in s) + bonus")
    assert "(S, _z[" in "\n".join(impure.program.code.sources.values())
    impure.new_initial_state(seed=1)
    assert not [v for v in impure.program.code.ns.values() if isinstance(v, dict) and v
                and all(isinstance(k, tuple) and all(isinstance(x, int) for x in k) for k in v)]


def test_a_define_named_beats_takes_the_place_of_the_built_in():
    game = pile_game("c.rank == 7 and c.suit == Hearts", "beats(play)",
                     extra="define beats(s) = size(s) == 1 and max(c.rank for c in s) < 3")
    state = game.new_initial_state(seed=2)
    hand = [parsed(n) for n in state.cards("hand", 0)]
    assert options(state) == brute(hand, lambda cs: len(cs) == 1 and cs[0][1] < 3)


# ── the generated code: its quick paths ──────────────────────────────────────

def test_big_two_does_not_test_again_the_shape_its_sets_are_generated_from():
    from rulesrun.interpreter import load_game
    game = load_game(ROOT / "examples" / "big_two.rules", players=4)
    calls = [line for src in game.program.code.sources.values() for line in src.splitlines() if "_combos" in line]
    follow = [c for c in calls if c.endswith(", True)")]    # the answer: a choice block's pick, quiet
    assert follow and all("_same(" not in c and "_groups(" not in c for c in follow)
    # the lead's 'not first_play' is tested once per decision, not once per set
    lead = [c for c in calls if not c.endswith(", True)")]
    assert lead and all("None if not" in c for c in lead)


# ── mistakes ─────────────────────────────────────────────────────────────────

@pytest.mark.parametrize("such, message", [
    ("beats(play, pile)", "beats() takes 3 or 4 arguments, not 2"),
    ("beats(play, pile, rank_of, four, four)", "beats() takes 3 or 4 arguments, not 5"),
    ("beats(play, pile, 3)", "beats()'s KEY is the name of a define giving the key that ranks a combination"),
    ("beats(play, pile, size)", "beats()'s KEY is the name of a define"),
    ("beats(play, pile, rank_of, yes)", "beats()'s BOMB is the name of a define giving whether a combination is a bomb"),
    ("beats(play, pile, two_args)", "beats()'s KEY 'two_args' takes 2 arguments: it must take one, the combination"),
    ("beats(play, pile, four)", "beats()'s KEY 'four' gives a yes/no: it must give the key that ranks a combination (a number)"),
    ("beats(play, pile, rank_of, rank_of)", "beats()'s BOMB 'rank_of' gives a number: it must give whether a combination is a bomb"),
    ("beats(bonus, pile, rank_of)", "beats()'s first argument is a combination (a zone or a list), not a number"),
    ("beats(play, [1, 2], rank_of)", "beats() compares two combinations of one kind of item, not a list of card and a list of number"),
])
def test_misuse_is_a_clear_compile_error(such, message):
    with pytest.raises(RulesError) as info:
        pile_game("c.rank == 7", such, extra="define two_args(a, b) = 1")
    assert message in str(info.value)
    assert info.value.pos is not None and info.value.pos.line > 0
