"""What the language server knows about a rules file, without any LSP library: the declared names
and where they are, the names in scope at a line, and the built-in functions (interpreter/authoring/lsp.py
serves them to editors)."""
from __future__ import annotations

import re

import attrs

from rulesrun.dsl.syntax import ast as A

# The built-in functions of docs/language.md §Builtin functions (a test keeps the two together).
BUILTINS = {
    "size": ("size(x)", "how many cards in a zone, items in a list, or characters in a text"),
    "empty": ("empty(x)", "whether size(x) is 0"),
    "top": ("top(zone) / top(zone, n)", "the top card (a runtime error if the zone is empty); with n, "
            "a list of the top n cards (fewer if there are fewer), top first"),
    "bottom": ("bottom(zone) / bottom(zone, n)", "the same as top, from the bottom, bottom first"),
    "position": ("position(x, zone or list)", "x's place, 1 for the first (in a zone, the bottom card); "
                 "a runtime error if x is not there"),
    "item": ("item(list, i)", "the i-th item of a list (or card of a zone, from the bottom), 1 for the first"),
    "holder": ("holder(c)", "the player whose per-player zone holds card c, or none when c lies in a shared zone"),
    "unique": ("unique(list)", "the list without repeats, in first-seen order"),
    "left": ("left(p)", "the next player clockwise (Player 1 → Player 2 → … → Player 1)"),
    "right": ("right(p)", "the next player counter-clockwise"),
    "player_at": ("player_at(p, k)", "the player k seats clockwise from p; a negative k goes counter-clockwise"),
    "next": ("next(Kind, v)", "the value of a kind after v, round the ring"),
    "previous": ("previous(Kind, v)", "the value of a kind before v, round the ring"),
    "min": ("min(a, b) / min(e for x in S where C)", "the smaller number; or the smallest over a source"),
    "max": ("max(a, b) / max(e for x in S where C)", "the larger number; or the largest over a source"),
    "abs": ("abs(n)", "the absolute value of a number"),
    "partner": ("partner(p)", "the other player of p's team (a runtime error unless the team has exactly 2 players)"),
    "members": ("members(t)", "the players of team t, in seat order"),
    "opponents": ("opponents(p)", "the players not in p's team, in seat order"),
    "other_team": ("other_team(t)", "the other team, in a game of two teams"),
    "sum": ("sum(e for x in S where C)", "the sum of e over a source"),
    "count": ("count(x in S where C)", "how many items of a source meet the condition"),
    "any": ("any(x in S where C)", "whether some item of a source meets the condition"),
    "all": ("all(e for x in S)", "whether every item of a source meets the condition"),
    # combinations (docs/language.md "Combinations")
    "same": ("same(c.rank for c in s)", "whether every item's key is the same (a pair, three of a kind; "
             "of suits: a flush); yes for an empty list"),
    "run": ("run(c.rank for c in s)", "whether the keys, sorted, are consecutive numbers, none repeated (a straight)"),
    "run_round": ("run_round(c.rank for c in s)", "a run that may go round from the highest key to the lowest "
                  "(K-A-2), the ring being the keys of every card"),
    "groups": ("groups(c.rank for c in s)", "the sizes of the groups of equal keys, largest first: [3, 2] for "
               "a full house, [4, 1] for four of a kind and one"),
    "leading": ("leading(c.rank for c in s)", "the key of the largest group, the highest of equal groups (a full "
                "house's three, a pair's rank); a runtime error for an empty list"),
    "beats": ("beats(new, old, KEY) / beats(new, old, KEY, BOMB)", "whether combination new beats old: as many "
              "items and a higher KEY (the name of a define of one combination giving a number); with BOMB "
              "(a define giving yes/no), a bomb beats anything that is not a bomb"),
}

SYMBOL_KINDS = ("kind", "value", "attribute", "card state", "zone", "state", "player state", "team state", "const",
                "define", "procedure", "variant", "flow", "cards", "score", "winners", "heuristic")


