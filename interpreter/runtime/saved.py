"""Saving, loading and comparing states: ``State.to_json`` / ``State.from_json`` and ``==``.

A saved state is plain JSON: the zones, card places, values, frames, the open decision, the random
seed, the history and the log, and what was revealed. Clones share tuples and linked lists with the
state they came from, so the comparisons here treat a tuple and a list with the same items alike.
"""
from __future__ import annotations

from rulesrun.dsl.program import steps_list, steps_of
from rulesrun.interpreter.runtime.errors import GameError

STATE_FORMAT = "rulesrun-state/3"   # 2: frames hold generated code's labels and live locals;
#                                    3: without the decision's value (an argument of the entry)
OLD_FORMATS = ("rulesrun-state/2",)  # read too: the open decision's frame loses its last local


def data(S) -> dict:
    """The state as fresh JSON-ready lists (big flat lists are sliced; small nested ones converted)."""
    return {"z": [list(z) for z in S.z], "loc": list(S.loc), "g": _jsonable(S.g),
            "pv": _jsonable(S.pv), "cv": _jsonable(S.cv), "frames": _jsonable(S.frames),
            "pending": _jsonable(S.pending), "rng": S.rng, "hist": [h if h.__class__ is str else _jsonable(h) for h in steps_list(S.steps)],
            "ann": _log_list(S.ann), "seed": S.seed, "stacked": _jsonable(S.forced),
            "shown": [[*k, v] for k, v in sorted(S.shown.items(), key=repr)], "at_once": S.sim}


def same(a, b) -> bool:
    """Two states of the same game (or of the same rules, players, variants and parameters) equal."""
    pa, pb = a._prog, b._prog
    same_game = pa is pb or (pa.source == pb.source and pa.players == pb.players
                             and pa.variants == pb.variants and pa.params == pb.params)
    return (same_game and _same_pending(a.pending, b.pending) and _same_rows(a.z, b.z)
            and a.g == b.g and _same_rows(a.pv, b.pv) and _same_rows(a.cv, b.cv)
            and _same_frames(a.frames, b.frames) and a.rng == b.rng and a.seed == b.seed
            and a.loc == b.loc and _same_steps(a.steps, b.steps) and a.forced == b.forced
            and a.shown == b.shown and a.sim == b.sim and _same_log(a.ann, b.ann))


def to_json(S) -> dict:
    prog = S._prog
    d = data(S)
    d.update({"format": STATE_FORMAT, "game": prog.title, "rules": prog.path,
              "players": prog.players, "variants": list(prog.variants)})
    if prog.params:
        d["params"] = dict(prog.params)
    return d


def from_json(cls, game, data: dict):
    """A state of ``cls`` for ``game`` from its saved form; a GameError says what does not fit:
    another version's format, another game, a damaged file."""
    prog = game.program
    try:
        fmt = data.get("format")
        if isinstance(fmt, str) and fmt.startswith("rulesrun-state/") and fmt not in (STATE_FORMAT, *OLD_FORMATS):
            raise GameError(f"this state was saved by another version of rulesrun (format {fmt!r}; this "
                            f"version reads {STATE_FORMAT!r}): replay its game from the seed and history")
        if fmt != STATE_FORMAT and fmt not in OLD_FORMATS:
            raise GameError(f"not a saved rulesrun state (format {fmt!r})")
        if data.get("game") != prog.title or data.get("players") != prog.players or \
                tuple(data.get("variants", ())) != tuple(prog.variants):
            raise GameError(f"this state is of {data.get('game')!r} with {data.get('players')} players "
                            f"and variants {data.get('variants')}, not of {game!r}")
        if (data.get("params") or {}) != prog.params:
            raise GameError(f"this state was played with the parameters {data.get('params') or {}}, "
                            f"not {prog.params}")
        S = object.__new__(cls)
        S._game, S._prog = game, prog
        S.seed = int(data["seed"])
        S.z = [list(z) for z in data["z"]]
        S.loc = list(data["loc"])
        S.g = list(data["g"])
        S.pv = [list(v) for v in data["pv"]]
        S.cv = [list(v) for v in data["cv"]]
        S.frames = [[int(F[0]), int(F[1]), list(F[2])] for F in data["frames"]]
        S.pending = None if data["pending"] is None else list(data["pending"])
        if fmt == "rulesrun-state/2" and S.pending is not None and S.frames:
            S.frames[-1][2].pop()   # format 2 kept a slot for the decision's value at the end
        S.rng = int(data["rng"])
        S.steps = steps_of(data["hist"])
        node = None
        for tid, vals in data["ann"]:
            node = (node, tid, *vals)
        S.ann = node
        S.forced = [[int(f[0]), list(f[1])] for f in data.get("stacked", [])]
        # (a key is (part, index, key), and the seat shown for 'reveal ... to': dsl.lower.statements)
        S.shown = {(str(e[0]), int(e[1]), *e[2:-1]): e[-1] for e in data.get("shown", [])}
        S.sim = int(data.get("at_once", 0))      # (saved before 'at once' blocks: none open)
        S._legal = S._row = None
        S._lookups = game._lookups
        if len(S.z) != len(prog.zones) or len(S.loc) != len(prog.card_names):
            raise GameError("the saved state does not fit this game's zones and cards")
        return S
    except (KeyError, TypeError, ValueError) as e:
        raise GameError(f"the saved state is damaged ({type(e).__name__}: {e})") from None


def _same_rows(a: list, b: list) -> bool:
    """Lists of lists equal, whether each inner one is a list or a tuple shared with clones."""
    return len(a) == len(b) and all(x == y or list(x) == list(y) for x, y in zip(a, b))


def _same_pending(a, b) -> bool:
    """The open decisions equal; a combination's options are tuples, and lists once loaded."""
    return a == b or (a is not None and b is not None and a[:2] == b[:2] and len(a[2]) == len(b[2])
                      and all(x == y or (isinstance(x, (list, tuple)) and isinstance(y, (list, tuple))
                                         and _jsonable(x) == _jsonable(y)) for x, y in zip(a[2], b[2])))


def _same_frames(a: list, b: list) -> bool:
    return len(a) == len(b) and all(F[:2] == G[:2] and list(F[2]) == list(G[2]) for F, G in zip(a, b))


def _same_steps(a, b) -> bool:
    """The same steps, in the same order: the two histories walked from their newest steps together,
    up to the first link they share (a clone shares its original's past: after the same actions,
    only the new steps are compared)."""
    while a is not b:
        if a is None or b is None or a[1] != b[1]:
            return False
        a, b = a[0], b[0]
    return True


def _same_log(a, b) -> bool:
    while a is not b:
        if a is None or b is None:
            return False
        if a[1:] != b[1:]:
            return False
        a, b = a[0], b[0]
    return True


def _log_list(node) -> list:
    out = []
    while node is not None:
        out.append([node[1], list(node[2:])])
        node = node[0]
    out.reverse()
    return out


def _jsonable(v):
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {k: _jsonable(x) for k, x in v.items()}
    return v
