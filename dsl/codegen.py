"""Python source generation: how the compiler turns checked rules into Python functions.

The compiler (``dsl.compile``) writes each expression as a Python expression in source form, and
each procedure as the source of one Python function; this module turns that source into functions
with ``exec``, keeps the constants they refer to, and remembers which rules line each generated
line came from, so that an error inside generated code still names the rules line
(``Namespace.position``).

Two kinds of procedure function are generated:

* a **resumable** procedure (it asks someone to choose, ends the game, or calls a procedure that
  does) is ``def R(S, F)`` over a frame ``F = [procedure index, label, locals]``, written as
  structured Python with guards that lead a resumed run back to where it stopped (``Emitter``).
  At each stop it writes the locals still needed into the frame, which makes them part of the
  state; one called from a single place is written into its caller instead.
* a **pure** procedure (none of those) is an ordinary Python function ``def P(S, v0, v1, ...)``
  with Python locals and Python control flow, called directly.

``define`` functions become ordinary Python functions too, or are written out where they are used.
See docs/performance.md for an example of the generated code.
"""
from __future__ import annotations

import ast
import copy
import itertools
import re
from contextlib import contextmanager

from .program import DONE, deal, fail, fail_no_options, move_cards, move_zone, shuffle_zone


# ── helpers the generated code calls ────────────────────────────────────────
def _top(z, name, pos):
    if not z:
        fail(f"{name}() of an empty zone", pos)
    return z[-1] if name == "top" else z[0]


def _position(x, items, pos):
    if x not in items:
        fail("position() of something that is not there", pos)
    return items.index(x) + 1


def _item(items, i, pos):
    if not 1 <= i <= len(items):
        fail(f"item {i} of a list of {len(items)}", pos)
    return items[i - 1]


def _div(a, d, pos):
    if d == 0:
        fail("division by zero", pos)
    return a // d


def _mod(a, d, pos):
    if d == 0:
        fail("division by zero", pos)
    return a % d


def _pick(f, vals, name, pos):
    if not vals:
        fail(f"{name}(...) of nothing", pos)
    return f(vals)


def _best(pick, rows):
    """The item of the best row (keys..., position, item), or None when there is none."""
    return pick(rows)[-1] if rows else None


_FIRST = object()       # "no candidate yet" in a highest / lowest written as a loop (_Lower)


def _holder(owners, loc, c):
    return None if c is None else owners[loc[c]]


def _value_key(v):
    return tuple(v) if isinstance(v, list) else v


def _dedupe(opts, key):
    """Interchangeable options are offered once (the first of each kind)."""
    seen, out = set(), []
    for k, v in zip(map(key, opts), opts):
        if k not in seen:
            seen.add(k)
            out.append(v)
    return out


def _subsets(items, test, keyfn, pos):
    if len(items) > 12:
        fail(f"too many ways to choose a subset of {len(items)} items (at most 12 items)", pos)
    out, seen = [], set()
    for k in range(len(items) + 1):
        for combo in itertools.combinations(items, k):
            key = tuple(sorted(map(keyfn, combo)))
            if key in seen:
                continue
            pick = list(combo)
            if test is None or test(pick):
                seen.add(key)
                out.append(pick)
    if not out:
        fail_no_options("no subset satisfies the condition", pos)
    return out


RUNTIME = {
    "fail": fail, "fail_no_options": fail_no_options, "move_cards": move_cards,
    "move_zone": move_zone,
    "shuffle_zone": shuffle_zone, "deal": deal, "_top": _top, "_position": _position, "_item": _item,
    "_div": _div, "_mod": _mod, "_pick": _pick, "_best": _best, "_holder": _holder, "_value_key": _value_key,
    "_dedupe": _dedupe, "_subsets": _subsets, "_FIRST": _FIRST,
}
LOCAL = re.compile(r"\bl\d+\b")    # a resumable procedure's frame local in generated code
# The compiler writes the state's lists as NUL + name (repr() never writes a NUL, so no text in the
# rules can look like one): S.z (zones), S.g (globals), S.pv / S.cv (player / card values), S.loc.
STATE = re.compile("\x00(z|g|pv|cv|loc)")


