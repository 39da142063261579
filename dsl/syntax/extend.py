"""Variant files: a ``.rules`` file that begins ``extends GAME`` holds only what it adds to its base
game and what it replaces (``replace define ...``); here it is merged with its base into one
``RulesFile`` that every stage after parsing reads as if it were one file.

The merge, in order (docs/guides/variants.md tells it for designers):

1. the base, itself resolved first when it is a variant file too;
2. the base's variants the file selects (``extends magi with catastrophe``), applied as a
   ``--variant`` would be;
3. the file's own declarations: a new name is added; a name the base declares must be written
   ``replace ...`` (a declaration shadowing the base's by accident is an error), and ``replace`` of a
   name the base does not declare is an error with a did-you-mean. ``game`` and ``about`` are the
   file's own title and description and replace the base's without ``replace``;
4. the variants: the base's (but those selected), then the file's own; ``--variant`` chooses among
   them as in any file.

Every declaration keeps the position of the file it was written in, so an error points at the right
file and line (``RulesError`` finds that file's text in ``RulesFile.files``).
"""
from __future__ import annotations

from pathlib import Path

from rulesrun.dsl.syntax import ast as A
from rulesrun.dsl.errors import RulesError, did_you_mean
from rulesrun.dsl.syntax.shipped import find_game, shipped

_BASE_CAP = 10 * 1024 * 1024       # bytes, as for any rules file a user names
_OWN = ("GameDecl", "AboutDecl")   # the file's own title and description: no 'replace' needed


def resolve(rules: A.RulesFile, parse, _chain: tuple = ()) -> A.RulesFile:
    """``rules`` with its base merged in (itself when it extends nothing). ``parse(text, path)``
    parses one file (dsl.syntax.parser's cached parse: a base is parsed once however often used)."""
    extends = [i for i in rules.items if isinstance(i, A.ExtendsDecl)]
    if not extends:
        for it in rules.items:
            if isinstance(it, A.ReplaceDecl):
                _fail("'replace' belongs in a variant file", it.pos, rules,
                      "a variant file begins with 'extends GAME' (a shipped game's name or a path); in the "
                      "game's own file write the declaration itself, or put it in a 'variant NAME:' block")
        return rules
    ext = extends[0]
    if len(extends) > 1:
        _fail("a variant file extends one game only", extends[1].pos, rules)
    if rules.items[0] is not ext:
        _fail("'extends' must come first in a variant file", ext.pos, rules,
              "move the 'extends' line above every declaration")
    chain = _chain + (_key(rules.path),)
    base_path = _locate(ext, rules)
    if _key(base_path) in chain:
        _fail(f"this file extends itself: {' → '.join(Path(p).name for p in chain + (_key(base_path),))}",
              ext.pos, rules)
    base = resolve(parse(_read(base_path, ext, rules), base_path), parse, chain)
    return _merge(base, rules, ext)


def _key(path: str) -> str:
    try:
        return str(Path(path).resolve())
    except (OSError, RuntimeError):
        return path


def _locate(ext: A.ExtendsDecl, rules: A.RulesFile) -> str:
    if ext.by_name:
        found = find_game(ext.base)
        if Path(found).is_file():
            return found
        names = [stem for stem, _ in shipped()]
        _fail(f"there is no shipped game '{ext.base}' to extend", ext.pos, rules,
              did_you_mean(ext.base, names) or
              f"the shipped games: {', '.join(names)}; a file of your own is named by its path in quotes: "
              f"extends \"../my_game.rules\"")
    here = Path(rules.path).parent if rules.path and not rules.path.startswith("<") else Path(".")
    return str(here / ext.base)


