"""Resumable procedures: liveness of frame locals at each stop, and one entry per place to start.

A resumable procedure is lowered (``dsl.lower.statements``) as structured statements with explicit ``Stop``
nodes, numbered 1, 2, ... in the order of the text. It runs over a frame
``F = [procedure index, label, locals]``; the engine calls the entry for the frame's label:

- entry 0 starts it: the locals are read from the frame (the arguments), and the body runs as
  written — straight code, as if written by hand.
- entry k resumes after stop k: the locals kept at the stop are read back (a decision's chosen
  value is the entry's argument, ``dsl.emit.writer``), then the rest of the innermost block runs, then each loop around
  the stop from its test, then what follows each enclosing statement, out to the end.

``liveness`` works out, for each stop, the frame locals that may be read after resuming there
before they are written: only those are kept in the frame (they become part of the state).
"""
from __future__ import annotations

import ast

from rulesrun.dsl.ir import K, Load, Local, Reveal, Stop, clone, walk as _walk, walk_exprs
from rulesrun.dsl.program import DONE

__all__ = ["stops", "liveness", "entries"]


def stops(stmts: list) -> list:
    return [n for s in stmts for n in _walk(s) if isinstance(n, Stop)]


# ── liveness ─────────────────────────────────────────────────────────────────
_READS: dict = {}      # id(node) -> (node, its frame locals), for one liveness run


def _frame_locals(node) -> set:
    hit = _READS.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    found = frozenset(n.slot for n in walk_exprs(node) if isinstance(n, Local) and n.mode == "frame")
    _READS[id(node)] = (node, found)
    return found


def _targets(targets) -> set:
    out = set()
    for t in targets:
        if isinstance(t, Local) and t.mode == "frame":
            out.add(t.slot)
        elif isinstance(t, (ast.Tuple, ast.List)):
            out |= _targets(t.elts)
    return out


def _reads_of_targets(targets) -> set:
    """Locals read in assignment targets: ``S.pv[3][l2] = ...`` reads l2."""
    out = set()
    for t in targets:
        if isinstance(t, (ast.Tuple, ast.List)):
            out |= _reads_of_targets(t.elts)
        elif not isinstance(t, Local):
            out |= _frame_locals(t)
    return out


def _block(stmts, after: set, found: dict) -> set:
    live = set(after)
    for s in reversed(stmts):
        live = _stmt(s, live, found)
    return live


def _stmt(s, after: set, found: dict) -> set:
    if isinstance(s, Stop):
        found[s.label] = found.get(s.label, set()) | after
        kept = found[s.label] - ({s.chosen.slot} if s.chosen is not None else set())
        if s.kind == "call":        # carried on with its Python locals when the callee is done
            kept = kept | after
        return _block(s.pre, kept, found)
    if isinstance(s, ast.Return):
        return _frame_locals(s)
    if isinstance(s, Reveal):             # a declaration for the information-flow check: no code
        return after
    if isinstance(s, ast.If):
        return _frame_locals(s.test) | _block(s.body, after, found) | _block(s.orelse, after, found)
    if isinstance(s, ast.While):
        test = _frame_locals(s.test)
        head = set(after) | test
        while True:
            again = set(after) | test | _block(s.body, head, found)
            if again == head:
                return head
            head = again
    if isinstance(s, ast.For):
        target = _targets([s.target])
        head = set(after)
        while True:
            again = set(after) | (_block(s.body, head, found) - target)
            if again == head:
                return head | _frame_locals(s.iter)
            head = again
    if isinstance(s, ast.AugAssign):
        return after | _frame_locals(s)
    if isinstance(s, ast.Assign):
        return (after - _targets(s.targets)) | _frame_locals(s.value) | _reads_of_targets(s.targets)
    return after | _frame_locals(s)


def liveness(body: list) -> None:
    """Set each stop's ``saved`` locals (and its decision's slot, the place after them: the chosen
    value is no longer kept there, but passed to the entry)."""
    found: dict = {}
    try:
        while True:   # a stop keeps what is live where it resumes: go round until that settles
            before = {k: set(v) for k, v in found.items()}
            _block(body, set(), found)
            if found == before:
                break
    finally:
        _READS.clear()
    for stop in stops(body):
        chosen = {stop.chosen.slot} if stop.chosen is not None else set()
        stop.saved = sorted(found.get(stop.label, set()) - chosen)
        if stop.decision is not None:
            stop.decision.slot = len(stop.saved)


# ── entries ──────────────────────────────────────────────────────────────────
def _ends(s) -> bool:
    """After this statement nothing in its block runs (until resumed)."""
    return isinstance(s, ast.Return) or (isinstance(s, Stop) and s.kind == "decision")


def _fresh(block: list) -> list:
    out = []
    for s in block:
        out.append(_fresh_stmt(s))
        if _ends(s):
            break
    return out


def _fresh_stmt(s):
    """A copy of the statement whose blocks can be changed apart from the original's."""
    if isinstance(s, (ast.If, ast.While, ast.For)):
        s = clone(s)
        s.body = _fresh(s.body) or [ast.Pass()]
        s.orelse = _fresh(s.orelse)
    return s


def _path(block: list, label: int):
    """[(statements, index)] from the outermost block down to stop ``label``, or None."""
    for i, s in enumerate(block):
        if isinstance(s, Stop) and s.label == label:
            return [(block, i)]
        for part in ([s.body, s.orelse] if isinstance(s, ast.If) else [s.body] if isinstance(s, (ast.While, ast.For))
                     else []):
            found = _path(part, label)
            if found is not None:
                return [(block, i)] + found
    return None


def entries(body: list, labels: int, nslots: int) -> list:
    """The statements of each entry: [entry 0, entry 1, ...]. Entry 0 reads every local from the
    frame; entry k starts with a ``Load`` of what stop k kept."""
    end = [_pop_frame(), ast.Return(value=K(DONE))]
    whole = body + end
    out = [([_load_all(nslots)] if nslots else []) + _fresh(whole)]
    for k in range(1, labels + 1):
        path = _path(whole, k)
        if path is None:
            out.append([])
            continue
        block, i = path[-1]
        code = [Load(block[i])] + _fresh(block[i + 1:])
        for block, i in reversed(path[:-1]):
            if code and _ends(code[-1]):     # it stops before the enclosing code
                break
            inner = block[i]
            code = code + ([_fresh_stmt(inner)] if isinstance(inner, ast.While) else []) + _fresh(block[i + 1:])
        out.append(code)
    return out


def _pop_frame():
    frames = ast.Attribute(value=ast.Name(id="S", ctx=ast.Load()), attr="frames", ctx=ast.Load())
    pop = ast.Attribute(value=frames, attr="pop", ctx=ast.Load())
    return ast.Expr(value=ast.Call(func=pop, args=[], keywords=[]))


def _load_all(nslots: int):
    """Every local read from the frame: ``l0, l1, ..., = F[2]``."""
    targets = ast.Tuple(elts=[Local(i, "frame") for i in range(nslots)], ctx=ast.Store())
    return ast.Assign(targets=[targets], value=_frame_locals_list())


def _frame_locals_list():
    return ast.Subscript(value=ast.Name(id="F", ctx=ast.Load()), slice=ast.Constant(value=2), ctx=ast.Load())

