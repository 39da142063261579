"""A plain install: the wheel, installed without extras into a fresh venv, runs `rulesrun check`
(hypothesis and everything else check needs are main dependencies)."""
from __future__ import annotations

import shutil
import subprocess
import sys
import venv

import pytest

from tests.support import ROOT  # noqa: E402


@pytest.mark.slow
def test_the_wheel_without_extras_runs_check(tmp_path):
    # built from a copy of the tracked files: nothing stale from an earlier build, nothing written here
    src = tmp_path / "src"
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    if not files:
        pytest.skip("not a git checkout: cannot tell the project's files from build leftovers")
    for name in files:
        if (ROOT / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, src / name)
    dist = tmp_path / "dist"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(dist), str(src)],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0 and ("connection" in r.stderr.lower() or "network" in r.stderr.lower()):
        pytest.skip(f"cannot build the wheel without the package index: {r.stderr[-300:]}")
    assert r.returncode == 0, r.stderr
    (wheel,) = dist.glob("rulesrun-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    r = subprocess.run([str(py), "-m", "pip", "install", "--quiet", str(wheel)], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([str(env_dir / "bin" / "rulesrun"), "check", "games/magic_shop.rules", "--games", "4"],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ok: The Magic Shop" in r.stdout and "coverage: lines" in r.stdout
    assert "ModuleNotFoundError" not in r.stderr
