"""No cells: a comprehension or a lambda of a generated function takes the function's locals it
reads as values of its own, so that they stay plain locals of the function.

This pass runs on the Python that ``dsl.emit.writer`` writes, just before it is compiled. On CPython a
comprehension, a generator and a lambda are functions of their own; a local of the enclosing
function that one of them reads becomes a *cell*: the function makes a cell object for it at
every call (whether or not the comprehension runs), and every read and write of it anywhere in
the function goes through the cell. Oh Hell's entries kept ``_pv`` (the players' values) in a
cell for a comprehension that never runs (the dealer's hook, switched off by a variant), Crazy
Eights' ``_g`` and ``_z`` for the options worked out when the discard pile is empty.

So each such local is given to the comprehension through a first loop over a one-item tuple,
which is worked out where the comprehension starts (in the function, as its first source is):

    [c for c in _z[2 + l0] if _k11[c] == _g[2]]
        ->  [c for _g in (_g,) for c in _z[2 + l0] if _k11[c] == _g[2]]
    [c for c in Z if f(c, a, b)]
        ->  [c for (a, b) in ((a, b),) for c in Z if f(c, a, b)]

and to a lambda as the default value of an extra parameter (``lambda v, a=a: ...``), worked out
where it is made. The values are the same: nothing assigns a local of the function while one of
these runs (the generated code has no ``:=``; a lambda is called by the helper it is given to,
within the statement). A comprehension whose first source reads a name it binds itself, or that
holds a ``:=``, is left as it is.
"""
from __future__ import annotations

import ast

from rulesrun.dsl.ir import kids, walk as _walk

SCOPES = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.Lambda)


