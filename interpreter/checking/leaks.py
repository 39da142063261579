"""The dynamic leak tests: nothing a seat may see depends on cards it may not see.

Two tests, both run on sampled steps of the games ``check`` plays:

* **resample** (``static_leak``): the cards a seat cannot see are dealt out again at random in the
  state as it is; the seat's observation and options must not change. Quick, but the copy keeps
  the stored values, so a public value *computed earlier* from hidden cards goes unseen.
* **pick twin** (``pick_twin_leak``, below): for simultaneous choices, the game played again with
  one pick of another seat in an open ``at once`` block chosen otherwise; nothing the seat sees may
  change until every seat has chosen.
* **twin** (``twin_leak``): the game so far is played again from the start with the cards the seat
  has never seen dealt differently (every shuffle stacked with those cards swapped, every other
  seat's choice of such a card swapped too). The rules work out every value again, so two games
  that agree on everything the seat saw must show the seat the same thing at every step:
  observation, announcements and options. A difference is a leak: a stored value derived from a
  hidden card, an announcement naming a card its audience could not see. Scores and winners are
  left out at the end: they are public once the game is over. When the other game cannot follow
  (a swapped card is not a legal choice there, the deal cannot be stacked) the test stops there,
  having found nothing.
"""
from __future__ import annotations

from rulesrun.dsl import RulesRuntimeError
from rulesrun.dsl.program import NoLegalAction

from rulesrun.interpreter.runtime.engine import GameError
from rulesrun.interpreter.runtime.observe import log_since, observe, resample

END_ONLY = ("returns", "winners")     # public once the game is over, whatever they were computed from


class Leak(Exception):
    def __init__(self, message: str, step: int | None = None):
        super().__init__(message)
        self.message = message
        self.step = step


class TwinFailed(Exception):
    """A rules error in the other deal of a twin test: a real game, so a real runtime error."""

    def __init__(self, error: Exception, step: int):
        super().__init__(str(error))
        self.error = error
        self.step = step


def view(state, seat: int, log: bool) -> dict:
    obs = observe(state, seat, log=log)
    for k in END_ONLY:
        obs.pop(k, None)
    return obs


def _diff(a, b) -> str:
    if isinstance(a, list) and isinstance(b, list):
        for x, y in zip(a, b):
            if x != y:
                if isinstance(x, dict) and isinstance(y, dict) and "name" in x:
                    return f"{x['name']}'s {_diff(x, y)}"
                return _diff(x, y)
        if len(a) != len(b):
            return f"{len(a)} / {len(b)} entries"
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if a[k] != b.get(k):
                return f"{k}: {_diff(a[k], b.get(k))}"
    return f"{a!r} / {b!r}"


def describe(a: dict, b: dict, seat: int) -> str:
    key = next(k for k in a if a[k] != b.get(k))
    if key == "log":
        i = next((i for i, (x, y) in enumerate(zip(a["log"], b["log"])) if x != y), None)
        if i is not None:
            return (f"an announcement tells Player {seat + 1} about a card they could not see: "
                    f"'{a['log'][i]}' (with those cards dealt differently: '{b['log'][i]}')")
    return (f"Player {seat + 1}'s observation ('{key}') depends on cards Player {seat + 1} cannot see: "
            f"{_diff(a[key], b[key])}")


def static_leak(state, seat: int, rng, known) -> None:
    """Raise Leak when resampling the cards ``seat`` cannot see changes what it sees now."""
    other = resample(state, seat, rng, known, relabel_log=False)
    # the log is public and names only known cards here, so it cannot differ: leave it out
    a, b = view(state, seat, log=False), view(other, seat, log=False)
    if a != b:
        raise Leak(describe(a, b, seat))
    if state.current_player() == seat:
        mine = [str(x) for x in state.legal_actions()]
        if mine != [str(x) for x in other.legal_actions()]:
            raise Leak(f"Player {seat + 1}'s options depend on cards they cannot see: {mine[:6]}")


