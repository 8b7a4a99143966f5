"""User commands around a test (pre, post, comment commands): what to run, as pure data.

A command is an argv list, run without a shell, unless the scenario asks for a shell explicitly
(``shell: true`` or a shell's name such as ``shell: bash``); then its ``run`` text is shell code given
to ``<shell> -c``. That rule keeps scenario values away from a shell unless the author said so.

tgftp ran pre/post commands and command comments with ``eval`` (shell code). The importer and the
drop-in ``tgftp`` command turn such text back into an argv list when it is plain words, and keep it as
shell code (``shell: bash``, as tgftp's own shell) only when it uses shell syntax:
:func:`from_shell_text`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

DEFAULT_SHELL = "/bin/sh"
COMMAND_ROLES = ("pre", "post", "comment_command")  # the DSL keys of a test's commands, in the order they run
SHELL_NAME_PATTERN = r"^[A-Za-z0-9_./+-]+$"

# Words made only of these characters mean the same to a shell and to a plain split on blanks.
_PLAIN_WORD = re.compile(r"^[A-Za-z0-9_./:,+@%=-]+$")


@dataclass(frozen=True)
class Command:
    """One command: ``argv`` (no shell) or ``script`` run by ``shell`` (``<shell> -c <script>``)."""

    argv: tuple[str, ...] = ()
    script: str = ""
    shell: str = ""  # "" = no shell; otherwise the shell program, e.g. "/bin/sh" or "bash"
    timeout_s: float | None = None
    on_failure: str = "fail"  # a pre command: "fail" the run, or "continue" with the transfer (tgftp)

    def program_argv(self) -> tuple[str, ...]:
        """What the transport starts (never through another shell)."""
        if self.shell:
            return (self.shell, "-c", self.script)
        return self.argv

    def text(self) -> str:
        """The command as a person reads it: the shell code, or the argv quoted for a shell."""
        return self.script if self.shell else shlex.join(self.argv)


def from_dsl(value: object, timeout_s: float | None = None) -> Command:
    """Build from a validated DSL value: a list of arguments, or ``{run, shell, timeout, on_failure}``."""
    if isinstance(value, list | tuple):
        return Command(argv=tuple(str(v) for v in value), timeout_s=timeout_s)
    if not isinstance(value, dict):
        raise ValueError(f"not a command: {value!r}")
    shell = value.get("shell", False)
    run = value["run"]
    on_failure = str(value.get("on_failure", "fail"))
    if shell:
        program = DEFAULT_SHELL if shell is True else str(shell)
        return Command(script=str(run), shell=program, timeout_s=timeout_s, on_failure=on_failure)
    return Command(argv=tuple(str(v) for v in run), timeout_s=timeout_s, on_failure=on_failure)


def command_of(value: object) -> Command | None:
    """The command of a validated DSL value (None when the key is absent), its timeout parsed."""
    if value is None:
        return None
    from gftpwb.core.units import parse_duration

    timeout = parse_duration(value["timeout"]) if isinstance(value, dict) and "timeout" in value else 0.0
    return from_dsl(value, timeout or None)


def to_dsl(command: Command) -> object:
    """The DSL value for ``command`` (the inverse of :func:`from_dsl`, without the timeout)."""
    if not command.shell:
        if command.on_failure != "fail":
            return {"run": list(command.argv), "on_failure": command.on_failure}
        return list(command.argv)
    shell: object = True if command.shell == DEFAULT_SHELL else command.shell
    value: dict[str, object] = {"run": command.script, "shell": shell}
    if command.on_failure != "fail":
        value["on_failure"] = command.on_failure
    return value


SHELL_BLANKS = " \t\n"  # what bash splits words on; Python's split() also splits on \x1c-\x1f, \x85, ...


def _shell_words(text: str) -> list[str]:
    return [word for word in re.split("[ \t\n]+", text) if word]


def is_plain(text: str) -> bool:
    """True when ``text`` is blank-separated words that no shell would treat specially."""
    words = _shell_words(text)
    if not words:
        return False
    if "=" in words[0]:  # FOO=1 cmd sets a variable in a shell
        return False
    return all(_PLAIN_WORD.match(word) for word in words)


def from_shell_text(text: str, shell: str = "bash", on_failure: str = "fail") -> Command:
    """A tgftp command string: an argv list when it is plain words, else shell code for ``shell``."""
    text = text.strip(SHELL_BLANKS)
    if is_plain(text):
        return Command(argv=tuple(_shell_words(text)), on_failure=on_failure)
    return Command(script=text, shell=shell, on_failure=on_failure)
