"""Combinations at run time: the options of a combination choice (``_combos``, and ``_combos_at``
/ ``_combos_beating`` with a ``Plan`` known when compiling), their tests (``beats``) and the sets
kept for each hand; the shape functions and the generator of candidate sets are ``dsl.emit.shapes``.

A ``chooses subset ... such that`` whose condition says the shape of the set — its size, cards of one
key, a run of consecutive keys, groups of equal keys ("three of a kind and a pair") — is enumerated
from the shapes, not by trying every subset: ``dsl.check.combinations`` reads the condition when compiling
and gives ``_combos`` a *plan*, one entry per way the condition can hold (its ``or`` branches):

    (size or None, [("same" | "run", key) | ("round", key, ring) | ("groups", key, pattern), ...])

Each entry generates a superset of the sets that meet it; every candidate is then tested with the
whole condition, so the options are exactly those of trying every subset, in the same order
(smallest first, then in the source's order), with identical cards offered once.

The options are tuples of items, as every subset choice's are (``_subsets`` too): they are the
keys the engine finds their actions by, with nothing to convert, and kept sets are shared without
copies. The rules are handed the chosen set as a list of its own (``dsl.emit.namespace._listed``: first thing in
the entry the decision resumes at).
"""
from __future__ import annotations

import itertools
from operator import lt as _lt

from rulesrun.dsl.program import fail, fail_no_options
from rulesrun.dsl.emit.shapes import (
    MAX_CANDIDATES,
    _gen,
    _gen_size,
    _groups,
    _leading,
    _run,
    _run_round,
    _same,
    chosen,
)

MAX_PLAIN = 16                  # items of a choice whose condition gives no shape (2**16 subsets)
MAX_KEPT = 10_000               # items under which a plan keeps the sets it made (_kept)



# ── comparing two combinations: beats(NEW, OLD, KEY, BOMB) ─────────────────
MAX_MEMO = 100_000              # combinations whose key a program remembers (then it starts again)


class KeyMemo(dict):
    """The memo of a ``beats()`` KEY (or BOMB) that reads only its cards, kept for the program:
    a tuple of items -> its key; ``one`` holds the key of each single item by the item itself
    (no tuple to build: a follow of one card looks its hand's keys up in C). ``sets``: the define
    reads its cards as a set, not in their order (``Combinations._order_free``), so a combination
    not found as it is held is looked for by its cards sorted, and remembered both ways: the same
    cards held in another order find it, and the order seen before is found without sorting."""

    __slots__ = ("one", "sets")

    def __init__(self, sets: bool = False):
        super().__init__()
        self.one = {}
        self.sets = sets


def _memo(S, fn, items, memo):
    """fn(S, items), remembered by the items when fn reads nothing of the state (memo is a dict)."""
    if memo is None:
        return fn(S, items)
    t = tuple(items)
    v = memo.get(t)
    return _missed(S, fn, t, memo) if v is None else v


def _missed(S, fn, t: tuple, memo):
    """fn(S, the items of t), for items not found in the memo as they are held: found by the items
    sorted if the memo keeps sets (the same cards seen in another order), else worked out; then
    remembered as held, so that the next time needs no sort."""
    if len(memo) >= MAX_MEMO:
        memo.clear()
    if memo.sets:
        u = tuple(sorted(t))
        v = memo.get(u)
        if v is None:
            v = memo[u] = fn(S, list(t))
    else:
        v = fn(S, list(t))
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
    vals = _keys_of(S, picks, key, kmemo)
    if any(len(p) == n for p in picks):
        low = _memo(S, key, old, kmemo)
        return [idx for idx, p, v in zip(cands, picks, vals) if v > low and len(p) == n]
    return ()


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
    picks = [tuple(map(get, idx)) for idx in order]
    if test is not None:
        picks = [p for p in picks if test(list(p))]
    if keyfn is not None:       # identical sets once (every item of a zone differs: no key)
        picks = _distinct(picks, keyfn)
    if not picks:
        fail_no_options("no combination satisfies the condition", pos)
    return picks