class Namespace:
    """The globals shared by every generated function of one program: runtime helpers, constants
    (``_k<n>``) and the generated functions themselves, which call one another by name."""

    def __init__(self, path: str):
        self.ns: dict = {"__builtins__": __builtins__, **RUNTIME}
        self.path = path
        self.code_pos: dict[str, dict[int, object]] = {}   # generated file name -> line -> Pos
        self.sources: dict[str, str] = {}                   # generated file name -> source (debugging)
        self.lines: dict[str, list] = {}     # file name -> the lines that tracebacks' line numbers count
        self._consts: dict = {}
        self._n = 0

    def const(self, value) -> str:
        """A Python expression for a value known when compiling."""
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        key = id(value)
        hit = self._consts.get(key)
        if hit is not None and hit[1] is value:
            return hit[0]
        name = f"_k{len(self._consts)}"
        self._consts[key] = (name, value)
        self.ns[name] = value
        return name

    def fresh(self, stem: str) -> str:
        self._n += 1
        return f"{stem}{self._n}"

    def function(self, name: str, params: str, lines: list, what: str = "", hoist: bool = False) -> object:
        """Define ``def name(params):`` with ``lines`` — (indent, text, Pos or None) — as its body.
        The state's lists are written ``\\x00z`` and so on (see ``STATE``); with ``hoist`` they are
        read once into locals at the top (a procedure's ``S`` is always a state), else in place."""
        filename, src = self._render(name, params, lines, what, hoist)
        module = ast.parse(src)
        module.body = _Lower().block(module.body)
        ast.fix_missing_locations(module)
        self.sources[filename] = ast.unparse(module) + "\n"
        exec(compile(module, filename, "exec"), self.ns)
        return self.ns[name]

    def resumable(self, name: str, lines: list, what: str, labels: int) -> list:
        """A resumable procedure as one function per place to start from: index 0 runs it from the
        beginning, index k resumes it at label k. Each is the procedure's code with ``pc`` known:
        the guards that find the way back in are worked out here, not at every decision (see
        ``_Specialise``). They keep the line numbers of the whole, so errors still map to rules."""
        filename, src = self._render(name, "S, F", lines, what, True)
        whole = ast.parse(src).body[0]
        spec = _Specialise()
        out, shown = [], []
        for k in range(labels + 1):
            body = _Lower().block(spec.entry(whole.body, k))
            fn = ast.FunctionDef(name=f"{name}_{k}", args=whole.args, body=body or [ast.Pass()],
                                 decorator_list=[], returns=None, type_comment=None)
            ast.copy_location(fn, whole)
            module = ast.fix_missing_locations(ast.Module(body=[fn], type_ignores=[]))
            exec(compile(module, filename, "exec"), self.ns)
            out.append(self.ns[fn.name])
            shown.append(ast.unparse(fn))
        self.sources[filename] = "\n\n".join(shown) + "\n"
        return out

    def _render(self, name: str, params: str, lines: list, what: str, hoist: bool):
        filename = f"<rules {self.path}: {what or name}>"
        if filename in self.code_pos:     # the same procedure for other argument types, another value
            filename = f"{filename[:-1]} #{sum(f.startswith(filename[:-1]) for f in self.code_pos) + 1}>"
        out = [f"def {name}({params}):"]
        poss: dict[int, object] = {}
        last = None
        lines = lines or [(0, "pass", None)]
        uses: dict = {}
        for _, text, _ in lines:
            for m in STATE.finditer(text):
                uses[m.group(1)] = uses.get(m.group(1), 0) + 1
        # the zones and globals are read into locals at the top; the others, read less often, in place
        hoisted = sorted(n for n, k in uses.items() if k > 1 and (n in ("z", "g") or k > 8)) if hoist else []
        if hoisted:
            lines = [(0, "; ".join(f"_{n} = S.{n}" for n in hoisted), None)] + lines
        sub = lambda m: ("_" if m.group(1) in hoisted else "S.") + m.group(1)
        for indent, text, pos in lines:
            out.append("    " * (indent + 1) + STATE.sub(sub, text))
            last = pos if pos is not None else last
            if last is not None:
                poss[len(out)] = last
        self.code_pos[filename] = poss
        self.lines[filename] = out
        return filename, "\n".join(out) + "\n"

    def lambda_(self, params: str, expr: str, pos, what: str = "expression") -> object:
        return self.function(self.fresh("_f"), params, [(0, f"return {expr}", pos)], what)

    def position(self, tb):
        """The rules position of the innermost generated line in a traceback, or None."""
        pos = None
        while tb is not None:
            table = self.code_pos.get(tb.tb_frame.f_code.co_filename)
            if table is not None:
                pos = table.get(tb.tb_lineno, pos)
            tb = tb.tb_next
        return pos


