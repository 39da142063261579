"""The helpers generated code calls, and the names it knows them by (``RUNTIME``).

Each raises a rules runtime error naming the rules position it is given, as the rules' own words
would: ``top() of an empty zone``, ``division by zero``, ...
"""
from __future__ import annotations

import itertools

from rulesrun.dsl.emit.combos import COMBO_RUNTIME, MAX_PLAIN
from rulesrun.dsl.program import (
    LOOPS_TOO_LONG,
    MAX_ITEMS,
    NoLegalAction,
    deal,
    fail,
    fail_no_options,
    move_cards,
    move_every,
    move_zone,
    own,
    pick_random,
    shuffle_zone,
)


def _range(lo, hi, S, pos):
    """The numbers lo to hi, spent from the budget of loop rounds (S is the state, or a Budget)."""
    n = hi - lo + 1
    if n > MAX_ITEMS:
        fail(f"a range of {n:,} numbers is too long (at most {MAX_ITEMS:,})", pos)
    if n > 0:
        S.budget -= n
        if S.budget < 0:
            fail(LOOPS_TOO_LONG, pos)
    return list(range(lo, hi + 1))

# ── helpers the generated code calls ────────────────────────────────────────
def _top(z, name, pos):
    if not z:
        fail(f"{name}() of an empty zone", pos)
    return z[-1] if name == "top" else z[0]


def _position(x, items, pos):
    if x not in items:
        fail("position() of something that is not there", pos)
    return items.index(x) + 1


def _item(items, i, pos):
    """The i-th item, 1 the first; -1 the last, -2 the one before it."""
    if 1 <= i <= len(items):
        return items[i - 1]
    if -len(items) <= i <= -1:
        return items[i]
    fail(f"item {i} of a list of {len(items)}" + (" (the first is 1, the last -1)" if i == 0 else ""), pos)


def _div(a, d, pos):
    if d == 0:
        fail("division by zero", pos)
    return a // d


def _mod(a, d, pos):
    if d == 0:
        fail("division by zero", pos)
    return a % d


def _pick(f, vals, name, pos):
    if not vals:
        fail(f"{name}(...) of nothing", pos)
    return f(vals)


def _best(pick, rows):
    """The item of the best row (keys..., position, item), or None when there is none."""
    return pick(rows)[-1] if rows else None


_FIRST = object()       # "no candidate yet" in a highest / lowest written as a loop (_Lower)


def _holder(owners, loc, c, pos):
    if c is None:
        fail("holder() of none: there is no card to look for", pos)
    return owners[loc[c]]


def _partner(teams, p, names, pos):
    t = teams[p]
    if t is None:
        fail(f"partner() of Player {p + 1}, who is in no team", pos)
    mates = [q for q, u in enumerate(teams) if u == t and q != p]
    if len(mates) != 1:
        fail(f"partner() of Player {p + 1}: {names[t]} has {len(mates) + 1} members, and a partner "
             f"needs a team of exactly 2", pos)
    return mates[0]


def _members(teams, t):
    return [q for q, u in enumerate(teams) if u == t]


def _opponents(teams, p):
    """The players of the other teams than p's (every other player when p is in no team)."""
    t = teams[p]
    return [q for q, u in enumerate(teams) if q != p and (t is None or u != t)]


def value_key(v):
    return tuple(v) if isinstance(v, list) else v


def _unique_few(items) -> list:
    """``unique(...)`` of values of a kind with few values (a suit, yes/no): each value once, in the
    order first met. The list it builds never holds more than the kind's few values, so looking in
    it is quicker than making a dict (``dict.fromkeys``, what ``unique`` of other values does)."""
    out = []
    for v in items:
        if v not in out:
            out.append(v)
    return out


def _dedupe(opts, key):
    """Interchangeable options are offered once (the first of each kind)."""
    seen, out = set(), []
    for k, v in zip(map(key, opts), opts):
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _subsets(items, test, keyfn, pos):
    if len(items) > MAX_PLAIN:
        fail(f"too many ways to choose a subset of {len(items)} items (at most {MAX_PLAIN} when the "
             f"condition does not say the combination's size or shape)", pos)
    out, seen = [], set()
    for k in range(len(items) + 1):
        for combo in itertools.combinations(items, k):
            key = tuple(sorted(map(keyfn, combo)))
            if key in seen:
                continue
            if test is None or test(list(combo)):     # (offered as a tuple: dsl.emit.namespace._listed)
                seen.add(key)
                out.append(combo)
    if not out:
        fail_no_options("no subset satisfies the condition", pos)
    return out


def _product(pos, *sources):
    """The options of a pick of several values at once: every combination of the sources' items,
    the first source outermost, as tuples."""
    n = 1
    for s in sources:
        n *= len(s)
    if n > MAX_ITEMS:
        fail(f"{n:,} combinations to choose from are too many (at most {MAX_ITEMS:,})", pos)
    return list(itertools.product(*sources))


def _tagged(branch, values):
    """A choice block's options of one branch, each carrying the branch's number: (branch, value)."""
    return [(branch, v) for v in values]


def _or_none(make, *args):
    """A choice block's subset pick: no set meeting the condition leaves the named moves (and the
    block says when there is nothing at all to choose)."""
    quiet = getattr(make, "or_none", None)      # one that says none without an error
    if quiet is not None:
        return quiet(*args)
    try:
        return make(*args)
    except NoLegalAction:
        return []


def _kept(options):
    """The options of an 'at once' block's choice, kept in the frame (dsl.lower.at_once): a subset's
    tuples as lists, as a saved state reads them back."""
    return [list(o) if o.__class__ is tuple else o for o in options]


def _closed(sim, *kept):
    """An 'at once' block closes (dsl.lower.at_once): its mark, negative. ``kept`` are the options
    of its picks, kept in the frame till here."""
    return -sim


RUNTIME = {
    "fail": fail, "fail_no_options": fail_no_options, "move_cards": move_cards, "move_every": move_every,
    "move_zone": move_zone, "own": own,
    "shuffle_zone": shuffle_zone, "deal": deal, "pick_random": pick_random, "_top": _top, "_position": _position, "_item": _item,
    "_div": _div, "_mod": _mod, "_pick": _pick, "_best": _best, "_holder": _holder, "_value_key": value_key,
    "_dedupe": _dedupe, "_unique_few": _unique_few, "_subsets": _subsets, "_FIRST": _FIRST, "_range": _range,
    "_partner": _partner, "_members": _members, "_opponents": _opponents, "_or_none": _or_none,
    "_closed": _closed, "_kept": _kept, "_product": _product, "_tagged": _tagged,
    **COMBO_RUNTIME,
}
