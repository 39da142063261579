"""An engine state seen through the action ids of ``interpreter.bridges.actions``: the open
decision's legal ids, and applying one (a subset chosen element by element)."""
from __future__ import annotations

from rulesrun.interpreter.bridges.actions import DONE, ActionSpace, BridgeError, Group, _elem, _is_move


class Table:
    """An engine state seen through action ids: the open decision's legal ids, and applying one.
    A subset decision is chosen element by element; the elements picked so far are ``partial``
    (part of the state: cloned, compared and saved with it)."""

    __slots__ = ("space", "state", "partial", "_ids")

    def __init__(self, space: ActionSpace, state, partial: tuple = ()):
        self.space, self.state, self.partial = space, state, tuple(partial)
        self._ids = None

    def clone(self) -> "Table":
        return Table(self.space, self.state.clone(), self.partial)

    def current_player(self) -> int:
        return self.state.current_player()

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def group(self) -> Group | None:
        pending = self.state.open_decision
        return None if pending is None else self.space.groups[self.space.group_of[pending[1]]]

    def _options(self):
        """The open decision's options as (key or sorted keys of a subset, index)."""
        pending = self.state.open_decision
        grp = self.group()
        space = self.space
        elem = _elem(grp)
        out = []
        if grp.tagged:
            did = pending[1]
            for i, value in enumerate(pending[2]):
                k = space.tagged_key(did, grp.type, value)
                if k[0] == "<set>":     # a subset branch's set: its items in id order
                    k = ("<set>", k[1], tuple(sorted(k[2], key=lambda e: grp.index.get(e, -1))))
                out.append((k, i))
            return grp, out
        for i, value in enumerate(pending[2]):
            if grp.subset and value.__class__ is str:       # a named move beside a subset
                out.append((space.key(elem, value, grp.moves), i))
            elif grp.subset:
                out.append((tuple(sorted((space.key(elem, v) for v in value), key=lambda k: grp.index.get(k, -1))), i))
            else:
                out.append((space.key(elem, value, grp.moves), i))
        return grp, out

    def _check(self, grp: Group, key) -> int:
        pos = grp.index.get(key)
        if pos is None:
            d = self.space.prog.decisions[self.state.open_decision[1]]
            hint = (f"; pass number_bounds={{'{d.label}': (low, high)}} wide enough for it"
                    if grp.type.endswith("number") else "")
            raise BridgeError(f"{d.pos}: the decision '{d.label}' offers {key!r}, which its action ids "
                              f"do not cover{hint}")
        return pos

    def legal_ids(self) -> list[int]:
        if self._ids is not None:
            return self._ids
        if self.state.open_decision is None:
            return []
        grp, options = self._options()
        if grp.mixed:
            ids = self._mixed_ids(grp, options)
        elif not grp.subset:
            ids = sorted(grp.offset + self._check(grp, k) for k, _ in options)
        else:
            ids = set()
            part = self.partial
            n = len(part)
            last = grp.index[part[-1]] if part else -1
            for keys, _ in options:
                if _is_move(keys):      # a named move: taken whole, before any element is added
                    if not part:
                        ids.add(grp.offset + self._check(grp, keys))
                    continue
                for k in keys:
                    self._check(grp, k)
                if keys[:n] == part:
                    if len(keys) == n:
                        ids.add(grp.offset + len(grp.keys) - 1)      # done
                    elif grp.index[keys[n]] >= last:
                        ids.add(grp.offset + grp.index[keys[n]])
            ids = sorted(ids)
        self._ids = ids
        return ids

    def _mixed_ids(self, grp: Group, options) -> list:
        """The legal ids of a tagged block with a subset branch: before any item is added every
        whole option (a pick's value, a move) and each subset branch's first items (or its done,
        for an empty set); then the items of that branch that can still complete one of its sets."""
        ids = set()
        part = self.partial
        n = len(part)
        last = grp.index[part[-1]] if part else -1
        branch = part[0][1] if part else None
        for key, _ in options:
            if key[0] != "<set>":
                if not part:
                    ids.add(grp.offset + self._check(grp, key))
                continue
            if branch is not None and key[1] != branch:
                continue
            elems = key[2]
            for k in elems:
                self._check(grp, k)
            if elems[:n] == part:
                if len(elems) == n:
                    ids.add(grp.offset + self._check(grp, ("<done>", key[1])))
                elif grp.index[elems[n]] >= last:
                    ids.add(grp.offset + grp.index[elems[n]])
        return sorted(ids)

    def _mixed_key(self, grp: Group, key):
        """A mixed block's id as the key of an option: an item added (None), or the whole set."""
        if key[0] == "<sub>":
            return None
        if key[0] == "<done>":
            return ("<set>", key[1], self.partial)
        return key

    def apply_id(self, action_id: int) -> None:
        """Take the action with this id; raises BridgeError if it is not legal now."""
        if action_id not in self.legal_ids():
            raise BridgeError(f"action id {action_id} ({self.space.text(action_id) if 0 <= action_id < self.space.num_actions else 'out of range'}) "
                              f"is not legal now; legal: {self.legal_ids()[:10]}")
        grp, options = self._options()
        key = grp.keys[action_id - grp.offset]
        self._ids = None
        if grp.mixed:
            whole = self._mixed_key(grp, key)
            if whole is None:
                self.partial = self.partial + (key,)
                return
            key, self.partial = whole, ()
        elif grp.subset and not _is_move(key):
            if key != DONE:
                self.partial = self.partial + (key,)
                return
            key, self.partial = self.partial, ()
        index = next(i for k, i in options if k == key)
        self.state.apply_action(index)

    def action_index(self, action_id: int) -> int | None:
        """The position among the engine's legal actions that this id chooses (None for a step of a subset)."""
        grp, options = self._options()
        key = grp.keys[action_id - grp.offset]
        if grp.mixed:
            key = self._mixed_key(grp, key)
            if key is None:
                return None
        elif grp.subset and not _is_move(key):
            if key != DONE:
                return None
            key = self.partial
        return next(i for k, i in options if k == key)

    def id_of(self, engine_index: int) -> list[int]:
        """The ids that take the engine's legal action number ``engine_index`` (several for a subset)."""
        grp, options = self._options()
        key = options[engine_index][0]
        if grp.mixed and key[0] == "<set>":
            return [grp.offset + grp.index[k] for k in key[2]] + [grp.offset + grp.index[("<done>", key[1])]]
        if not grp.subset or _is_move(key):
            return [grp.offset + grp.index[key]]
        return [grp.offset + grp.index[k] for k in key] + [grp.offset + len(grp.keys) - 1]
