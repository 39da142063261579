"""``rulesrun doc``: a rulebook a player can read, generated from a rules file alone.

The rulebook is built from the AST (dsl.syntax.parser) — the flow of play as numbered steps in plain
English (interpreter/authoring/english.py), the file's comments carried in where they stand — and from the
compiled game for each player count (how many of each card). It is a list of blocks rendered as
Markdown or HTML (interpreter/authoring/rulebook_render.py); ``--diagram`` adds the flow as a picture
(interpreter/authoring/diagram.py).
"""
from __future__ import annotations

import re
import sys
from itertools import combinations

from rulesrun.dsl import RulesError
from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.syntax.parser import parse_file

from rulesrun.interpreter.authoring.diff import changes, variant_blocks
from rulesrun.interpreter.authoring.english import Context, English, Step, anchor, cap, title, words

_SEES = {"public": "everyone sees its cards", "owner": "its owner sees its cards; the others see how many",
         "others": "every other player sees its cards; its owner sees how many",
         "team": "its owner and the owner's partners see its cards; the other teams see how many",
         "facedown": "nobody sees its cards; everyone sees how many", "hidden": "nobody sees it"}
_SEES_SHARED = {"owner": "nobody sees its cards; everyone sees how many"}
_VALUE_SEES = {"public": "everyone", "owner": "only that player", "others": "everyone but that player",
               "team": "that player's team",
               "on back": "everyone, on the card's back, wherever it lies",
               "hidden": "nobody"}
_DECORATION = re.compile(r"^[\s─━═—–\-=*#]*$")
_MAX_ROWS = 25


def comments_by_line(source: str) -> tuple[dict, dict]:
    """(notes, trailing): for each code line, the comment block just above it (joined into
    paragraphs) and its own trailing comment. Decorative rules (── Zones ──) are left out."""
    from rulesrun.dsl.syntax.format import TOKEN
    lines = source.split("\n")
    above, trailing, block = {}, {}, []
    for i, line in enumerate(lines, 1):
        code, comment = False, None
        for m in TOKEN.finditer(line):
            if m.lastgroup == "comment":
                comment = m.group()[1:].strip()
                break
            if m.lastgroup != "ws":
                code = True
        if not code:
            if comment is None:
                block = []
            elif re.search(r"[─═━]{2,}", comment) or _DECORATION.match(comment):
                block.append("")        # a decorative rule (── Zones ──) only breaks the paragraph
            else:
                block.append(comment)
            continue
        if block:
            above[i] = _paragraphs(block)
        block = []
        if comment:
            trailing[i] = comment
    return above, trailing


def _paragraphs(lines: list) -> list:
    out, cur = [], []
    for text in lines:
        if not text:
            if cur:
                out.append(" ".join(cur))
            cur = []
        elif text.lstrip().startswith(("•", "-", "*")) or (cur and text.startswith("  ")):
            if cur:
                out.append(" ".join(cur))
            cur = [text.strip()]
        else:
            cur.append(text.strip())
    if cur:
        out.append(" ".join(cur))
    return out


def _numbered(steps: list, prefix: str = "") -> list:
    """Steps as lines "1. Deal ...", "1.2. ..." (a diff compares them a line at a time)."""
    out = []
    for n, st in enumerate(steps, 1):
        num = f"{prefix}{n}"
        for branch in st.sub if (not st.text and st.sub) else [st]:     # if / otherwise: one number
            out.append(f"{num}. {branch.text}")
            out += _numbered(branch.sub, num + ".")
    return out


# A path to a file, as a rules file's opening comment cites its sources ("shared/rules/magi.md"):
# such a paragraph is about the file, not the game, and names files a player's copy does not have.
_CITES_FILE = re.compile(r"[\w.-]+/[\w./-]*\.(?:md|txt|rules|py|pdf|html?)\b")


def _without_citations(text: str) -> str:
    """A paragraph without its sentences that cite a file by its path."""
    sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z\"“(])", text)
    return " ".join(s for s in sentences if not _CITES_FILE.search(s)).strip()


def _at(pos) -> tuple:
    """Where a comment is: (file, line), as the rulebook keys them."""
    return (pos.file, pos.line)


