"""Facts about a program worked out from its IR, for the runtime's information tools.

``domains``: for each state value, the values it can ever hold, where the IR says (every value
written to it is a constant, a choice of constants, or an attribute printed on a card), else by
its type (yes/no, a kind, a seat); None where it cannot be known (a number worked out by
arithmetic: the compiler then gives a secret one the interval ``dsl.analysis.bounds`` infers). A bot that must not see a hidden value draws it from here instead
(``interpreter.runtime.observe.resample``).

``frame_types``: for each resumable procedure and each place it stops, the rules type of each
local its frame keeps there, so that the cards in a frame can be relabelled like those in zones.

``frame_secrets``: for each place a procedure stops, the locals its frame keeps there that some
seat does not see (``dsl.analysis.frames.FrameSecrets``), who sees each, and the values it can hold, so
that a bot imagines them afresh like hidden state.
"""
from __future__ import annotations

import ast

from rulesrun.dsl import types as T
from rulesrun.dsl.ir import K, Comp, Local, St, Stop, walk as _walk

UNKNOWN = None


def _values(node, chosen: dict) -> set | None:
    """The values an expression can have, or None when the IR does not say."""
    if isinstance(node, K):
        v = node.value
        return {v} if v is None or isinstance(v, (bool, int, str)) else None
    if isinstance(node, ast.Constant):
        return {node.value}
    if isinstance(node, ast.IfExp):
        a, b = _values(node.body, chosen), _values(node.orelse, chosen)
        return None if a is None or b is None else a | b
    if isinstance(node, ast.Subscript) and isinstance(node.value, K) and isinstance(node.value.value, (list, dict)):
        table = node.value.value          # a card attribute, next/previous of a kind, ...
        vals = table.values() if isinstance(table, dict) else table
        if all(v is None or isinstance(v, (bool, int, str)) for v in vals):
            return set(vals)
        return None
    if isinstance(node, Local) and node.key() in chosen:
        return chosen[node.key()]
    return None


def _target(node):
    """(part, index) of a state value written: ("g", i), ("pv", i) or ("cv", i); else None."""
    if not isinstance(node, ast.Subscript):
        return None
    inner = node.value
    if isinstance(inner, St) and inner.which == "g" and isinstance(node.slice, K):
        return "g", node.slice.value
    if isinstance(inner, ast.Subscript) and isinstance(inner.value, St) and inner.value.which in ("pv", "cv") \
            and isinstance(inner.slice, K):
        return inner.value.which, inner.slice.value
    return None


def _chosen_values(bodies: list) -> dict:
    """Locals set by a decision among constants (``p chooses how from ["up", "down"]``)."""
    out: dict = {}
    for body in bodies:
        for s in body:
            for n in _walk(s):
                if isinstance(n, Stop) and n.kind == "decision" and n.chosen is not None:
                    vals = _values_of_list(n.options)
                    key = n.chosen.key()
                    if vals is None or out.get(key, set()) is None:
                        out[key] = None
                    else:
                        out[key] = out.get(key, set()) | vals
    return {k: v for k, v in out.items() if v is not None}


def _values_of_list(node) -> set | None:
    if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "list" and node.args:
        node = node.args[0]
    if isinstance(node, K) and isinstance(node.value, list) and all(
            v is None or isinstance(v, (bool, int, str)) for v in node.value):
        return set(node.value)
    if isinstance(node, ast.List):
        sets = [_values(e, {}) for e in node.elts]
        return None if any(s is None for s in sets) else set().union(*sets)
    if isinstance(node, Comp) and node.kind == "list":
        return _values_of_list(node.source)
    return None


