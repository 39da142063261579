"""What one rules file changes against another, in the rulebook's words: ``rulesrun doc`` of a
variant file opens with it, against the variant file's base; ``rulesrun diff A.rules B.rules`` prints
it for any two files of one game (docs/guides/variants.md; the command is rulebook.diff_files).
This module compares two rulebooks; it does not make them (rulebook.py does, and calls it).

Two declarations are the same when their syntax trees are, positions aside (a comment or a layout
change is no change). Each difference is told the way the rulebook tells that declaration
(``Rulebook.describe``): a term before → after, a procedure step by step.
"""
from __future__ import annotations

import difflib

import attrs

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.syntax.extend import KIND_WORDS
from rulesrun.dsl.syntax.format import strip_positions
from rulesrun.interpreter.authoring.english import title, words


@attrs.frozen
class Change:
    kind: str           # "ConstDecl", "ProcDecl", ...
    name: str | None    # the declaration's name (None for the one flow, cards, players line ...)
    before: tuple       # the rulebook's lines for it in the first file; () when the second adds it
    after: tuple        # ... in the second file; () when the second drops it

    @property
    def what(self) -> str:
        word = KIND_WORDS.get(self.kind, self.kind.replace("Decl", "").lower())
        if self.name is None:
            return f"the {word}"
        shown = title(self.name) if self.kind == "ProcDecl" else words(self.name)
        return f"{shown} ({word})"

    def lines(self) -> list[str]:
        """The change as lines a person reads: 'X: before → after', or one line a changed step."""
        if not self.before:
            return [f"{self.what}, added: {' '.join(self.after)}"] if len(self.after) == 1 else \
                [f"{self.what}, added:"] + [f"    {t}" for t in self.after]
        if not self.after:
            return [f"{self.what}, removed (it was: {' '.join(self.before)})"] if len(self.before) == 1 else \
                [f"{self.what}, removed"]
        if len(self.before) == 1 and len(self.after) == 1:
            if self.before == self.after:
                return [f"{self.what}: written differently, reads the same: {self.after[0]}"]
            return [f"{self.what}: {self.before[0]} → {self.after[0]}"]
        out = [f"{self.what}:"]
        # steps are matched by their depth and words, not their numbers: a step added early
        # renumbers every later one without changing it
        matcher = difflib.SequenceMatcher(a=[_unnumbered(t) for t in self.before],
                                          b=[_unnumbered(t) for t in self.after], autojunk=False)
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            old, new = self.before[i1:i2], self.after[j1:j2]
            if op == "equal":
                continue
            if op == "replace" and len(old) == len(new):
                out += [f"    {a} → {b}" for a, b in zip(old, new)]
                continue
            out += [f"    no longer: {a}" for a in old]
            out += [f"    now: {b}" for b in new]
        if len(out) == 1:
            out.append("    written differently, reads the same")
        return out


def _unnumbered(line: str) -> tuple:
    num, _, text = line.partition(" ")
    return (num.count("."), text) if num.rstrip(".").replace(".", "").isdigit() else (0, line)


def changes(old, new) -> list[Change]:
    """Every declaration that differs between two rulebooks (``Rulebook``s), in the first's order
    and then the second's additions."""
    olds = {i.key: i for i in old.items}
    news = {i.key: i for i in new.items}
    out = []
    for key in list(olds) + [k for k in news if k not in olds]:
        a, b = olds.get(key), news.get(key)
        if a is not None and b is not None and strip_positions(a) == strip_positions(b):
            continue
        out.append(Change(key[0], key[1], tuple(old.describe(a)) if a is not None else (),
                          tuple(new.describe(b)) if b is not None else ()))
    va = [v.name for v in old.rules.items if isinstance(v, A.VariantDecl)]
    vb = [v.name for v in new.rules.items if isinstance(v, A.VariantDecl)]
    if va != vb:
        out.append(Change("VariantDecl", None, (", ".join(va) or "none",), (", ".join(vb) or "none",)))
    return out


def selected_base_variants(rules: A.RulesFile) -> tuple:
    """The base's variants a variant file plays with (``extends magi with catastrophe``)."""
    if not rules.files:
        return ()
    from rulesrun.dsl.syntax.parser import parse_one
    own = parse_one(rules.source, rules.path).items
    ext = next((i for i in own if isinstance(i, A.ExtendsDecl)), None)
    return ext.selects if ext else ()


def variant_blocks(book, base) -> list:
    """The rulebook blocks that open a variant file's rulebook (``book``): what it changes against
    its base's (``base``, a Rulebook of the base file for the same players)."""
    from pathlib import Path
    rules = book.rules
    chosen = selected_base_variants(rules)
    found = [c for c in changes(base, book)          # the base's variants played are said in words
             if not (c.kind == "VariantDecl" and _names(c.after) == [v for v in _names(c.before) if v not in chosen])]
    base_title = next(iter(base.games.values())).program.title
    blocks = [("h", 2, "What this variant changes", "what-this-variant-changes")]
    text = (f"This game is {base_title} (`{Path(rules.base.path).name}`)"
            + (f" with its variant{'s' if len(chosen) > 1 else ''} {', '.join(chosen)}" if chosen else "")
            + (", changed as follows:" if found else ", unchanged."))
    blocks.append(("p", text))
    if found:
        items = []
        for change in found:
            lines = change.lines()
            items.append(_bold_what(lines[0], change))
            items += [ln.strip() for ln in lines[1:]]
        blocks.append(("list", items))
    return blocks


def _names(lines: tuple) -> list:
    return [] if lines == ("none",) else [n.strip() for n in lines[0].split(",")]


def _bold_what(line: str, change: Change) -> str:
    what = change.what
    return f"**{what}**{line[len(what):]}" if line.startswith(what) else line


__all__ = ["Change", "changes", "variant_blocks"]