@attrs.define
class Symbol:
    name: str
    kind: str            # one of SYMBOL_KINDS, or "parameter", "local"
    line: int            # 1-based, where the name is written
    col: int             # 1-based
    detail: str = ""
    end_line: int = 0    # the last line of the declaration (procedures, variants)
    children: list = attrs.Factory(list)
    file: str = ""       # the file it is declared in: a variant file's base, or "" for the file itself


def _name_at(source_lines: list, line: int, col: int, name: str) -> tuple[int, int]:
    """Where ``name`` is written on or after (line, col)."""
    for ln in range(line, min(line + 3, len(source_lines) + 1)):
        text = source_lines[ln - 1]
        m = re.compile(r"\b" + re.escape(name) + r"\b").search(text, col - 1 if ln == line else 0)
        if m:
            return ln, m.start() + 1
    return line, col


def _type(t) -> str:
    if t is None:
        return "?"
    return "list of " + _type(t.elem) if t.name == "list" else {"bool": "yes/no"}.get(t.name, t.name)


def _last_line(node) -> int:
    """The last source line a statement or declaration reaches (by its nested statements)."""
    last = node.pos.line
    for f in attrs.fields(type(node)):
        v = getattr(node, f.name)
        for x in (v if isinstance(v, tuple) else (v,)):
            if isinstance(x, tuple):
                for y in x:
                    if attrs.has(type(y)) and hasattr(y, "pos") and hasattr(y.pos, "line"):
                        last = max(last, _last_line(y))
            elif attrs.has(type(x)) and hasattr(x, "pos") and hasattr(getattr(x, "pos", None), "line"):
                last = max(last, _last_line(x))
    return last


