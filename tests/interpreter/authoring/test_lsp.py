"""rulesrun lsp: the language server, driven in-process by pygls' client over LSP messages."""
from __future__ import annotations

import asyncio
import re
import threading

import pytest

pytest.importorskip("pygls", reason="the language server needs the 'lsp' extra: pip install 'rulesrun[lsp]'")

from lsprotocol import types as T  # noqa: E402
from pygls.io_ import run_async  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

from rulesrun.interpreter.authoring.lsp import make_server  # noqa: E402
from rulesrun.interpreter.authoring.lsp_index import BUILTINS  # noqa: E402

from tests.support import ROOT  # noqa: E402
SHOP = (ROOT / "games" / "magic_shop.rules").read_text(encoding="utf-8")
URI = (ROOT / "games" / "magic_shop.rules").as_uri()


class _Pipe:
    """A writer that feeds what is written into the other side's reader."""

    def __init__(self, reader: asyncio.StreamReader):
        self.reader = reader

    def write(self, data: bytes):
        self.reader.feed_data(data)

    def close(self):
        self.reader.feed_eof()


class Session:
    """A server and a client in one event loop, joined by two in-memory pipes."""

    async def __aenter__(self):
        self.server = make_server()
        self.client = LanguageClient("test-client", "1")
        self.diagnostics: dict = {}
        self.published: list = []               # every publication, in order
        self.changed = asyncio.Event()

        @self.client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(ls, params):
            self.published.append(params)
            self.diagnostics[params.uri] = params.diagnostics
            self.changed.set()

        to_server, to_client = asyncio.StreamReader(), asyncio.StreamReader()
        self.server.protocol.set_writer(_Pipe(to_client))
        self.client.protocol.set_writer(_Pipe(to_server))
        self.stops = [threading.Event(), threading.Event()]
        self.tasks = [asyncio.create_task(run_async(stop_event=self.stops[0], reader=to_server,
                                                    protocol=self.server.protocol)),
                      asyncio.create_task(run_async(stop_event=self.stops[1], reader=to_client,
                                                    protocol=self.client.protocol))]
        result = await self.client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities()))
        self.capabilities = result.capabilities
        self.client.initialized(T.InitializedParams())
        return self

    async def open(self, text: str, uri: str = URI):
        self.changed.clear()
        self.client.text_document_did_open(T.DidOpenTextDocumentParams(
            text_document=T.TextDocumentItem(uri=uri, language_id="rules", version=1, text=text)))
        await asyncio.wait_for(self.changed.wait(), 30)
        return list(self.diagnostics[uri])

    async def change(self, text: str, version: int = 2, uri: str = URI):
        self.changed.clear()
        self.client.text_document_did_change(T.DidChangeTextDocumentParams(
            text_document=T.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
        await asyncio.wait_for(self.changed.wait(), 30)
        return list(self.diagnostics[uri])

    async def __aexit__(self, *exc):
        for s in self.stops:
            s.set()
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 120))


def _pos(text: str, needle: str, offset: int = 0) -> T.Position:
    i = text.index(needle) + offset
    line = text.count("\n", 0, i)
    return T.Position(line=line, character=i - (text.rfind("\n", 0, i) + 1))


def test_capabilities_and_clean_file():
    async def go():
        async with Session() as s:
            caps = s.capabilities
            assert caps.completion_provider and caps.hover_provider and caps.definition_provider \
                and caps.document_symbol_provider
            assert await s.open(SHOP) == []
    run(go())


def test_diagnostics_are_the_compilers_errors_with_hints():
    bad = SHOP.replace("move trick to accumulated", "move trik to accumulated")
    from rulesrun.dsl import RulesError
    from rulesrun.interpreter import load_game_text
    with pytest.raises(RulesError) as info:
        load_game_text(bad, 3, (), "x.rules")
    expected = info.value

    async def go():
        async with Session() as s:
            assert await s.open(SHOP) == []
            diags = await s.change(bad)
            d, = diags
            assert d.message == f"{expected.message}\nhint: {expected.hint}" and "did you mean 'trick'?" in d.message
            assert (d.range.start.line, d.range.start.character) == (expected.pos.line - 1, expected.pos.column - 1)
            assert d.range.end.character == d.range.start.character + len("trik")
            assert d.severity == T.DiagnosticSeverity.Error
            syntax = await s.change("game 'x'\nplayers 2\nflow:\nmove x to y\n", version=3)
            assert "indented block" in syntax[0].message and syntax[0].range.start.line == 3
            assert await s.change(SHOP, version=4) == []
    run(go())


