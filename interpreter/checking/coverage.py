"""Rules coverage: which lines, branches, decisions and options of a ``.rules`` file a check ran.

Nothing is compiled differently: while ``check`` plays, ``sys.settrace`` watches the frames of the
generated functions (and only those), counting each generated line and each step from one line to
the next in a frame. ``rules_positions`` turns generated lines into rules positions; it is the one
place that knows how a program maps its code back to the rules (``program.code.code_pos``). Normal
play never runs the tracer, so it costs nothing there.

Branches come from the rules' syntax tree (``dsl.syntax.ast``):
  * every ``if`` / ``elif`` / ``else`` body is reached when its first statement runs;
  * an ``if`` without ``else`` has an implicit one, taken when its last condition was tested and
    the next line run in that procedure was not the last body's first statement;
  * ``where ... if able`` both ways: the generated code tests the filtered options and falls back to
    all of them on the same rules line, so line positions cannot tell the two apart. It is counted at
    the decision instead (``Coverage.able``): ``check`` runs the step that opened the decision again
    with the rules compiled without ``if able`` and sees whether the filter left anything.
"""
from __future__ import annotations

import html
import sys
from pathlib import Path

import attrs

from rulesrun.dsl.syntax import ast as A


def rules_positions(program) -> dict:
    """generated file name -> {generated line -> rules Pos(file, line, column)}: the only place that
    reads how a compiled program maps its code back to the rules."""
    return program.code.code_pos


@attrs.define
class Branch:
    kind: str            # if | elif | else | implicit else | able | fallback
    pos: object          # the rules position that shows it ran (a body's first statement, a choose)
    test: object = None  # the position of the condition tested before it (implicit else), if any
    body: object = None  # the last body's first statement (implicit else)

    def where(self) -> str:
        return f"{Path(self.pos.file).name}:{self.pos.line}"


def _children(node):
    """The statements and bodies under an AST node (declarations, statements, variants)."""
    if isinstance(node, A.If):
        for _, body in node.branches:
            yield from body
        if node.orelse:
            yield from node.orelse
        return
    for f in attrs.fields(type(node)):
        v = getattr(node, f.name)
        if isinstance(v, tuple):
            for x in v:
                if isinstance(x, (A.Stmt, A.Decl)):
                    yield x


def _bodies(node) -> list:
    """The statement lists directly under a node."""
    if isinstance(node, A.If):
        return [b for _, b in node.branches] + ([node.orelse] if node.orelse else [])
    out = []
    for f in attrs.fields(type(node)):
        v = getattr(node, f.name)
        if isinstance(v, tuple) and v and all(isinstance(x, A.Stmt) for x in v):
            out.append(v)
    return out


def walk_statements(rules):
    stack = list(rules.items)
    while stack:
        node = stack.pop()
        if isinstance(node, A.Stmt):
            yield node
        stack.extend(_children(node))


def statement_positions(rules) -> list:
    """The positions whose lines count as the rules' lines: statements (not a bare procedure call,
    which is covered by the procedure's own lines), the score, winners and invariants. Declarations
    worked out before the game (cards, state, constants) and definitions (written into the
    expressions that use them) are left out."""
    out = [s.pos for s in walk_statements(rules) if not isinstance(s, (A.ExprStmt, A.Pass))]
    stack = list(rules.items)
    while stack:
        d = stack.pop()
        if isinstance(d, A.VariantDecl):
            stack.extend(d.items)
        elif isinstance(d, (A.ScoreDecl, A.WinnersDecl, A.InvariantDecl)):
            out.append(d.pos)
    return out


def branches_of(rules) -> list[Branch]:
    """Every branch of the rules file, in source order."""
    out = []
    for s in walk_statements(rules):
        if isinstance(s, A.If):
            for i, (cond, body) in enumerate(s.branches):
                if body:
                    out.append(Branch("if" if i == 0 else "elif", body[0].pos, cond.pos))
            if s.orelse:
                out.append(Branch("else", s.orelse[0].pos))
            else:
                cond, body = s.branches[-1]
                out.append(Branch("implicit else", cond.pos, cond.pos, body[0].pos if body else None))
        elif isinstance(s, (A.ChooseBlock, A.Window)):     # each option of a choice block (a window) taken once
            out.extend(Branch("option", b.body[0].pos) for b in s.branches
                       if b.body and not isinstance(b.body[0], A.Pass))
        elif isinstance(s, A.Choose) and s.if_able and s.cond is not None:
            out.append(Branch("able", s.pos))
            out.append(Branch("fallback", s.pos))
    out.sort(key=lambda b: (b.pos.file, b.pos.line, b.pos.column, b.kind))
    return out


