"""The docs site builds offline with ``mkdocs build --strict`` (a broken link or anchor fails it), its
command-line reference comes from the parser, and the front door stays one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_site_builds_strictly_offline(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
                         cwd=ROOT, capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr[-4000:]
    cli = (site / "cli" / "index.html").read_text()
    # every command and one option of each kind, from the parser
    for text in ("gftpwb validate", "gftpwb lab up", "gftpwb completion", "--dry-run", "--fail-on-regression"):
        assert text in cli
    assert "cli-reference" not in cli
    assert "docs-test" not in (site / "lab" / "index.html").read_text()


def test_readme_is_the_front_door():
    lines = (ROOT / "README.md").read_text().split("\n")
    assert len(lines) <= 250
    commands = [line.split("#")[0].strip() for line in lines if line.startswith("make ")]
    assert commands[:2] == ["make demo", "make test"]
    first_block = lines.index("```sh")
    assert lines[first_block + 1].startswith("make demo") and lines[first_block + 2].startswith("make test")


def test_every_docs_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    missing = {page for page in pages if page not in nav}
    assert not missing, f"add these pages to nav: in mkdocs.yml: {sorted(missing)}"


ISSUE_REFERENCE = re.compile(r"\b[Ii]ssues? ?#?-?\d+")


def test_no_issue_numbers_in_code_tests_or_docs():
    """A reader of the code or the docs cannot see the issue tracker: the product speaks of itself only."""
    roots = ["gftpwb", "tests", "bench", "scripts", "docs", "schemas", "scenarios"]
    files = [ROOT / name for name in ("README.md", "CONTRIBUTING.md", "BENCHMARKS.md", "Makefile", "pyproject.toml")]
    for root in roots:
        files += [p for p in (ROOT / root).rglob("*") if p.suffix in (".py", ".md", ".yaml", ".sh", ".toml", ".tcss")]
    this = Path(__file__).resolve()
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
             for path in files if path.resolve() != this and "__snapshots__" not in path.parts
             for number, line in enumerate(path.read_text(errors="replace").split("\n"), 1)
             if ISSUE_REFERENCE.search(line)]
    assert not found, "\n".join(found)
