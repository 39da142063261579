"""The command line at the table: games by name, `rulesrun list`, `--version`, the default bots, commands
that the program suggests and that the README prints work as shown, `make play GAME=... PLAYERS=...`."""
from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rulesrun.interpreter.cli.main import DEFAULT_BOT, main
from rulesrun.interpreter.records.games import find_game, shipped

from tests.support import ROOT  # noqa: E402
BIN = Path(sys.executable).parent
EXE = BIN / "rulesrun"


def run(args, cwd, stdin="", path=None, timeout=300):
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([str(a) for a in args], input=stdin, capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=env)


def path_without_venv() -> str:
    return os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p and Path(p).resolve() != BIN.resolve())


def test_shipped_games_are_found_by_name():
    names = [n for n, _ in shipped()]
    assert {"magi", "magic_shop", "gachapon", "hearts", "whist"} <= set(names)
    assert find_game("magi").endswith("magi.rules")
    assert find_game("Magic-Shop") == find_game("magic_shop") == find_game("magic_shop.rules")
    assert find_game("games/magi.rules") == "games/magi.rules"       # a path stays a path
    assert find_game("nonsense") == "nonsense"


def test_list_names_the_games(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"magi\s+Magi \(4–8 players\)", out)
    assert "magic_shop" in out and "The Magic Shop" in out and "Examples:" in out and "hearts" in out