class Tracer:
    """Counts the generated lines run, and the steps between them, of one program's functions."""

    def __init__(self, program):
        self.table = rules_positions(program)
        self.steps: dict = {}        # (file name, previous line or 0, line) -> count
        self.watch: set = set()      # (file name, line) keys whose runs are reported to ``seen``
        self.seen: list = []
        self.glimpse = None          # f(frame) called as an announcement is about to be made
        self.reveal: dict = {}       # file name -> generated line -> the 'reveal' just before it
        self.on_reveal = None
        self.announce: dict = {}     # file name -> generated lines of 'announce' statements

    def revealing(self, rules, on_reveal) -> None:
        """Call ``on_reveal(reveal statement)`` as the statement after each ``reveal`` is about to
        run (a ``reveal`` runs no code of its own)."""
        after: dict = {}
        stack = list(rules.items)
        while stack:
            s = stack.pop()
            stack.extend(_children(s))
            for body in _bodies(s):
                for stmt, nxt in zip(body, body[1:]):
                    if isinstance(stmt, A.Reveal):
                        after[(nxt.pos.file, nxt.pos.line)] = stmt
        # (by the rules line: the code of an 'if' or a loop is placed at its condition, not the keyword)
        self.reveal = {name: {line: after[(pos.file, pos.line)] for line, pos in t.items()
                              if pos is not None and (pos.file, pos.line) in after}
                       for name, t in self.table.items()}
        self.on_reveal = on_reveal

    def announcing(self, rules, glimpse) -> None:
        """Call ``glimpse(frame)`` whenever an announcement is about to be made."""
        wanted = {s.pos for s in walk_statements(rules) if isinstance(s, A.Announce)}
        self.announce = {name: {line for line, pos in t.items() if pos in wanted}
                         for name, t in self.table.items()}
        self.glimpse = glimpse

    def __enter__(self):
        self._old = sys.gettrace()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._old)
        return False

    def run(self, fn, *args):
        """``fn(*args)`` traced: only the rules' own work is, not the checker's around it."""
        old = sys.gettrace()
        sys.settrace(self._global)
        try:
            return fn(*args)
        finally:
            sys.settrace(old)

    def _global(self, frame, event, arg):
        name = frame.f_code.co_filename
        if name not in self.table:
            return None
        steps, watch, seen = self.steps, self.watch, self.seen
        announce, glimpse = self.announce.get(name), self.glimpse
        reveal, on_reveal = self.reveal.get(name), self.on_reveal
        prev = [0]

        def local(frame, event, arg):
            if event == "line":
                line = frame.f_lineno
                key = (name, prev[0], line)
                steps[key] = steps.get(key, 0) + 1
                prev[0] = line
                if watch and (name, line) in watch:
                    seen.append((name, line))
                if announce and line in announce:
                    glimpse(frame)
                if reveal and line in reveal:
                    on_reveal(frame, reveal[line])
            elif event == "return":
                key = (name, prev[0], -1)
                steps[key] = steps.get(key, 0) + 1
            return local
        return local