# ── a plan known when compiling ────────────────────────────────────────────
class Plan:
    """A combination choice's plan whose shapes are known when compiling (``dsl.check.combinations``),
    held once by the program instead of built at every decision. Its entries: (size or None, the
    indices of the decision's sizes that must agree with it, its shapes, the index of its test among
    the decision's tests or None); ``active`` keeps, for each set of the decision's sizes and each
    number of items, the entries that apply with the shape each generates from (``chosen``) worked
    out once, a plain tuple (CPython 3.11 reads a subclass's items on a slower path); ``kept``, for
    each of those tuples (by its id: ``active`` holds it as long as the plan lives), the number its
    sets are kept by in the ``shelf`` and its parts (``_kept``); ``shelf``, the sets last made for
    each hand, shared by every plan of the program (the compiler gives them one ``Shelf``), so that
    a follow finds the sets of five its seat's lead made, and the other way round."""

    __slots__ = ("entries", "active", "one_test", "shelf", "kept")

    def __init__(self, entries: tuple, shelf: "Shelf | None" = None):
        self.entries = entries
        self.active: dict = {}
        self.shelf = Shelf() if shelf is None else shelf
        self.kept: dict = {}        # id of an active tuple -> (its sets' key in the shelf, its parts)
        self.one_test = len({e[3] for e in entries}) <= 1     # every entry has the same test

    def __repr__(self):
        return f"Plan({self.entries!r})"

    def now(self, sizes, n: int) -> tuple:
        """The entries that apply for the decision's sizes and n items: (size, shapes, chosen shape,
        test index); one that needs more items than there are makes nothing."""
        out, made = [], []
        for size, dyn, shapes, t in self.entries:
            for i in dyn:       # the sizes the entry says must agree (below 0: it makes nothing)
                said = sizes[i]
                if size is None:
                    size = said
                elif said != size:
                    size = -1
                    break
            if size is not None and size < 0:
                continue
            made.append((size, shapes))
            if size is None or size <= n:
                out.append((size, shapes, shapes[chosen([x[0] for x in shapes])] if shapes else None, t))
        out = _OneItem(out) if len(out) == 1 and out[0][0] == 1 and not out[0][1] else tuple(out)
        # kept by the sets of every size these sizes allow, whatever n (a hand's sets of more
        # items than it has are none of the sets of the items left: a lead of fewer than five
        # cards filters the sets its lead of more made); for entries of several sizes, each
        # size's entries (smallest first) and their key too, or None for sets of no shape
        parts = None
        lengths = sorted({e[0] for e in out}, key=lambda k: -1 if k is None else k)
        if len(lengths) > 1 and None not in lengths:
            parts = []
            for k in lengths:
                part = tuple(e for e in out if e[0] == k)
                shaped = any(e[1] for e in part)    # (sets of no shape: made again, cheaper than found)
                parts.append((part, self.shelf.key([e[:2] for e in part]) if shaped else None))
        self.kept[id(out)] = (self.shelf.key(made), parts)
        self.active.setdefault(sizes, {})[n] = out
        return out


class Shelf:
    """The sets a program's plans made for each hand (``_kept``): ``hands``, item -> the record of
    the hand holding it, [each item of the hand -> its place there, the items lost since, the sets
    made: by the key of the entries that made them (``key``), [the sets, how many items were lost
    when they were filtered]]."""

    __slots__ = ("hands", "keys")

    def __init__(self):
        self.hands: dict = {}
        self.keys: dict = {}

    def key(self, made: list) -> int:
        """A number for the entries of these (size, shapes): the same for every plan that has them."""
        try:
            return self.keys.setdefault(tuple(made), len(self.keys))
        except TypeError:       # a shape that cannot be a key (none of the built-in ones): its own
            self.keys[object()] = None
            return -len(self.keys)


class _OneItem(tuple):
    """The active entries of a plan (``Plan.now``) when they are one entry of sets of one item
    and no shape: a follow of one card, told by the class alone."""
    __slots__ = ()


def _picks(items, cands, ordered: bool) -> list:
    """Index tuples as item tuples, smallest first, then in the items' order, each once
    (``ordered``: as they come)."""
    if not ordered:
        cands = sorted(set(cands))
        cands.sort(key=len)
    if not cands:
        return []
    if not ordered and len(cands[0]) == len(cands[-1]):     # (all of one size, the commonest)
        return _as_items(len(cands[0]))(items, cands)
    out = []
    for size, run in itertools.groupby(cands, len):     # each run of sets of one size
        out += _as_items(size)(items, run)
    return out


