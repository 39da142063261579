"""The layers hold: `lint-imports` (import-linter) checks the contracts in .importlinter — the compiler
knows nothing of the runtime side, the runtime imports no bots, tables, checking or tools, nothing
imports the command line, and no two packages of a layer import each other in a circle.

The repository maps its folders onto `rulesrun` (pyproject.toml's package-dir), which import-linter's
file scan cannot follow through an editable install; so the test lays the installed tree out as
symbolic links, exactly as the wheel lays it out, and runs `lint-imports` on that."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT = Path(sys.executable).with_name("lint-imports")
# where each installed package comes from (pyproject.toml [tool.setuptools.package-dir])
MAPPING = {"rulesrun": "interpreter/api", "rulesrun/dsl": "dsl", "rulesrun/interpreter": "interpreter",
           "rulesrun/grammar": "grammar"}

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed (the dev extra)")


def installed_tree(dest: Path) -> Path:
    """The Python modules of the wheel, as links into the repository."""
    for target, source in MAPPING.items():
        src = ROOT / source
        for py in src.rglob("*.py"):
            rel = py.relative_to(src)
            if target == "rulesrun/interpreter" and rel.parts[0] == "api":
                continue                       # installed as `rulesrun` itself, not as rulesrun.interpreter.api
            if target == "rulesrun" and len(rel.parts) > 1:
                continue
            link = dest / target / rel
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(py)
    return dest


def lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT), str(ROOT / ".importlinter"), "--no-cache"],
                          cwd=tree, env=env, capture_output=True, text=True, timeout=300)


def test_the_import_layers_hold_and_no_package_circle(tmp_path):
    r = lint(installed_tree(tmp_path))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout, r.stdout


def test_a_compiler_module_importing_the_command_line_breaks_the_layers(tmp_path):
    tree = installed_tree(tmp_path)
    (tree / "rulesrun/dsl/planted.py").write_text("def f():\n    from rulesrun.interpreter.cli import main\n")
    r = lint(tree)
    assert r.returncode != 0
    assert "rulesrun.dsl.planted -> rulesrun.interpreter.cli" in r.stdout, r.stdout
    assert "BROKEN" in r.stdout


def _sources():
    for folder in ("dsl", "interpreter"):
        yield from sorted((ROOT / folder).rglob("*.py"))


def _folder_of(module: str) -> Path | None:
    """The folder of the package that holds ``module`` (rulesrun.dsl.check.declare → dsl/check)."""
    parts = module.split(".")
    if parts[0] != "rulesrun":
        return None
    base, rest = {"dsl": (ROOT / "dsl", parts[2:]), "interpreter": (ROOT / "interpreter", parts[2:]),
                  "grammar": (ROOT / "grammar", parts[2:])}.get(parts[1] if len(parts) > 1 else "",
                                                           (ROOT / "interpreter" / "api", []))
    path = base.joinpath(*rest)
    return path if path.is_dir() else path.parent


def test_no_private_name_is_imported_from_another_package():
    import ast
    crossing = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("rulesrun"):
                private = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                if private and _folder_of(node.module) != path.parent:
                    crossing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.module} {private}")
    assert not crossing, "private names imported across packages:\n" + "\n".join(crossing)


def test_code_imports_the_package_by_its_one_name():
    """`import dsl` or `from interpreter.engine import ...` would still run from a checkout (the
    tests put the repository on sys.path) but not from the wheel, which installs only `rulesrun`."""
    import ast
    old = []
    for folder in ("dsl", "interpreter", "tests", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
                old += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                        if n.split(".")[0] in ("dsl", "interpreter", "grammar", "games", "rulesrun_games")]
    assert not old, "imports by the old top-level names:\n" + "\n".join(old)
