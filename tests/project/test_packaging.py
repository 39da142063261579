"""The package travels: a wheel built from the repository, installed into a fresh virtual
environment elsewhere, plays a shipped game by name from another directory, and the build raises
no licence warning (SPDX `license = "MIT"`)."""
from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from tests.support import ROOT  # noqa: E402


def build_wheel(dest: Path) -> tuple[Path, str]:
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(dest), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 and ("No matching distribution" in r.stderr or "Could not find" in r.stderr):
        pytest.skip("cannot reach the package index to get the build backend")
    assert r.returncode == 0, r.stderr
    return next(dest.glob("rulesrun-*.whl")), r.stdout + r.stderr


@pytest.mark.slow
def test_the_wheel_installed_elsewhere_plays_magi_by_name(tmp_path):
    wheel, log = build_wheel(tmp_path / "dist")
    assert "license" not in log.lower(), log      # setuptools warns of a TOML-table licence
    names = zipfile.ZipFile(wheel).namelist()
    assert "rulesrun/games/magi.rules" in names and "rulesrun/games/examples/hearts.rules" in names
    # everything installs under the one import name: the wheel's only top-level module is `rulesrun`
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"rulesrun"}, sorted(top)

    # A fresh environment; the wheel goes in without its dependencies, which it borrows from this
    # environment's site-packages (a .pth line), so the test needs no network.
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    py = bindir / ("python.exe" if os.name == "nt" else "python")
    r = subprocess.run([str(py), "-m", "pip", "install", "--no-deps", "--no-index", "-q", str(wheel)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    exe = bindir / "rulesrun"
    r = subprocess.run([str(exe), "magi", "--seats", "random,random,random,random", "--seed", "1"],
                       capture_output=True, text=True, timeout=600, cwd=elsewhere, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Magi — 4 players") and "Final scores:" in r.stdout
    # it is the installed copy that ran, not the repository's
    where = subprocess.run([str(py), "-c", "import rulesrun.interpreter, rulesrun.games; print(rulesrun.interpreter.__file__)"],
                           capture_output=True, text=True, cwd=elsewhere, env=env)
    assert str(ROOT) not in where.stdout and str(env_dir) in where.stdout, where.stdout + where.stderr
    r = subprocess.run([str(exe), "list"], capture_output=True, text=True, timeout=120, cwd=elsewhere, env=env)
    assert r.returncode == 0 and "magic_shop" in r.stdout and "hearts" in r.stdout, r.stderr
    # a designer's variant file, a dozen lines in a folder of their own, extends the installed game
    (elsewhere / "house.rules").write_text((ROOT / "examples" / "magi_house_rules.rules").read_text())
    r = subprocess.run([str(exe), "house.rules", "--seats", "random,random,random,random", "--seed", "1"],
                       capture_output=True, text=True, timeout=600, cwd=elsewhere, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Magi: a weeknight game — 4 players") and "Final scores:" in r.stdout
    r = subprocess.run([str(exe), "doc", "house.rules"], capture_output=True, text=True, timeout=600,
                       cwd=elsewhere, env=env)
    assert r.returncode == 0 and "- **game end (const)**: 50 → 30" in r.stdout, r.stderr