def _header_comment(source: str) -> list:
    lines = []
    for line in source.split("\n"):
        s = line.strip()
        if not s.startswith("#"):
            if s:
                break
            if lines:
                lines.append("")
            continue
        lines.append(s[1:].strip())
    return _paragraphs(lines)


def _type(t: A.TypeRef) -> str:
    if t is None:
        return ""
    if t.name == "list":
        return "list of " + _type(t.elem)
    return {"bool": "yes/no"}.get(t.name, t.name)


def _show(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, (list, tuple)):
        return ", ".join(_show(x) for x in v) if v else "—"
    return str(v)


def _summary(values: list) -> str:
    """Several values of one attribute, in one cell: '0–8', 'red, blue, yellow'."""
    uniq = []
    for v in values:
        if v not in uniq:
            uniq.append(v)
    if len(uniq) == 1:
        return _show(uniq[0])
    if all(isinstance(v, int) and not isinstance(v, bool) for v in uniq):
        s = sorted(uniq)
        if s == list(range(s[0], s[-1] + 1)) and len(s) > 2:
            return f"{s[0]}–{s[-1]}"
        return ", ".join(map(str, s))
    shown = [_show(v) for v in uniq]
    sep = "; " if any(isinstance(v, (list, tuple)) for v in uniq) else ", "
    if len(shown) > 8:
        return sep.join(shown[:6]) + f"{sep}… ({len(shown)} in all)"
    return sep.join(shown)


def card_table(games: dict) -> tuple[list, list]:
    """The cards as a table grouped by their attributes: (headers, rows), with a count for each
    player count (one count column when every player count has the same cards). Rows group the
    cards by the largest set of attributes that gives at most 25 rows; the other attributes are
    summarised in their cells."""
    counts = sorted(games)
    any_game = games[counts[0]]
    attrs_ = list(any_game.program.card_attrs)
    cards = {n: [tuple(g.program.card_attrs[a][i] for a in attrs_) for i in range(len(g.program.card_names))]
             for n, g in games.items()}
    allcards = [c for n in counts for c in cards[n]]

    def key_of(c, keep):
        return tuple(repr(c[i]) for i in keep)

    best = None
    for size in range(len(attrs_), 0, -1):
        for keep in combinations(range(len(attrs_)), size):
            rows = {key_of(c, keep) for c in allcards}
            if len(rows) <= _MAX_ROWS and (best is None or len(rows) < best[1]):
                best = (keep, len(rows))
        if best:
            break
    keep = best[0] if best else ()
    order, groups = [], {}
    for n in counts:
        for c in cards[n]:
            k = key_of(c, keep)
            if k not in groups:
                groups[k] = {"cards": [], "count": {m: 0 for m in counts}}
                order.append(k)
            if n == counts[0] or c not in groups[k]["cards"]:
                groups[k]["cards"].append(c)
            groups[k]["count"][n] += 1
    same = len({tuple(groups[k]["count"][n] for k in order) for n in counts}) == 1
    headers = [words(a) for a in attrs_] + (["cards"] if same else [f"{n} players" for n in counts])
    rows = []
    for k in order:
        g = groups[k]
        cells = [_summary([c[i] for c in g["cards"]]) for i in range(len(attrs_))]
        cells += [str(g["count"][counts[0]])] if same else [str(g["count"][n]) for n in counts]
        rows.append(cells)
    total = ["**all**"] + [""] * (len(attrs_) - 1) + (
        [str(len(cards[counts[0]]))] if same else [str(len(cards[n])) for n in counts])
    rows.append(total)
    return headers, rows


def effective_items(rules: A.RulesFile, variants: tuple) -> list:
    """The file's declarations with the chosen variants' replacing theirs (by declaration key)."""
    items = [i for i in rules.items if not isinstance(i, A.VariantDecl)]
    for v in rules.items:
        if isinstance(v, A.VariantDecl) and v.name in variants:
            for new in v.items:
                idx = next((j for j, old in enumerate(items) if old.key == new.key), None)
                if idx is None:
                    items.append(new)
                else:
                    items[idx] = new
    return items


