"""examples/hanabi.rules against OpenSpiel's own ``hanabi`` (the Hanabi Learning Environment): the
same deck, the same random legal actions, and at every decision the same player to move, the same
set of legal actions, the same hands, tokens, lives and fireworks; at the end the same score."""
import random
import re
import time

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed (pip install 'rulesrun[openspiel]')")

from rulesrun.interpreter import load_game  # noqa: E402

from tests.support import ROOT  # noqa: E402

COLOURS = {"R": "Red", "Y": "Yellow", "G": "Green", "W": "White", "B": "Blue"}
LETTER = {v: k for k, v in COLOURS.items()}
COPIES = {1: 3, 2: 2, 3: 2, 4: 2, 5: 1}
SEEDS = 100


def ours_name(card: str) -> str:
    """'R3' (OpenSpiel) → 'Red 3' (the example's name)."""
    return f"{COLOURS[card[0]]} {card[1]}"


def openspiel_text(action: str, seat: int, players: int) -> str:
    """Our action text as OpenSpiel writes it: places from 0, hint targets by offset from the mover."""
    verb, rest = action.split(" ", 1)
    if verb in ("play", "discard"):
        return f"({verb.capitalize()} {int(rest) - 1})"
    m = re.fullmatch(r"Player (\d+) (\w+)", rest)
    assert verb == "hint" and m, action
    offset = (int(m.group(1)) - 1 - seat) % players
    value = m.group(2)
    if value in LETTER:
        return f"(Reveal player +{offset} color {LETTER[value]})"
    return f"(Reveal player +{offset} rank {value.rstrip('s')})"


def openspiel_table(state) -> dict:
    """Hands (as our card names, in order), tokens, lives and fireworks, read from its text."""
    text = str(state)
    hands_text = text.split("Hands:\n", 1)[1].split("Deck size:", 1)[0]
    hands = [[ours_name(line[:2]) for line in block.splitlines() if "||" in line]
             for block in hands_text.split("-----")]
    fireworks = re.search(r"Fireworks: (.*)", text).group(1).split()
    return {"hands": hands,
            "tokens": int(re.search(r"Info tokens: (\d+)", text).group(1)),
            "lives": int(re.search(r"Life tokens: (\d+)", text).group(1)),
            "fireworks": sum(int(f[1:]) for f in fireworks)}


def ours_table(state, players: int) -> dict:
    return {"hands": [state.cards("hand", player=p) for p in range(players)],
            "tokens": state.var("tokens"), "lives": state.var("lives"),
            "fireworks": len(state.cards("fireworks"))}


def play_both(game, players: int, seed: int) -> int:
    """One game in both, OpenSpiel's chance fed from one shuffled deck that is also our stacked
    deck (both deal each player's hand in a block, Player 1 first, then draw from the top). Returns
    (decisions compared, whether the game ended after the deck ran out, the score)."""
    rng = random.Random(seed)
    deck = [f"{c}{r}" for c in COLOURS for r, n in COPIES.items() for _ in range(n)]
    rng.shuffle(deck)
    ours = game.new_initial_state(seed=seed, stack={"deck": [ours_name(c) for c in deck]})
    theirs = pyspiel.load_game("hanabi", {"players": players}).new_initial_state()
    dealt = compared = 0
    while not theirs.is_terminal():
        if theirs.is_chance_node():
            outcomes = {theirs.action_to_string(a): a for a, _ in theirs.chance_outcomes()}
            theirs.apply_action(outcomes[f"(Deal {deck[dealt]})"])
            dealt += 1
            continue
        where = f"{players} players, seed {seed}, after {ours.history()}"
        assert not ours.is_terminal(), where
        seat = theirs.current_player()
        assert ours.current_player() == seat, where
        assert ours_table(ours, players) == openspiel_table(theirs), where
        mine = {openspiel_text(str(a), seat, players): a for a in ours.legal_actions()}
        legal = {theirs.action_to_string(a): a for a in theirs.legal_actions()}
        assert set(mine) == set(legal), where
        compared += 1
        # random legal actions; a play only one time in ten, so many games last to the deck's end
        safe = sorted(t for t in legal if not t.startswith("(Play"))
        text = rng.choice(sorted(legal) if rng.random() < 0.1 or not safe else safe)
        theirs.apply_action(legal[text])
        ours.apply_action(mine[text])
    assert ours.is_terminal(), f"{players} players, seed {seed}: OpenSpiel's game is over, ours is not"
    assert ours.returns() == theirs.returns() == [theirs.returns()[0]] * players
    return compared, ours.var("turns_left") == 0, theirs.returns()[0]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_every_step_agrees_with_openspiel_hanabi(players):
    """100 games a player count: every decision's player and legal set, the table, and the score."""
    game = load_game(ROOT / "examples" / "hanabi.rules", players=players)
    start = time.perf_counter()
    games = [play_both(game, players, seed) for seed in range(SEEDS)]
    assert sum(n for n, _, _ in games) > SEEDS * 30     # decisions compared
    assert sum(out for _, out, _ in games) >= 5         # games that end one round after the deck
    assert any(score > 0 for _, _, score in games)
    assert time.perf_counter() - start < 30


def test_the_end_after_the_deck_runs_out_agrees_with_openspiel():
    """Random play mostly loses its lives before the deck is empty: here everyone discards or hints
    (never plays), so every game ends one round after the last card is drawn, in both."""
    game = load_game(ROOT / "examples" / "hanabi.rules", players=3)
    for seed in range(5):
        rng = random.Random(seed)
        deck = [f"{c}{r}" for c in COLOURS for r, n in COPIES.items() for _ in range(n)]
        rng.shuffle(deck)
        ours = game.new_initial_state(seed=seed, stack={"deck": [ours_name(c) for c in deck]})
        theirs = pyspiel.load_game("hanabi", {"players": 3}).new_initial_state()
        dealt = 0
        turns = 0                               # turns after the one that drew the last card
        while not theirs.is_terminal():
            if theirs.is_chance_node():
                outcomes = {theirs.action_to_string(a): a for a, _ in theirs.chance_outcomes()}
                theirs.apply_action(outcomes[f"(Deal {deck[dealt]})"])
                dealt += 1
                continue
            seat = theirs.current_player()
            mine = {openspiel_text(str(a), seat, 3): a for a in ours.legal_actions()}
            legal = {theirs.action_to_string(a): a for a in theirs.legal_actions()}
            assert set(mine) == set(legal)
            safe = sorted(t for t in legal if not t.startswith("(Play"))
            text = rng.choice(safe)
            theirs.apply_action(legal[text])
            ours.apply_action(mine[text])
            turns = turns + 1 if dealt == 50 else 0
        assert dealt == 50 and ours.is_terminal() and ours.cards("deck") == []
        assert turns == 3              # after the turn that drew the last card, one more turn each
        assert ours.returns() == theirs.returns() == [0.0, 0.0, 0.0]