def _labels(result):
    items = result.items if hasattr(result, "items") else result
    return {i.label: i for i in items}


def test_completion():
    typing = SHOP.replace("        move c to trick\n", "        move c to trick\n        c.\n", 1)

    async def go():
        async with Session() as s:
            await s.open(SHOP)
            await s.change(typing)        # does not parse: completion uses the last good parse
            pos = _pos(typing, "        c.\n", len("        c."))
            attrs = _labels(await s.client.text_document_completion_async(T.CompletionParams(
                text_document=T.TextDocumentIdentifier(uri=URI), position=pos)))
            assert {"suit", "rank", "played_by"} <= set(attrs) and "thirst" not in attrs
            assert attrs["suit"].detail == "card attribute suit: Suit"
            ppos = _pos(SHOP, "p.thirst = 0", 2)
            await s.change(SHOP, version=3)
            pattrs = _labels(await s.client.text_document_completion_async(T.CompletionParams(
                text_document=T.TextDocumentIdentifier(uri=URI), position=ppos)))
            assert {"thirst", "bid", "hand", "gathered"} <= set(pattrs) and "suit" not in pattrs
            inside = _pos(SHOP, "    let best = winning_card(led)")
            names = _labels(await s.client.text_document_completion_async(T.CompletionParams(
                text_document=T.TextDocumentIdentifier(uri=URI), position=inside)))
            assert {"trick", "trump", "Wine", "Suit", "play_round", "winning_card", "led", "hand_size"} <= set(names)
            assert names["left"].detail == "left(p)" and names["left"].kind == T.CompletionItemKind.Function
            assert {"chooses", "move", "announce", "where", "yes/no"} <= set(names)
            assert names["Wine"].kind == T.CompletionItemKind.EnumMember
    run(go())


def test_hover_and_definition():
    async def go():
        async with Session() as s:
            await s.open(SHOP)
            doc = T.TextDocumentIdentifier(uri=URI)
            h = await s.client.text_document_hover_async(T.HoverParams(
                text_document=doc, position=_pos(SHOP, "move c to trick", len("move c to t"))))
            assert "zone trick: public" in h.contents.value and "declared at line" in h.contents.value
            h = await s.client.text_document_hover_async(T.HoverParams(
                text_document=doc, position=_pos(SHOP, "first_lead = left(first_lead)", len("first_lead = le"))))
            assert "left(p)" in h.contents.value and "clockwise" in h.contents.value
            h = await s.client.text_document_hover_async(T.HoverParams(
                text_document=doc, position=_pos(SHOP, "led = c.suit", len("led = c.s"))))
            assert "card attribute suit: Suit" in h.contents.value
            loc = await s.client.text_document_definition_async(T.DefinitionParams(
                text_document=doc, position=_pos(SHOP, "        play_trick()", 9)))
            want = _pos(SHOP, "procedure play_trick", len("procedure "))
            assert (loc.range.start.line, loc.range.start.character) == (want.line, want.character)
            loc = await s.client.text_document_definition_async(T.DefinitionParams(
                text_document=doc, position=_pos(SHOP, "p.thirst += 1", 3)))
            want = _pos(SHOP, "player state thirst", len("player state "))
            assert loc.range.start.line == want.line
            loc = await s.client.text_document_definition_async(T.DefinitionParams(
                text_document=doc, position=_pos(SHOP, "trump = Wine\n    power", len("trump = W"))))
            assert loc.range.start.line == _pos(SHOP, "kind Suit").line
    run(go())