def _relabel(typ: str, v, pi):
    if v is None:
        return v
    if typ == "card":
        return pi.get(v, v)
    if typ.startswith("list:"):
        return [_relabel(typ[5:], x, pi) for x in v]
    if typ.startswith("choice:"):                 # a choice block: a move's text, or a pick
        return v if isinstance(v, str) else _relabel(typ[7:], v, pi)
    if typ.startswith("tuple:"):                  # several values picked at once
        return tuple(_relabel(t, x, pi) for t, x in zip(typ[6:].split(","), v))
    if typ.startswith("branches:"):               # a choice block's (branch, value)
        return (v[0], _relabel(typ[9:].split(";")[v[0]], v[1], pi))
    return v


def twin_leak(game, seed: int, events: list, indices: list, seat: int, unseen: list, rng, start: int = 0) -> int:
    """Play the first ``len(indices)`` steps again twice — as they were, and with the cards in
    ``unseen`` (not seen by ``seat``) swapped at random in the shuffles from ``events[start]`` on
    (the shuffles before are made as they were) — comparing ``seat``'s view at every step.
    Raise Leak at the first difference, TwinFailed when the rules fail in the other deal; give the
    number of views compared (none when the other deal could not follow at all)."""
    prog = game.program
    names = prog.card_names
    swapped = unseen[:]
    rng.shuffle(swapped)
    pi = {c: d for c, d in zip(unseen, swapped) if c != d}
    if not pi:
        return 0
    stack: dict = {}
    for k, e in enumerate(events):
        if isinstance(e, str):
            continue
        if e[0] == "random":            # the same chance values in the other deal
            stack.setdefault("random", []).append(e[1])
            continue
        zi, order = e[1], e[2]
        info = prog.zones[zi]
        if info.owner is not None:
            return 0                    # a per-player zone's shuffle cannot be stacked
        swap = pi if k >= start else {}
        stack.setdefault(info.name, []).append([names[swap.get(c, c)] for c in reversed(order)])
    try:
        orig = game.new_initial_state(seed=seed)
        twin = game.new_initial_state(seed=seed, stack=stack)
    except NoLegalAction:
        return 0
    except RulesRuntimeError as e:
        if "stacked card" in str(e):
            return 0
        raise TwinFailed(e, 0) from None
    except GameError:
        return 0
    # the games are alike up to the decision after which the first changed shuffle is made
    parted = sum(isinstance(e, str) for e in events[:start])
    step = compared = 0
    marks = [None, None]       # the announcements compared so far, in each game
    while True:
        if step >= parted:
            if not _same_world(prog, orig, twin, pi, seat):
                return compared
            a, b = view(orig, seat, log=False), view(twin, seat, log=False)
            # only the announcements made since the last step: the log of a long game is long
            a["log"], b["log"] = new_log(orig, marks[0], seat), new_log(twin, marks[1], seat)
            if a != b:
                raise Leak(describe(a, b, seat), step)
            compared += 1
        marks = [orig.log_mark, twin.log_mark]
        if step >= len(indices) or orig.is_terminal() or twin.is_terminal():
            return compared
        i = indices[step]
        did = orig.open_decision[1]
        typ = prog.decisions[did].type
        want = _relabel(typ, orig.open_decision[2][i], pi if step >= parted else {})
        key = _named(typ, want, names)
        if twin.open_decision is None or twin.open_decision[1] != did:
            return compared
        j = next((j for j, o in enumerate(twin.open_decision[2]) if _named(typ, o, names) == key), None)
        if j is None:
            return compared             # not a legal choice in the other deal: it goes another way
        orig.apply_action(i)
        try:
            twin.apply_action(j)
        except RulesRuntimeError as e:
            if "stacked card" in str(e):
                return compared
            raise TwinFailed(e, step + 1) from None
        step += 1


def new_log(state, since, seat: int | None = None) -> list:
    """The announcements made since ``since`` (an earlier ``state.log_mark``) that ``seat`` reads (its
    private ones too, never another seat's), as text, oldest first."""
    return log_since(state, since, seat)


