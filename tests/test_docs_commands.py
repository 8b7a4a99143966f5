"""The documentation is executed: every shell block of README.md, CONTRIBUTING.md and docs/ runs, in
order, page by page, against the lab in a scratch directory (with a copy of scenarios/), and the
output a ``console`` block shows is checked (see tests/support/docs_blocks.py for the format and the markers).

The blocks of a page share one shell's state: the environment a block exports and the directory it
ends in carry over to the next block. A page that starts a lab of its own (``GFTPWB_LAB_DIR`` under its
scratch directory) has that lab taken down at the end, whatever happened; the default lab is left
running, as every other test leaves it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.docs_blocks import ROOT, Block, blocks_of, documents, markers_of, matches

BLOCK_TIMEOUT_S = 900  # the longest block, the TeraGrid study's quick pass, takes about a minute
BIN = Path(sys.executable).parent


def runnable() -> list[Block]:
    return [block for path in documents() for block in blocks_of(path) if block.marker != "skip"]


def param(block: Block):
    marks = [pytest.mark.real]
    if block.marker == "xfail":
        marks.append(pytest.mark.xfail(strict=True, reason=block.reason))
    return pytest.param(block, id=block.where, marks=marks)


class Page:
    """One page's scratch directory and the shell state its blocks carry from one to the next."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        shutil.copytree(ROOT / "scenarios", directory / "scenarios")
        self.state = directory / ".docs-test"
        self.state.mkdir()
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                    "PYTHONUNBUFFERED": "1", "COLUMNS": "120", "NO_MKDOCS_2_WARNING": "1"}
        self.env.pop("GFTPWB_VAR_server", None)
        self.cwd = directory

    def run(self, script: str) -> subprocess.CompletedProcess[str]:
        """Run ``script`` with bash -e in the page's state, and keep the state it leaves."""
        saved_env, saved_cwd = self.state / "env", self.state / "cwd"
        wrapped = (f"trap 'env -0 > {saved_env}; pwd > {saved_cwd}' EXIT\n"
                   f"set -e -o pipefail\n{script}\n")
        process = subprocess.Popen(["bash", "--norc", "--noprofile", "-c", wrapped], cwd=self.cwd, env=self.env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, start_new_session=True)
        try:
            output, _ = process.communicate(timeout=BLOCK_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, _ = process.communicate()
            output += f"\n[killed after {BLOCK_TIMEOUT_S} s]"
        if saved_env.is_file():
            pairs = (item.split("=", 1) for item in saved_env.read_text().split("\0") if "=" in item)
            self.env = {name: value for name, value in pairs if not name.startswith("BASH_FUNC_")}
            self.cwd = Path(saved_cwd.read_text().strip())
        return subprocess.CompletedProcess(process.args, process.returncode, output, "")

    def own_lab(self) -> str | None:
        lab = self.env.get("GFTPWB_LAB_DIR", "")
        return lab if lab and Path(lab).resolve().is_relative_to(self.directory.resolve()) else None


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory):
    opened: dict[Path, Page] = {}

    def page_of(block: Block) -> Page:
        if block.path not in opened:
            name = str(block.path.relative_to(ROOT)).replace("/", "-").removesuffix(".md")
            opened[block.path] = Page(tmp_path_factory.mktemp(f"docs-{name}"))
        return opened[block.path]

    yield page_of
    for page in opened.values():
        if lab := page.own_lab():
            page.run(f"gftpwb lab down --state-dir {lab}")


def failure(block: Block, what: str, output: str) -> str:
    return f"{block.where}: {what}\n--- output ---\n{output[-6000:]}"


@pytest.mark.parametrize("block", [param(block) for block in runnable()])
def test_block_runs_as_documented(block: Block, pages) -> None:
    page = pages(block)
    if block.language != "console":
        result = page.run(block.body)
        assert result.returncode == 0, failure(block, f"exit status {result.returncode}", result.stdout)
        return
    assert block.commands, f"{block.where}: a console block without a $ command"
    for command in block.commands:
        result = page.run(command.text)
        assert result.returncode == 0, failure(block, f"$ {command.text}: exit status {result.returncode}",
                                               result.stdout)
        if command.shown:
            shown = "\n".join(command.shown)
            assert matches(command.shown, result.stdout), failure(
                block, f"$ {command.text}: the output is not what the text shows:\n{shown}", result.stdout)


def test_every_marker_is_read_and_gives_a_reason() -> None:
    for path in documents():
        marked = {block.line - 1 for block in blocks_of(path) if block.marker}
        for line, kind, reason in markers_of(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            assert kind in ("skip", "xfail"), f"{where}: a docs-test marker is skip or xfail, with reason=\"...\""
            assert reason.strip(), f"{where}: the marker must say why"
            assert any(line <= fence <= line + 1 for fence in marked), \
                f"{where}: a marker stands on the line before a block's fence"


def test_every_document_with_commands_is_found() -> None:
    names = {str(block.path.relative_to(ROOT)) for block in runnable()}
    assert {"README.md", "docs/getting-started.md", "docs/reports.md", "docs/lab.md"} <= names
