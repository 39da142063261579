"""``rulesrun lsp``: a language server for ``.rules`` files (pygls; ``pip install 'rulesrun[lsp]'``).

Over stdio it gives an editor:
  diagnostics      as you type, exactly the compiler's errors, each with its hint
  completion       keywords, names in scope, a card's attributes after 'c.' (a player's state and
                   zones after 'p.'), kind values, built-in functions with their signatures
  hover            a name's type and where it is declared; a built-in's documentation
  definition       where a name is declared
  document symbols procedures, state, zones, kinds, constants, ... (an outline)
  formatting       the whole file, or the lines of a range, in ``rulesrun fmt``'s layout
                   (dsl/syntax/format.py); a file that does not parse is left as it is

The knowledge of the file is in interpreter/authoring/lsp_index.py; this module only speaks LSP.
"""
from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

from rulesrun.dsl import RulesError, parse_text
from rulesrun.dsl.syntax import ast as A

from rulesrun.interpreter.authoring.lsp_index import BUILTINS, Index, receiver_before, word_at

try:
    from lsprotocol import types as T
    from pygls.lsp.server import LanguageServer
except ImportError:          # the optional extra is not installed
    T = LanguageServer = None

_SYMBOL_KIND = {
    "kind": "Enum", "value": "EnumMember", "attribute": "Field", "card state": "Field", "zone": "Array",
    "state": "Variable", "player state": "Property", "team state": "Property", "const": "Constant",
    "define": "Function", "procedure": "Function", "variant": "Namespace", "flow": "Event", "cards": "Struct", "score": "Operator",
    "winners": "Operator", "heuristic": "Operator",
}
_COMPLETION_KIND = {
    "kind": "Enum", "value": "EnumMember", "attribute": "Field", "card state": "Field", "zone": "Variable",
    "state": "Variable", "player state": "Property", "team state": "Property", "const": "Constant",
    "define": "Function", "procedure": "Function", "parameter": "Variable", "local": "Variable", "variant": "Module",
}


DEBOUNCE = 0.25      # seconds of quiet after an edit before the file is compiled again


def _path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def diagnose(text: str, path: str = "<rules>") -> list[RulesError]:
    """The compiler's errors for a text (at most one: the compiler stops at the first), checked for
    the fewest players the file allows."""
    from rulesrun.interpreter.runtime.engine import load_game_text
    try:
        rules = parse_text(text, path)
        decl = next((i for i in rules.items if isinstance(i, A.PlayersDecl)), None)
        load_game_text(text, decl.low if decl else 2, (), path)
    except RulesError as e:
        return [e]
    except RecursionError:
        return [RulesError("this file nests too deeply to check", None)]
    return []


