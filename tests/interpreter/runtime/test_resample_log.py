"""A resampled state's log (``observe.resample(..., relabel_log=True)``: the bots' twins in
`rulesrun check`, OpenSpiel's resampling) names the cards by the same permutation as its zones,
entry by entry, and shares with the original the entries older than the first one that changes."""
from __future__ import annotations

import random

from rulesrun.interpreter import load_game
from rulesrun.interpreter.runtime.observe import resample

from tests.support import ROOT  # noqa: E402


def _entries(ann) -> list:
    out = []
    while ann is not None:
        out.append(ann)
        ann = ann[0]
    return out[::-1]        # oldest first


def _played_until_a_private_card_entry(game, seed: int):
    """The state after a Door effect's private announcements (each names two cards), and more."""
    state, rng = game.new_initial_state(seed=seed), random.Random(seed)
    private = [i for i, t in enumerate(game.program.templates) if t.private and "card" in t.types]
    assert private, "The Magic Shop tells each seat alone the card it receives"
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
        if any(e[1] in private for e in _entries(state.ann)) and len(_entries(state.ann)) > 60:
            return state
    return None


def test_the_log_is_relabelled_by_the_zones_permutation_and_shares_what_does_not_change():
    game = load_game(ROOT / "games" / "magic_shop.rules", players=4)
    templates = game.program.templates
    checked = changed_entries = shared_entries = 0
    for seed in range(40):
        state = _played_until_a_private_card_entry(game, seed)
        if state is None:
            continue
        for seat in range(4):
            twin = resample(state, seat, random.Random(seed * 7 + seat), relabel_log=True)
            pi = {c: d for z, w in zip(state.z, twin.z) for c, d in zip(z, w)}   # positions stay
            assert any(c != d for c, d in pi.items())
            old, new = _entries(state.ann), _entries(twin.ann)
            assert len(old) == len(new)
            first_change = None
            for k, (a, b) in enumerate(zip(old, new)):
                assert a[1] == b[1]
                want = []
                for typ, v in zip(templates[a[1]].types, a[2:]):
                    if typ == "card" and v is not None:
                        want.append(pi[v])
                    elif typ == "list:card":
                        want.append([pi[c] for c in v])
                    else:
                        want.append(v)
                assert list(b[2:]) == want, (seed, seat, k, templates[a[1]].types)
                if first_change is None and list(a[2:]) != want:
                    first_change = k
            assert first_change is not None, "some entry names a card this seat cannot see"
            assert all(a is b for a, b in zip(old[:first_change], new[:first_change]))
            assert all(a is not b for a, b in zip(old[first_change:], new[first_change:]))
            changed_entries += len(old) - first_change
            shared_entries += first_change
            checked += 1
    assert checked >= 20 and changed_entries and shared_entries
