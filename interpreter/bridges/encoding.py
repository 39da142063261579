"""Observation tensors and strings for one seat, built only from what that seat may see.

The tensor is flat float32, made of named pieces in this order (``Encoder.layout`` gives each
piece's name and shape). Seats are *relative*: index 0 is the observing seat, 1 the next seat
round the table, and so on, so one policy can play from any seat.

    to_move     (N+1,)        who must choose now (relative seat), or the last slot at the end
    decision    (G,)          the open decision's group (see actions.py), whoever chooses
    subset      (S,)          the elements picked so far of a subset being chosen (own turn only)
    cards       (K, L+1)      how many cards of each kind lie in each location the seat can see;
                              the last column counts the cards of the kind it cannot see
    top         (L, K)        the kind of the top card of each location the seat can see
    sizes       (L,)          how many cards each location holds, where that is shown
                              (all but hidden zones; 0 for hidden zones)
    state       (...)         the public game state values, each by its type (below)
    players     (N, ...)      each seat's player state values the seat may see, by type
    card_state  (K, ...)      the public card state of the cards the seat can see, summed by kind
    backs       (L, B, ...)   the ``on back`` card state of the cards the seat sees only the backs of,
                              by location and place in it (bottom first); B is the number of cards
                              (0 when the file has no such state)

K is the number of kinds of card (cards whose printed attributes are all equal are one kind),
L = shared zones + per-player zones × N, G the number of decision groups. A value is encoded by
its type: number → itself; yes/no → 0/1; a kind → one-hot over its values; player → one-hot over
relative seats; card → one-hot over kinds; list of cards → counts by kind; list of players →
multi-hot seats; list of a kind → counts by value; list of numbers → (length, sum); text and
zone values are not encoded (the observation string carries them).
"""
from __future__ import annotations

import hashlib

from rulesrun.interpreter.bridges import require

require("bridges' observation encoding", "openspiel|pettingzoo|gym", "numpy")

import numpy as np  # noqa: E402

from rulesrun.interpreter.bridges.actions import ActionSpace, BridgeError  # noqa: E402


