"""Python source generation: how the compiler turns checked rules into Python functions.

The compiler (``dsl.compile``) writes each expression as a Python expression in source form, and
each procedure as the source of one Python function; this module turns that source into functions
with ``exec``, keeps the constants they refer to, and remembers which rules line each generated
line came from, so that an error inside generated code still names the rules line
(``Namespace.position``).

Two kinds of procedure function are generated:

* a **resumable** procedure (it asks someone to choose, ends the game, or calls a procedure that
  does) is ``def R(S, F)`` over a frame ``F = [procedure index, label, locals]``. Its body is cut
  into blocks at the points where it can stop (a decision, a call) and a dispatch loop
  ``while True: if pc == k: ...`` jumps between them, so the frame alone says where to resume.
  Its locals live in the frame's list ``L``, which makes them part of the state.
* a **pure** procedure (none of those) is an ordinary Python function ``def P(S, v0, v1, ...)``
  with Python locals and Python control flow, called directly.

``define`` functions become ordinary Python functions too.
"""
from __future__ import annotations

import itertools
import re
from contextlib import contextmanager

from .program import deal, fail, fail_no_options, move_card, move_cards, move_zone, shuffle_zone


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


def _holder(owners, loc, c):
    return None if c is None else owners[loc[c]]


def _value_key(v):
    return tuple(v) if isinstance(v, list) else v


def _dedupe(opts, key):
    """Interchangeable options are offered once (the first of each kind)."""
    seen, out = set(), []
    for v in opts:
        k = key(v)
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
            key = tuple(sorted(keyfn(c) for c in combo))
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
    "fail": fail, "fail_no_options": fail_no_options, "move_card": move_card, "move_cards": move_cards,
    "move_zone": move_zone,
    "shuffle_zone": shuffle_zone, "deal": deal, "_top": _top, "_position": _position, "_item": _item,
    "_div": _div, "_mod": _mod, "_pick": _pick, "_best": _best, "_holder": _holder, "_value_key": _value_key,
    "_dedupe": _dedupe, "_subsets": _subsets,
}
RUNTIME_NAMES = frozenset(RUNTIME)
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
        filename = f"<rules {self.path}: {what or name}>"
        out = [f"def {name}({params}):"]
        poss: dict[int, object] = {}
        last = None
        lines = lines or [(0, "pass", None)]
        used = {m.group(1) for _, text, _ in lines for m in STATE.finditer(text)}
        if hoist and used:
            lines = [(0, "; ".join(f"_{n} = S.{n}" for n in sorted(used)), None)] + lines
        sub = (lambda m: "_" + m.group(1)) if hoist else (lambda m: "S." + m.group(1))
        for indent, text, pos in lines:
            out.append("    " * (indent + 1) + STATE.sub(sub, text))
            last = pos if pos is not None else last
            if last is not None:
                poss[len(out)] = last
        src = "\n".join(out) + "\n"
        self.code_pos[filename] = poss
        self.sources[filename] = src
        exec(compile(src, filename, "exec"), self.ns)
        return self.ns[name]

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

    SAVE = "\x00save"    # where the frame's locals are written back, known once they all are

    def __init__(self, resumable: bool):
        self.resumable = resumable
        self.lines: list = []
        self.depth = 0
        self.next_label = 1

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

    def label(self) -> int:
        self.next_label += 1
        return self.next_label - 1

    def body(self, nslots: int = 0) -> list:
        """The function body. A resumable procedure's locals (``l0``, ``l1``, ...) live in its frame:
        read from it on the way in, written back before every stop."""
        if not self.resumable:
            return self.lines
        names = [f"l{i}" for i in range(nslots)]
        save = "F[2] = [" + ", ".join(names) + "]"
        head = [(0, "pc = F[1]", None)]
        if names:
            head.append((0, ", ".join(names) + ", = F[2]", None))
        return (head + [(d, save if text == self.SAVE else text, pos) for d, text, pos in self.lines] +
                [(0, "S.frames.pop()", None), (0, "return 2", None)])