@attrs.define
class Coverage:
    """What one configuration's games ran, in rules terms."""
    program: object
    rules: object
    lines_run: dict = attrs.Factory(dict)       # (file, line) -> count
    lines_all: set = attrs.Factory(set)         # (file, line) with generated code
    pos_run: set = attrs.Factory(set)           # rules Pos run
    pos_all: set = attrs.Factory(set)
    after: dict = attrs.Factory(dict)           # rules Pos -> set of the rules Pos run next in its frame
    decisions: dict = attrs.Factory(dict)       # decision label -> times decided
    offered: dict = attrs.Factory(dict)         # decision label -> option texts offered
    taken: dict = attrs.Factory(dict)           # decision label -> option texts taken
    able: dict = attrs.Factory(dict)            # choose Pos -> {"able": n, "fallback": n}

    @classmethod
    def empty(cls, program, rules):
        cov = cls(program, rules)
        for table in rules_positions(program).values():
            cov.pos_all.update(table.values())
        compiled = {(p.file, p.line) for p in cov.pos_all}
        cov.lines_all = {(p.file, p.line) for p in statement_positions(rules)} & compiled
        for d in program.decisions:
            cov.decisions.setdefault(d.label, 0)
            cov.offered.setdefault(d.label, set())
            cov.taken.setdefault(d.label, set())
        return cov

    def add_trace(self, tracer: Tracer) -> None:
        table = tracer.table
        for (name, prev, line), n in tracer.steps.items():
            t = table[name]
            pos = t.get(line)
            if pos is not None:
                self.pos_run.add(pos)
                key = (pos.file, pos.line)
                self.lines_run[key] = self.lines_run.get(key, 0) + n
            before = t.get(prev)
            if before is not None and before != pos:
                self.after.setdefault(before, set()).add(pos)
        tracer.steps.clear()

    def decided(self, label: str, texts: list, taken: str) -> None:
        self.decisions[label] = self.decisions.get(label, 0) + 1
        self.offered.setdefault(label, set()).update(texts)
        self.taken.setdefault(label, set()).add(taken)

    def merge(self, other: "Coverage") -> None:
        for k, n in other.lines_run.items():
            self.lines_run[k] = self.lines_run.get(k, 0) + n
        self.lines_all |= other.lines_all
        self.pos_run |= other.pos_run
        self.pos_all |= other.pos_all
        for k, v in other.after.items():
            self.after.setdefault(k, set()).update(v)
        for k, n in other.decisions.items():
            self.decisions[k] = self.decisions.get(k, 0) + n
        for src, dst in ((other.offered, self.offered), (other.taken, self.taken)):
            for k, v in src.items():
                dst.setdefault(k, set()).update(v)
        for k, v in other.able.items():
            mine = self.able.setdefault(k, {"able": 0, "fallback": 0})
            for w, n in v.items():
                mine[w] += n

    # ── what was reached ────────────────────────────────────────────────
    def branches(self) -> list[tuple[Branch, bool]]:
        """Every branch compiled into this configuration, and whether it ran."""
        out = []
        for b in branches_of(self.rules):
            if b.pos not in self.pos_all:
                continue         # not part of this configuration (another variant's rules)
            out.append((b, self.reached(b)))
        return out

    def reached(self, b: Branch) -> bool:
        if b.kind in ("able", "fallback"):
            return self.able.get(b.pos, {}).get(b.kind, 0) > 0
        if b.kind == "implicit else":
            return any(p != b.body for p in self.after.get(b.test, ()))
        return b.pos in self.pos_run

    def unreached(self) -> list[Branch]:
        return [b for b, ok in self.branches() if not ok]

    def summary(self) -> dict:
        br = self.branches()
        lines = len(self.lines_all)
        lines_run = len([k for k in self.lines_all if self.lines_run.get(k)])
        reached = [label for label, n in self.decisions.items() if n]
        offered = sum(len(v) for v in self.offered.values())
        taken = sum(len(v & self.offered.get(k, set())) for k, v in self.taken.items())
        return {"lines": (lines_run, lines), "branches": (sum(ok for _, ok in br), len(br)),
                "decisions": (len(reached), len(self.decisions)), "options": (taken, offered)}

    def percent(self) -> float:
        """The branch coverage in per cent (lines when the file has no branches)."""
        s = self.summary()
        run, total = s["branches"] if s["branches"][1] else s["lines"]
        return 100.0 if total == 0 else 100.0 * run / total

    def summary_line(self) -> str:
        s = self.summary()

        def pc(pair):
            run, total = pair
            return f"{100 * run // total if total else 100} % ({run}/{total})"
        text = (f"coverage: lines {pc(s['lines'])}, branches {pc(s['branches'])}, "
                f"decisions {s['decisions'][0]}/{s['decisions'][1]}, options taken {pc(s['options'])}")
        missing = self.unreached()
        if missing:
            names: dict = {}
            for b in missing:
                names.setdefault(Path(b.pos.file).name, []).append(b.pos.line)
            shown = "; ".join(f"{f}:{', '.join(map(str, sorted(set(ls))))}" for f, ls in names.items())
            text += f"; never reached: {shown}"
        never = [label for label, n in self.decisions.items() if not n]
        if never:
            text += f"; decisions never made: {', '.join(repr(x) for x in never)}"
        return text

    # ── the annotated file ──────────────────────────────────────────────
    def annotate(self, path: str) -> list[tuple[str, str, str]]:
        """(count or '', mark, source line) for each line of the rules file: mark is '!' for a line
        with a branch never taken, '-' for a line with code never run, ' ' otherwise."""
        source = Path(path).read_text(encoding="utf-8").split("\n")
        file = self.rules.path
        missing: dict = {}
        for b in self.unreached():
            if b.pos.file == file:
                missing.setdefault(b.pos.line, []).append(b.kind)
        out = []
        for i, text in enumerate(source, 1):
            key = (file, i)
            count = self.lines_run.get(key, 0)
            if i in missing:
                mark = "!"
            elif key in self.lines_all and not count:
                mark = "-"
            else:
                mark = " "
            shown = f"{count:,}" if key in self.lines_all else ""
            note = f"   ◀ never: {', '.join(missing[i])}" if i in missing else ""
            out.append((shown, mark, text + note))
        return out

    def write(self, target: str, path: str, configs: list[str]) -> None:
        """The annotated rules file; ``configs`` are lines naming each configuration (and its figures)."""
        rows = self.annotate(path)
        if target.endswith((".html", ".htm")):
            body = []
            for n, mark, text in rows:
                cls = {"!": "branch", "-": "never"}.get(mark, "run" if n else "none")
                body.append(f'<tr class="{cls}"><td class="n">{html.escape(n)}</td>'
                            f'<td><pre>{html.escape(text)}</pre></td></tr>')
            page = (f"<!doctype html><meta charset=utf-8><title>coverage of {html.escape(Path(path).name)}</title>"
                    "<style>body{font-family:sans-serif}pre{margin:0}td.n{text-align:right;color:#666;"
                    "padding-right:1em}tr.never{background:#fdd}tr.branch{background:#fec}"
                    "tr.run td.n{color:#070}</style>"
                    f"<h1>{html.escape(Path(path).name)}</h1><p>{html.escape(self.summary_line())}</p>"
                    "<p>configurations:</p><ul>" + "".join(f"<li>{html.escape(c)}</li>" for c in configs) + "</ul>"
                    "<p>red: code never run; orange: a branch never taken (said at the line's end)</p>"
                    f"<table>{''.join(body)}</table>")
            text = page
        else:
            text = "\n".join([f"# {self.summary_line()}"] + [f"# {c}" for c in configs] + [
                              "# count | ! a branch never taken, - code never run"] +
                             [f"{n:>9} {mark} {t}" for n, mark, t in rows]) + "\n"
        Path(target).write_text(text, encoding="utf-8")