_AS_ITEMS: dict = {}


def _as_items(size: int):
    """(items, index tuples of ``size``) -> the item tuples, by one comprehension that unpacks each
    index tuple, written once for each size: 3 to 4 times quicker in CPython than a tuple(map())
    for each set."""
    f = _AS_ITEMS.get(size)
    if f is None:
        names = [f"i{j}" for j in range(size)]
        got = "".join(f"items[{n}], " for n in names)
        f = _AS_ITEMS[size] = eval(f"lambda items, cands: [({got}) for ({', '.join(names)},) in cands]"
                                   if size else "lambda items, cands: [() for _ in cands]")
    return f


def _made(items, active, pos, buckets: dict) -> list:
    """The sets the active entries of a plan generate from the items, as item tuples, smallest
    first, then in the items' order, each once (not yet tested); ``buckets`` as ``_gen``'s (a new
    dict, or one shared with the other sizes' entries of the same items)."""
    if len(active) == 1:
        size, shapes, best, _ = active[0]
        cands = sorted(_gen(items, size, shapes, pos, buckets, best))
        if size is not None:
            return _as_items(size)(items, cands)
        picks = _picks(items, cands, True)
        picks.sort(key=len)
        return picks
    cands, by_size = [], {}
    for size, shapes, best, _ in active:
        got = _gen(items, size, shapes, pos, buckets, best)
        if size is None:        # sets of any size: sorted all together
            cands.extend(got)
        elif size in by_size:   # a second entry of this size: the two may make a set twice
            by_size[size][1].extend(got)
            by_size[size][0] = True
        else:
            by_size[size] = [False, [*got]]
    if cands:
        for _, got in by_size.values():
            cands.extend(got)
        return _picks(items, cands, False)
    out = []        # each size's sets sorted apart (shorter sorts, no set where one entry made them)
    for size in sorted(by_size):
        twice, got = by_size[size]
        out += _as_items(size)(items, sorted(set(got)) if twice else sorted(got))
    return out


def _kept(items, keyfn, plan, active, pos) -> list:
    """``_made``, kept for the hand it was made from (items with a key, which may repeat, are made
    afresh). A plan's shapes read only the items (their keys are card attributes), and every shape
    holds of a set by its items alone, so the sets made from a hand that has only lost items since
    (the rest in the same order) are the sets made before that hold none of the lost items, in the
    same order: a seat's next lead filters its last one's sets instead of generating them again.
    A hand's record (``Shelf``) is kept under each of its items (any item still held finds it; the
    items must differ: a zone's cards, no key); it holds the sets made by each plan's entries, and
    for entries of several sizes each size's apart too (``Plan.kept``): a seat's first lead
    takes the sets of five its follow of a five-card hand made, and the follow the lead's. A filter
    changes the record in place; a hand holding a lost item again gets a record of its own."""
    if keyfn is not None or not items:
        return _made(items, active, pos, {})
    hands = plan.shelf.hands
    rec = hands.get(items[0])
    if rec is not None:
        where, lost, sets = rec
        at = [*map(where.get, items)]
        if None in at or at != sorted(at) or not lost.isdisjoint(items):   # not fewer, in order
            rec = None
        elif len(at) + len(lost) < len(where):        # lost more since
            lost = rec[1] = where.keys() - items
    if rec is None:
        lost, sets = _NONE, {}
        if len(hands) > MAX_KEPT:
            hands.clear()
        hands.update(zip(items, itertools.repeat([dict(zip(items, range(len(items)))), lost, sets])))
    key, parts = plan.kept[id(active)]
    got = sets.get(key)
    if got is not None:
        return _filtered(got, lost)
    if parts is None:
        picks = _made(items, active, pos, {})
    else:
        picks, buckets = [], {}
        for part, pkey in parts:        # each size's sets: found where another plan made them, or made
            got = None if pkey is None else sets.get(pkey)
            if got is not None:
                got = _filtered(got, lost)
            elif pkey is None and part[0][0] == 1:    # single items of no shape: as they come
                got = list(zip(items))
            else:
                got = _made(items, part, pos, buckets)
                if pkey is not None:
                    sets[pkey] = [got, len(lost)]
            picks += got
    sets[key] = [picks, len(lost)]
    return picks