class Index:
    """The names of one parsed file (dsl.syntax.ast.RulesFile)."""

    def __init__(self, rules: A.RulesFile):
        self.rules = rules
        self.lines = rules.source.split("\n")
        # a variant file (dsl.syntax.extend): its base's declarations are known by name (lookup,
        # completion, go to definition into the base) but are not this document's symbols
        self.file_lines = {f: t.split("\n") for f, t in rules.sources.items()}
        self.symbols: list[Symbol] = []
        self.by_name: dict[str, list[Symbol]] = {}
        self.procs: dict[str, A.ProcDecl] = {}
        elsewhere: list[Symbol] = []
        for item in rules.items:
            self._decl(item, self.symbols if self._own(item) else elsewhere)
        if rules.files:       # merged with a base, the declarations are in the base's order
            self.symbols.sort(key=lambda s: s.line)

    def _own(self, node) -> bool:
        return node.pos.file == self.rules.path

    def _add(self, sym: Symbol, into: list):
        into.append(sym)
        self.by_name.setdefault(sym.name, []).append(sym)

    def _sym(self, decl, name: str, kind: str, detail: str = "") -> Symbol:
        lines = self.file_lines.get(decl.pos.file, self.lines)
        line, col = _name_at(lines, decl.pos.line, decl.pos.column + (0 if kind in ("flow", "cards") else 1), name)
        return Symbol(name, kind, line, col, detail, end_line=_last_line(decl),
                      file="" if self._own(decl) else decl.pos.file)

    def _decl(self, d, into: list):
        if isinstance(d, A.KindDecl):
            sym = self._sym(d, d.name, "kind", "kind " + d.name + ": " + ", ".join(d.values))
            for v, p in zip(d.values, d.value_pos):
                self._add(Symbol(v, "value", p.line, p.column, f"a value of kind {d.name}", file=sym.file), sym.children)
            self._add(sym, into)
        elif isinstance(d, A.CardsDecl):
            sym = self._sym(d, "cards", "cards", f"{len(d.attrs)} attributes")
            for a in d.attrs:
                self._add(self._sym(a, a.name, "attribute", f"card attribute {a.name}: {_type(a.type)}"), sym.children)
            into.append(sym)
        elif isinstance(d, A.ZoneDecl):
            self._add(self._sym(d, d.name, "zone", f"zone {d.name}{' per player' if d.per_player else ''}: "
                                                   f"{d.visibility}"), into)
        elif isinstance(d, A.StateDecl):
            kind = {"player": "player state", "card": "card state", "team": "team state"}.get(d.owner, "state")
            self._add(self._sym(d, d.name, kind, f"{kind} {d.name}: {_type(d.type)}, {d.visibility}"), into)
        elif isinstance(d, A.TeamsDecl):
            for name, shown, p in zip(d.names, d.shown, d.name_pos):
                self._add(Symbol(name, "value", p.line, p.column, f"a team, shown as {shown!r}",
                                 file="" if self._own(d) else d.pos.file), into)
        elif isinstance(d, A.ConstDecl):
            self._add(self._sym(d, d.name, "const", f"const {d.name} = {self._text(d.expr)}"), into)
        elif isinstance(d, A.ParamDecl):     # a game parameter reads like a constant
            self._add(self._sym(d, d.name, "const", f"param {d.name}: {_type(d.type)} = {self._text(d.default)}"), into)
        elif isinstance(d, A.DefineDecl):
            self._add(self._sym(d, d.name, "define", f"define {d.name}({', '.join(d.params)})"), into)
        elif isinstance(d, A.ProcDecl):
            self.procs.setdefault(d.name, d)
            self._add(self._sym(d, d.name, "procedure", f"procedure {d.name}({', '.join(d.params)})"), into)
        elif isinstance(d, A.FlowDecl):
            into.append(self._sym(d, "flow", "flow", "the game's flow"))
        elif isinstance(d, A.VariantDecl):
            sym = self._sym(d, d.name, "variant", f"variant {d.name}" + (" (automatic)" if d.when else ""))
            for i in d.items:
                self._decl(i, sym.children)
            self._add(sym, into)
        elif isinstance(d, (A.ScoreDecl, A.WinnersDecl, A.HeuristicDecl)):
            word = {A.ScoreDecl: "score", A.WinnersDecl: "winners", A.HeuristicDecl: "heuristic"}[type(d)]
            into.append(Symbol(word, word, d.pos.line, d.pos.column, word, end_line=_last_line(d)))

    def _text(self, e) -> str:
        lines = self.file_lines.get(e.pos.file, self.lines)
        line = lines[e.pos.line - 1] if 0 < e.pos.line <= len(lines) else ""
        return line[e.pos.column - 1:].split("#")[0].strip()[:60]

    # ── scope ───────────────────────────────────────────────────────────
    def enclosing(self, line: int):
        """The procedure, define, flow or declaration that holds a (1-based) line."""
        best = None
        for d in self._all_decls():
            if d.pos.line <= line <= _last_line(d) and (best is None or d.pos.line >= best.pos.line):
                best = d
        return best

    def _all_decls(self):
        for d in self.rules.items:
            if not self._own(d):          # a base's: its lines are another file's
                continue
            yield d
            if isinstance(d, A.VariantDecl):
                yield from d.items

    def locals_at(self, line: int) -> list[Symbol]:
        """Parameters and local names visible at a line: let, for, chooses (with a guess of their type:
        'card' or 'player' when the source says so)."""
        d = self.enclosing(line)
        out = []
        if isinstance(d, (A.ProcDecl, A.DefineDecl)):
            out += [Symbol(p, "parameter", d.pos.line, d.pos.column, f"parameter of {d.name}") for p in d.params]
        if isinstance(d, (A.ScoreDecl, A.HeuristicDecl, A.WinnersDecl)):
            out.append(Symbol(d.var, "parameter", d.pos.line, d.pos.column, "player"))
        body = getattr(d, "body", None)
        if body:
            self._walk_locals(body, line, out)
        return out

    def _walk_locals(self, body, line: int, out: list):
        for s in body:
            if s.pos.line > line:
                break
            if isinstance(s, A.Let):
                out.append(Symbol(s.name, "local", s.pos.line, s.pos.column, "let " + s.name))
            elif isinstance(s, A.Choose):
                out.extend(self._picked(s, s.pos))
            elif isinstance(s, (A.ChooseBlock, A.Window)):
                if isinstance(s, A.Window) and s.pos.line <= line:
                    out.append(Symbol(s.var, "local", s.pos.line, s.pos.column, "player"))
                for b in s.branches:
                    if b.pick is not None and b.pos.line <= line:
                        out.extend(self._picked(b.pick, b.pos))
            elif isinstance(s, (A.For, A.AtOnce)) and s.pos.line <= line <= _last_line(s):
                out.append(Symbol(s.var, "local", s.pos.line, s.pos.column, self._source_type(s.source)))
            for sub in self._bodies(s):      # names chosen or let in a block stay visible after it
                if sub and sub[0].pos.line <= line:
                    self._walk_locals(sub, line, out)

    def _picked(self, c, pos) -> list:
        """The locals a pick names: its name, or each name of a pick of several values."""
        pairs = zip(c.names, c.sources) if c.names else [(c.var, c.source)]
        return [Symbol(n, "local", pos.line, pos.column, self._source_type(src, c.subset)) for n, src in pairs]

    @staticmethod
    def _bodies(s):
        if isinstance(s, A.If):
            return [b for _, b in s.branches] + ([s.orelse] if s.orelse else [])
        if isinstance(s, (A.For, A.While, A.Repeat)):
            return [s.body]
        if isinstance(s, A.AtOnce):
            return [s.body, s.then]
        if isinstance(s, (A.ChooseBlock, A.Window)):
            return [b.body for b in s.branches]
        return []

    def _source_type(self, src, subset: bool = False) -> str:
        zones = {s.name for s in self.symbols if s.kind == "zone"}
        t = "local"
        if isinstance(src, A.Players):
            t = "player"
        elif isinstance(src, A.Name) and src.id in zones or isinstance(src, A.Attr) and src.name in zones \
                or isinstance(src, A.EveryCard):
            t = "card"
        elif isinstance(src, A.Name) and any(s.kind == "kind" for s in self.by_name.get(src.id, [])):
            t = src.id
        return f"list of {t}" if subset and t != "local" else t

    def attributes(self, of: str | None) -> list[Symbol]:
        """What may follow 'x.': card attributes and card state for a card, player state and per-player
        zones for a player, all of them when the type is unknown."""
        syms = [s for group in self.by_name.values() for s in group]
        card = [s for s in syms if s.kind in ("attribute", "card state")]
        player = [s for s in syms if s.kind == "player state" or (s.kind == "zone" and "per player" in s.detail)]
        if of == "card":
            return card
        if of == "player":
            return player
        return card + player + [s for s in syms if s.kind == "team state"]

    def lookup(self, name: str, line: int) -> Symbol | None:
        for s in reversed(self.locals_at(line)):
            if s.name == name:
                return s
        found = self.by_name.get(name)
        return found[0] if found else None


def word_at(text: str, line: int, character: int) -> tuple[str, int, int] | None:
    """The name under a (0-based) position: (word, start, end) on that line."""
    lines = text.split("\n")
    if not 0 <= line < len(lines):
        return None
    s = lines[line]
    for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", s):
        if m.start() <= character <= m.end():
            return m.group(), m.start(), m.end()
    return None


def receiver_before(text: str, line: int, start: int) -> str | None:
    """For 'p.hand' with the cursor in 'hand': 'p' (the name before the dot)."""
    lines = text.split("\n")
    m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*$", lines[line][:start]) if 0 <= line < len(lines) else None
    return m.group(1) if m else None
