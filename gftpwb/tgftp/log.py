"""The ``tgftp_log`` drop-in (tgftp_log 0.2.0) and the reading behind ``gftpwb log get``.

Evaluation scripts call tgftp_log thousands of times, so this module starts fast: it imports only
``os`` and ``sys`` (``re`` only for an attribute that is not a plain name), and nothing else of
gftpwb. It prints exactly what the real script prints, checked against it by tests/compat:

* the command line: one argument (``--help``, ``--version``/``-V``) or at least four; ``-a``/``-f``
  once each; an empty argument ends the options; anything else prints the usage (exit 1);
* whether the attribute is "supported": the real script greps for it in its list of ten names, so
  a part of a name (``RATE``) passes and is then simply not found;
* the value: ``sed -n '/<A>/,/<\\/A>/p' FILE | sed '/^<.*A>$/d'``, read into ``$(...)`` (trailing
  newlines removed, NUL bytes dropped) and echoed with one newline; nothing found or only empty
  lines: ``attribute "A" not found in "F" or empty.`` on stderr and exit 0.

Where this runs from gftpwb's tag logs, it reads the same as from tgftp's: gftpwb's own tags come
first and never name a standard tag (gftpwb/tgftp/taglog.py).
"""

from __future__ import annotations

import os
import sys

VERSION = "0.2.0"
SUPPORTED = ("GSIFTP_TRANSFER_LOG_COMMENT", "GSIFTP_TRANSFER_COMMAND", "GSIFTP_TRANSFER_COMMAND_OUTPUT",
             "GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END", "GSIFTP_TRANSFER_ERROR", "GSIFTP_TRANSFER_RATE",
             "GSIFTP_TRANSFER_SIZE", "GSIFTP_TRANSFER_LIST", "TGFTP_COMMAND")
_PLAIN = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


def usage_text() -> str:
    return ("\nusage: tgftp_log [--help] ||\n"
            "       tgftp_log \\\n"
            "        --get-attribute|-a <TGFTP_LOGFILE_ATTRIBUTE> \\\n"
            "        --file|-f <TGFTP_LOGFILE>\n\n"
            "--help gives more information\n")


def help_text() -> str:
    listed = "\n".join(f"                          {name}" for name in SUPPORTED)
    return f"""
tgftp_log - v{VERSION}
(gftpwb's drop-in replacement)

SYNOPSIS:

tgftp_log --get-attribute|-a ATTRIBUTE --file|-f LOGFILE

Prints the value of one attribute of a tgftp (or gftpwb) tag log. Attributes:

{listed}

  [--help]        this help
  [--version|-V]  version information

Exit status: 0 (also when the attribute is missing or empty: a note goes to stderr), 1 for a bad
command line, an unknown attribute or a missing file. gftpwb log get ATTRIBUTE FILE... does the same
for several files, reads gftpwb's own GFTPWB_* tags too, and has --json for scripts.
"""


class Usage(Exception):
    """tgftp_log's argument errors: ``message`` empty means "print the usage text"."""

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message


def parse_args(argv: list[str]) -> tuple[str, str, str]:
    """(action, attribute, file) the way tgftp_log walks its arguments; raises :class:`Usage`."""
    if len(argv) < 1 or 1 < len(argv) < 4:
        raise Usage()
    attribute = file = None
    i = 0
    while i < len(argv) and argv[i] != "":
        token = argv[i]
        if token == "--help":
            return "help", "", ""
        if token in ("--version", "-V"):
            return "version", "", ""
        if token in ("--file", "-f"):
            if file is not None:
                raise Usage('tgftp_log: the parameter "--file|-f" can not be used multiple times.')
            file = argv[i + 1] if i + 1 < len(argv) else ""
        elif token in ("--get-attribute", "-a"):
            if attribute is not None:
                raise Usage('tgftp_log: the parameter "--get-attribute|-a" can not be used multiple times.')
            attribute = argv[i + 1] if i + 1 < len(argv) else ""
        else:
            raise Usage()
        i += 2
    return "get", attribute or "", file or ""


def is_supported(attribute: str) -> bool:
    """tgftp_log's ``echo $SUPPORTED_ATTS | grep -o $ATTRIBUTE``: the attribute as a grep pattern (a part
    of a name will do) against the ten names on one line; an empty one is a grep usage error."""
    if attribute == "":
        return False
    line = " ".join(SUPPORTED)
    if set(attribute) <= _PLAIN:
        return attribute in line
    from gftpwb.tgftp.model import grep_bre  # an odd attribute: read it as grep would

    words = attribute.split()
    if len(words) != 1 or words[0].startswith("-"):
        return False  # grep would take the other words as files, or the word as an option
    return bool(grep_bre(words[0], line)) and _nonempty_match(words[0], line)