class Encoder:
    """The observation tensor layout of one compiled game, and the tensors and strings themselves."""

    def __init__(self, space: ActionSpace):
        self.space = space
        prog = self.prog = space.prog
        self.N = N = prog.players
        self.K = K = space.nclasses
        kinds = space._kinds
        self._kinds = kinds
        # locations: shared zones, then each family's zones by relative seat
        self.shared = [zi for zi, z in enumerate(prog.zones) if z.owner is None]
        self.families = list(prog.families.items())          # (name, first zone index)
        self.L = L = len(self.shared) + len(self.families) * N
        self.G = G = len(space.groups)
        self.S = S = max([len(g.keys) - 1 for g in space.groups if g.subset], default=0)
        self.width_state = sum(self._width(v.type) for v in prog.globals)
        self.width_player = sum(self._width(v.type) for v in prog.player_vars)
        self.width_card = sum(self._width(v.type) for v in prog.card_vars if v.public)
        self.width_back = sum(self._width(prog.card_vars[i].type) for i in prog.backs)
        self.B = B = len(prog.card_names) if self.width_back else 0   # places in a location
        self.layout = [("to_move", (N + 1,)), ("decision", (G,)), ("subset", (S,)), ("cards", (K, L + 1)),
                       ("top", (L, K)), ("sizes", (L,)), ("state", (self.width_state,)),
                       ("players", (N, self.width_player)), ("card_state", (K, self.width_card)),
                       ("backs", (L, B, self.width_back))]
        self._slices = []
        i = 0
        for name, shape in self.layout:
            n = int(np.prod(shape))
            self._slices.append((name, i, i + n, shape))
            i += n
        self.size = i
        # what tensor() walks, worked out once: (slot, type, column, width) of each value shown
        cols, col = [], 0
        for gi, v in enumerate(prog.globals):
            w = self._width(v.type)
            if w and v.visibility == "public":
                cols.append((gi, v.type, col, w))
            col += w
        self._gspec = cols
        cols, col = [], 0
        for vi, v in enumerate(prog.player_vars):
            w = self._width(v.type)
            if w and v.visibility != "hidden":
                cols.append((vi, v, v.type, col, w))
            col += w
        self._pspec = cols
        cols, col = [], 0
        for vi, v in enumerate(prog.card_vars):
            if not v.public:
                continue
            w = self._width(v.type)
            if w:
                cols.append((vi, v.type, col, w))
            col += w
        self._cspec = cols
        cols, col = [], 0
        for vi in prog.backs:
            v = prog.card_vars[vi]
            w = self._width(v.type)
            if w:
                cols.append((vi, v.type, col, w))
            col += w
        self._bspec = cols
        self._locs = [self._locations(seat) for seat in range(N)]
        self._seen_by = [[self._sees(zi, seat) for zi in range(len(prog.zones))] for seat in range(N)]
        self._hidden = [z.visibility == "hidden" for z in prog.zones]
        self.class_total = np.zeros(K, np.float32)
        for c in space.card_class:
            self.class_total[c] += 1

    # ── value encoders ─────────────────────────────────────────────────────
    def _width(self, t: str) -> int:
        if t in ("number", "bool"):
            return 1
        if t.startswith("enum:"):
            return len(self._kinds.get(t[5:], ()))
        if t == "player":
            return self.N
        if t == "card":
            return self.K
        if t == "team":            # one place per team (p.team, a team value)
            return len(self.prog.teams)
        if t.startswith("list:"):
            e = t[5:]
            if e == "card":
                return self.K
            if e == "player":
                return self.N
            if e.startswith("enum:"):
                return len(self._kinds.get(e[5:], ()))
            if e == "number":
                return 2
        return 0

    def _put(self, out: np.ndarray, t: str, v, seat: int) -> None:
        """Add value ``v`` of type ``t`` into ``out`` (a view of its width), seen from ``seat``."""
        if v is None or out.size == 0:
            return
        if t in ("number", "bool"):
            out[0] += float(v)
        elif t.startswith("enum:"):
            vals = self._kinds.get(t[5:], [])
            if v in vals:
                out[vals.index(v)] += 1
        elif t == "player":
            out[(v - seat) % self.N] += 1
        elif t == "card":
            out[self.space.card_class[v]] += 1
        elif t == "team":
            out[v] += 1
        elif t.startswith("list:"):
            e = t[5:]
            if e == "number":
                out[0] += len(v)
                out[1] += sum(v)
            else:
                for x in v:
                    self._put(out, e, x, seat)

    # ── the tensor ─────────────────────────────────────────────────────────
    def _sees(self, zi: int, seat: int) -> bool:
        return self.prog.zones[zi].seen_by(seat)

    def _locations(self, seat: int) -> list:
        """Zone indices by location slot, as seen from ``seat``."""
        locs = list(self.shared)
        for _, first in self.families:
            locs.extend(first + (seat + r) % self.N for r in range(self.N))
        return locs

    def tensor(self, table, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        state = table.state
        prog = self.prog
        N, K, L = self.N, self.K, self.L
        if out is None:
            out = np.zeros(self.size, np.float32)
        else:
            out.fill(0)
        parts = {name: out[a:b].reshape(shape) for name, a, b, shape in self._slices}
        pending = state.open_decision
        if pending is None:
            parts["to_move"][N] = 1
        else:
            parts["to_move"][(pending[0] - seat) % N] = 1
            grp_index = self.space.group_of[pending[1]]
            parts["decision"][grp_index] = 1
            grp = self.space.groups[grp_index]
            if pending[0] == seat and grp.subset:
                for k in table.partial:
                    parts["subset"][grp.index[k]] += 1
        cls = self.space.card_class
        cards, top, sizes = parts["cards"], parts["top"], parts["sizes"]
        visible: list[int] = []
        sees, hidden, zones = self._seen_by[seat], self._hidden, state.zones
        unseen = []         # (slot, cards) of the locations whose count only the seat sees
        for slot, zi in enumerate(self._locs[seat]):
            z = zones[zi]
            if sees[zi] and z:
                ks = [cls[c] for c in z]
                cards[:, slot] = np.bincount(ks, minlength=K)
                top[slot, ks[-1]] = 1
                visible.extend(z)
            if not hidden[zi]:
                sizes[slot] = len(z)
                if not sees[zi] and z:
                    unseen.append((slot, z))
        cards[:, L] = self.class_total - cards[:, :L].sum(axis=1)
        put = self._put
        st = parts["state"]
        g = state.game_values
        for gi, t, col, w in self._gspec:
            put(st[col:col + w], t, g[gi], seat)
        pl = parts["players"]
        pv = state.player_values
        for r in range(N):
            p = (seat + r) % N
            row = pl[r]
            for vi, v, t, col, w in self._pspec:
                if v.seen_by(seat, p):
                    put(row[col:col + w], t, pv[vi][p], seat)
        if self._cspec and visible:
            cs = parts["card_state"]
            cv = state.card_values
            for vi, t, col, w in self._cspec:
                row = cv[vi]
                for c in visible:
                    if row[c] is not None:
                        put(cs[cls[c], col:col + w], t, row[c], seat)
        if self._bspec and unseen:
            bk = parts["backs"]
            cv = state.card_values
            for vi, t, col, w in self._bspec:
                row = cv[vi]
                for slot, z in unseen:
                    for place, c in enumerate(z):
                        if row[c] is not None:
                            put(bk[slot, place, col:col + w], t, row[c], seat)
        return out

    def split(self, tensor: np.ndarray) -> dict:
        """The named pieces of a flat tensor, shaped."""
        return {name: tensor[a:b].reshape(shape) for name, a, b, shape in self._slices}

    # ── strings ────────────────────────────────────────────────────────────
    def observation_string(self, table, seat: int, log: bool = False) -> str:
        """What ``seat`` sees now, as one line: the engine's observation (``state.observation``,
        without the log unless asked), plus the elements picked so far of a subset being chosen."""
        from rulesrun.interpreter.runtime.observe import observe
        obs = observe(table.state, seat, log=log)
        del obs["game"]
        if table.partial and table.state.open_decision and table.state.open_decision[0] == seat:
            grp = table.group()
            obs["picked"] = [grp.texts[grp.index[k]] for k in table.partial]
        return repr(obs)


_GAMES: dict = {}
_COMPILED: dict = {}


def _digest(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return hashlib.blake2b(f.read(), digest_size=16).hexdigest()
    except OSError as e:
        raise BridgeError(f"cannot read the rules file {path!r}: {e.strerror}") from None


def engine_game(path, players: int | None = None, variants=(), params: dict | None = None):
    """``interpreter.load_game``, compiled once per file content, player count, variants and
    game parameters ({name: value}, dsl.check.params)."""
    from rulesrun.interpreter.runtime.engine import load_game
    path = str(path)
    key = (path, _digest(path), players, tuple(variants), tuple(sorted((params or {}).items())))
    game = _GAMES.get(key)
    if game is None:
        game = _GAMES[key] = load_game(path, players=players, variants=tuple(variants), params=params)
        if len(_GAMES) > 128:
            _GAMES.pop(next(iter(_GAMES)))
    return game


def compiled(path, players: int | None = None, variants=(), number_bounds: dict | None = None,
             params: dict | None = None):
    """(engine Game, ActionSpace, Encoder) of a configuration, compiled once per file content
    (OpenSpiel loads a game again for every state it deserializes; environments are made often)."""
    path = str(path)
    bounds = dict(number_bounds or {})
    key = (path, _digest(path), players, tuple(variants), tuple(sorted(bounds.items())),
           tuple(sorted((params or {}).items())))
    hit = _COMPILED.get(key)
    if hit is None:
        engine = engine_game(path, players, variants, params)
        space = ActionSpace(engine, bounds)
        hit = _COMPILED[key] = (engine, space, Encoder(space))
        if len(_COMPILED) > 64:
            _COMPILED.pop(next(iter(_COMPILED)))
    return hit
