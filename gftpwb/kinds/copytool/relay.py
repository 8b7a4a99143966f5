"""A terminal for a tool that reports progress only to one: ``/usr/bin/python3 -I -S -c RELAY PROGRAM
ARGS...``.

xrdcp prints its progress bar and gfal-copy its progress line only when their standard output is a
terminal (seen with both on Debian 12: to a pipe they print nothing but errors). The relay runs the
tool with a pseudo-terminal as its stdout (stderr stays the pipe gftpwb reads), copies what the tool
writes there to its own stdout, and exits with the tool's status (128 + N when a signal N ended it).
It is an argv of its own (no shell), runs wherever Debian's python3 does (every Debian host; the
lab's namespace hosts share this machine's), and stays in the tool's process group, so a timeout or
Ctrl-C that stops the group stops both. The record keeps the tool's own argv.

Debian's interpreter by its path, isolated and without ``site`` (``-I -S``), starts in ~20 ms; the
first ``python3`` on PATH may be a shim (pyenv's is a shell script that took ~0.4 s per run here,
more than a 1 MiB copy: bench/protocols.py).
"""

from __future__ import annotations

PYTHON = "/usr/bin/python3"
RELAY = """import os, pty, sys
m, s = pty.openpty()
pid = os.fork()
if pid == 0:
    os.close(m)
    os.dup2(s, 1)
    os.close(s)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
os.close(s)
while True:
    try:
        data = os.read(m, 65536)
    except OSError:
        break
    if not data:
        break
    os.write(1, data)
code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
sys.exit(code if code >= 0 else 128 - code)
"""


def with_terminal(argv: tuple[str, ...]) -> tuple[str, ...]:
    """argv run with a terminal as its stdout (see the module's text)."""
    return (PYTHON, "-I", "-S", "-c", RELAY, *argv)