def run(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` (changed in place) with its comprehensions and lambdas reading none of its locals
    that are sure to have a value where they are (the others stay cells: taken early, a local
    set only on some paths — a temporary worked out only when there is an item — would fail)."""
    scoped, stored = _scan(fn.body)
    if not scoped:                      # (most functions have none: nothing to do)
        return fn
    local = {a.arg for a in fn.args.args} | stored
    if local:
        _block(fn.body, {a.arg for a in fn.args.args}, local)
    return fn


def _scoped(nodes) -> bool:
    """Whether a comprehension or a lambda is among ``nodes`` or below them."""
    todo = [n for n in nodes if isinstance(n, ast.AST)]
    while todo:
        n = todo.pop()
        if isinstance(n, SCOPES):
            return True
        todo.extend(kids(n))
    return False


def _scan(nodes) -> tuple:
    """(whether a comprehension or a lambda is among ``nodes`` or below them, the names the code
    of ``nodes`` assigns in its own scope): one walk for both."""
    scoped, out = False, set()
    todo = list(nodes)
    while todo:
        n = todo.pop()
        if isinstance(n, SCOPES):
            scoped = True
            continue
        if n.__class__ is ast.Name:
            if n.ctx.__class__ is not ast.Load:
                out.add(n.id)
            continue
        todo.extend(kids(n))
    return scoped, out


class _Swap(ast.NodeTransformer):
    def __init__(self, ready: set):
        self.ready = ready

    def visit_ListComp(self, node):
        return _comprehension(node, self.ready)
    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_Lambda(self, node):
        return _lambda(node, self.ready)


def _exprs(s, ready: set, local: set, fields, check: bool = True) -> None:
    values = [getattr(s, f, None) for f in fields]
    if check and not _scoped([x for v in values for x in (v if isinstance(v, list) else [v])]):
        return
    swap = _Swap(ready & local)
    for f, value in zip(fields, values):
        if isinstance(value, ast.AST):
            setattr(s, f, swap.visit(value))
        elif isinstance(value, list):
            setattr(s, f, [swap.visit(v) if isinstance(v, ast.expr) else v for v in value])


def _block(stmts: list, ready: set, local: set) -> set:
    """Rewrites ``stmts``; ``ready``: the names sure to have a value before them. Gives those after."""
    ready = set(ready)
    for s in stmts:
        if isinstance(s, ast.If):
            _exprs(s, ready, local, ("test",))
            ready = _block(s.body, ready, local) & _block(s.orelse, ready, local)
        elif isinstance(s, ast.While):
            _exprs(s, ready, local, ("test",))
            _block(s.body, ready, local)
            _block(s.orelse, ready, local)
        elif isinstance(s, ast.For):
            _exprs(s, ready, local, ("iter",))
            _block(s.body, ready | _stored([s.target]), local)
            _block(s.orelse, ready, local)
        elif isinstance(s, ast.Try):
            after = _block(s.body, ready, local)
            for h in s.handlers:
                after &= _block(h.body, ready | ({h.name} if h.name else set()), local)
            _block(s.orelse, after, local)
            _block(s.finalbody, ready, local)
            ready = after
        elif isinstance(s, (ast.FunctionDef, ast.ClassDef, ast.With)):
            pass                        # (not written by the emitter)
        else:
            scoped, stored = _scan([s])
            if scoped:
                _exprs(s, ready, local, s._fields, check=False)
            ready |= stored
    return ready


def _stored(nodes) -> set:
    """The names the code of ``nodes`` assigns in its own scope (not inside a comprehension or a
    lambda, whose names are their own)."""
    return _scan(nodes)[1]


def _reads(nodes) -> set:
    """The names read by ``nodes`` in their own scope, with the free names of the scopes inside."""
    out: set = set()
    todo = list(nodes)
    while todo:
        n = todo.pop()
        if isinstance(n, SCOPES):
            out |= _free(n)
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            out.add(n.id)
        todo.extend(kids(n))
    return out


def _parts(node):
    """(what a comprehension works out in its own scope, its first source, the names it binds)."""
    gens = node.generators
    inner = [x for g in gens for x in g.ifs] + [g.iter for g in gens[1:]]
    if isinstance(node, ast.DictComp):
        inner += [node.key, node.value]
    else:
        inner.append(node.elt)
    return inner, gens[0].iter, _stored([g.target for g in gens])


def _free(node) -> set:
    """The names a comprehension or a lambda reads from outside (its first source included)."""
    if isinstance(node, ast.Lambda):
        a = node.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs}
        return (_reads([node.body]) - params) | _reads(a.defaults + [d for d in a.kw_defaults if d is not None])
    inner, first, bound = _parts(node)
    return (_reads(inner) - bound) | _reads([first])


def _comprehension(node, local: set):
    if any(isinstance(n, ast.NamedExpr) for n in _walk(node)):
        return node
    inner, first, bound = _parts(node)
    taken = sorted(((_reads(inner) - bound) | _reads([first])) & local)
    if not taken or _reads([first]) & bound:
        return node
    if len(taken) == 1:
        target = ast.Name(id=taken[0], ctx=ast.Store())
        value = ast.Tuple(elts=[ast.Name(id=taken[0], ctx=ast.Load())], ctx=ast.Load())
    else:
        target = ast.Tuple(elts=[ast.Name(id=t, ctx=ast.Store()) for t in taken], ctx=ast.Store())
        value = ast.Tuple(elts=[ast.Tuple(elts=[ast.Name(id=t, ctx=ast.Load()) for t in taken], ctx=ast.Load())],
                          ctx=ast.Load())
    node.generators.insert(0, ast.comprehension(target=target, iter=value, ifs=[], is_async=0))
    return node


def _lambda(node, local: set):
    a = node.args
    if a.vararg or a.kwarg or a.kwonlyargs or any(isinstance(n, ast.NamedExpr) for n in _walk(node)):
        return node
    params = {x.arg for x in a.posonlyargs + a.args}
    taken = sorted((_reads([node.body]) - params) & local)
    if not taken:
        return node
    a.args = a.args + [ast.arg(arg=t) for t in taken]
    a.defaults = a.defaults + [ast.Name(id=t, ctx=ast.Load()) for t in taken]
    return node
