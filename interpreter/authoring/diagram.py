"""``rulesrun doc --diagram``: the flow of play as a Graphviz picture — the procedures (one box
each), the decisions in each, their loops and branches, and the calls between them.

``to_dot`` writes DOT from the AST alone; ``to_svg`` runs Graphviz's ``dot`` when it is installed
(Debian: ``apt-get install graphviz``) and gives None otherwise.
"""
from __future__ import annotations

import shutil
import subprocess

from rulesrun.dsl.syntax import ast as A

from rulesrun.interpreter.authoring.english import Context, English, title, words


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _short(text: str, limit: int = 48) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _Dot:
    def __init__(self, items: list):
        self.items = items
        self.procs = {i.name: i for i in items if isinstance(i, A.ProcDecl)}
        ctx = Context(procedures=set(self.procs))
        for i in items:
            if isinstance(i, A.ZoneDecl):
                (ctx.families if i.per_player else ctx.zones).add(i.name)
            elif isinstance(i, A.StateDecl) and i.owner is None:
                ctx.globals.add(i.name)
            elif isinstance(i, A.ConstDecl):
                ctx.consts.add(i.name)
            elif isinstance(i, A.KindDecl):
                ctx.kinds[i.name] = list(i.texts)
        self.en = English(ctx)
        self.lines: list = []
        self.calls: list = []
        self.n = 0

    def node(self, label: str, shape: str, **style) -> str:
        self.n += 1
        name = f"n{self.n}"
        extra = "".join(f", {k}={_q(v)}" for k, v in style.items())
        self.lines.append(f"    {name} [label={_q(_short(label))}, shape={shape}{extra}];")
        return name

    def body(self, stmts, prev: str, ctx) -> str:
        """Chain the interesting statements of a body after ``prev``; gives the last node."""
        for s in stmts:
            prev = self.stmt(s, prev, ctx)
        return prev

    def edge(self, a: str, b: str, **style):
        extra = ", ".join(f"{k}={_q(v)}" for k, v in style.items())
        self.lines.append(f"    {a} -> {b}" + (f" [{extra}]" if extra else "") + ";")

    def stmt(self, s, prev: str, ctx) -> str:
        en = self.en
        if isinstance(s, A.Window):         # each seat in turn, its options and "pass"
            s = A.ChooseBlock(pos=s.pos, player=A.Name(pos=s.pos, id=s.var), branches=s.offered())
        if isinstance(s, A.ChooseBlock):
            who = en.expr(s.player, ctx)
            labels = [(b.pick.label or "choose") + (" (subset)" if b.pick.subset else "") if b.pick is not None
                      else b.text for b in s.branches]      # (a move's text with {...} as written)
            n = self.node(f"{who}: {' / '.join(labels)}", "diamond", style="filled", fillcolor="#fde7b0")
            self.edge(prev, n)
            join = self.node("", "point")
            for label, b in zip(labels, s.branches):
                last = self.body(b.body, n, ctx)
                self.edge(last, join, **({} if last != n else {"label": _short(label, 30)}))
            return join
        if isinstance(s, A.Choose):
            who = en.expr(s.player, ctx)
            label = f"{who}: {s.label or 'choose'}" + (" (subset)" if s.subset else "")
            n = self.node(label, "diamond", style="filled", fillcolor="#fde7b0")
            self.edge(prev, n)
            return n
        if isinstance(s, A.ExprStmt) and s.expr.func in self.procs:
            n = self.node(title(s.expr.func), "box", style="rounded,filled", fillcolor="#dfe9f7")
            self.edge(prev, n)
            self.calls.append((n, s.expr.func))
            return n
        if isinstance(s, A.EndGame):
            n = self.node("end of the game", "doublecircle")
            self.edge(prev, n)
            return n
        if isinstance(s, (A.Repeat, A.While, A.For)):
            if isinstance(s, A.Repeat):
                label = f"repeat {en.expr(s.count, ctx)} times"
            elif isinstance(s, A.While):
                label = f"while {en.expr(s.cond, ctx)}"
            elif isinstance(s.source, A.Players):
                label = "each player in turn" + (f" from {en.expr(s.source.start, ctx)}" if s.source.start else "")
                ctx = ctx.but(player=s.var)
            else:
                label = f"for each {words(s.var)} in {en.expr(s.source, ctx)}"
            if not self._interesting(s.body):
                return prev
            n = self.node(label, "hexagon", style="filled", fillcolor="#e4f2dc")
            self.edge(prev, n)
            last = self.body(s.body, n, ctx)
            if last != n:
                self.edge(last, n, style="dashed", label="again")
            return n
        if isinstance(s, A.AtOnce):        # every player's choices at once, then what each does
            ctx = ctx.but(player=s.var)
            n = self.node("every player at once", "hexagon", style="filled", fillcolor="#e4f2dc")
            self.edge(prev, n)
            last = self.body(s.body, n, ctx)
            then = self.node("then, for each player", "hexagon", style="filled", fillcolor="#e4f2dc")
            self.edge(last, then)
            return self.body(s.then, then, ctx)
        if isinstance(s, A.If):
            branches = list(s.branches) + ([(None, s.orelse)] if s.orelse else [])
            if not any(self._interesting(b) for _, b in branches):
                return prev
            n = self.node("if " + en.expr(s.branches[0][0], ctx), "ellipse")
            self.edge(prev, n)
            join = self.node("", "point")
            for i, (cond, body) in enumerate(branches):
                head = "then" if i == 0 else ("otherwise" if cond is None else "else if " + en.expr(cond, ctx))
                first = len(self.lines)
                last = self.body(body, n, ctx)
                if last == n:
                    self.edge(n, join, label=_short(head, 30))
                else:
                    for k in range(first, len(self.lines)):     # label the edge into the branch
                        if self.lines[k].startswith(f"    {n} -> "):
                            self.lines[k] = self.lines[k][:-1] + f" [label={_q(_short(head, 30))}];"
                            break
                    self.edge(last, join)
            return join
        return prev

    def _interesting(self, body) -> bool:
        for s in body:
            if isinstance(s, (A.Choose, A.ChooseBlock, A.Window, A.EndGame)) or (isinstance(s, A.ExprStmt) and s.expr.func in self.procs):
                return True
            for sub in (getattr(s, "body", None), getattr(s, "orelse", None)):
                if sub and self._interesting(sub):
                    return True
            if isinstance(s, A.If) and any(self._interesting(b) for _, b in s.branches):
                return True
        return False

    def build(self) -> str:
        self.lines = []
        entries = {}
        flows = [i for i in self.items if isinstance(i, A.FlowDecl)]
        blocks = [("flow", "The game", flows[0].body)] if flows else []
        blocks += [(name, title(name), p.body) for name, p in self.procs.items()]
        for key, label, body in blocks:
            self.lines.append(f"  subgraph {_q('cluster_' + key)} {{")
            self.lines.append(f"    label={_q(label)}; style=rounded; color=\"#8a6d3b\"; fontname=\"Helvetica-Bold\";")
            entry = self.node("start" if key == "flow" else "", "circle" if key == "flow" else "point",
                              style="filled", fillcolor="#8a6d3b")
            entries[key] = entry
            last = self.body(body, entry, self.en.ctx)
            if key == "flow":
                end = self.node("end", "doublecircle")
                self.edge(last, end)
            self.lines.append("  }")
        calls = "".join(f"  {a} -> {entries[b]} [style=dotted, color=\"#4a6fa5\", constraint=false];\n"
                        for a, b in self.calls if b in entries)
        return ("digraph flow {\n  rankdir=TB; compound=true; fontname=\"Helvetica\";\n"
                "  node [fontname=\"Helvetica\", fontsize=11]; edge [fontname=\"Helvetica\", fontsize=9];\n"
                + "\n".join(self.lines) + "\n" + calls + "}\n")


def to_dot(items: list) -> str:
    """The flow of the game's declarations (dsl.syntax.ast items) as a Graphviz digraph."""
    return _Dot(items).build()


def to_svg(dot: str, timeout: float = 30.0) -> str | None:
    """The DOT drawn as SVG by Graphviz, or None when Graphviz is not installed (or fails)."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    try:
        done = subprocess.run([exe, "-Tsvg"], input=dot.encode("utf-8"), capture_output=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.decode("utf-8") if done.returncode == 0 else None
