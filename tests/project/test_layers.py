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

from tests.support import ROOT  # noqa: E402
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


def _private_names_defined() -> dict:
    """Per package folder, the private names its modules define: functions, classes, slots, and
    attributes or globals assigned."""
    import ast
    defined: dict = {}
    for path in _sources():
        names = defined.setdefault(path.parent, set())
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
                names.add(n.attr)
            elif isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in n.targets):
                names.update(c.value for c in ast.walk(n.value) if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return defined


# Private names of other libraries we lean on, each for a reason: ast's node fields (documented as
# `_fields`), ast's unparser (subclassed to show texts by their constants' names), Lark's loader of
# a cached parser with our own postlexer (Lark.load takes none).
FOREIGN_PRIVATES = {"_fields", "_Unparser", "_load"}


def test_no_private_attribute_of_another_package_is_read():
    """`obj._name` outside `self`/`cls` is allowed only for names the same package defines: a
    package's insides are its own, whatever object carries them."""
    import ast
    defined = _private_names_defined()
    crossing = []
    for path in _sources():
        for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__") \
                    and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")) \
                    and n.attr not in defined[path.parent] and n.attr not in FOREIGN_PRIVATES:
                crossing.append(f"{path.relative_to(ROOT)}:{n.lineno}: {ast.unparse(n)}")
    assert not crossing, "private attributes read across packages:\n" + "\n".join(crossing)


# The state's slots (runtime/state.py): only the runtime reads them; everyone else reads the public
# read API (state.program, open_decision, zones, card_zones, game_values, …). Names that are also
# common words elsewhere (steps, shown, rng, frames) count only on an object named like a state.
STATE_SLOTS = {"z", "loc", "g", "pv", "cv", "pending", "ann", "forced", "budget", "ret"}
STATE_WORDS = {"steps", "shown", "rng", "frames"}
STATE_NAMES = {"s", "st", "S", "twin", "orig", "copy", "child"}


def _slot_reads(source: str) -> list[str]:
    import ast
    out = []
    for n in ast.walk(ast.parse(source)):
        if not isinstance(n, ast.Attribute) or (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls")):
            continue
        base = ast.unparse(n.value)
        if n.attr in STATE_SLOTS or (n.attr in STATE_WORDS and (base.endswith("state") or base in STATE_NAMES)):
            out.append(f"{n.lineno}: {ast.unparse(n)}")
    return out


def test_nothing_outside_the_runtime_reads_the_state_s_slots():
    poking = [f"{path.relative_to(ROOT)}:{hit}" for path in sorted((ROOT / "interpreter").rglob("*.py"))
              if path.parent.name != "runtime" for hit in _slot_reads(path.read_text(encoding="utf-8"))]
    assert not poking, "the state's slots read outside the runtime:\n" + "\n".join(poking)


def test_a_planted_slot_read_is_caught():
    """The scan above can fail: a bot reading `state.pending` or `table.state.steps` is reported,
    the public read API is not."""
    source = ("def f(state, table):\n    return state.pending[0], table.state.steps, state.open_decision,"
              " self.steps, tracer.steps\n")
    assert sorted(_slot_reads(source)) == ["2: state.pending", "2: table.state.steps"]
