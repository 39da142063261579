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


# ── comparing two combinations: beats(NEW, OLD, KEY, BOMB) ─────────────────
MAX_MEMO = 100_000              # combinations whose key a program remembers (then it starts again)


def _memo(S, fn, items, memo):
    """fn(S, items), remembered by the items when fn reads nothing of the state (memo is a dict)."""
    if memo is None:
        return fn(S, items)
    t = tuple(items)
    v = memo.get(t)
    if v is None:
        v = fn(S, items)
        if len(memo) >= MAX_MEMO:
            memo.clear()
        memo[t] = v
    return v


def _beats(S, new, old, key, kmemo, bomb, bmemo):
    """NEW beats OLD: a bomb beats anything that is not a bomb, and a higher bomb a lower one (by
    KEY, whatever their sizes); otherwise the two have as many items and NEW the higher KEY."""
    if bomb is not None:
        b = _memo(S, bomb, new, bmemo)
        if b != _memo(S, bomb, old, bmemo):
            return b
        if b:
            return _memo(S, key, new, kmemo) > _memo(S, key, old, kmemo)
    return len(new) == len(old) and _memo(S, key, new, kmemo) > _memo(S, key, old, kmemo)


def _beating(items, cands, S, old, key, kmemo, bomb, bmemo):
    """The candidates (index tuples into items) that beat OLD: ``beats(s, OLD, KEY, BOMB)`` for
    all the sets of a plan entry at once, OLD's key worked out once."""
    get = items.__getitem__
    if bomb is not None or kmemo is None:
        return [idx for idx in cands if _beats(S, list(map(get, idx)), old, key, kmemo, bomb, bmemo)]
    n = len(old)
    cands = list(cands)
    picks = [tuple(map(get, idx)) for idx in cands]
    if not picks:
        return ()
    vals = list(map(kmemo.get, picks))
    if None in vals:
        for i, v in enumerate(vals):
            if v is None:
                vals[i] = _memo(S, key, list(picks[i]), kmemo)
    if any(len(p) == n for p in picks):
        low = _memo(S, key, old, kmemo)
        return [idx for idx, p, v in zip(cands, picks, vals) if v > low and len(p) == n]
    return ()


# ── the enumerator ──────────────────────────────────────────────────────────
def _buckets(items, key):
    out = {}
    for i, k in enumerate(map(key, items)):
        if k in out:
            out[k].append(i)
        else:
            out[k] = [i]
    return out


def _gen_size(n, size, pos):
    if size is None:
        return None
    if comb(n, size) > MAX_CANDIDATES:
        fail(f"too many ways to choose {size} of {n} items ({comb(n, size):,}): say more of the "
             f"combination's shape (same, run, groups)", pos)
    return itertools.combinations(range(n), size)


def _gen_same(by_key, size, pos):
    out = [()] if not size else []
    for idx in by_key.values():
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


def _gen_run(by_key, size, ring, pos):
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


def _gen_groups(by_key, pattern, pos):
    """Sets made of groups of equal keys of the given sizes, each group a different key."""
    pattern = sorted(pattern, reverse=True)
    if any(p <= 0 for p in pattern):
        return [()] if not [p for p in pattern if p] else []
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


def _gen(items, size, shapes, pos, buckets):
    """Candidate index tuples for one branch of the plan (a superset of the sets meeting it, with
    exactly its size, and exactly its chosen shape unless that is a run round the ring);
    ``buckets``: the items' indices by key, for each key function, kept for the other branches."""
    if not shapes:
        return _gen_size(len(items), size, pos)
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


def _combos(items, test, keyfn, plan, pos):
    """The options of a combination choice: the subsets of ``items`` that an entry of the plan
    generates and that meet that entry's test (and ``test``, if given). Smallest first, then in
    the items' order; identical sets once."""
    ok, buckets = set(), {}
    get = items.__getitem__
    for size, shapes, keep in plan:
        if size is not None and size < 0:
            continue
        cands = _gen(items, size, shapes, pos, buckets)
        if keep is None:
            ok.update(cands)
        elif type(keep) is tuple:       # beats(s, OLD, KEY, BOMB) alone: (S, OLD, KEY, memo, BOMB, memo)
            ok.update(_beating(items, cands, *keep))
        else:
            for idx in cands:
                if idx not in ok and keep(list(map(get, idx))):
                    ok.add(idx)
        if len(ok) > MAX_CANDIDATES:
            fail(f"too many combinations to choose from ({len(ok):,} or more)", pos)
    order = sorted(ok)
    order.sort(key=len)         # smallest first, then in the items' order
    picks = [list(map(get, idx)) for idx in order]
    if test is not None:
        picks = [p for p in picks if test(p)]
    if keyfn is not None:       # identical sets once (every item of a zone differs: no key)
        out, seen = [], set()
        for pick in picks:
            key = tuple(sorted(map(keyfn, pick)))
            if key not in seen:
                seen.add(key)
                out.append(pick)
        picks = out
    if not picks:
        fail_no_options("no combination satisfies the condition", pos)
    return picks


COMBO_RUNTIME = {"_combos": _combos, "_same": _same, "_run": _run, "_run_round": _run_round,
                 "_groups": _groups, "_leading": _leading, "_beats": _beats}