def _filtered(got: list, lost) -> list:
    """The kept sets [sets, items lost when they were filtered] without the items lost since (a
    hand only loses items while its record holds, so as many lost is the same lost)."""
    if got[1] != len(lost):
        got[0] = [*filter(lost.isdisjoint, got[0])]
        got[1] = len(lost)
    return got[0]


_NONE = frozenset()


def _keys_of(S, picks, key, kmemo) -> list:
    """beats()'s KEY of each pick, remembered for the program (KEY reads only its cards)."""
    vals = list(map(kmemo.get, picks))
    if None in vals:
        for j, v in enumerate(vals):
            if v is None:
                vals[j] = _missed(S, key, picks[j], kmemo)
    return vals


def _passing(picks, test) -> list:
    """The picks (item tuples) that pass an entry's test, in a list of their own."""
    if test is None:
        return picks.copy()
    if type(test) is not tuple:
        return list(itertools.compress(picks, map(test, map(list, picks))))
    return list(itertools.compress(picks, _mask(picks, test)))


def _mask(picks, test):
    """Whether each pick passes the test (an iterable of truth values), None if all do."""
    if test is None:
        return None
    if type(test) is not tuple:
        return map(test, map(list, picks))
    S, old, key, kmemo, bomb, bmemo = test      # beats(s, OLD, KEY, BOMB) alone: OLD's key once
    if bomb is not None or kmemo is None:
        return [_beats(S, list(p), old, key, kmemo, bomb, bmemo) for p in picks]
    sizes, n = set(map(len, picks)), len(old)
    if n not in sizes:          # none has as many items as OLD
        return ()
    vals = _keys_of(S, picks, key, kmemo)
    low = kmemo.get(tuple(old))
    if low is None:
        low = _memo(S, key, old, kmemo)
    right = map(_lt, itertools.repeat(low), vals)
    if len(sizes) > 1:
        right = map(_and, right, map(n.__eq__, map(len, picks)))
    return right


def _and(a, b):
    return a and b


def _beating_all(picks, size, S, old, key, kmemo) -> list:
    """``beats(s, OLD, KEY)`` (no bombs, KEY reads only its cards) of picks all of ``size`` items."""
    if size != len(old) or not picks:
        return []
    low = kmemo.get(tuple(old))
    if low is None:
        low = _memo(S, key, old, kmemo)
    out = []
    get = kmemo.get
    for p in picks:
        v = get(p)
        if v is None:
            v = _missed(S, key, p, kmemo)
        if v > low:
            out.append(p)
    return out


def _beating_one(items, S, old, key, kmemo) -> list:
    """``beats([c], OLD, KEY)`` (no bombs, KEY reads only its cards) for each item c: the single
    items that beat OLD, as one-item lists, in the items' order."""
    if len(old) != 1:
        return []
    one = kmemo.one
    low = one.get(old[0])
    if low is None:
        low = one[old[0]] = key(S, list(old))
    try:
        return [(c,) for c in items if one[c] > low]
    except KeyError:                # an item whose key is not known yet: work out the missing ones
        if len(one) >= MAX_MEMO:
            one.clear()
        for c in items:
            if c not in one:
                one[c] = key(S, [c])
        return [(c,) for c in items if one[c] > low]


