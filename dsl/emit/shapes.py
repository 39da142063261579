"""The shapes of a combination and the sets of a hand that may have them: the shape functions
(``same``, ``run``, ``run_round``, ``groups``, ``leading``, which the compiled rules call) and the
generator of a plan entry's candidate sets (``_gen``: index tuples into the items, a superset of
the sets that meet the entry, made from its chosen shape instead of trying every subset).
``dsl.emit.combos`` tests, orders and keeps what they make.
"""
from __future__ import annotations

import itertools
from math import comb, prod
from operator import lt as _lt

from rulesrun.dsl.program import fail

MAX_CANDIDATES = 200_000        # sets a plan may generate before testing (a clear error beyond)
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
    keys = keys if type(keys) is list else list(keys)
    return sorted(map(keys.count, set(keys)), reverse=True)


def _leading(keys, pos):
    """The key of the largest group (the highest of equal groups): a full house's three, a pair's rank."""
    if not keys:
        fail("leading(...) of nothing", pos)
    keys = keys if type(keys) is list else list(keys)
    distinct = set(keys)
    return max(zip(map(keys.count, distinct), distinct))[1]


# ── the enumerator ──────────────────────────────────────────────────────────
def _buckets(items, key):
    """The items' indices by key (keys in the order they first come, indices in order)."""
    out = {}
    i = 0
    for k in map(key, items):       # a plain loop: quicker than chains of map() in CPython 3.11
        if k in out:
            out[k].append(i)
        else:
            out[k] = [i]
        i += 1
    return out


def _gen_size(n, size, pos):
    if size is None:
        return None
    if comb(n, size) > MAX_CANDIDATES:
        fail(f"too many ways to choose {size} of {n} items ({comb(n, size):,}): say more of the "
             f"combination's shape (same, run, groups)", pos)
    return itertools.combinations(range(n), size)


def _gen_same(by_key, size, pos):
    if size:
        out = []
        for idx in by_key.values():
            if len(idx) >= size:        # most keys have too few items: no combinations() made for them
                if len(idx) == size:
                    out.append(tuple(idx))
                else:
                    out.extend(itertools.combinations(idx, size))
        return out
    out = [()] if size == 0 else []
    if size is not None:
        return out
    for idx in by_key.values():
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
            if n:
                for i in range(len(ks) - n + 1):
                    if ks[i + n - 1] - ks[i] == n - 1:
                        yield ks[i:i + n]
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


def _gen_run(by_key, size, ring, pos):
    if size and len(by_key) < size:     # fewer keys than the run is long
        return []
    if size and ring is None:           # (the commonest: runs of one length, no ring) in one loop
        ks = sorted(by_key)
        last = size - 1
        out, total = [], 0
        for i in range(len(ks) - last):
            if ks[i + last] - ks[i] == last:    # size keys in a row (a dict's keys never repeat)
                choices = [*map(by_key.__getitem__, ks[i:i + size])]
                n = prod(map(len, choices))
                total += n
                if total > MAX_CANDIDATES:
                    fail(f"too many runs to choose from ({total:,} or more)", pos)
                if n == 1:              # one item of each key: one run
                    out.append(tuple(sorted(itertools.chain.from_iterable(choices))))
                else:
                    out.extend(map(tuple, map(sorted, itertools.product(*choices))))
        return out
    out = [()] if not size else []
    total = 0
    for w in _windows(set(by_key), size, ring):
        choices = [by_key[k] for k in w]
        total += _product_size(choices)
        if total > MAX_CANDIDATES:
            fail(f"too many runs to choose from ({total:,} or more)", pos)
        out.extend(map(tuple, map(sorted, itertools.product(*choices))))
    return out


def _product_size(choices):
    n = 1
    for c in choices:
        n *= len(c)
    return n


def _gen_groups(by_key, pattern, pos):
    """Sets made of groups of equal keys of the given sizes, each group a different key."""
    pattern = sorted(pattern, reverse=True)
    if not pattern or pattern[-1] <= 0:
        return [()] if not [p for p in pattern if p] else []
    top = pattern[0]
    for idx in by_key.values():     # (most hands have no key with as many items as the largest group)
        if len(idx) >= top:
            break
    else:
        return []
    if len(pattern) == 2 and top > pattern[1]:
        return _gen_two_groups(by_key, top, pattern[1], pos)
    groups = list(by_key.values())
    sizes = list(map(len, groups))
    ranked = sorted(sizes, reverse=True)     # the k-th largest group of the hand holds the k-th of the pattern
    if len(ranked) < len(pattern) or any(map(_lt, ranked, pattern)):
        return []
    # the keys that can make each group of the pattern (their positions among the keys)
    able = [list(itertools.compress(range(len(groups)), map(need.__le__, sizes))) for need in pattern]
    same = [i for i in range(1, len(pattern)) if pattern[i - 1] == pattern[i]]
    out = []
    for places in itertools.product(*able):
        if len(set(places)) < len(places) or (same and any(places[i - 1] > places[i] for i in same)):
            continue    # each group a different key; groups of one size in the keys' order (each set once)
        parts = itertools.product(*map(itertools.combinations, map(groups.__getitem__, places), pattern))
        out.extend(map(tuple, map(sorted, map(itertools.chain.from_iterable, parts))))
        if len(out) > MAX_CANDIDATES:
            fail(f"too many ways to make groups {pattern} ({len(out):,} or more)", pos)
    return out


def _gen_two_groups(by_key, a: int, b: int, pos) -> list:
    """``_gen_groups`` of two groups of different sizes a > b (a full house, four of a kind and
    one): a groups of one key, each with b of another (in no particular order: the sets are
    sorted where they are used)."""
    out = []
    for g1 in by_key.values():
        if len(g1) < a:
            continue
        firsts = [tuple(g1)] if len(g1) == a else list(itertools.combinations(g1, a))
        for g2 in by_key.values():
            if g2 is not g1 and len(g2) >= b:
                for y in (itertools.combinations(g2, b) if len(g2) > b else (tuple(g2),)):
                    for x in firsts:
                        out.append(tuple(sorted(x + y)))
        if len(out) > MAX_CANDIDATES:
            fail(f"too many ways to make groups {[a, b]} ({len(out):,} or more)", pos)
    return out


def chosen(kinds) -> int:
    """Which of a branch's shapes its sets are generated from: its first groups if it has some,
    else its first run, else its first 'same' (the compiler counts on the same choice)."""
    best = None
    for i, kind in enumerate(kinds):
        if kind == "groups":
            return i
        if best is None or (kind in ("run", "round") and kinds[best] == "same"):
            best = i
    return best


def _gen(items, size, shapes, pos, buckets, best=None):
    """Candidate index tuples for one branch of the plan (a superset of the sets meeting it, with
    exactly its size, and exactly its chosen shape unless that is a run round the ring);
    ``buckets``: the items' indices by key, for each key function, kept for the other branches;
    ``best``: the chosen shape, if worked out already."""
    if not shapes:
        return _gen_size(len(items), size, pos)
    if best is None:
        best = shapes[chosen([s[0] for s in shapes])]
    kind = best[0]
    by_key = buckets.get(best[1])
    if by_key is None:
        by_key = buckets[best[1]] = _buckets(items, best[1])
    if kind == "groups":
        pattern = list(best[2])
        if size is not None and sum(pattern) != size:
            return []
        return _gen_groups(by_key, pattern, pos)
    if kind == "same":
        return _gen_same(by_key, size, pos)
    return _gen_run(by_key, size, _ring(best[2]) if kind == "round" else None, pos)