def test_document_symbols():
    async def go():
        async with Session() as s:
            await s.open(SHOP)
            syms = await s.client.text_document_document_symbol_async(T.DocumentSymbolParams(
                text_document=T.TextDocumentIdentifier(uri=URI)))
            by = {x.name: x for x in syms}
            for proc in re.findall(r"^procedure (\w+)", SHOP, re.M):
                assert by[proc].kind == T.SymbolKind.Function
            assert by["hand"].kind == T.SymbolKind.Array and by["trump"].kind == T.SymbolKind.Variable
            assert by["thirst"].kind == T.SymbolKind.Property and by["flow"].kind == T.SymbolKind.Event
            assert [c.name for c in by["Suit"].children] == ["Eye", "Invisible", "Door", "Wine", "Machine"]
            play_trick = by["play_trick"]
            assert play_trick.range.end.line > play_trick.range.start.line + 20
    run(go())


def test_builtins_match_the_language_reference():
    doc = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    table = doc[doc.index("#### Builtin functions"):doc.index("Calls to `define`d functions")]
    documented = set(re.findall(r"`(\w+)\(", table))
    assert documented <= set(BUILTINS), documented - set(BUILTINS)


def test_rulesrun_lsp_over_stdio():
    """The command an editor starts: `rulesrun lsp`, speaking LSP on stdin/stdout."""
    import sys

    async def go():
        client = LanguageClient("stdio-client", "1")
        got = asyncio.Event()
        seen = {}

        @client.feature(T.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(ls, params):
            seen[params.uri] = params.diagnostics
            got.set()

        await client.start_io(sys.executable, "-m", "rulesrun.interpreter.cli.main", "lsp", cwd=str(ROOT))
        try:
            await client.initialize_async(T.InitializeParams(capabilities=T.ClientCapabilities()))
            client.initialized(T.InitializedParams())
            client.text_document_did_open(T.DidOpenTextDocumentParams(text_document=T.TextDocumentItem(
                uri=URI, language_id="rules", version=1, text=SHOP.replace("shuffle deck", "shuffle dek"))))
            await asyncio.wait_for(got.wait(), 60)
            assert "unknown name 'dek'" in seen[URI][0].message
            await client.shutdown_async(None)
            client.exit(None)
        finally:
            await client.stop()
    run(go())


def test_builtins_match_the_compilers():
    compiler = pytest.importorskip("rulesrun.dsl.check.builtins", reason="the compiler keeps its builtins elsewhere")
    names = set(compiler.BUILTINS) | set(getattr(compiler, "AGGREGATES", ()))
    assert names <= set(BUILTINS), names - set(BUILTINS)


BIG_TWO_PATH = ROOT / "examples" / "big_two.rules"


def test_combination_builtins_hover_and_complete():
    """beats, same, run, run_round, groups, leading: hover shows their one-line doc, completion offers them."""
    from rulesrun.dsl.check.combinations import COMBO_AGGREGATES
    assert set(COMBO_AGGREGATES) | {"beats"} <= set(BUILTINS)
    text = BIG_TWO_PATH.read_text(encoding="utf-8")
    uri = BIG_TWO_PATH.as_uri()

    async def go():
        async with Session() as s:
            await s.open(text, uri=uri)
            doc = T.TextDocumentIdentifier(uri=uri)
            for needle, word, words in [("beats(play, table, strength)", "beats", "a higher KEY"),
                                        ("same(c.rank for c in s)", "same", "is the same"),
                                        ("run(c.rank for c in s) or", "run", "consecutive numbers"),
                                        ("groups(c.rank for c in s) == [3, 2]", "groups", "largest first"),
                                        ("leading(c.rank for c in s)", "leading", "the largest group")]:
                h = await s.client.text_document_hover_async(T.HoverParams(
                    text_document=doc, position=_pos(text, needle, 2)))
                assert h is not None and f"{word}(" in h.contents.value and words in h.contents.value, word
            inside = _pos(text, "    if empty(table):\n        p chooses subset")
            names = _labels(await s.client.text_document_completion_async(T.CompletionParams(
                text_document=doc, position=inside)))
            assert {"beats", "same", "run", "run_round", "groups", "leading"} <= set(names)
            assert names["beats"].kind == T.CompletionItemKind.Function
    run(go())


@pytest.mark.slow
def test_typing_in_a_large_file_stays_responsive():
    """A 20,000-line file takes seconds to compile. Edits typed quickly are compiled once, for the
    last text, in a worker thread: a hover asked meanwhile is answered at once, and the diagnostics
    that arrive are those of the last edit."""
    import time
    big = SHOP + "\n" + "".join(f"define extra_{i}(x) = x + {i}\n" for i in range(20000 - SHOP.count("\n")))

    async def go():
        async with Session() as s:
            assert await s.open(big) == []
            s.changed.clear()
            publishes = s.published = []
            for version, name in enumerate(("trik", "trick", "trak", "trok", "truck"), start=2):
                text = big.replace("move trick to accumulated", f"move {name} to accumulated")
                s.client.text_document_did_change(T.DidChangeTextDocumentParams(
                    text_document=T.VersionedTextDocumentIdentifier(uri=URI, version=version),
                    content_changes=[T.TextDocumentContentChangeWholeDocument(text=text)]))
            t0 = time.monotonic()
            hover = await s.client.text_document_hover_async(T.HoverParams(
                text_document=T.TextDocumentIdentifier(uri=URI), position=_pos(SHOP, "accumulated", 2)))
            answered = time.monotonic() - t0
            await asyncio.wait_for(s.changed.wait(), 60)
            await asyncio.sleep(0.5)
            return hover, answered, publishes, time.monotonic() - t0

    hover, answered, publishes, took = run(go())
    assert answered < 1.0                                   # not behind a compile
    assert len(publishes) == 1                              # the last text only, not five compiles
    (diag,) = publishes[0].diagnostics
    assert "truck" in diag.message
    assert took < 15


# ── a variant file: definitions and errors reach into its base ───────────────────────────────────
VARIANT = 'extends "base.rules"\nreplace procedure play_trick():\n    pass\nreplace const rounds = hand_size\n'


def _variant_files(tmp_path, base: str = SHOP):
    (tmp_path / "base.rules").write_text(base)
    house = tmp_path / "house.rules"
    house.write_text(VARIANT)
    return house.as_uri(), (tmp_path / "base.rules").as_uri()


def test_a_variant_files_names_go_to_their_definition_in_the_base(tmp_path):
    uri, base_uri = _variant_files(tmp_path)

    async def go():
        async with Session() as s:
            diags = await s.open(VARIANT, uri)
            assert diags == []
            doc = T.TextDocumentIdentifier(uri=uri)
            loc = await s.client.text_document_definition_async(T.DefinitionParams(
                text_document=doc, position=_pos(VARIANT, "= hand_size", 4)))
            assert loc.uri == base_uri
            want = _pos(SHOP, "const hand_size", len("const "))
            assert (loc.range.start.line, loc.range.start.character) == (want.line, want.character)
            h = await s.client.text_document_hover_async(
                T.HoverParams(text_document=doc, position=_pos(VARIANT, "= hand_size", 4)))
            assert "declared in the base game base.rules" in h.contents.value
            names = [sym.name for sym in await s.client.text_document_document_symbol_async(
                T.DocumentSymbolParams(text_document=doc))]
            assert names == ["play_trick", "rounds"]       # the file's own, not the base's
    run(go())


def test_an_error_in_the_base_is_shown_in_both_files(tmp_path):
    broken = SHOP.replace("first_lead = left(first_lead)", "first_lead = lft(first_lead)")
    uri, base_uri = _variant_files(tmp_path, broken)

    async def go():
        async with Session() as s:
            diags = await s.open(VARIANT, uri)
            for _ in range(50):
                if base_uri in s.diagnostics:
                    break
                await asyncio.sleep(0.05)
            assert len(diags) == 1 and diags[0].range.start.line == 0
            assert diags[0].message.startswith("in the base game base.rules, line ")
            there = s.diagnostics[base_uri]
            assert len(there) == 1 and there[0].range.start.line == _pos(broken, "lft(first_lead)").line
            # fixed: the base's diagnostics are cleared
            (tmp_path / "base.rules").write_text(SHOP)
            await s.change(VARIANT + "\n", uri=uri)
            assert list(s.diagnostics[base_uri]) == []
    run(go())


def _apply(text: str, edits) -> str:
    """The text after an editor applies ``edits`` (LSP ranges: line and UTF-16 column), last first."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))

    def offset(p):
        if p.line >= len(lines):
            return len(text)
        return starts[p.line] + len(lines[p.line].encode("utf-16-le")[:2 * p.character].decode("utf-16-le"))
    for e in sorted(edits or [], key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(e.range.start)] + e.new_text + text[offset(e.range.end):]
    return text


# The Magic Shop with three lines laid out badly, far apart
MESSY = (SHOP.replace("round += 1", "round+=1").replace("tricks_played += 1", "tricks_played  +=  1")
         .replace("winner.tricks += 1 + accumulated_tricks", "winner.tricks += 1+accumulated_tricks"))


def test_formatting_lays_the_file_out_as_rulesrun_fmt_does():
    from rulesrun.dsl.syntax.format import format_text
    assert MESSY != SHOP and format_text(MESSY) == SHOP

    async def go():
        async with Session() as s:
            assert s.capabilities.document_formatting_provider and s.capabilities.document_range_formatting_provider
            await s.open(MESSY)
            edits = await s.client.text_document_formatting_async(T.DocumentFormattingParams(
                text_document=T.TextDocumentIdentifier(uri=URI), options=T.FormattingOptions(tab_size=4, insert_spaces=True)))
            assert _apply(MESSY, edits) == SHOP
            assert len(edits) == 3                      # the lines that change, not the whole file
            await s.change(SHOP)
            again = await s.client.text_document_formatting_async(T.DocumentFormattingParams(
                text_document=T.TextDocumentIdentifier(uri=URI), options=T.FormattingOptions(tab_size=4, insert_spaces=True)))
            assert not again                            # a formatted file needs no edits
    run(go())


def test_range_formatting_changes_only_the_lines_of_the_range():
    line = MESSY.splitlines().index("        round+=1")

    async def go():
        async with Session() as s:
            await s.open(MESSY)
            edits = await s.client.text_document_range_formatting_async(T.DocumentRangeFormattingParams(
                text_document=T.TextDocumentIdentifier(uri=URI),
                range=T.Range(start=T.Position(line=line - 1, character=0), end=T.Position(line=line + 1, character=0)),
                options=T.FormattingOptions(tab_size=4, insert_spaces=True)))
            assert _apply(MESSY, edits) == MESSY.replace("round+=1", "round += 1")
    run(go())


def test_a_file_that_does_not_parse_gets_no_edits_and_the_server_carries_on():
    broken = MESSY.replace("flow:", "flow")

    async def go():
        async with Session() as s:
            diags = await s.open(broken)
            assert diags and diags[0].severity == T.DiagnosticSeverity.Error
            edits = await s.client.text_document_formatting_async(T.DocumentFormattingParams(
                text_document=T.TextDocumentIdentifier(uri=URI), options=T.FormattingOptions(tab_size=4, insert_spaces=True)))
            assert not edits
            syms = await s.client.text_document_document_symbol_async(T.DocumentSymbolParams(
                text_document=T.TextDocumentIdentifier(uri=URI)))
            assert syms is not None                     # still answering
    run(go())


def test_formatting_keeps_windows_line_ends_and_a_last_line_without_one():
    from rulesrun.interpreter.authoring.lsp import RulesServer
    text = MESSY.replace("\n", "\r\n").rstrip("\r\n")
    out = _apply(text, RulesServer.format(text))
    assert "\n" not in out.replace("\r\n", "") and out.rstrip("\r\n") == SHOP.replace("\n", "\r\n").rstrip("\r\n")
