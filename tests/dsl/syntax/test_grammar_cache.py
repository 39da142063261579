"""The analysed grammar is cached in the user's cache folder: a second process reads it instead of
analysing the grammar again, and a broken, foreign or unsafe cache is never trusted."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.dsl.syntax import grammar_loader
from rulesrun.dsl.syntax.grammar_loader import _cache_file, grammar_path, load_parser

from tests.support import ROOT  # noqa: E402
TEXT = grammar_path().read_text(encoding="utf-8")
SAMPLE = (ROOT / "games" / "magic_shop.rules").read_text(encoding="utf-8")


def test_cache_written_then_read_and_parses_the_same(tmp_path):
    cache = str(tmp_path / "grammar-x.lark")
    built = load_parser(TEXT, cache)
    assert os.path.exists(cache)
    loaded = load_parser(TEXT, cache)
    assert loaded is not built
    assert loaded.parse(SAMPLE, start="start") == built.parse(SAMPLE, start="start")
    assert [t.name for t in loaded.terminals] == [t.name for t in built.terminals]


def test_broken_cache_is_rebuilt(tmp_path):
    cache = tmp_path / "grammar-x.lark"
    cache.write_bytes(b"not a parser")
    parser = load_parser(TEXT, str(cache))
    assert parser.parse(SAMPLE, start="start").data == "start"
    assert cache.read_bytes() != b"not a parser"          # replaced by the real tables


def test_older_grammars_files_removed(tmp_path):
    old = tmp_path / "grammar-old.lark"
    old.write_bytes(b"old")
    other = tmp_path / "notes.txt"
    other.write_text("mine")
    load_parser(TEXT, str(tmp_path / "grammar-new.lark"))
    assert not old.exists() and other.exists()


def test_cache_folder_from_xdg_and_digest_of_the_grammar(tmp_path, monkeypatch):
    monkeypatch.delenv("RULESRUN_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = _cache_file(TEXT)
    assert path is not None and Path(path).parent == tmp_path / "rulesrun"
    assert _cache_file(TEXT + "\n// changed") != path      # another grammar, another file
    assert (os.stat(tmp_path / "rulesrun").st_mode & 0o777) == 0o700


def test_no_cache_when_switched_off(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("RULESRUN_NO_CACHE", "1")
    assert _cache_file(TEXT) is None


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_folder_others_can_write_is_not_trusted(tmp_path, monkeypatch):
    monkeypatch.delenv("RULESRUN_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    (tmp_path / "rulesrun").mkdir(mode=0o777)
    os.chmod(tmp_path / "rulesrun", 0o777)
    assert _cache_file(TEXT) is None


def test_unwritable_cache_home_still_parses(tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "file")}
    (tmp_path / "file").write_text("a file, not a folder")
    out = subprocess.run([sys.executable, "-m", "rulesrun.interpreter.cli.main", "compile", "games/magic_shop.rules"],
                         cwd=ROOT, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr


def test_module_uses_the_cache(tmp_path, monkeypatch):
    monkeypatch.delenv("RULESRUN_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    grammar_loader._lark.cache_clear()
    try:
        grammar_loader._lark()
        assert list((tmp_path / "rulesrun").glob("grammar-*.lark"))
    finally:
        grammar_loader._lark.cache_clear()
