"""The docs site (MkDocs, mkdocs.yml): it builds with --strict — no broken link or anchor between the
pages — and every page in docs/ is in its navigation, so nothing written is unreachable."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import ROOT

pytest.importorskip("mkdocs", reason="mkdocs is in the dev extra: pip install -e '.[dev]'")
yaml = pytest.importorskip("yaml")


def _nav_pages(items) -> set[str]:
    pages = set()
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages |= _nav_pages(value) if isinstance(value, list) else {value}
    return pages


def test_the_docs_site_builds_strictly(tmp_path):
    r = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "site" / "index.html").exists() and (tmp_path / "site" / "cli" / "index.html").exists()


def test_every_page_is_in_the_navigation():
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = _nav_pages(config["nav"])
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert pages - listed == set(), "pages missing from mkdocs.yml's nav"
    assert listed - pages == set(), "nav entries with no page"


def test_every_test_file_the_docs_and_code_cite_exists():
    """Docs name tests as evidence ("tested by tests/...py"): each named file must exist, so a moved
    test cannot leave the docs pointing at nothing."""
    import re
    places = [ROOT / "README.md", *[p for d in ("docs", "benchmarks", "interpreter", "dsl")
                                    for p in (ROOT / d).rglob("*") if p.suffix in (".md", ".py")]]
    missing = sorted({f"{p.relative_to(ROOT)}: {m}" for p in places
                      for m in re.findall(r"tests/[\w/]+\.py", p.read_text(encoding="utf-8", errors="replace"))
                      if not (ROOT / m).exists()})
    assert missing == []