class Emitter:
    """Collects a function body as (indent, text, position) lines.

    A resumable procedure is written as structured Python, like the rules it comes from. Each point
    where it can stop (a decision, a call of a resumable procedure) has a label, numbered from 1 in
    the order of the text, and on leaving it stores its label in the frame. Running again, the
    function finds its way back in through guards: ``pc`` is the label to resume at, 0 once resumed,
    a statement before the resume point is skipped with ``if not pc``, and an ``if`` or loop that
    holds labels lo..hi is entered with ``(not pc and <condition>) or lo <= pc <= hi``."""

    # Where the frame's locals are written back before a stop, and read again on resuming there:
    # only those still in use after that point, which is known once the whole body is written.
    SAVE, LOAD = "_SAVE_", "_LOAD_"

    def __init__(self, resumable: bool):
        self.resumable = resumable
        self.lines: list = []
        self.depth = 0
        self.next_label = 1
        self.chosen: dict[str, str] = {}   # label -> the local a decision there sets (by the engine)
        self.decisions: dict = {}          # label -> the Decision, whose slot is set at the end

    def line(self, text: str, pos=None) -> None:
        self.lines.append((self.depth, text, pos))

    @contextmanager
    def nest(self):
        self.depth += 1
        n = len(self.lines)
        yield
        if len(self.lines) == n:
            self.line("pass")
        self.depth -= 1

    def fresh_only(self, text: str, pos=None) -> None:
        """A line skipped while resuming."""
        self.line("if not pc:", pos)
        with self.nest():
            self.line(text, pos)

    def label(self) -> int:
        self.next_label += 1
        return self.next_label - 1

    def body(self, nslots: int = 0) -> list:
        """The function body. A resumable procedure's locals (``l0``, ``l1``, ...) live in its frame:
        all read from it when the procedure starts; at a stop, those that may still be read after
        resuming there are written to it, and read back from it on resuming."""
        if not self.resumable:
            return self.lines
        self._merge_guards()
        live = self._live()
        out = [(0, "pc = F[1]", None)]
        if nslots:
            out.append((0, "if not pc: " + ", ".join(f"l{i}" for i in range(nslots)) + ", = F[2]", None))
        for d, text, pos in self.lines:
            if text.startswith((self.SAVE, self.LOAD)):
                # the frame holds just those locals, then the value the decision there sets, which
                # the engine writes in the last place
                label = text.split("_")[-1]
                chosen = self.chosen.get(label)
                names = sorted(live.get(label, set()) - {chosen}, key=lambda n: int(n[1:]))
                if chosen is not None:
                    self.decisions[label].slot = len(names)
                if text.startswith(self.SAVE):
                    text = "F[2] = [" + ", ".join(names + (["None"] if chosen else [])) + "]"
                else:
                    out.append((d, text, pos))     # the marker stays: the way in starts there
                    text = (", ".join(names + ([chosen] if chosen else [])) + ", = F[2]") if names or chosen else "pass"
            out.append((d, text, pos))
        return out + [(0, "S.frames.pop()", None), (0, f"return {DONE}", None)]

    def _merge_guards(self) -> None:
        """Two 'if not pc:' blocks in a row become one (a test saved each time through)."""
        lines, out = self.lines, []
        i = 0
        while i < len(lines):
            d, text, pos = lines[i]
            out.append(lines[i])
            if text == "if not pc:":
                j = i + 1
                while True:   # copy the block, then take in the next one if it is another guard
                    while j < len(lines) and lines[j][0] > d:
                        out.append(lines[j])
                        j += 1
                    if j < len(lines) and lines[j][0] == d and lines[j][1] == "if not pc:":
                        j += 1
                        continue
                    break
                i = j
                continue
            i += 1
        self.lines = out

    def _live(self) -> dict:
        """For each stop's label, the frame locals that may be read after resuming there before
        they are written: a backward liveness pass over the generated Python."""
        src = "\n".join("    " * d + STATE.sub(r"S.\1", text) for d, text, _ in self.lines) or "pass"
        tree = ast.parse(src).body
        found: dict = {}
        while True:   # a stop writes what is live where it resumes: go round until that settles
            before = {k: set(v) for k, v in found.items()}
            _live_block(tree, set(), found, self.chosen)
            if found == before:
                return found