def test_version(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert re.fullmatch(r"rulesrun \S+\n", capsys.readouterr().out)


@pytest.mark.slow
def test_a_game_by_name_from_another_directory(tmp_path):
    r = run([EXE, "gachapon", "--seats", "random,random", "--seed", "1"], cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Gachapon Trick — 2 players") and "Final scores:" in r.stdout
    r = run([EXE, "compile", "magic-shop"], cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.startswith("ok: The Magic Shop"), r.stderr


def test_an_unknown_name_gets_a_suggestion(capsys):
    assert main(["magj", "--players", "4"]) == 1
    err = capsys.readouterr().err
    assert "no such rules file or shipped game: magj; did you mean 'magi'?" in err and "rulesrun list" in err


def test_the_default_bots_are_the_strong_fast_ones(capsys, monkeypatch):
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    main(["gachapon", "--players", "3", "--seed", "1"])          # left unfinished at the first question
    first = capsys.readouterr().out.splitlines()[0]
    assert f"(Player 1: human, Player 2: {DEFAULT_BOT}, Player 3: {DEFAULT_BOT})" in first


@pytest.mark.slow
def test_the_resume_command_printed_works_as_shown(tmp_path):
    """Without the venv on the PATH (after `make play`), the message names the command by its path."""
    if not EXE.exists():
        pytest.skip("rulesrun is not installed next to this Python")
    shutil.copy(ROOT / "games" / "gachapon.rules", tmp_path / "g.rules")
    exe = os.path.relpath(EXE, tmp_path)
    r = run([exe, "g.rules", "--players", "3", "--seed", "2", "--seats", "human,random,random"], cwd=tmp_path,
            stdin="1\nsave my game.yaml\n", path=path_without_venv())
    m = re.search(r"Resume with: (.*)$", r.stdout, re.M)
    assert m, r.stdout[-2000:]
    command = shlex.split(m.group(1))
    assert command[0] != "rulesrun" and command[1:] == ["--load", "my game.yaml"]
    again = run(command, cwd=tmp_path, stdin="", path=path_without_venv())
    assert re.search(r"^Resuming my game.yaml: \d+ decisions in\.", again.stdout, re.M), \
        again.stdout + again.stderr
    assert "Traceback" not in again.stderr and again.stdout.rstrip().endswith("Game left unfinished.")
    # with the venv on the PATH (activated), plain `rulesrun`
    r = run([EXE, "g.rules", "--players", "3", "--seed", "2"], cwd=tmp_path, stdin="save b.yaml\n",
            path=str(BIN) + os.pathsep + path_without_venv())
    assert "Resume with: rulesrun --load b.yaml" in r.stdout


def readme_commands(doc: str = "README.md") -> list[str]:
    text = (ROOT / doc).read_text(encoding="utf-8")
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith("rulesrun"):
                out.append(line)
    return out


def test_the_readme_has_the_commands_this_test_runs():
    commands = readme_commands()
    assert len(commands) >= 14 and "rulesrun list" in commands
    assert any(c.startswith("rulesrun --load mygame.yaml") for c in commands)
    assert readme_commands("docs/cli.md") == commands          # the docs site shows the same, run here


@pytest.mark.slow
def test_every_readme_command_works_as_printed(tmp_path):
    """Each `rulesrun ...` line of the README, run as typed after `source .venv/bin/activate`, in a
    copy of the repository's games; people at a human seat type `save mygame.yaml` then leave. Only
    the numbers of games of `check` and `simulate` are made small, to keep the test short."""
    for folder in ("games", "examples"):
        shutil.copytree(ROOT / folder, tmp_path / folder)
    path = str(BIN) + os.pathsep + path_without_venv()
    for line in readme_commands():
        words = shlex.split(line)
        # a shell would expand the patterns
        words = [w for x in words for w in (sorted(str(p.relative_to(tmp_path)) for p in tmp_path.glob(x))
                                            if "*" in x else [x])]
        if words[1:2] in (["serve"], ["lsp"]):
            continue    # servers run until stopped: tests/interpreter/web/test_web*.py and tests/interpreter/authoring/test_lsp.py start them
        if words[1:2] == ["check"]:
            words += ["--games", "2", "--players", "3"]
        if words[1:2] == ["simulate"]:
            words[words.index("--games") + 1] = "2"
        stdin = "save mygame.yaml\nquit\n"
        r = run(words, cwd=tmp_path, stdin=stdin, path=path, timeout=600)
        left = r.returncode == 1 and r.stdout.rstrip().endswith("Game left unfinished.")   # quit at a human seat
        assert r.returncode == 0 or left, f"{line}\n{r.stdout[-1500:]}\n{r.stderr[-1500:]}"
        assert "Traceback" not in r.stderr and "error" not in r.stderr.lower(), f"{line}\n{r.stderr}"


@pytest.mark.slow
def test_make_play_takes_a_game_and_a_player_count():
    make = shutil.which("make")
    if make is None or not (ROOT / ".venv" / ".installed").exists():
        pytest.skip("needs make and the .venv that `make install` builds")
    if subprocess.run([make, "-q", ".venv/.installed"], cwd=ROOT).returncode != 0:
        pytest.skip("the .venv is older than pyproject.toml; `make play` would reinstall it")
    r = subprocess.run([make, "--no-print-directory", "play", "GAME=gachapon", "PLAYERS=3",
                        "ARGS=--seats random,random,random --seed 4"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "Gachapon Trick — 3 players (Player 1: random" in r.stdout and "Final scores:" in r.stdout


def test_quitting_make_play_is_not_reported_as_a_make_error_but_a_bad_flag_is():
    make = shutil.which("make")
    if make is None or not (ROOT / ".venv" / ".installed").exists():
        pytest.skip("needs make and the .venv that `make install` builds")
    if subprocess.run([make, "-q", ".venv/.installed"], cwd=ROOT).returncode != 0:
        pytest.skip("the .venv is older than pyproject.toml; `make play` would reinstall it")
    r = subprocess.run([make, "--no-print-directory", "play", "GAME=gachapon", "PLAYERS=3"], input="quit\n",
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert "Game left unfinished." in r.stdout
    assert r.returncode == 0 and "Error" not in r.stderr, r.stderr
    r = subprocess.run([make, "--no-print-directory", "play", "ARGS=--no-such-flag"],
                       capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert r.returncode != 0 and "Error" in r.stderr         # a real failure still fails
