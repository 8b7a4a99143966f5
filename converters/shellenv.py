"""Variable assignments read from a shell file, as ``sh`` would set them, without running a shell.

parallel-libgfapi was configured by environment variables: exported in the shell that ran its
launcher, written in front of the command (``PSMF_TOPDIR=/wrt PSMF_FILES=500 bash launcher.sh``), kept
in a small script that exports them and then calls the launcher, or edited into the launcher's own
lines above ``NO EDITABLE PARAMETERS BELOW THIS LINE``. :func:`read_assignments` reads any of these:

* ``NAME=VALUE``, ``export NAME=VALUE ...`` (also ``declare -x``, ``readonly``), and assignments in
  front of a command, several commands on a line (``;``, ``&&``, ``||``, ``|``, ``&``), comments, and
  lines continued with a backslash;
* values with sh's quoting, ``$NAME``, ``${NAME}`` and ``${NAME:-word}`` (and ``-``, ``:+``, ``+``)
  expanded from the assignments above and the environment given (:func:`gftpwb.tgftp.bash.expand`);
* every other line (``if``, ``echo``, a call of the launcher) is passed over; reading stops at the
  launcher's ``NO EDITABLE PARAMETERS BELOW THIS LINE``.

A value that needs a shell to be known (``$(pwd)``, backticks, ``$((...))``) is kept with
:attr:`Assignment.unknown` saying why, so the caller can refuse it where it matters, at its line and
column. Pure: text in, assignments out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from gftpwb.tgftp.bash import expand

STOP_MARK = "NO EDITABLE PARAMETERS BELOW THIS LINE"
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=")
_EXPORTERS = {"export", "declare", "typeset", "readonly", "local"}
_OPERATORS = (";;", "&&", "||", ";", "&", "|")


@dataclass(frozen=True)
class Assignment:
    name: str
    value: str  # as sh would set it ("" when unknown)
    line: int  # 1-based, of the name
    column: int  # 1-based, of the name
    value_column: int  # 1-based, where the value's text starts
    exported: bool  # by ``export``/``declare -x`` or as the environment of a command
    unknown: str = ""  # why the value cannot be known without running a shell ("" when it is known)


@dataclass
class ShellEnv:
    """The assignments of a file in order, and what sh would see at the end of it."""

    assignments: list[Assignment] = field(default_factory=list)
    stopped_at: int = 0  # line of the launcher's "NO EDITABLE PARAMETERS" mark (0: read to the end)

    def last(self, name: str) -> Assignment | None:
        """The assignment of ``name`` that counts (the last one), if any."""
        return next((a for a in reversed(self.assignments) if a.name == name), None)

    @property
    def exports_anything(self) -> bool:
        return any(a.exported for a in self.assignments)


@dataclass(frozen=True)
class _Word:
    text: str
    column: int  # 0-based in the logical line


def read_assignments(text: str, environ: Mapping[str, str] | None = None) -> ShellEnv:
    """The variable assignments of ``text`` (see the module doc); ``environ``: what ``$NAME`` means
    for names the file does not set itself."""
    values: dict[str, str] = dict(environ or {})
    unknown: dict[str, str] = {}  # names whose value needs a shell, and why
    out = ShellEnv()
    for number, line, columns in _logical_lines(text):
        if STOP_MARK in line:
            out.stopped_at = number
            break
        for command in _commands(_words(line)):
            for assignment in _assignments_of(command, values, unknown, number, columns):
                out.assignments.append(assignment)
                values[assignment.name] = assignment.value
                if assignment.unknown:
                    unknown[assignment.name] = assignment.unknown
                else:
                    unknown.pop(assignment.name, None)
    return out


def _logical_lines(text: str) -> list[tuple[int, str, list[int]]]:
    """(first line number, text, the 1-based physical column of every character): lines joined where
    a backslash continues them, so positions still point at what the user wrote."""
    physical = text.replace("\r\n", "\n").split("\n")
    out: list[tuple[int, str, list[int]]] = []
    i = 0
    while i < len(physical):
        start, parts, columns = i + 1, [], []
        while True:
            line = physical[i]
            continued = line.endswith("\\") and not line.endswith("\\\\") and i + 1 < len(physical)
            body = line[:-1] if continued else line
            parts.append(body)
            columns.extend(range(1, len(body) + 1))
            i += 1
            if not continued:
                break
        out.append((start, "".join(parts), columns))
    return out


def _words(line: str) -> list[_Word]:
    """The raw words of one line with their columns, quotes kept; an operator is a word of its own and
    a comment ends the line."""
    words: list[_Word] = []
    current: list[str] = []
    start = 0
    i, n = 0, len(line)

    def end() -> None:
        nonlocal current
        if current:
            words.append(_Word("".join(current), start))
        current = []

    while i < n:
        ch = line[i]
        if ch in " \t":
            end()
            i += 1
            continue
        if ch == "#" and not current:
            break
        operator = next((op for op in _OPERATORS if line.startswith(op, i)), None)
        if operator is not None:
            end()
            words.append(_Word(operator, i))
            i += len(operator)
            continue
        if not current:
            start = i
        j = _skip_quoted(line, i)
        current.append(line[i:j])
        i = j
    end()
    return words


def _skip_quoted(line: str, i: int) -> int:
    """The index after the quoted or escaped unit at ``i`` (one character when it is neither)."""
    n = len(line)
    ch = line[i]
    if ch == "\\":
        return min(i + 2, n)
    if ch == "'":
        close = line.find("'", i + 1)
        return n if close < 0 else close + 1
    if ch == '"':
        j = i + 1
        while j < n and line[j] != '"':
            j += 2 if line[j] == "\\" else 1
        return min(j + 1, n)
    if ch == "`":
        close = line.find("`", i + 1)
        return n if close < 0 else close + 1
    if ch == "$" and i + 1 < n and line[i + 1] in "({":
        opening = line[i + 1]
        closing = ")" if opening == "(" else "}"
        depth, j = 0, i + 1
        while j < n:
            if line[j] == opening:
                depth += 1
            elif line[j] == closing:
                depth -= 1
                if depth == 0:
                    return j + 1
            elif line[j] in "'\"`\\":
                j = _skip_quoted(line, j)
                continue
            j += 1
        return n
    return i + 1


def _commands(words: list[_Word]) -> list[list[_Word]]:
    commands: list[list[_Word]] = [[]]
    for word in words:
        if word.text in _OPERATORS:
            commands.append([])
        else:
            commands[-1].append(word)
    return [c for c in commands if c]


def _assignments_of(command: list[_Word], values: Mapping[str, str], unknown: Mapping[str, str], line: int,
                    columns: list[int]) -> list[Assignment]:
    """The assignments one simple command makes: ``export A=1 B=2``, or ``A=1 B=2 [command ...]``."""
    first = command[0].text
    exported_by_builtin = first in _EXPORTERS
    if exported_by_builtin:
        words = [w for w in command[1:] if not w.text.startswith("-")]
        flags = "".join(w.text for w in command[1:] if w.text.startswith("-"))
        exported = first == "export" or "x" in flags
    else:
        words = []
        for word in command:
            if not _ASSIGNMENT.match(word.text):
                break
            words.append(word)
        exported = len(words) < len(command)  # assignments in front of a command are its environment
    out: list[Assignment] = []
    scope, unknown_here = dict(values), dict(unknown)
    for word in words:
        match = _ASSIGNMENT.match(word.text)
        if match is None:
            continue
        name, raw = match.group(1), word.text[match.end():]
        value_at = word.column + match.end()
        value, why = _value(raw, scope, unknown_here)
        position = columns[word.column] if word.column < len(columns) else word.column + 1
        value_position = columns[value_at] if value_at < len(columns) else position + match.end()
        out.append(Assignment(name, value, line, position, value_position, exported, why))
        scope[name] = value
        if why:
            unknown_here[name] = why
        else:
            unknown_here.pop(name, None)
    return out


def _value(raw: str, scope: Mapping[str, str], unknown: Mapping[str, str]) -> tuple[str, str]:
    """What sh assigns for the text ``raw`` (no field splitting, as for every assignment), or why
    that cannot be known (it needs a shell, or a variable whose value does)."""
    if not raw:
        return "", ""
    expansion = expand(raw, scope, ifs="")
    if expansion.problems:
        return "", str(expansion.problems[0])
    for reference, _ in expansion.expanded:
        name = reference.strip("${}").split(":")[0].split("-")[0].split("+")[0]
        if name in unknown:
            return "", f"${name} is not known without running a shell ({unknown[name]})"
    return "".join(expansion.words), ""