class RulesServer:
    """The state behind the server: the last text and the last parse that worked, by URI."""

    def __init__(self):
        self.texts: dict[str, str] = {}
        self.indexes: dict[str, Index] = {}
        # a variant file's errors that lie in its base: by the variant file's URI, the base's URI and
        # its diagnostics (the server publishes them there too, and clears them once fixed)
        self.elsewhere: dict[str, dict] = {}

    def update(self, uri: str, text: str) -> list:
        """This document's diagnostics (``self.elsewhere[uri]``: those of its base files)."""
        self.texts[uri] = text
        errors = diagnose(text, _path(uri))
        here, there = [], {}
        for e in errors:
            if e.pos is None or e.pos.file == _path(uri) or e.source is None:
                here.append(self.diagnostic(e, text))
                continue
            there.setdefault(Path(e.pos.file).resolve().as_uri(), []).append(self.diagnostic(e, e.source))
            here.append(self._in_base(e, text, _path(uri)))
        self.elsewhere[uri] = there
        try:
            self.indexes[uri] = Index(parse_text(text, _path(uri)))
        except RulesError:
            pass                       # keep the last good parse for completion while typing
        except RecursionError:
            pass
        return here

    def _in_base(self, e: RulesError, text: str, path: str):
        """An error in a variant file's base, shown on the variant file's 'extends' line."""
        from rulesrun.dsl.syntax.parser import parse_one
        try:
            ext = next((i for i in parse_one(text, path).items if isinstance(i, A.ExtendsDecl)), None)
        except RulesError:
            ext = None
        at = ext.pos if ext is not None else None
        return self.diagnostic(RulesError(f"in the base game {Path(e.pos.file).name}, line {e.pos.line}: {e.message}",
                                          at, e.hint), text)

    @staticmethod
    def diagnostic(e: RulesError, text: str):
        line, col = (e.pos.line - 1, e.pos.column - 1) if e.pos else (0, 0)
        lines = text.split("\n")
        end = col + 1
        if 0 <= line < len(lines):
            m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S").match(lines[line], max(col, 0))
            end = m.end() if m else min(col + 1, len(lines[line]))
        message = e.message + (f"\nhint: {e.hint}" if e.hint else "")
        return T.Diagnostic(range=T.Range(start=T.Position(line=max(line, 0), character=max(col, 0)),
                                          end=T.Position(line=max(line, 0), character=max(end, col))),
                            message=message, severity=T.DiagnosticSeverity.Error, source="rulesrun")

    # ── completion ──────────────────────────────────────────────────────
    def complete(self, uri: str, line: int, character: int) -> list:
        from rulesrun.dsl.syntax.format import keywords
        text = self.texts.get(uri, "")
        idx = self.indexes.get(uri)
        lines = text.split("\n")
        prefix = lines[line][:character] if 0 <= line < len(lines) else ""
        items = []
        dot = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*[A-Za-z0-9_]*$", prefix)
        if dot and idx is not None:
            owner = idx.lookup(dot.group(1), line + 1)
            of = owner.detail if owner is not None and owner.detail in ("card", "player") else None
            for s in idx.attributes(of):
                items.append(self._item(s.name, s.kind, s.detail))
            return items
        if idx is not None:
            seen = set()
            for s in idx.locals_at(line + 1) + [s for group in idx.by_name.values() for s in group]:
                if s.name not in seen and s.kind not in ("attribute", "card state", "player state", "team state"):
                    seen.add(s.name)
                    items.append(self._item(s.name, s.kind, s.detail))
        for name, (sig, doc) in BUILTINS.items():
            items.append(T.CompletionItem(label=name, kind=T.CompletionItemKind.Function, detail=sig,
                                          documentation=doc, insert_text=name + "("))
        for kw in sorted(keywords() | {"yes/no"}):
            items.append(T.CompletionItem(label=kw, kind=T.CompletionItemKind.Keyword))
        return items

    @staticmethod
    def _item(name, kind, detail):
        return T.CompletionItem(label=name, kind=getattr(T.CompletionItemKind, _COMPLETION_KIND.get(kind, "Text")),
                                detail=detail or kind)

    # ── hover and definition ────────────────────────────────────────────
    def _symbol_at(self, uri, line, character):
        text, idx = self.texts.get(uri, ""), self.indexes.get(uri)
        found = word_at(text, line, character)
        if found is None:
            return None, None, None
        word, start, end = found
        sym = None
        if idx is not None:
            if receiver_before(text, line, start):
                sym = next((s for s in idx.attributes(None) if s.name == word), None)
            sym = sym or idx.lookup(word, line + 1)
        return word, sym, (start, end)

    def hover(self, uri: str, line: int, character: int):
        word, sym, span = self._symbol_at(uri, line, character)
        if word is None:
            return None
        if sym is None and word in BUILTINS:
            sig, doc = BUILTINS[word]
            value = f"```rules\n{sig}\n```\nbuilt-in: {doc}"
        elif sym is not None:
            where = f"declared at line {sym.line}" if sym.kind not in ("parameter",) else f"a parameter, line {sym.line}"
            if sym.file:
                where = f"declared in the base game {Path(sym.file).name}, line {sym.line}"
            kind = sym.kind if sym.kind != "local" else "local name"
            detail = sym.detail if sym.detail and sym.detail != sym.kind else ""
            value = f"```rules\n{detail or sym.name}\n```\n{kind} — {where}"
            if sym.kind == "local" and sym.detail in ("card", "player") or sym.detail.startswith("list of"):
                value = f"```rules\n{sym.name}: {sym.detail}\n```\nlocal name — {where}"
        else:
            return None
        rng = T.Range(start=T.Position(line=line, character=span[0]), end=T.Position(line=line, character=span[1]))
        return T.Hover(contents=T.MarkupContent(kind=T.MarkupKind.Markdown, value=value), range=rng)

    def definition(self, uri: str, line: int, character: int):
        word, sym, _ = self._symbol_at(uri, line, character)
        if sym is None:
            return None
        pos = T.Position(line=sym.line - 1, character=sym.col - 1)
        end = T.Position(line=sym.line - 1, character=sym.col - 1 + len(sym.name))
        target = Path(sym.file).resolve().as_uri() if sym.file else uri     # into a variant file's base
        return T.Location(uri=target, range=T.Range(start=pos, end=end))

    # ── formatting ──────────────────────────────────────────────────────
    @staticmethod
    def format(text: str, path: str = "<rules>", first: int | None = None, last: int | None = None) -> list:
        """The edits that lay ``text`` out as ``rulesrun fmt`` does: one per run of lines that
        changes (so the editor keeps the cursor and marks elsewhere), only those that touch lines
        ``first`` to ``last`` (0-based, inclusive) when a range is given. No edits for a text that does
        not parse: the formatter lays out only valid files, and the diagnostics say what is wrong."""
        import difflib

        from rulesrun.dsl.syntax.format import format_text
        try:
            formatted = format_text(text, path)
        except (RulesError, RecursionError):
            return []
        newline = "\r\n" if "\r\n" in text else "\n"
        if newline != "\n":
            formatted = formatted.replace("\n", newline)
        if formatted == text:
            return []
        old, new = text.splitlines(keepends=True), formatted.splitlines(keepends=True)

        def position(i: int):          # the start of line i, or the end of a last line with no newline
            if i < len(old) or not old or old[-1].endswith(("\n", "\r")):
                return T.Position(line=i, character=0)
            tail = old[-1]
            return T.Position(line=len(old) - 1, character=len(tail.encode("utf-16-le")) // 2)
        edits = []
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                continue
            if first is not None and not (i1 <= last and max(i2, i1 + 1) > first):
                continue
            edits.append(T.TextEdit(range=T.Range(start=position(i1), end=position(i2)),
                                    new_text="".join(new[j1:j2])))
        return edits

    def symbols(self, uri: str) -> list:
        idx = self.indexes.get(uri)
        if idx is None:
            return []
        lines = self.texts.get(uri, "").split("\n")

        def conv(s):
            last = max(s.end_line, s.line)
            full = T.Range(start=T.Position(line=s.line - 1, character=0),
                           end=T.Position(line=last - 1, character=len(lines[last - 1]) if last <= len(lines) else 0))
            sel = T.Range(start=T.Position(line=s.line - 1, character=s.col - 1),
                          end=T.Position(line=s.line - 1, character=s.col - 1 + len(s.name)))
            if not (full.start.line <= sel.start.line <= full.end.line):
                full = sel
            return T.DocumentSymbol(name=s.name, kind=getattr(T.SymbolKind, _SYMBOL_KIND.get(s.kind, "Variable")),
                                    range=full, selection_range=sel, detail=s.detail or s.kind,
                                    children=[conv(c) for c in s.children] or None)
        return [conv(s) for s in idx.symbols]


def make_server():
    """The pygls server, its features registered."""
    if LanguageServer is None:
        raise RuntimeError("the language server needs pygls: pip install 'rulesrun[lsp]'")
    from rulesrun.interpreter import __name__ as _pkg  # noqa: F401
    server = LanguageServer("rulesrun", "0.1.0", text_document_sync_kind=T.TextDocumentSyncKind.Full)
    state = RulesServer()
    server.rules = state

    latest: dict[str, str] = {}          # uri -> the newest text an editor sent
    waiting: dict[str, asyncio.Task] = {}

    async def publish(uri, text, delay=0.0):
        """Compile ``text`` off the request loop (a worker thread), so completion and hover stay quick
        while a large file compiles; a newer edit within ``delay`` seconds replaces this one, and the
        diagnostics of a text that was edited again meanwhile are not sent (the newer ones follow)."""
        if delay:
            await asyncio.sleep(delay)
        before = set(state.elsewhere.get(uri, {}))
        diags = await asyncio.to_thread(state.update, uri, text)
        if latest.get(uri) is text:
            server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=uri, diagnostics=diags))
            there = state.elsewhere.get(uri, {})
            for other in before | set(there):      # a variant file's base: its errors, or none now
                server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(
                    uri=other, diagnostics=there.get(other, [])))

    def schedule(uri, text, delay):
        latest[uri] = text
        old = waiting.pop(uri, None)
        if old is not None and not old.done():
            old.cancel()                 # still waiting out its delay: this edit supersedes it
        waiting[uri] = asyncio.ensure_future(publish(uri, text, delay))

    @server.feature(T.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls, params: T.DidOpenTextDocumentParams):
        schedule(params.text_document.uri, params.text_document.text, 0.0)

    @server.feature(T.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls, params: T.DidChangeTextDocumentParams):
        doc = ls.workspace.get_text_document(params.text_document.uri)
        schedule(params.text_document.uri, doc.source, DEBOUNCE)

    @server.feature(T.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls, params: T.DidCloseTextDocumentParams):
        latest.pop(params.text_document.uri, None)
        task = waiting.pop(params.text_document.uri, None)
        if task is not None:
            task.cancel()
        state.texts.pop(params.text_document.uri, None)
        state.indexes.pop(params.text_document.uri, None)
        server.text_document_publish_diagnostics(T.PublishDiagnosticsParams(uri=params.text_document.uri,
                                                                             diagnostics=[]))

    @server.feature(T.TEXT_DOCUMENT_COMPLETION, T.CompletionOptions(trigger_characters=["."]))
    def completion(ls, params: T.CompletionParams):
        return T.CompletionList(is_incomplete=False, items=state.complete(
            params.text_document.uri, params.position.line, params.position.character))

    @server.feature(T.TEXT_DOCUMENT_HOVER)
    def hover(ls, params: T.HoverParams):
        return state.hover(params.text_document.uri, params.position.line, params.position.character)

    @server.feature(T.TEXT_DOCUMENT_DEFINITION)
    def definition(ls, params: T.DefinitionParams):
        return state.definition(params.text_document.uri, params.position.line, params.position.character)

    @server.feature(T.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def document_symbol(ls, params: T.DocumentSymbolParams):
        return state.symbols(params.text_document.uri)

    @server.feature(T.TEXT_DOCUMENT_FORMATTING)
    def formatting(ls, params: T.DocumentFormattingParams):
        uri = params.text_document.uri
        return state.format(ls.workspace.get_text_document(uri).source, _path(uri))

    @server.feature(T.TEXT_DOCUMENT_RANGE_FORMATTING)
    def range_formatting(ls, params: T.DocumentRangeFormattingParams):
        uri = params.text_document.uri
        start, end = params.range.start, params.range.end
        last = end.line - 1 if end.character == 0 and end.line > start.line else end.line
        return state.format(ls.workspace.get_text_document(uri).source, _path(uri), start.line, last)

    return server


def serve_stdio() -> int:
    """Run the language server on stdin/stdout until the editor stops it; the exit code."""
    if LanguageServer is None:
        print("rulesrun lsp: error: the language server needs pygls: pip install 'rulesrun[lsp]'", file=sys.stderr)
        return 1
    make_server().start_io()
    return 0