def _combos_at(items, keyfn, plan, sizes, tests, pos, quiet=False):
    """The options of a combination choice with a ``Plan``, as ``_combos`` gives them; ``sizes``
    and ``tests`` are the values of this decision that the entries refer to by index. ``quiet``:
    none is an empty list, not an error (a choice block's pick, ``_or_none``)."""
    n = len(items)
    by_n = plan.active.get(sizes)       # by the decision's sizes, then by the number of items
    active = None if by_n is None else by_n.get(n)
    if active is None:
        active = plan.now(sizes, n)
    if len(active) == 1:        # one entry: no union to make
        size, shapes, best, t = active[0]
        test = None if t is None else tests[t]
        if size == 1 and not shapes and type(test) is tuple and test[4] is None and type(test[3]) is KeyMemo:
            out = _beating_one(items, *test[:4])      # a follow of one card: the commonest decision
            if keyfn is not None:
                out = _distinct(out, keyfn)
            if not out and not quiet:
                fail_no_options("no combination satisfies the condition", pos)
            return out
        if shapes:
            picks = _kept(items, keyfn, plan, active, pos)
        elif size == 1:
            picks = list(zip(items))
        else:
            _gen_size(n, size, pos)     # (too many: a clear error)
            picks = list(itertools.combinations(items, size))
        if type(test) is tuple and test[4] is None and test[3] is not None and size is not None:
            out = _beating_all(picks, size, *test[:4])
        else:
            out = _passing(picks, test)
    elif not active:
        out = []
    elif plan.one_test:
        picks = _kept(items, keyfn, plan, active, pos)
        t = active[0][3]
        test = None if t is None else tests[t]
        if test is None:                # (a lead: no test) the kept sets, in a list of their own
            out = picks.copy()
        else:                           # (beats() alone, remembered, compiles to _combos_beating)
            out = _passing(picks, test)
    else:
        buckets, by_test = {}, {}
        for size, shapes, best, t in active:
            cands = _gen(items, size, shapes, pos, buckets, best)
            got = by_test.get(t)
            if got is None:
                by_test[t] = set(cands)
            else:
                got.update(cands)
        if len(by_test) == 1:
            (t, cands), = by_test.items()
            out = _passing(_picks(items, cands, False), None if t is None else tests[t])
        else:           # entries with different tests: a set passes if it passes one of its entries'
            ok = set()
            for t, cands in by_test.items():
                cands = list(cands)
                mask = _mask(_picks(items, cands, True), None if t is None else tests[t])
                ok.update(cands if mask is None else itertools.compress(cands, mask))
            out = _passing(_picks(items, ok, False), None)
    if len(out) > MAX_CANDIDATES:
        fail(f"too many combinations to choose from ({len(out):,} or more)", pos)
    if keyfn is not None:       # identical sets once (every item of a zone differs: no key)
        out = _distinct(out, keyfn)
    if not out and not quiet:
        fail_no_options("no combination satisfies the condition", pos)
    return out


def _combos_beating(items, keyfn, plan, sizes, S, old, key, kmemo, pos, quiet=False):
    """``_combos_at`` for a plan whose every entry is tested by ``beats(s, OLD, KEY)`` alone, with
    no bombs and KEY remembered (``kmemo``, a KeyMemo): a follow in a climbing game, the commonest
    decision of one. The same options, in the same order."""
    n = len(items)
    by_n = plan.active.get(sizes)
    active = None if by_n is None else by_n.get(n)
    if active is None:
        active = plan.now(sizes, n)
    if active.__class__ is _OneItem:        # a follow of one card (OLD is one: its size said so)
        one = kmemo.one
        low = one.get(old[0])
        out = None
        if low is not None:
            try:
                out = [(c,) for c in items if one[c] > low]     # (_beating_one's, without the call)
            except KeyError:
                pass
        if out is None:                     # a key not known yet: _beating_one works it out
            out = _beating_one(items, S, old, key, kmemo)
    elif not active:
        out = []
    else:
        m = len(old)
        picks = _kept(items, keyfn, plan, active, pos)
        if any(e[0] != m for e in active):      # only sets of OLD's size can pass
            picks = [p for p in picks if len(p) == m]
        out = _beating_all(picks, m, S, old, key, kmemo)
    if keyfn is not None:       # identical sets once (every item of a zone differs: no key)
        out = _distinct(out, keyfn)
    if not out and not quiet:
        fail_no_options("no combination satisfies the condition", pos)
    return out


def _combos_at_or_none(items, keyfn, plan, sizes, tests, pos):
    return _combos_at(items, keyfn, plan, sizes, tests, pos, True)


_combos_at.or_none = _combos_at_or_none     # _or_none(_combos_at, ...) without raising and catching

COMBO_RUNTIME = {"_combos": _combos, "_combos_at": _combos_at, "_combos_beating": _combos_beating, "_same": _same, "_run": _run, "_run_round": _run_round,
                 "_groups": _groups, "_leading": _leading, "_beats": _beats}


def _distinct(picks: list, keyfn) -> list:
    """The picks without repeats: two picks are alike when their items' keys are (in any order)."""
    out, seen = [], set()
    for pick in picks:
        key = tuple(sorted(map(keyfn, pick)))
        if key not in seen:
            seen.add(key)
            out.append(pick)
    return out