def _read(path: str, ext: A.ExtendsDecl, rules: A.RulesFile) -> str:
    p = Path(path)
    try:
        if not p.is_file():
            raise FileNotFoundError
        if p.stat().st_size > _BASE_CAP:
            _fail(f"the base game {path} is too big (at most {_BASE_CAP:,} bytes)", ext.pos, rules)
        text = p.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        _fail(f"there is no rules file {path} to extend", ext.pos, rules,
              "a path in quotes is read from the folder of the variant file; a shipped game is named without "
              "quotes (extends magi)")
    except (OSError, ValueError) as e:       # UnicodeDecodeError is a ValueError
        _fail(f"cannot read the base game {path}: {e}", ext.pos, rules)
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _merge(base: A.RulesFile, rules: A.RulesFile, ext: A.ExtendsDecl) -> A.RulesFile:
    merged: dict = {}
    variants: dict = {}
    for it in base.items:
        if isinstance(it, A.VariantDecl):
            variants[it.name] = it
        else:
            merged[it.key] = it
    names = list(variants)
    for name, pos in zip(ext.selects, ext.select_pos):
        if name not in names:
            _fail(f"{_title(base)} has no variant '{name}'", pos, rules,
                  did_you_mean(name, names) or f"its variants: {', '.join(names) or 'none'}")
        if name not in variants:
            _fail(f"the variant '{name}' is named twice", pos, rules)
        for it in variants.pop(name).items:
            merged[it.key] = it
    own: list = []
    for it in rules.items[1:]:
        if isinstance(it, A.ReplaceDecl):
            inner = it.item
            if isinstance(inner, (A.ReplaceDecl, A.ExtendsDecl)) or isinstance(inner, A.VariantDecl):
                what = "a variant" if isinstance(inner, A.VariantDecl) else "this"
                _fail(f"{what} cannot be replaced", it.pos, rules,
                      "declare a variant of a new name; the base's variants stay available to --variant"
                      if isinstance(inner, A.VariantDecl) else None)
            if inner.key not in merged and inner.key[0] not in _OWN:
                _fail(f"there is no {_describe(inner)} in {_title(base)} to replace", inner.pos, rules,
                      _close(inner, merged) or f"leave out 'replace' to add {_describe(inner)} as a new declaration")
            merged[inner.key] = inner
        elif isinstance(it, A.VariantDecl):
            if it.name in variants:
                _fail(f"{_title(base)} already has a variant '{it.name}'", it.pos, rules,
                      "give this variant another name (the base's is still there for --variant)")
            own.append(it)
        elif isinstance(it, A.ExtendsDecl):
            _fail("a variant file extends one game only", it.pos, rules)
        else:
            prev = merged.get(it.key)
            if prev is not None and it.key[0] not in _OWN:
                _fail(f"{_describe(it)} is already declared in {_title(base)} "
                      f"({Path(prev.pos.file).name} line {prev.pos.line})", it.pos, rules,
                      "to change it, write 'replace' before it; to add a new one, choose another name")
            merged[it.key] = it
    items = tuple(merged.values()) + tuple(variants.values()) + tuple(own)
    files = (base.files or ((base.path, base.source),)) + ((rules.path, rules.source),)
    return A.RulesFile(path=rules.path, source=rules.source, items=items, files=files, base=base)


def _title(base: A.RulesFile) -> str:
    return Path(base.path).name


KIND_WORDS = {"ConstDecl": "const", "DefineDecl": "define", "ProcDecl": "procedure", "ZoneDecl": "zone",
              "StateDecl": "state", "TeamStateDecl": "team state", "KindDecl": "kind", "ParamDecl": "param",
              "InvariantDecl": "invariant", "CardsDecl": "'cards:' block", "FlowDecl": "'flow:' block",
              "PlayersDecl": "'players' line", "ScoreDecl": "score", "WinnersDecl": "'winners' line",
              "HeuristicDecl": "heuristic", "TeamsDecl": "'teams' line", "GameDecl": "title",
              "AboutDecl": "description", "VariantDecl": "variants"}


def _describe(it) -> str:
    kind, name = it.key
    word = KIND_WORDS.get(kind, kind.replace("Decl", "").lower())
    return f"{word} '{name}'" if name is not None else f"the {word}" if kind in KIND_WORDS else word


def _close(it, merged: dict) -> str | None:
    kind, name = it.key
    if name is None:
        return None
    same_kind = [n for k, n in merged if k == kind and n is not None]
    hint = did_you_mean(name, same_kind)
    if hint:
        return hint
    other = next((k for k, n in merged if n == name), None)
    if other is not None:
        return f"the base declares '{name}' as a {KIND_WORDS.get(other, other)}: replace it with one of those"
    return None


def _fail(msg: str, pos, rules: A.RulesFile, hint: str | None = None):
    raise RulesError(msg, pos, hint, rules.source)
