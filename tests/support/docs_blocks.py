"""The shell blocks of the documentation, as tests/test_docs_commands.py runs them.

A block is a fenced ``sh``, ``bash`` or ``console`` block of README.md, CONTRIBUTING.md or a page of
docs/. An HTML comment on the line before its fence says how the suite treats it:

    <!-- docs-test: skip reason="why it cannot run in CI" -->
    <!-- docs-test: xfail reason="the defect that makes it fail today, in words" -->

A ``console`` block holds commands (``$ `` lines, continued by a trailing backslash) each followed by the
output it shows; ``...`` stands for any text within a line, and a line of only ``...`` for any lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository: tests/support/ is two below
LANGUAGES = {"sh", "bash", "console"}
FENCE = re.compile(r"^```(\w*)\s*$")
MARKER = re.compile(r'^<!--\s*docs-test:\s*(\w+)(?:\s+reason="([^"]*)")?\s*-->\s*$')


@dataclass(frozen=True)
class Command:
    text: str
    shown: tuple[str, ...]  # the output the text shows (console blocks); empty: not checked


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    language: str
    body: str
    marker: str = ""  # "", "skip" or "xfail"
    reason: str = ""
    commands: tuple[Command, ...] = field(default=())

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    """README.md, CONTRIBUTING.md, then every page of docs/ in name order."""
    return [ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]


def console_commands(body: str) -> tuple[Command, ...]:
    commands: list[Command] = []
    text: list[str] = []
    shown: list[str] = []

    def flush() -> None:
        if text:
            commands.append(Command("\n".join(text), tuple(shown)))

    lines = body.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("$ "):
            flush()
            text, shown = [line[2:]], []
            while text[-1].endswith("\\") and index + 1 < len(lines):
                index += 1
                text.append(lines[index])
        elif text:
            shown.append(line)
        index += 1
    flush()
    return tuple(commands)


def blocks_of(path: Path) -> list[Block]:
    lines = path.read_text().split("\n")
    found: list[Block] = []
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if not match:
            index += 1
            continue
        start, language = index, match.group(1)
        end = index + 1
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        body = "\n".join(lines[start + 1:end])
        index = end + 1
        if language not in LANGUAGES:
            continue
        before = next((lines[i] for i in range(start - 1, -1, -1) if lines[i].strip()), "")
        marker = MARKER.match(before)
        kind, reason = (marker.group(1), marker.group(2) or "") if marker else ("", "")
        commands = console_commands(body) if language == "console" else ()
        found.append(Block(path, start + 1, language, body, kind, reason, commands))
    return found


def markers_of(path: Path) -> list[tuple[int, str, str]]:
    """(line, kind, reason) of every docs-test marker in a file, wherever it stands."""
    found = []
    for number, line in enumerate(path.read_text().split("\n"), 1):
        if line.lstrip().startswith("<!--") and "docs-test" in line:
            match = MARKER.match(line)
            found.append((number, match.group(1) if match else "", (match.group(2) or "") if match else ""))
    return found


def pattern(shown: tuple[str, ...]) -> re.Pattern[str]:
    """The shown output as a regular expression: ``...`` any text in a line, a ``...`` line any lines."""
    parts = []
    for line in shown:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(r"[^\n]*?".join(re.escape(piece) for piece in line.rstrip().split("...")) + r"[ \t]*\n")
    return re.compile("".join(parts), re.DOTALL)


def matches(shown: tuple[str, ...], output: str) -> bool:
    while shown and not shown[-1].strip():
        shown = shown[:-1]
    text = "\n".join(line.rstrip() for line in output.rstrip("\n").split("\n")) + "\n"
    return pattern(shown).fullmatch(text) is not None