def _named(typ, v, names):
    if v is None:
        return None
    if typ == "card":
        return names[v]
    if typ == "list:card":
        return tuple(names[c] for c in v)
    if typ.startswith("choice:"):
        return v if isinstance(v, str) else _named(typ[7:], v, names)
    if typ.startswith("tuple:"):
        return tuple(_named(t, x, names) for t, x in zip(typ[6:].split(","), v))
    if typ.startswith("branches:"):
        return (v[0], _named(typ[9:].split(";")[v[0]], v[1], names))
    return v if not isinstance(v, list) else tuple(v)


def _shown(prog, state, pi, seat: int) -> dict:
    """What the rules showed ``seat`` (to every seat, or to it alone), cards by name (after ``pi``)."""
    names = prog.card_names
    tables = {"g": prog.globals, "pv": prog.player_vars, "cv": prog.card_vars}
    out = {}
    for key, v in state.revealed.items():
        part, i, k = key[:3]
        if len(key) == 4 and key[3] != seat:
            continue                    # shown to another seat alone
        if part in ("local", "zone"):   # a card or cards held in a local ('reveal c'), a zone's cards
            typ = "list:card" if isinstance(v, list) else "card"
        elif part == "value":           # any other value held in a local ('reveal guilty')
            typ = ""
        else:
            typ = tables[part][i].type
        if part == "cv":
            k = names[pi.get(k, k)]
        out[key] = _named(typ, _relabel(typ, v, pi), names)
    return out


def _same_world(prog, a, b, pi, seat: int) -> bool:
    """Whether ``b``'s zones hold ``a``'s cards with ``pi`` applied (by name: copies are alike), and
    what the rules showed ``seat`` is the same: else the seat could tell the two games apart."""
    names = prog.card_names
    if _shown(prog, a, pi, seat) != _shown(prog, b, {}, seat):
        return False
    for za, zb in zip(a.zones, b.zones):
        if len(za) != len(zb):
            return False
        for c, d in zip(za, zb):
            if names[pi.get(c, c)] != names[d]:
                return False
    return True


def pick_twin_leak(game, seed: int, indices: list, seat: int, rng) -> int:
    """The twin test of simultaneous choices (``for p in ... at once``): the game so far is played
    again twice, alike but for one pick another seat made in an open block, chosen otherwise in
    the twin; until that block closes (every seat has chosen), ``seat`` must see the same in both —
    observation, announcements, whose turn it is, its own options. Raise Leak at the first
    difference; give the number of steps compared, or None when no other seat chose in a block
    between options (a pick of one option cannot be chosen otherwise: nothing to test)."""
    prog = game.program
    decisions = prog.decisions
    probe = game.new_initial_state(seed=seed)
    at = []                     # the steps where another seat chose in an open block, among options
    for k, i in enumerate(indices):
        d = probe.open_decision
        if d is None:
            break
        if decisions[d[1]].at_once is not None and d[0] != seat and len(d[2]) > 1:
            at.append(k)
        probe.apply_index(i)
    if not at:
        return None
    t = rng.choice(at)
    orig, twin = game.new_initial_state(seed=seed), game.new_initial_state(seed=seed)
    for i in indices[:t]:
        orig.apply_index(i)
        twin.apply_index(i)
    mark = orig.at_once
    n = len(orig.open_decision[2])
    other = rng.choice([j for j in range(n) if j != indices[t]])
    marks = [orig.log_mark, twin.log_mark]
    orig.apply_index(indices[t])
    twin.apply_index(other)
    step, compared = t + 1, 0
    while orig.at_once == mark and twin.at_once == mark:
        a, b = view(orig, seat, log=False), view(twin, seat, log=False)
        a["log"], b["log"] = new_log(orig, marks[0], seat), new_log(twin, marks[1], seat)
        if a != b:
            key = next(k for k in a if a[k] != b.get(k))
            raise Leak(f"Player {seat + 1}'s observation ('{key}') depends on what another player chose in "
                       f"an 'at once' block, before every player has chosen: {_diff(a[key], b[key])}", step)
        compared += 1
        if step >= len(indices) or orig.open_decision is None or twin.open_decision is None:
            break
        i = indices[step]
        if i >= len(twin.open_decision[2]):
            break
        orig.apply_index(i)
        twin.apply_index(i)
        step += 1
    return compared
