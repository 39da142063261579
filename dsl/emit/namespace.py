"""Emit: IR (``dsl.ir``) → Python functions, compiled. With ``dsl.emit.writer`` (IR statements and
expressions → Python AST nodes), the only modules that write Python.

Our IR nodes become plain Python nodes here: a ``K`` a reference into the table of constants
(``_k0``, ``_k1``, ...; a literal for None, booleans and integers), a ``Local`` a Python name made
from its slot number (``l3``, ``v3``, ``_t3``, or ``L[3]``), ``St`` the state's list (read once
into a local at the top of a procedure that uses it often), a ``Stop`` the code that saves the
frame and leaves or calls, a ``Load`` the code that reads the frame back. No user text becomes
Python source: names in the generated code are made here from numbers.

Each function is written with ``ast.unparse`` (kept in ``sources`` for reading), parsed and
compiled, and each line of it is mapped to the rules position of the statement it came from
(``code_pos``), so that an error inside generated code still names the rules line
(``position``).
"""
from __future__ import annotations

import ast
from typing import Any

from rulesrun.dsl.ir import Load, St, Stop, walk_exprs
from rulesrun.dsl.emit.helpers import RUNTIME
from rulesrun.dsl.emit.writer import _Writer, _assign, _attr, _local_name, _n, _zone_move



class Namespace:
    """The globals shared by every generated function of one program: runtime helpers, constants
    (``_k<n>``) and the generated functions themselves, which call one another by name."""

    def __init__(self, path: str):
        self.ns: dict = {"__builtins__": __builtins__, **RUNTIME}
        self.path = path
        self.code_pos: dict[str, dict[int, Any]] = {}   # generated file name -> line -> Pos
        self._modules: dict[str, ast.Module] = {}        # generated file name -> the code compiled
        self._consts: dict = {}
        self._n = 0

    @property
    def sources(self) -> dict:
        """Generated file name -> the Python source, for reading (texts shown as their constants)."""
        return {f: _Listing().visit(m) + "\n" for f, m in self._modules.items()}

    @property
    def lines(self) -> dict:
        """Generated file name -> one line per statement, indexed as the running code numbers them."""
        return {f: [_Listing().first_line(s) for s in _statements(m.body)] for f, m in self._modules.items()}

    def constants(self) -> list:
        """(name, value) of every constant of the generated code, in the order they were made."""
        seen, out = set(), []
        for cname, value in self._consts.values():
            if cname not in seen:
                seen.add(cname)
                out.append((cname, value))
        return out

    def const(self, value) -> str:
        """The name of a value known when compiling, in the table of constants."""
        key = id(value)
        hit = self._consts.get(key)
        if hit is not None and hit[1] is value:
            return hit[0]
        cname = f"_k{len(self._consts)}"
        owner = getattr(value, "__self__", None)
        if type(owner) in (list, tuple, dict, frozenset) and callable(value):
            cname = f"{self.const(owner)}_{value.__name__.strip('_')}"   # _k9_getitem: _k9.__getitem__
        elif getattr(type(value), "const_suffix", None):
            cname = f"{cname}_{type(value).const_suffix}"
        self._consts[key] = (cname, value)
        self.ns[cname] = value
        return cname

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"{stem}{self._n}"

    # ── functions ─────────────────────────────────────────────────────────
    def function(self, fname: str, params: list, stmts: list, what: str = "", hoist: bool = False,
                 pure: bool = False):
        """Define ``def fname(params): stmts``. ``params``: "S", "L" or Locals. With ``hoist``,
        the state's lists used more than once are read into locals at the top. ``pure``: a
        define's, whose repeated subexpressions are worked out once (``dsl.emit.cse``)."""
        from rulesrun.dsl import passes
        from rulesrun.dsl.emit import cse
        stmts = passes.plain(stmts)
        w = _Writer(self, _hoisted(stmts) if hoist else ())
        fn = _def(fname, [w.param(p) for p in params], w.head() + w.block(stmts))
        if pure:
            cse.run(fn)
        self._compile([fn], what or fname)
        return self.ns[fname]

    def lambda_(self, params: list, node, pos, what: str = "expression"):
        ret = ast.Return(value=node)
        ret.pos = pos
        return self.function(self.fresh("_f"), params, [ret], what)

    def resumable(self, ref: int, body: list, nslots: int, labels: int, what: str) -> list:
        """A resumable procedure as one function per place to start from (``dsl.passes.resume``):
        ``_R<ref>_0`` runs it from the beginning, ``_R<ref>_<k>`` resumes it after stop k."""
        from rulesrun.dsl import passes
        entries, body = passes.resumable(body, labels, nslots)
        fns, resumes = [], []
        for k, stmts in enumerate(entries):
            w = _Writer(self, _hoisted(stmts))     # each entry reads only the lists it uses often
            code = w.block(stmts)
            stop = stmts[0].stop if stmts and isinstance(stmts[0], Load) else None
            params = ["S", "F"]
            if stop is not None and stop.kind == "decision":
                # the chosen value comes as an argument (State.apply_action), not through the frame
                params.append(_local_name(stop.chosen) if stop.chosen is not None else "_v")
                resumes.append((stop.decision, f"_R{ref}_{k}"))
                code = _listed(stop.decision, params[-1]) + code
            fns.append(_def(f"_R{ref}_{k}", params, (w.head() + code) if code else [ast.Pass()]))
        self._compile(fns, what)
        for decision, fname in resumes:     # the entry each decision resumes at (one place each)
            decision.entry = self.ns[fname] if decision.entry is None else False
        return [self.ns[f.name] for f in fns]

    def _compile(self, fns: list, what: str) -> None:
        from rulesrun.dsl.emit import closures, peephole
        peephole.run(fns)
        for fn in fns:                    # no cells: comprehensions take the locals they read
            closures.run(fn)
        filename = f"<rules {self.path}: {what}>"
        if filename in self.code_pos:     # the same procedure for other argument types, another value
            filename = f"{filename[:-1]} #{sum(f.startswith(filename[:-1]) for f in self.code_pos) + 1}>"
        module = ast.Module(body=fns, type_ignores=[])
        # each statement is a line of its own, numbered in the order of the text; the line takes
        # the rules position of its statement, or of the one before it
        poss, last = {}, None
        for line, s in enumerate(_statements(fns), 1):
            s.lineno = s.end_lineno = line
            s.col_offset = s.end_col_offset = 0
            last = getattr(s, "pos", None) or last
            if last is not None:
                poss[line] = last
        _locate(fns)
        self.code_pos[filename] = poss
        self._modules[filename] = module
        exec(compile(module, filename, "exec"), self.ns)

    def position(self, tb):
        """The rules position of the innermost generated line in a traceback, or None."""
        pos = None
        while tb is not None:
            table = self.code_pos.get(tb.tb_frame.f_code.co_filename)
            if table is not None:
                pos = table.get(tb.tb_lineno, pos)
            tb = tb.tb_next
        return pos


