"""Scopes: the locals of one procedure or function, as numbered slots with their types."""
from __future__ import annotations

import copy
import itertools

from rulesrun.dsl import types as T
from rulesrun.dsl.errors import Pos
from rulesrun.dsl.ir import Local

TEMP_NAMES = itertools.count(1_000_000)


class Scope:
    """The locals of one procedure or function: a flat list of slots. In mode "L" a slot is an item
    of a list ``L`` (for values worked out while compiling); in mode "py" it is a Python local; in
    mode "frame" (a resumable procedure) a local that is kept in the frame whenever the procedure
    stops. Temporary bindings (a loop variable inside an expression) are locals of their own in
    every mode, numbered apart from every other one (so that an inlined function's loops never
    capture the names of the loops around it)."""

    def __init__(self, mode: str = "L"):
        self.slots: dict[str, tuple[int, str]] = {}
        self.n = 0
        self.mode = mode
        self.temps: set[int] = set()
        self.alias: dict[int, object] = {}    # an inlined function's parameters: the arguments
        self.params: set[int] = set()         # a procedure's parameters (dsl.passes.nonnull)

    def ref(self, slot: int, rtype: str | None = None):
        if slot in self.alias:
            return copy.copy(self.alias[slot])
        node = Local(slot, "temp" if slot in self.temps else self.mode, rtype)
        if slot in self.params:
            node.param = True       # its value comes from the caller (dsl.passes.nonnull)
        return node

    def lookup(self, name):
        return self.slots.get(name)

    def bind(self, name: str, typ: str, pos: Pos, comp) -> int:
        if name in self.slots:
            slot, old = self.slots[name]
            if old != typ and not T.compatible(old, typ):
                comp.err(f"'{name}' is a {T.describe(old)} here already; it cannot now hold a {T.describe(typ)}",
                         pos, "use another name")
            if old == T.NONE or old == "list:none":
                self.slots[name] = (slot, typ)
            return slot
        self.slots[name] = (self.n, typ)
        self.n += 1
        return self.n - 1

    def temp(self) -> int:
        """A local for a loop variable; it takes no frame slot."""
        slot = next(TEMP_NAMES)
        self.temps.add(slot)
        return slot

    def push(self, name: str, typ: str):
        """A temporary binding (a loop variable inside an expression); undo with pop()."""
        saved = self.slots.get(name)
        slot = self.temp()
        self.slots[name] = (slot, typ)
        return slot, saved

    def pop(self, name, saved):
        if saved is None:
            del self.slots[name]
        else:
            self.slots[name] = saved
