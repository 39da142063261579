"""The Makefile's quick start: what `make play` prints before the game, on a machine where the venv
is out of date (so the install recipe runs first). The Makefile runs in a folder of its own with a
stand-in venv whose `python` only writes down how it was called and whose `rulesrun` says one line,
so nothing is installed and nothing is downloaded."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support import ROOT


def stand_in(tmp_path: Path) -> tuple[Path, Path]:
    """A folder with the Makefile, a pyproject.toml and a venv of stand-ins; the log of python's calls."""
    if shutil.which("make") is None:
        pytest.skip("needs make")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'stand-in'\n")
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    calls = tmp_path / "calls.txt"
    for name, body in (("python", f'echo "$*" >> "{calls}"'), ("rulesrun", 'echo "the game begins: $*"')):
        exe = bindir / name
        exe.write_text(f"#!/bin/sh\n{body}\n")
        exe.chmod(0o755)
    return tmp_path, calls


def make(folder: Path, *words: str, ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    # PYTHON=true: the stand-in venv is already there (`true -m venv venv` does nothing)
    return subprocess.run(["make", "--no-print-directory", "VENV=venv", "PYTHON=true", *words],
                          capture_output=True, text=True, timeout=60, cwd=folder, env=env)


def test_make_play_shows_no_ci_only_lines_before_the_game(tmp_path):
    folder, calls = stand_in(tmp_path)
    r = make(folder, "play", ci=False)
    assert r.returncode == 0, r.stderr
    assert "$CI" not in r.stdout and "CI" not in r.stdout, r.stdout
    assert r.stdout.rstrip().endswith("the game begins: magi --players 4"), r.stdout
    assert "[ray]" not in calls.read_text()          # off CI, the CI-only installs do not run


def test_make_install_on_ci_still_installs_the_ci_extras(tmp_path):
    if not (Path("/usr/bin/chromium").exists() and shutil.which("dot") and shutil.which("chromium")):
        pytest.skip("without Chromium and Graphviz the CI recipe would install them with apt-get")
    folder, calls = stand_in(tmp_path)
    r = make(folder, "install", ci=True)
    assert r.returncode == 0, r.stderr
    installed = calls.read_text()
    for extra in ("[ray]", "[web]", "[openspiel,pettingzoo,gym,bench]", "[lsp]"):
        assert f"-e .{extra}" in installed, installed
    assert (folder / "venv" / ".installed").exists()