def _games(path: str, rules: A.RulesFile, players: int | None, variants: tuple, params=None) -> dict:
    from rulesrun.interpreter.runtime.engine import load_game
    decl = next((i for i in rules.items if isinstance(i, A.PlayersDecl)), None)
    if decl is None:
        raise RulesError("the rules never say how many players the game is for", None, "add a line like 'players 3 to 5'")
    counts = [players] if players else list(range(decl.low, decl.high + 1))
    out, first_error = {}, None
    for n in counts:
        try:
            out[n] = load_game(path, players=n, variants=variants, params=params)
        except RulesError as e:
            if players:
                raise
            first_error = first_error or e
    if not out:
        raise first_error
    return out


class Rulebook:
    """The rulebook's blocks: ("h", level, text, anchor), ("p", text), ("note", text),
    ("table", headers, rows), ("steps", [Step]), ("list", [text]), ("diagram", dot, svg)."""

    def __init__(self, path: str, players: int | None = None, variants: tuple = (), diagram: bool = False,
                 game=None, params: dict | None = None):
        self.path = path
        if game is not None:           # an already compiled game: its own text and player count
            from rulesrun.dsl import parse_text
            self.rules = parse_text(game.program.source, path)
            self.games = {game.players: game}
        else:
            self.rules = parse_file(path)
            self.games = _games(path, self.rules, players, variants, params)
        active = set(variants)
        for g in self.games.values():
            active.update(g.program.variants)
        self.variants = tuple(sorted(active)) if players else tuple(variants)
        self.items = effective_items(self.rules, self.variants)
        # each comment by (file, line): a variant file's declarations and its base's keep their own notes
        self.above, self.trailing = {}, {}
        for file, text in self.rules.files or ((self.rules.path, self.rules.source),):
            above, trailing = comments_by_line(text)
            self.above.update({(file, ln): v for ln, v in above.items()})
            self.trailing.update({(file, ln): v for ln, v in trailing.items()})
        self.blocks: list = []
        ctx = Context(comments={})
        for i in self.items:
            if isinstance(i, A.ZoneDecl):
                (ctx.families if i.per_player else ctx.zones).add(i.name)
            elif isinstance(i, A.StateDecl) and i.owner is None:
                ctx.globals.add(i.name)
            elif isinstance(i, (A.ConstDecl, A.ParamDecl)):
                ctx.consts.add(i.name)
            elif isinstance(i, A.ProcDecl):
                ctx.procedures.add(i.name)
            elif isinstance(i, A.KindDecl):
                ctx.kinds[i.name] = list(i.texts)
        for v in self.rules.items:
            if isinstance(v, A.VariantDecl):
                ctx.procedures.update(p.name for p in v.items if isinstance(p, A.ProcDecl))
        ctx.comments = {at: self.above.get(at, []) + ([self.trailing[at]] if at in self.trailing else [])
                        for at in set(self.above) | set(self.trailing)}
        self.ctx = ctx
        self.en = English(ctx)
        self.build(diagram)

    # ── helpers ─────────────────────────────────────────────────────────
    def of(self, cls):
        return [i for i in self.items if isinstance(i, cls)]

    def h(self, level, text, anchor_=None):
        self.blocks.append(("h", level, text, anchor_ or re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")))

    def notes(self, item):
        for text in self.above.get(_at(item.pos), []):
            self.blocks.append(("note", text))

    def p(self, text):
        self.blocks.append(("p", text))

    # ── the rulebook ────────────────────────────────────────────────────
    def build(self, diagram: bool) -> None:
        prog = next(iter(self.games.values())).program
        counts = sorted(self.games)
        span = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]} to {counts[-1]}"
        self.h(1, prog.title, "top")
        self.p(f"A game for {span} players." + (f" Variants: {', '.join(self.variants)}." if self.variants else ""))
        if prog.about:
            self.p(prog.about)
        for text in _header_comment(self.rules.source):
            text = _without_citations(text)     # the file's own sources are files a player does not have
            if text:
                self.blocks.append(("note", text))
        if self.rules.base is not None:       # a variant file: what it changes against its base, first
            self.blocks += variant_blocks(self, Rulebook(self.rules.base.path, players=min(self.games)))
        self.parameters(prog)
        self.components()
        self.zones_and_state()
        self.terms()
        self.play(diagram)
        self.ending()
        self.variant_sections()
        self.p(f"This rulebook was written by `rulesrun doc` from `{self.path}`; the rules file is the "
               "authority. Notes in italics are the file's own comments.")

    def parameters(self, prog):
        """The game's parameters (dsl.check.params): what each takes, its default, the value in this rulebook."""
        if not prog.param_info:
            return
        self.h(2, "Parameters")
        self.p("Settings agreed before the game, each set with `--param NAME=VALUE`:")
        self.blocks.append(("list", [
            f"**{words(i.name)}** (`{i.name}`): {i.describe()}; {i.text(i.default)} unless set"
            + (f" — {i.text(prog.params[i.name])} in this rulebook" if prog.params[i.name] != i.default else "") + "."
            for i in prog.param_info]))

    def components(self):
        self.h(2, "Components")
        kinds = self.of(A.KindDecl)
        if kinds:
            self.p("The kinds of things the rules name:")
            for k in kinds:
                self.notes(k)
                self.blocks.append(("list", [f"**{words(k.name)}**: {', '.join(k.texts)}"]))
        cards = self.of(A.CardsDecl)
        if cards:
            self.notes(cards[0])
            headers, rows = card_table(self.games)
            self.p("The cards" + (f", each shown as {self.en.expr(cards[0].shown)}" if cards[0].shown else "")
                   + ":")
            self.blocks.append(("table", headers, rows))
            for e in cards[0].entries:
                for text in self.above.get(_at(e.pos), []):
                    self.blocks.append(("note", text))

    def zones_and_state(self):
        zones = self.of(A.ZoneDecl)
        if zones:
            self.h(2, "The table")
            rows = []
            for z in zones:
                sees = (_SEES_SHARED.get(z.visibility) if not z.per_player else None) or _SEES[z.visibility]
                rows.append([f"**{words(z.name)}**", "each player" if z.per_player else "shared", sees,
                             self.trailing.get(_at(z.pos), "")])
            self.blocks.append(("table", ["zone", "one for", "who sees it", "note"], rows))
        for t in self.of(A.TeamsDecl):
            self.h(3, "The teams")
            self.p(f"The players form {len(t.shown)} teams: {', '.join(t.shown)}. Seats alternate round the "
                   f"table: the first player joins {t.shown[0]}, the next {t.shown[1]}, and so on round again, "
                   f"so each team has as many players as the others.")
        for owner, heading in ((None, "What the game keeps track of"), ("player", "What each player keeps"),
                               ("card", "What each card keeps"), ("team", "What each team keeps")):
            states = [s for s in self.of(A.StateDecl) if s.owner == owner and s.visibility != "hidden"]
            if not states:
                continue
            self.h(3, heading)
            rows = [[f"**{words(s.name)}**", _type(s.type) + (
                        "" if s.low is None else f" from {self.en.expr(s.low)} to {self.en.expr(s.high)}"),
                     self.en.expr(s.default) if s.default is not None else "—",
                     _VALUE_SEES.get(s.visibility, s.visibility), self.trailing.get(_at(s.pos), "")] for s in states]
            self.blocks.append(("table", ["name", "what", "at the start", "who sees it", "note"], rows))

    def terms(self):
        consts, defines = self.of(A.ConstDecl), self.of(A.DefineDecl)
        if not consts and not defines:
            return
        self.h(2, "Numbers and terms")
        for d in consts + defines:
            self.notes(d)
            head = words(d.name) + (f"({', '.join(map(words, d.params))})" if isinstance(d, A.DefineDecl) else "")
            text = f"**{head}** is {self._num(d.expr)}."
            if _at(d.pos) in self.trailing:
                text += f" *{self.trailing[_at(d.pos)]}*"
            self.blocks.append(("list", [text]))

    def _num(self, e) -> str:
        return self.en.expr(e).replace("the players is", "the number of players is")

    def play(self, diagram: bool):
        self.h(2, "Play")
        flow = self.of(A.FlowDecl)
        if flow:
            self.notes(flow[0])
            self.blocks.append(("steps", self.en.steps(flow[0].body)))
        if diagram:
            from rulesrun.interpreter.authoring.diagram import to_dot, to_svg
            dot = to_dot(self.items)
            self.blocks.append(("diagram", dot, to_svg(dot)))
        for proc in self.of(A.ProcDecl):
            params = f" (with {', '.join(map(words, proc.params))})" if proc.params else ""
            self.h(3, title(proc.name) + params, anchor(proc.name))
            self.notes(proc)
            self.blocks.append(("steps", self.en.steps(proc.body) or [Step("Nothing happens.")]))

    def ending(self):
        self.h(2, "The end and the winner")
        self.p("The game ends when the play above is over" +
               (" or a step says that it ends." if any("EndGame" in repr(p) for p in self.of(A.ProcDecl) + self.of(A.FlowDecl)) else "."))
        for s in self.of(A.ScoreDecl):
            self.notes(s)
            self.p(f"A player’s score is {self.en.expr(s.expr, self.ctx.but(player=s.var))}.")
        for w in self.of(A.WinnersDecl):
            if _at(w.pos) in self.above and not self.of(A.ScoreDecl):
                self.notes(w)
            inner = self.ctx.but(player=w.var)
            orders = ", then ".join(f"the {kind} {self.en.expr(e, inner).replace('their ', '')}" for kind, e in w.orders)
            if w.team:
                self.p(f"The winners are every player of the team with {orders}; teams that tie share the win.")
            else:
                self.p(f"The winners are the players with {orders}; players who tie share the win.")
        invariants = self.of(A.InvariantDecl)
        if invariants:
            self.h(3, "Always true")
            self.p("The rules make sure of these (`rulesrun check` tests them):")
            self.blocks.append(("list", [cap(i.text) + "." for i in invariants]))

    # ── one declaration in words (interpreter/authoring/diff.py compares two files with these) ────
    def describe(self, item) -> list[str]:
        """A declaration in the rulebook's English: one line, or a procedure's numbered steps."""
        en, x = self.en, self.en.expr
        if isinstance(item, A.ConstDecl):
            return [self._num(item.expr)]
        if isinstance(item, A.DefineDecl):
            return [(f"of {', '.join(map(words, item.params))}: " if item.params else "") + self._num(item.expr)]
        if isinstance(item, (A.ProcDecl, A.FlowDecl)):
            return _numbered(en.steps(item.body)) or ["Nothing happens."]
        if isinstance(item, A.PlayersDecl):
            return [f"for {item.low}" + (f" to {item.high}" if item.high != item.low else "") + " players"]
        if isinstance(item, A.StateDecl):
            span = "" if item.low is None else f" from {x(item.low)} to {x(item.high)}"
            start = f", {x(item.default)} at the start" if item.default is not None else ""
            return [f"{'a ' + item.owner + chr(39) + 's ' if item.owner else ''}{_type(item.type)}{span}{start}, "
                    f"seen by {_VALUE_SEES.get(item.visibility, item.visibility)}"]
        if isinstance(item, A.ZoneDecl):
            sees = (_SEES_SHARED.get(item.visibility) if not item.per_player else None) or _SEES[item.visibility]
            return [f"{'one for each player' if item.per_player else 'shared'}: {sees}"]
        if isinstance(item, A.KindDecl):
            return [", ".join(item.texts)]
        if isinstance(item, A.InvariantDecl):
            return [cap(item.text)]
        if isinstance(item, A.ScoreDecl):
            return [f"a player’s score is {x(item.expr, self.ctx.but(player=item.var))}"]
        if isinstance(item, A.WinnersDecl):
            inner = self.ctx.but(player=item.var)
            return ["the " + ", then the ".join(f"{kind} {x(e, inner).replace('their ', '')}" for kind, e in item.orders)
                    + (" (by team)" if item.team else "")]
        if isinstance(item, A.ParamDecl):
            span = "" if item.low is None else f" from {x(item.low)} to {x(item.high)}"
            return [f"{_type(item.type)}{span}, {x(item.default)} unless set"]
        if isinstance(item, A.GameDecl):
            return [item.title]
        if isinstance(item, A.AboutDecl):
            return [item.text]
        if isinstance(item, A.CardsDecl):
            headers, rows = card_table(self.games)
            return [" | ".join(c.replace("**", "") for c in row) for row in rows]
        if isinstance(item, A.TeamsDecl):
            return [f"{len(item.shown)} teams: {', '.join(item.shown)}"]
        return ["its own rule"]                 # a heuristic: how bots judge a position

    def variant_sections(self):
        variants = [v for v in self.rules.items if isinstance(v, A.VariantDecl)]
        if not variants:
            return
        self.h(2, "Variants")
        for v in variants:
            self.h(3, title(v.name), "variant-" + v.name.replace("_", "-"))
            self.notes(v)
            if v.when is not None:
                self.p(f"Played whenever {self._num(v.when)}.")
            else:
                self.p(f"Chosen by name: `--variant {v.name}`." + (" (In this rulebook.)" if v.name in self.variants else ""))
            changes = []
            for i in v.items:
                if isinstance(i, A.PlayersDecl):
                    changes.append(f"The game is for {i.low}" + (f" to {i.high}" if i.high != i.low else "") + " players.")
                elif isinstance(i, (A.ConstDecl, A.DefineDecl)):
                    changes.append(f"**{words(i.name)}** is {self._num(i.expr)}.")
                elif isinstance(i, A.StateDecl):
                    start = f", starting at {self.en.expr(i.default)}" if i.default is not None else ""
                    changes.append(f"**{words(i.name)}** is a {_type(i.type)}{start}.")
                elif isinstance(i, A.ProcDecl):
                    changes.append(f"[{title(i.name)}](#{anchor(i.name)}) is played differently (below).")
                else:
                    changes.append(f"Its own {type(i).__name__.replace('Decl', '').lower()} rule replaces the usual one.")
            self.blocks.append(("list", changes))
            for i in v.items:
                if isinstance(i, A.ProcDecl):
                    self.h(4, f"{title(i.name)}, in this variant", anchor(i.name) + "-" + v.name.replace("_", "-"))
                    self.notes(i)
                    self.blocks.append(("steps", self.en.steps(i.body) or [Step("Nothing happens.")]))


