"""Combinations at run time: the shape functions (``same``, ``run``, ``run_round``, ``groups``,
``leading``) and the enumerator of a combination choice (``_combos``).

A ``chooses subset ... such that`` whose condition says the shape of the set — its size, cards of one
key, a run of consecutive keys, groups of equal keys ("three of a kind and a pair") — is enumerated
from the shapes, not by trying every subset: ``dsl.check_combos`` reads the condition when compiling
and gives ``_combos`` a *plan*, one entry per way the condition can hold (its ``or`` branches):

    (size or None, [("same" | "run", key) | ("round", key, ring) | ("groups", key, pattern), ...])

Each entry generates a superset of the sets that meet it; every candidate is then tested with the
whole condition, so the options are exactly those of trying every subset, in the same order
(smallest first, then in the source's order), with identical cards offered once.
"""
from __future__ import annotations

import itertools
from math import comb

from .program import fail, fail_no_options

MAX_CANDIDATES = 200_000        # sets a plan may generate before testing (a clear error beyond)
MAX_PLAIN = 16                  # items of a choice whose condition gives no shape (2**16 subsets)
MAX_GROUP = 16                  # "any number of one key": cards of one key at most


# ── the shape functions (``same(c.rank for c in s)``, ...) ─────────────────
def _same(keys):
    return len(set(keys)) <= 1


def _run(keys):
    """The keys, sorted, are consecutive whole numbers, none repeated (an empty list or one card is a run)."""
    if len(keys) <= 1:
        return True
    ks = sorted(keys)
    return ks[-1] - ks[0] == len(ks) - 1 and len(set(ks)) == len(ks)


def _ring(every):
    return sorted(set(every))


def _run_round(keys, every):
    """A run where the highest key is followed by the lowest (the keys' ring: every card's key)."""
    if len(keys) <= 1:
        return True
    if len(set(keys)) != len(keys):
        return False
    ring = _ring(every)
    where = {k: i for i, k in enumerate(ring)}
    if any(k not in where for k in keys):
        return False
    n = len(ring)
    places = {where[k] for k in keys}
    if len(places) == n:
        return True
    # some start such that start, start+1, ... (round the ring) covers exactly the keys
    return any(all((s + j) % n in places for j in range(len(places))) for s in places)


def _groups(keys):
    """The sizes of the groups of equal keys, largest first: [3, 2] for a full house."""
    counts = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return sorted(counts.values(), reverse=True)


def _leading(keys, pos):
    """The key of the largest group (the highest of equal groups): a full house's three, a pair's rank."""
    if not keys:
        fail("leading(...) of nothing", pos)
    counts = {}
    for k in keys:
        counts[k] = counts.get(k, 0) + 1
    return max(counts, key=lambda k: (counts[k], k))


# ── the enumerator ──────────────────────────────────────────────────────────
def _buckets(items, key):
    out = {}
    for i, x in enumerate(items):
        out.setdefault(key(x), []).append(i)
    return out


def _gen_size(n, size, pos):
    if size is None:
        return None
    if comb(n, size) > MAX_CANDIDATES:
        fail(f"too many ways to choose {size} of {n} items ({comb(n, size):,}): say more of the "
             f"combination's shape (same, run, groups)", pos)
    return itertools.combinations(range(n), size)


def _gen_same(items, key, size, pos):
    out = [()] if not size else []
    for idx in _buckets(items, key).values():
        if size is not None:
            out.extend(itertools.combinations(idx, size) if size else ())
            continue
        if len(idx) > MAX_GROUP:
            fail(f"too many ways to choose cards of one kind from {len(idx)} (at most {MAX_GROUP}): "
                 f"say the combination's size", pos)
        for k in range(1, len(idx) + 1):
            out.extend(itertools.combinations(idx, k))
    return out