def domains(bodies: list, variables: dict, kinds: dict, players: int, teams: int = 0) -> dict:
    """{(part, index): tuple of values or None} for every state value; ``variables`` maps
    (part, index) to its VarInfo."""
    chosen = _chosen_values(bodies)
    found: dict = {}
    for body in bodies:
        for s in body:
            for n in _walk(s):
                if isinstance(n, ast.Assign):
                    key = _target(n.targets[0])
                    if key is not None:
                        vals = _values(n.value, chosen)
                        found[key] = None if vals is None or found.get(key, set()) is None else found.get(key, set()) | vals
                elif isinstance(n, ast.AugAssign):
                    key = _target(n.target)
                    if key is not None:
                        found[key] = None
    out = {}
    for key, info in variables.items():
        typ = info.type
        if typ == T.CARD or T.is_list(typ):
            out[key] = UNKNOWN            # cards are relabelled, not drawn
            continue
        written = found.get(key, set())
        if written is not None:           # every value written is known
            dom = written | {info.initial}
        elif typ == T.BOOL:
            dom = {False, True}
        elif T.is_enum(typ):
            dom = set(kinds[typ[5:]]) | ({None} if info.initial is None else set())
        elif typ == T.PLAYER:
            dom = set(range(players)) | ({None} if info.initial is None else set())
        elif typ == T.TEAM:
            dom = set(range(teams)) | ({None} if info.initial is None else set())
        elif info.bounds is not None:       # a number worked out by arithmetic, declared 'from A to B'
            dom = set(range(info.bounds[0], info.bounds[1] + 1)) | ({None} if info.initial is None else set())
        else:
            dom = None
        out[key] = UNKNOWN if dom is None else tuple(sorted(dom, key=_order))
    return out


def _order(v):
    return (v is None, type(v).__name__, v if v is not None else 0)


def frame_types(stops: list, slot_types: dict) -> dict:
    """{label: [type of each local kept at that stop, then the chosen value's]}."""
    out = {}
    for s in stops:
        types = [slot_types.get(i, T.NONE) for i in s.saved]
        if s.chosen is not None:
            types.append(s.chosen.rtype or slot_types.get(s.chosen.slot, T.NONE))
        out[s.label] = types
    return out


def _local_values(procs: dict) -> dict:
    """{(procedure ref, slot): the values a frame local can hold} where every value set to it is a
    constant, a choice among constants or a card's printed attribute (None where one is not)."""
    out: dict = {}

    def add(key, vals):
        out[key] = None if vals is None or out.get(key, set()) is None else out.get(key, set()) | vals

    for ref, (_, body) in procs.items():
        chosen = _chosen_values([body])
        for s in body:
            for n in _walk(s):
                if isinstance(n, ast.Assign) and isinstance(n.targets[0], Local):
                    add((ref, n.targets[0].slot), _values(n.value, chosen))
                elif isinstance(n, ast.AugAssign) and isinstance(n.target, Local):
                    add((ref, n.target.slot), None)
                elif isinstance(n, ast.For) and isinstance(n.target, Local):
                    add((ref, n.target.slot), _values_of_list(n.iter))
                elif isinstance(n, Stop) and n.kind == "decision" and n.chosen is not None:
                    add((ref, n.chosen.slot), chosen.get(n.chosen.key()))
    return out


def frame_secrets(at_stops: dict, procs: dict, frame_types: dict, kinds: dict, players: int,
                  teams: int = 0) -> dict:
    """{procedure ref: {label: ((index in the frame's locals, knowers, values), ...)}} for the
    locals that hold a secret at that stop and can hold two values or more. A knower is a seat
    number, ("at", i) for the seat in the frame's i-th local, or None (the analysis cannot say who
    sees it: nobody is taken to). Cards are left out: they are relabelled with the other cards."""
    values = None       # worked out at the first number or text that needs it
    out: dict = {}
    for (ref, label), (saved, secrets) in at_stops.items():
        types = frame_types.get(ref, {}).get(label) or []
        entries = []
        for i, slot in enumerate(saved):
            if slot not in secrets or i >= len(types):
                continue
            typ = types[i]
            if typ == T.BOOL:
                dom = {False, True}
            elif T.is_enum(typ):
                dom = set(kinds[typ[5:]])
            elif typ == T.PLAYER:
                dom = set(range(players))
            elif typ == T.TEAM:
                dom = set(range(teams))
            elif typ in (T.NUMBER, T.TEXT):
                values = _local_values(procs) if values is None else values
                dom = values.get((ref, slot))
            else:
                dom = None          # a card or a list of cards (relabelled), or values not known
            if not dom or len(dom) < 2:
                continue
            knowers = []
            for x in secrets[slot]:
                who = x[3]                  # (kind, key, text, knower)
                if who is not None and who[0] == "local":
                    at = saved.index(who[1][1]) if who[1][0] == "frame" and who[1][1] in saved else -1
                    who = ("at", at) if at >= 0 and types[at] == T.PLAYER else None
                elif who is not None:
                    who = who[1]
                knowers.append(who)
            entries.append((i, tuple(dict.fromkeys(knowers)), tuple(sorted(dom, key=_order))))
        if entries:
            out.setdefault(ref, {})[label] = tuple(entries)
    return out