def write_rulebook(args) -> int:
    """``rulesrun doc``: ``args`` as cli/parsers.py's ``doc_parser`` reads them; the exit code."""
    from rulesrun.interpreter.authoring.rulebook_render import to_html, to_markdown
    fmt = args.format or ("html" if args.output and args.output.endswith((".html", ".htm")) else "md")
    try:
        book = Rulebook(args.file, args.players, tuple(args.variant), diagram=args.diagram,
                        params=dict(args.param or ()))
    except RulesError as e:
        print(e.render(), file=sys.stderr)
        return 1
    text = to_html(book.blocks) if fmt == "html" else to_markdown(book.blocks)
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
        if args.diagram:
            stem = re.sub(r"\.(html?|md)$", "", args.output)
            dia = next(b for b in book.blocks if b[0] == "diagram")
            with open(stem + ".dot", "w", encoding="utf-8") as f:
                f.write(dia[1])
            if dia[2]:
                with open(stem + ".svg", "w", encoding="utf-8") as f:
                    f.write(dia[2])
    except OSError as e:
        print(f"rulesrun doc: error: cannot write {args.output}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


def diff_files(a: str, b: str, players: int | None = None, variants_a=(), variants_b=()) -> int:
    """``rulesrun diff A B``: print what B changes against A; exit 0 (1 on an error)."""
    try:
        old = Rulebook(a, players=players or _fewest(a), variants=tuple(variants_a))
        new = Rulebook(b, players=players or _fewest(b), variants=tuple(variants_b))
    except RulesError as e:
        print(e.render(), file=sys.stderr)
        return 1
    found = changes(old, new)
    if not found:
        print(f"{b} reads the same as {a}: no declaration differs.")
        return 0
    print(f"What {b} changes against {a}:")
    for change in found:
        lines = change.lines()
        print(f"  - {lines[0]}")
        for ln in lines[1:]:
            print(f"    {ln}")
    return 0


def _fewest(path: str) -> int:
    from rulesrun.dsl.syntax.parser import parse_file
    decl = next((i for i in parse_file(path).items if isinstance(i, A.PlayersDecl)), None)
    return decl.low if decl else 2


def rulebook_text(game) -> str:
    """The Markdown rulebook of a loaded game, for the REPL's `rules` command."""
    from rulesrun.interpreter.authoring.rulebook_render import to_markdown
    prog = game.program
    return to_markdown(Rulebook(prog.path, prog.players, tuple(prog.variants), game=game).blocks)


__all__ = ["Rulebook", "card_table", "comments_by_line", "diff_files", "effective_items", "rulebook_text",
           "write_rulebook"]
