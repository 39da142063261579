"""Editor support: the TextMate grammar follows the Lark grammar's keywords; the VS Code extension
folder uses it and the language server (docs/guides/editors.md)."""
from __future__ import annotations

import json
import re

import pytest

from rulesrun.interpreter.authoring.highlight import GROUPS, TARGETS, grammar_keywords, render

from tests.support import ROOT  # noqa: E402
VSCODE = ROOT / "editors" / "vscode"


@pytest.mark.parametrize("rel", TARGETS)
def test_grammar_files_are_generated_from_the_lark_grammar(rel):
    assert (ROOT / rel).read_text(encoding="utf-8") == render(), \
        f"{rel} is out of date: run .venv/bin/python -m rulesrun.interpreter.authoring.highlight"


def test_every_keyword_is_highlighted_once():
    grouped = [w for ws in GROUPS.values() for w in ws]
    assert len(grouped) == len(set(grouped))
    assert set(grouped) == grammar_keywords(), "GROUPS in interpreter/authoring/highlight.py must match grammar/rules.lark"


def _scopes_of(line: str, grammar: dict) -> dict:
    """Which scope each keyword pattern gives the words of a line (Python's re stands in for Oniguruma:
    the patterns use only what both understand)."""
    out = {}
    for pat in grammar["repository"]["keywords"]["patterns"]:
        for m in re.finditer(pat["match"], line):
            out[m.group()] = pat["name"]
    return out


def test_the_patterns_match_what_they_should():
    grammar = json.loads((ROOT / TARGETS[0]).read_text(encoding="utf-8"))
    repo = grammar["repository"]
    for key in ("comment", "declaration", "bool-type", "builtin", "call", "number", "operator", "player-literal"):
        re.compile(repo[key]["match"])
    scopes = _scopes_of('        p chooses c from p.hand where c.suit == led if able as "play"', grammar)
    assert scopes["chooses"] == "keyword.other.statement.rules" and scopes["where"] == "keyword.other.clause.rules"
    assert scopes["if"] == "keyword.control.rules" and "hand" not in scopes and "led" not in scopes
    assert re.search(repo["builtin"]["match"], "first_lead = left(first_lead)").group() == "left"
    assert re.search(repo["builtin"]["match"], "let left_over = 1") is None
    assert re.match(repo["declaration"]["match"], "procedure play_trick():").group(2) == "play_trick"
    assert re.search(repo["bool-type"]["match"], "state x: yes/no = no")


def test_vscode_extension_uses_the_grammar_and_the_language_server():
    pkg = json.loads((VSCODE / "package.json").read_text(encoding="utf-8"))
    lang, = pkg["contributes"]["languages"]
    assert lang["extensions"] == [".rules"] and (VSCODE / lang["configuration"]).exists()
    gram, = pkg["contributes"]["grammars"]
    assert gram["scopeName"] == "source.rules" and (VSCODE / gram["path"]).resolve() == (ROOT / TARGETS[1]).resolve()
    assert pkg["contributes"]["configuration"]["properties"]["rulesrun.command"]["default"] == ["rulesrun", "lsp"]
    js = (VSCODE / pkg["main"]).read_text(encoding="utf-8")
    assert "vscode-languageclient" in js and "vscode-languageclient" in pkg["dependencies"]
    json.loads((VSCODE / "language-configuration.json").read_text(encoding="utf-8"))


def test_lsp_without_pygls_says_how_to_install_it(monkeypatch, capsys):
    from rulesrun.interpreter.authoring import lsp
    from rulesrun.interpreter.cli.main import main
    monkeypatch.setattr(lsp, "LanguageServer", None)
    assert main(["lsp"]) == 1
    assert "pip install 'rulesrun[lsp]'" in capsys.readouterr().err