def _listed(decision, param: str) -> list:
    """A subset choice offers its sets as tuples (the keys its Actions are kept by, ``dsl.emit.combos``);
    the rules get the chosen one as a list of its own: ``l5 = [*l5]`` first thing in the entry it
    resumes at (a choice block's value may be one of its named moves, a text, kept as it is)."""
    kind = getattr(decision, "type", "")
    if param == "_v" or not kind.startswith(("list:", "choice:list:")):
        return []
    value = _n(param)
    listed = ast.List(elts=[ast.Starred(value=value, ctx=ast.Load())], ctx=ast.Load())
    if kind.startswith("choice:"):
        listed = ast.IfExp(test=ast.Compare(left=_attr(param, "__class__"), ops=[ast.Is()],
                                            comparators=[_n("tuple")]), body=listed, orelse=_n(param))
    return [_assign(_n(param, store=True), listed)]


class _Listing(ast._Unparser):
    """``ast.unparse``, with texts from the rules shown by their constants' names."""

    def visit__Text(self, node):
        self.write(node.alias)

    def first_line(self, stmt) -> str:
        if isinstance(stmt, (ast.If, ast.While, ast.For, ast.FunctionDef)):
            head = {ast.If: "if", ast.While: "while", ast.For: "for"}.get(type(stmt))
            if head is None:
                return f"def {stmt.name}(...):"
            if isinstance(stmt, ast.For):
                return f"for {self.visit(stmt.target)} in {_Listing().visit(stmt.iter)}:"
            return f"{head} {self.visit(stmt.test)}:"
        return self.visit(stmt).split("\n", 1)[0]


_NO_PLACE = (ast.expr_context, ast.operator, ast.cmpop, ast.boolop, ast.unaryop)


def _locate(stmts) -> None:
    """Every node below a statement (not in its blocks) on the statement's line: what
    ``ast.fix_missing_locations`` does, in one pass over what needs it."""
    AST = ast.AST
    for s in _statements(stmts):
        line = s.lineno
        place = {"lineno": line, "end_lineno": line, "col_offset": 0, "end_col_offset": 0}
        todo = [getattr(s, f, None) for f in s._fields if f not in ("body", "orelse")]
        push = todo.append
        while todo:
            n = todo.pop()
            if n.__class__ is list:
                todo.extend(n)
            elif isinstance(n, AST) and not isinstance(n, _NO_PLACE):
                n.__dict__.update(place)
                for f in n._fields:
                    push(getattr(n, f, None))


def _statements(stmts):
    """Every statement, in the order of the text."""
    for s in stmts:
        yield s
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _def(fname: str, params: list, body: list):
    args = ast.arguments(posonlyargs=[], args=[ast.arg(arg=p) for p in params], kwonlyargs=[], kw_defaults=[],
                         defaults=[])
    return ast.FunctionDef(name=fname, args=args, body=body or [ast.Pass()], decorator_list=[], returns=None,
                           type_comment=None, lineno=1)


def _hoisted(stmts: list) -> tuple:
    """The state's lists read into locals at the top: the zones and globals when used more than
    once, the others when used more than eight times (a use inside a loop counts eight times)."""
    uses: dict = {}
    _count_uses(stmts, uses, 1)
    return tuple(sorted(w for w, k in uses.items() if k > 1 and (w in ("z", "g") or k > 8)))


def _count_uses(stmts: list, uses: dict, weight: int) -> None:
    for s in stmts:
        if isinstance(s, (ast.If, ast.For, ast.While)):
            # a loop runs its body many times, unless the body stops (a decision): then it runs
            # it about once per call of the entry
            inner = weight if isinstance(s, ast.If) or _stops(s.body) else weight * 8
            heads = [s.test] if not isinstance(s, ast.For) else [s.target, s.iter]
            for head in heads:
                _count(head, uses, inner if isinstance(s, ast.While) else weight)
            _count_uses(s.body, uses, inner)
            _count_uses(s.orelse, uses, weight)
        else:
            _count(s, uses, weight)


def _stops(stmts: list) -> bool:
    return any(isinstance(n, (ast.Return, Stop)) for n in _statements(stmts))


def _count(node, uses: dict, weight: int) -> None:
    if _zone_move(node):        # written out: the zones read and written, loc once per card
        uses["z"] = uses.get("z", 0) + 3 * weight
        uses["loc"] = uses.get("loc", 0) + 4 * weight
    for n in walk_exprs(node):
        if isinstance(n, St):
            uses[n.which] = uses.get(n.which, 0) + weight