def _nonempty_match(pattern: str, line: str) -> bool:
    """grep -o prints only non-empty matches: a pattern that can only match nothing prints nothing."""
    from gftpwb.tgftp.model import _bre

    compiled = _bre(pattern)
    return compiled is not None and any(m.group(0) for m in compiled.finditer(line))


def extract(data: bytes, attribute: str) -> bytes:
    """The two sed commands of tgftp_log on a whole file, as bytes (lines as sed sees them)."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    name = attribute.encode("utf-8", "surrogateescape")
    if set(attribute) <= _PLAIN:
        opening, closing, tail = b"<" + name + b">", b"</" + name + b">", name + b">"

        def starts(line: bytes) -> bool:
            return opening in line

        def ends(line: bytes) -> bool:
            return closing in line

        def dropped(line: bytes) -> bool:
            return line[:1] == b"<" and line.endswith(tail) and len(line) >= len(tail) + 1
    else:
        if "/" in attribute:
            return b""  # the slash ends sed's address: sed reports an error and prints nothing
        from gftpwb.tgftp.model import _bre

        first, last, drop = (_bre(p) for p in (f"<{attribute}>", f"<\\/{attribute}>", f"^<.*{attribute}>$"))
        if first is None or last is None or drop is None:
            return b""

        def starts(line: bytes) -> bool:
            return first.search(line.decode("utf-8", "surrogateescape")) is not None

        def ends(line: bytes) -> bool:
            return last.search(line.decode("utf-8", "surrogateescape")) is not None

        def dropped(line: bytes) -> bool:
            return drop.search(line.decode("utf-8", "surrogateescape")) is not None
    selected: list[bytes] = []
    inside = False
    for line in lines:
        if inside:
            selected.append(line)
            if ends(line):
                inside = False
        elif starts(line):
            selected.append(line)
            inside = True
    return b"\n".join(line for line in selected if not dropped(line)).replace(b"\0", b"").rstrip(b"\n")


def read_file(path: str) -> bytes | None:
    """The log's bytes; None when it does not exist. A directory or an unreadable file reads as empty,
    as sed's input then is."""
    if not os.path.lexists(path) or not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def own_tag(data: bytes, name: str) -> bytes:
    """The value of gftpwb's own tag ``name`` (``GFTPWB_*``): from the block of gftpwb's tags at the start
    of the log (logs of gftpwb before 0.2 had them at the end)."""
    lines = data.split(b"\n")
    opening, closing = f"<{name}>".encode(), f"</{name}>".encode()
    if data.startswith(b"<GFTPWB_"):
        order = range(len(lines))
    else:
        starts = [i for i, line in enumerate(lines) if line == opening]
        order = range(starts[-1], len(lines)) if starts else range(0)
    value: list[bytes] = []
    inside = False
    for i in order:
        line = lines[i]
        if not inside and line == b"<GSIFTP_TRANSFER_LOG_COMMENT>" and data.startswith(b"<GFTPWB_"):
            break
        if inside:
            if line == closing:
                return b"\n".join(value)
            value.append(line)
        elif line == opening:
            inside = True
    return b""


def get(attribute: str, path: str, prog: str = "tgftp_log") -> tuple[int, bytes, str]:
    """(exit status, stdout, stderr) of ``tgftp_log -a ATTRIBUTE -f PATH``."""
    if not is_supported(attribute):
        return 1, b"", f'{prog}: the attribute "{attribute}" is not supported!\n'
    data = read_file(path)
    if data is None:
        return 1, b"", f'{prog}: the logfile "{path}" does not exist!\n'
    value = extract(data, attribute)
    if value == b"":
        return 0, b"", f'{prog}: attribute "{attribute}" not found in "{path}" or empty.\n'
    return 0, value + b"\n", ""


def main(argv: list[str] | None = None) -> int:
    """tgftp_log's command line; returns its exit status."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        action, attribute, path = parse_args(argv)
    except Usage as exc:
        if exc.message:
            sys.stderr.write(exc.message + "\n")
        else:
            sys.stdout.write(usage_text() + "\n")
        return 1
    if action == "help":
        sys.stdout.write(help_text() + "\n")
        return 0
    if action == "version":
        sys.stdout.write(f"tgftp_log - v{VERSION}\n")
        return 0
    status, out, err = get(attribute, path)
    sys.stdout.flush()
    sys.stdout.buffer.write(out)
    sys.stdout.flush()
    sys.stderr.write(err)
    return status


def console_main() -> None:
    """The ``tgftp_log`` console script."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        code = 1
    sys.exit(code)