def _windows(keys, size, ring):
    """Runs of keys present in the hand: lists of consecutive keys (round the ring if given)."""
    if ring is None:
        ks = sorted(keys)
        lengths = [size] if size is not None else range(1, len(ks) + 1)
        for n in lengths:
            for i in range(len(ks) - n + 1):
                w = ks[i:i + n]
                if n and w[-1] - w[0] == n - 1:
                    yield w
        return
    present = [k for k in ring if k in keys]
    n_ring = len(ring)
    lengths = [size] if size is not None else range(1, len(present) + 1)
    for n in lengths:
        if n == 0 or n > n_ring:
            continue
        starts = range(n_ring) if n < n_ring else range(1)
        for s in starts:
            w = [ring[(s + j) % n_ring] for j in range(n)]
            if all(k in keys for k in w):
                yield w


def _gen_run(items, key, size, ring, pos):
    by_key = _buckets(items, key)
    out = [()] if not size else []
    total = 0
    for w in _windows(set(by_key), size, ring):
        choices = [by_key[k] for k in w]
        total += _product_size(choices)
        if total > MAX_CANDIDATES:
            fail(f"too many runs to choose from ({total:,} or more)", pos)
        out.extend(tuple(sorted(t)) for t in itertools.product(*choices))
    return out


def _product_size(choices):
    n = 1
    for c in choices:
        n *= len(c)
    return n


def _gen_groups(items, key, pattern, pos):
    """Sets made of groups of equal keys of the given sizes, each group a different key."""
    pattern = sorted(pattern, reverse=True)
    if any(p <= 0 for p in pattern):
        return [()] if not [p for p in pattern if p] else []
    by_key = _buckets(items, key)
    keys = list(by_key)
    out = []

    def place(i, used, picked, last_of_size):
        if len(out) > MAX_CANDIDATES:
            fail(f"too many ways to make groups {pattern} ({len(out):,} or more)", pos)
        if i == len(pattern):
            out.append(tuple(sorted(picked)))
            return
        need = pattern[i]
        start = last_of_size + 1 if i > 0 and pattern[i - 1] == need else 0
        for j in range(start, len(keys)):
            k = keys[j]
            if k in used or len(by_key[k]) < need:
                continue
            for c in itertools.combinations(by_key[k], need):
                place(i + 1, used | {k}, picked + list(c), j)

    place(0, frozenset(), [], -1)
    return out


def _gen(items, size, shapes, pos):
    """Candidate index tuples for one branch of the plan (a superset of the sets meeting it):
    from its groups if it has some, else its run, else its 'same', else its size alone."""
    best = None
    for shape in shapes:
        kind = shape[0]
        if kind == "groups":
            best = shape
            break
        if best is None or (kind in ("run", "round") and best[0] == "same"):
            best = shape
    if best is None:
        return _gen_size(len(items), size, pos)
    kind = best[0]
    if kind == "groups":
        pattern = list(best[2])
        if size is not None and sum(pattern) != size:
            return []
        return _gen_groups(items, best[1], pattern, pos)
    if kind == "same":
        return _gen_same(items, best[1], size, pos)
    return _gen_run(items, best[1], size, _ring(best[2]) if kind == "round" else None, pos)


def _combos(items, test, keyfn, plan, pos):
    """The options of a combination choice: the subsets of ``items`` meeting ``test``, generated from
    the plan's shapes. Smallest first, then in the items' order; identical sets once."""
    cands = set()
    for size, shapes in plan:
        if size is not None and size < 0:
            continue
        cands.update(_gen(items, size, shapes, pos))
        if len(cands) > MAX_CANDIDATES:
            fail(f"too many combinations to choose from ({len(cands):,} or more)", pos)
    out, seen = [], set()
    order = sorted(cands)
    order.sort(key=len)         # smallest first, then in the items' order
    if keyfn is None:           # every item differs from every other: no identical sets to offer once
        picks = ([items[i] for i in idx] for idx in order)
        out = [p for p in picks if test(p)] if test is not None else list(picks)
        if not out:
            fail_no_options("no combination satisfies the condition", pos)
        return out
    for idx in order:
        pick = [items[i] for i in idx]
        key = tuple(sorted(map(keyfn, pick)))
        if key in seen:
            continue
        if test is None or test(pick):
            seen.add(key)
            out.append(pick)
    if not out:
        fail_no_options("no combination satisfies the condition", pos)
    return out


COMBO_RUNTIME = {"_combos": _combos, "_same": _same, "_run": _run, "_run_round": _run_round,
                 "_groups": _groups, "_leading": _leading}