def strip_if_able(node):
    """The syntax tree with every ``if able`` left out (a copy; the tree is frozen)."""
    if isinstance(node, tuple):
        items = [strip_if_able(x) for x in node]
        return node if all(a is b for a, b in zip(items, node)) else tuple(items)
    if not attrs.has(type(node)):
        return node
    changes = {}
    for f in attrs.fields(type(node)):
        v = getattr(node, f.name)
        w = strip_if_able(v)
        if w is not v:
            changes[f.name] = w
    if isinstance(node, A.Choose) and node.if_able:
        changes["if_able"] = False
    return attrs.evolve(node, **changes) if changes else node


class AbleProbe:
    """Tells whether a decision of a ``where ... if able`` choice fell back to every option: the step
    that opened it is run again on the rules compiled without ``if able``, where an empty filter
    leaves the player nothing to choose (``NoLegalAction``)."""

    def __init__(self, rules, players: int, variants: tuple, program, allow_leaks: bool = False, params=None):
        from rulesrun.dsl import compile_rules

        from rulesrun.interpreter.runtime.engine import Game
        able = {b.pos for b in branches_of(rules) if b.kind == "able"}
        self.decisions = {i for i, d in enumerate(program.decisions) if d.pos in able}
        self.pos = {i: program.decisions[i].pos for i in self.decisions}
        self.shadow = Game(compile_rules(strip_if_able(rules), players, variants, allow_leaks=True,
                                         params=params)) if self.decisions else None
        self.done: set = set()          # decisions seen both ways: no need to probe them again

    @property
    def active(self) -> bool:
        """Some 'if able' decision has not been seen both ways yet."""
        return len(self.done) < len(self.decisions)

    def wanted(self, did) -> bool:
        return did in self.decisions and did not in self.done

    def probe(self, before, action, seed: int):
        """'able', 'fallback' or None (cannot tell) for the decision opened by taking ``action`` in
        ``before`` (or, with ``before`` None, by starting the game from ``seed``)."""
        from rulesrun.dsl.program import NoLegalAction

        from rulesrun.interpreter.runtime.engine import State
        try:
            if before is None:
                self.shadow.new_initial_state(seed=seed)
            else:
                S = State.from_json(self.shadow, before.to_json())
                S.apply_action(action)
        except NoLegalAction:
            return "fallback"
        except Exception:       # the copy went another way: no verdict
            return None
        return "able"

    def record(self, cov, did, verdict) -> None:
        if verdict is None:
            return
        tally = cov.able.setdefault(self.pos[did], {"able": 0, "fallback": 0})
        tally[verdict] += 1
        if tally["able"] and tally["fallback"]:
            self.done.add(did)
