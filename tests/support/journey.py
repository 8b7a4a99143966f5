"""A user at a shell, for the journeys (tests/journeys/): commands typed as a user types them (by name, from
the installed ``gftpwb``, ``tgftp`` and ``tgftp_log``, through bash so globs and ``$(...)`` work as they do
at a prompt), each step checked for what a user notices first: the exit code, and never a traceback. The
tables a command prints are read back as a user reads them: rows of cells."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.polling import eventually

BIN = Path(sys.executable).parent  # the venv's bin: gftpwb, tgftp and tgftp_log as installed
WIDE = "200"  # columns: every table on one line a row, as in a wide terminal or a pipe


@dataclass
class Step:
    """One command a user typed and what it printed."""

    command: str
    returncode: int
    stdout: str
    stderr: str

    def __str__(self) -> str:
        return (f"$ {self.command}\n(exit {self.returncode})\n--- stdout (tail)\n{self.stdout[-3000:]}\n"
                f"--- stderr\n{self.stderr[-3000:]}")


def no_traceback(step: Step) -> None:
    for stream in (step.stdout, step.stderr):
        assert "Traceback (most recent call last)" not in stream, f"a traceback reached the user:\n{step}"


class User:
    """A shell in ``home`` with the installed commands first on ``PATH`` and ``env`` set."""

    def __init__(self, home: Path, env: dict[str, str] | None = None) -> None:
        self.home = home
        self.env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", "NO_COLOR": "1",
                    "COLUMNS": WIDE, **(env or {})}
        for name in [n for n in self.env if n.startswith("GFTPWB_VAR_")]:  # the user's own variables
            del self.env[name]

    def sh(self, command: str, *, expect: int = 0, timeout: float = 600) -> Step:
        """Run ``command`` as typed at a prompt; it must exit with ``expect`` and print no traceback."""
        out = subprocess.run(["bash", "-c", command], cwd=self.home, env=self.env, capture_output=True, text=True,
                             timeout=timeout)
        step = Step(command, out.returncode, out.stdout, out.stderr)
        no_traceback(step)
        assert step.returncode == expect, f"expected exit {expect}:\n{step}"
        return step

    def start(self, command: str) -> Started:
        """``command`` in the foreground of a terminal of its own (a process group, as a shell's job)."""
        out, err = self.home / ".stdout", self.home / ".stderr"
        process = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=self.home, env=self.env,
                                   stdout=out.open("w"), stderr=err.open("w"), start_new_session=True)
        return Started(command, process, out, err)


@dataclass
class Started:
    """A command still running: what it printed so far, Ctrl-C as a terminal sends it, its end."""

    command: str
    process: subprocess.Popen
    out: Path
    err: Path

    def printed(self) -> str:
        return self.out.read_text()

    def wait_for_output(self, text: str, timeout: float = 120) -> None:
        eventually(lambda: text in self.printed(), f"{text!r} in the output of {self.command}", timeout=timeout,
                   detail=lambda: self.printed()[-2000:])

    def ctrl_c(self) -> None:
        """SIGINT to the whole foreground process group, as a terminal's Ctrl-C."""
        os.killpg(self.process.pid, signal.SIGINT)

    def finish(self, *, expect: int, timeout: float = 120) -> Step:
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            raise AssertionError(f"{self.command} did not end: {self.printed()[-2000:]}") from None
        step = Step(self.command, code, self.printed(), self.err.read_text())
        no_traceback(step)
        assert step.returncode == expect, f"expected exit {expect}:\n{step}"
        return step


@dataclass
class Table:
    """A box-drawn table as printed: its title line (the line above it), header and rows of cells; a row
    wrapped over several lines is one row (its cells joined by a blank)."""

    title: str
    header: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> list[str]:
        index = self.header.index(name)
        return [row[index] for row in self.rows]

    def records(self) -> list[dict[str, str]]:
        return [dict(zip(self.header, row, strict=True)) for row in self.rows]


def _cells(line: str, bar: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip(bar).split(bar)]


def tables(text: str) -> list[Table]:
    """Every table in ``text`` (rich's heavy-head boxes: ┏ header ┡ rows └), in order."""
    found: list[Table] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("┏"):
            i += 1
            continue
        title = lines[i - 1].strip() if i else ""
        header: list[str] = []
        i += 1
        while i < len(lines) and lines[i].lstrip().startswith("┃"):
            parts = _cells(lines[i], "┃")
            header = parts if not header else [f"{a} {b}".strip() for a, b in zip(header, parts, strict=True)]
            i += 1
        rows: list[list[str]] = []
        while i < len(lines) and not lines[i].lstrip().startswith("└"):
            line = lines[i].strip()
            if line.startswith("│"):
                cells = _cells(line, "│")
                if rows and not cells[0] and (len(cells) < 2 or not cells[1]):  # the same row, wrapped
                    rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
                else:
                    rows.append(cells)
            i += 1
        found.append(Table(title, header, rows))
    return found


def table_titled(text: str, title: str) -> Table:
    matching = [t for t in tables(text) if t.title.startswith(title)]
    assert matching, f"no table titled {title!r} in:\n{text[-3000:]}"
    return matching[0]


def reference_tgftp() -> Path | None:
    """The real tgftp 0.7.0's program when GFTPWB_TGFTP_REFERENCE names its directory (as for tests/compat)."""
    directory = os.environ.get("GFTPWB_TGFTP_REFERENCE")
    return Path(directory).resolve() / "bin" / "tgftp" if directory else None