def _names(node, ctx) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)
            and LOCAL.fullmatch(n.id)}


def _live_block(stmts, after: set, found: dict, chosen: dict) -> set:
    live = set(after)
    for s in reversed(stmts):
        live = _live_stmt(s, live, found, chosen)
    return live


def _live_stmt(s, after: set, found: dict, chosen: dict) -> set:
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Name) and s.value.id.startswith(Emitter.LOAD):
        label = s.value.id.split("_")[-1]
        found[label] = found.get(label, set()) | after
        return after
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Name) and s.value.id.startswith(Emitter.SAVE):
        label = s.value.id.split("_")[-1]
        return after | (found.get(label, set()) - {chosen.get(label)})   # it reads what it writes
    if isinstance(s, ast.Return):
        return _names(s, ast.Load)
    if isinstance(s, ast.If):
        # Liveness only matters from a resume point on, where pc is 0: 'if not pc' is always taken
        # and 'if pc == k' never (both branches are still walked, to find the resume points)
        body, orelse = _live_block(s.body, after, found, chosen), _live_block(s.orelse, after, found, chosen)
        test = ast.unparse(s.test)
        if test == "not pc":
            return body
        if test.startswith("pc == "):
            return orelse
        return _names(s.test, ast.Load) | body | orelse
    if isinstance(s, ast.While):
        head = set(after) | _names(s.test, ast.Load)
        while True:
            again = set(after) | _names(s.test, ast.Load) | _live_block(s.body, head, found, chosen)
            if again == head:
                return head
            head = again
    if isinstance(s, ast.For):
        target = _names(s.target, ast.Store)
        head = set(after)
        while True:
            again = set(after) | (_live_block(s.body, head, found, chosen) - target)
            if again == head:
                return head | _names(s.iter, ast.Load)
            head = again
    if isinstance(s, ast.AugAssign):
        return after | _names(s, ast.Load) | _names(s.target, ast.Store)
    return (after - _names(s, ast.Store)) | _names(s, ast.Load)


class _Specialise:
    """Works out a resumable procedure's guards for a known ``pc``. From the beginning (pc 0) every
    ``if not pc`` holds and every resume branch is dropped: straight code, as if written by hand.
    Resuming at label k keeps, from the inside out, the rest of each block around the marker
    ``_LOAD_k`` — the rest of the loop's round, then the loop run from the top as usual, then what
    follows it — which is where the guarded code would have gone."""

    def entry(self, body: list, k: int) -> list:
        head = []
        for i, s in enumerate(body):      # the state's lists read at the top; then 'pc = F[1]'
            if _is_pc_store(s):
                rest = body[i + 1:]
                break
            head.append(s)
        else:
            rest = body
        if k == 0:
            return head + self.fresh(rest)
        path = self._path(rest, f"{Emitter.LOAD}{k}")
        if path is None:
            return []
        code: list = []
        for block, i in reversed(path):
            if code and isinstance(code[-1], ast.Return):   # it stops before the enclosing code
                break
            inner = block[i]
            code = code + ([self.fresh_stmt(inner)] if isinstance(inner, ast.While) else []) \
                + self.fresh(block[i + 1:])
        return head + code

    def _path(self, block: list, marker: str):
        """[(statements, index)] from the outermost block down to the marker, or None."""
        for i, s in enumerate(block):
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Name) and s.value.id == marker:
                return [(block, i)]
            for sub in _bodies(s):
                found = self._path(sub, marker)
                if found is not None:
                    return [(block, i)] + found
        return None

    def fresh(self, block: list) -> list:
        out = []
        for s in block:
            r = self.fresh_stmt(s)
            if isinstance(r, list):
                out.extend(r)
            elif r is not None:
                out.append(r)
            if out and isinstance(out[-1], ast.Return):   # a stop: what follows runs on resuming
                break
        return out

    def fresh_stmt(self, s):
        """One statement with pc = 0: a statement, a list of statements, or None."""
        if _is_pc_store(s) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Name)
                               and s.value.id.startswith(Emitter.LOAD)):
            return None
        if isinstance(s, ast.If):
            test = _fold(s.test)
            if test is True:
                return self.fresh(s.body)
            if test is False:
                return self.fresh(s.orelse)
            return ast.copy_location(ast.If(test=test, body=self.fresh(s.body) or [ast.Pass()],
                                            orelse=self.fresh(s.orelse)), s)
        if isinstance(s, ast.While):
            test = _fold(s.test)
            return ast.copy_location(ast.While(test=ast.Constant(True) if test is True else test,
                                               body=self.fresh(s.body) or [ast.Pass()], orelse=[]), s)
        if isinstance(s, ast.For):
            return ast.copy_location(ast.For(target=s.target, iter=s.iter, body=self.fresh(s.body) or [ast.Pass()],
                                             orelse=[], type_comment=None), s)
        return s


def _bodies(s) -> list:
    if isinstance(s, ast.If):
        return [s.body, s.orelse]
    if isinstance(s, (ast.While, ast.For)):
        return [s.body]
    return []


def _is_pc(node) -> bool:
    return isinstance(node, ast.Name) and node.id == "pc"


def _is_pc_store(s) -> bool:
    return isinstance(s, ast.Assign) and len(s.targets) == 1 and _is_pc(s.targets[0])


def _fold(test):
    """A guard's test with pc = 0: True, False, or the test that is left. The generator writes
    these shapes only: not pc | pc == k | pc <= k | pc or C | not pc and C | (C if not pc else ...)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_pc(test.operand):
        return True
    if isinstance(test, ast.Compare) and _is_pc(test.left) and len(test.ops) == 1:
        if isinstance(test.ops[0], ast.Eq):
            return False
        if isinstance(test.ops[0], ast.LtE):
            return True
    if isinstance(test, ast.BoolOp) and len(test.values) == 2:
        a, b = test.values
        if isinstance(test.op, ast.Or) and _is_pc(a):
            return b
        if isinstance(test.op, ast.And) and _fold(a) is True:
            return b
    if isinstance(test, ast.IfExp) and _fold(test.test) is True:
        return test.body
    if any(_is_pc(n) for n in ast.walk(test)):
        raise AssertionError(f"a guard the specialiser does not know: {ast.unparse(test)}")
    return test


# ── comprehensions as loops ─────────────────────────────────────────────────
class _Lower:
    """Writes the comprehensions a statement always evaluates as loops before it.

    On Python 3.11 a comprehension or generator is a function call with a frame of its own, which
    costs more than the loop itself over the few cards of a hand or a trick. Where a statement
    evaluates one whatever happens (not behind ``and``, ``or``, or one side of ``if ... else``),
    the loop is written before the statement into a temporary, which the statement then reads:

        any(T for x in Z [if C])       for x in Z: (if C:) if T: _h = True; break   (all: alike)
        len([x for x in Z if C])       a count          sum([E for x in Z if C])   a running total
        _best(max, [(K..., -i, x) for i, x in enumerate(Z) if C])    the first with the largest K

    ``x = A if T else B`` becomes ``if T: x = A`` / ``else: x = B`` first, so that each side is
    unconditional in its branch. A list comprehension that stays one gets out of its condition a
    call that does not depend on the item (``c.colour in [d.colour for d in trick]``): worked out
    once before it, when there is an item at all (``_hoist``). Expressions are pure (they only read the state), so evaluating
    one earlier in its statement changes nothing; the loops keep the statement's line number, so
    an error still names its rules line. Nodes are copied before they change: the specialised
    entries of a procedure share statements."""

    def __init__(self):
        self.n = 0

    def block(self, stmts: list) -> list:
        out: list = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s) -> list:
        if isinstance(s, ast.FunctionDef):
            s = copy.copy(s)
            s.body = self.block(s.body)
            return [s]
        if (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.value, ast.IfExp)
                and any(map(self._kind, ast.walk(s.value)))):
            target, v = s.targets[0], s.value       # a target only reads (a local, a state list)
            split = ast.If(test=v.test, body=[self._assign(target, v.body, s)],
                           orelse=[self._assign(target, v.orelse, s)])
            return self.stmt(ast.copy_location(split, s))
        s = copy.copy(s)
        for name in ("body", "orelse"):
            if isinstance(getattr(s, name, None), list):
                setattr(s, name, self.block(getattr(s, name)))
        pre: list = []
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return)) and s.value is not None:
            s.value = self.expr(s.value, pre, s)
        elif isinstance(s, ast.If):
            s.test = self.expr(s.test, pre, s)
        elif isinstance(s, ast.For):
            s.iter = self.expr(s.iter, pre, s)
        return self.block(pre) + [s] if pre else [s]

    @staticmethod
    def _assign(target, value, at):
        return ast.copy_location(ast.Assign(targets=[target], value=value), at)

    def expr(self, node, pre: list, at):
        """``node`` with its unconditional comprehensions replaced by temporaries set in ``pre``."""
        def visit(n):
            kind = self._kind(n)
            if kind:
                return self._lower(kind, n, pre, at)
            if isinstance(n, ast.ListComp) and self._single(n) and n.generators[0].ifs:
                return self._hoist(n, pre, at)
            return None
        return self._walk(node, visit)

    def _walk(self, node, visit):
        """``node`` with ``visit`` applied top-down at the places evaluated whenever ``node`` is:
        ``visit`` gives a replacement, or None to look inside. Nothing inside a function of its
        own (a lambda, a comprehension) is visited."""
        new = visit(node)
        if new is not None:
            return new
        if isinstance(node, (ast.Lambda, ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.NamedExpr)):
            return node
        if isinstance(node, ast.BoolOp):       # only the first operand always runs
            first = self._walk(node.values[0], visit)
            return node if first is node.values[0] else self._with(node, values=[first] + node.values[1:])
        if isinstance(node, ast.IfExp):
            test = self._walk(node.test, visit)
            return node if test is node.test else self._with(node, test=test)
        if isinstance(node, ast.Compare):      # a chain stops at the first false link
            left = self._walk(node.left, visit)
            right = self._walk(node.comparators[0], visit)
            if left is node.left and right is node.comparators[0]:
                return node
            return self._with(node, left=left, comparators=[right] + node.comparators[1:])
        changed = {}
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.expr):
                new = self._walk(value, visit)
                if new is not value:
                    changed[field] = new
            elif isinstance(value, list) and any(isinstance(v, ast.expr) for v in value):
                new = [self._walk(v, visit) if isinstance(v, ast.expr) else v for v in value]
                if any(a is not b for a, b in zip(new, value)):
                    changed[field] = new
        return self._with(node, **changed) if changed else node

    def _hoist(self, comp, pre: list, at):
        """A list comprehension whose condition always works out the same call for every item
        (``c.colour in [d.colour for d in trick]``) with that call worked out once, before it —
        and only when there is an item, as before. None when there is nothing to take out."""
        g = comp.generators[0]
        if isinstance(g.iter, ast.Call):    # a map or an enumerate is true even when empty
            return None
        bound = {n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        taken: list = []

        def visit(n):
            if isinstance(n, (ast.Call, ast.ListComp, ast.GeneratorExp)) and not any(
                    isinstance(m, (ast.Lambda, ast.NamedExpr)) or (isinstance(m, ast.Name) and m.id in bound)
                    for m in ast.walk(n)):
                self.n += 1
                taken.append((f"_h{self.n}", n))
                return ast.copy_location(ast.Name(id=f"_h{self.n}", ctx=ast.Load()), n)
            return None
        first = self._walk(g.ifs[0], visit)
        if not taken:
            return None
        self.n += 1
        items = f"_h{self.n}"
        code = ast.parse(f"{items} = 0\nif {items}:\n" + "".join(f"    {h} = 0\n" for h, _ in taken)).body
        code[0].value = g.iter
        for stmt, (_, value) in zip(code[1].body, taken):
            stmt.value = value
        for n in [code[1], code[1].test] + [m for a in [code[0], *code[1].body] for m in (a, a.targets[0])]:
            ast.copy_location(n, at)        # the parsed nodes; the expressions moved keep theirs
        pre.extend(self.block(code))
        gen = ast.comprehension(target=g.target, iter=ast.copy_location(ast.Name(id=items, ctx=ast.Load()), at),
                                ifs=[first] + g.ifs[1:], is_async=0)
        return self._with(comp, generators=[gen])

    @staticmethod
    def _with(node, **fields):
        node = copy.copy(node)
        for k, v in fields.items():
            setattr(node, k, v)
        return node

    @staticmethod
    def _single(gen) -> bool:
        return len(gen.generators) == 1 and not gen.generators[0].is_async

    def _kind(self, node) -> str:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords):
            return ""
        f, args = node.func.id, node.args
        if f in ("any", "all") and len(args) == 1 and isinstance(args[0], ast.GeneratorExp) and self._single(args[0]):
            return f
        if f in ("len", "sum") and len(args) == 1 and isinstance(args[0], ast.ListComp) and self._single(args[0]):
            return f
        if f == "_best" and len(args) == 2 and isinstance(args[0], ast.Name) and args[0].id in ("max", "min"):
            rows = args[1]      # [(keys..., ±position, item) for position, item in enumerate(Z) if C]
            if isinstance(rows, ast.ListComp) and self._single(rows) and isinstance(rows.elt, ast.Tuple) \
                    and len(rows.elt.elts) >= 3:
                g = rows.generators[0]
                if isinstance(g.target, ast.Tuple) and len(g.target.elts) == 2 and isinstance(g.iter, ast.Call) \
                        and isinstance(g.iter.func, ast.Name) and g.iter.func.id == "enumerate" \
                        and len(g.iter.args) == 1 and all(isinstance(n, ast.Name) for n in g.target.elts) \
                        and isinstance(rows.elt.elts[-1], ast.Name) and g.target.elts[1].id == rows.elt.elts[-1].id:
                    return "best"
        return ""

    def _lower(self, kind: str, node, pre: list, at):
        self.n += 1
        h = f"_h{self.n}"

        def new(text: str) -> list:         # statements parsed here, placed on the statement's line
            body = ast.parse(text).body
            for n in ast.walk(ast.Module(body=body, type_ignores=[])):
                if "lineno" in n._attributes:
                    ast.copy_location(n, at)
            return body

        gen = node.args[-1]
        comp = gen.generators[0]
        target, source = comp.target, comp.iter
        if kind in ("any", "all"):
            found = kind == "any"
            test = gen.elt if found else ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=gen.elt), at)
            inner = [ast.copy_location(ast.If(test=test, body=new(f"{h} = {found}\nbreak"), orelse=[]), at)]
            start = new(f"{h} = {not found}")
        elif kind == "len":
            inner, start = new(f"{h} += 1"), new(f"{h} = 0")
        elif kind == "sum":
            add = new(f"{h} += 0")[0]
            add.value = gen.elt
            inner, start = [add], new(f"{h} = 0")
        else:   # _best: only a strictly better key replaces the one kept, so the first of equals stays
            keys = gen.elt.elts[:-2]
            key = keys[0] if len(keys) == 1 else ast.copy_location(ast.Tuple(elts=keys, ctx=ast.Load()), at)
            better = ">" if node.args[0].id == "max" else "<"
            set_key = new(f"{h}k = 0")[0]
            set_key.value = key
            # 'k is not b' first: equal keys are never ordered (none and none tie, as in a tuple)
            inner = [set_key] + new(f"if {h}b is _FIRST or ({h}k is not {h}b and {h}k {better} {h}b):\n"
                                    f"    {h}b = {h}k\n    {h} = {target.elts[1].id}")
            start = new(f"{h} = None\n{h}b = _FIRST")
            target, source = target.elts[1], source.args[0]
        for cond in reversed(comp.ifs):
            inner = [ast.copy_location(ast.If(test=cond, body=inner, orelse=[]), at)]
        pre.extend(start + [ast.copy_location(ast.For(target=target, iter=source, body=inner, orelse=[],
                                                      type_comment=None), at)])
        return ast.copy_location(ast.Name(id=h, ctx=ast.Load()), at)
