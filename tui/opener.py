"""Open a written file (the HTML report of ``R``) in the user's browser from inside the TUI.

The convention is Python's :mod:`webbrowser`'s: ``$BROWSER`` is a list of commands separated by
``os.pathsep``, the first one found is used, ``%s`` in it stands for the URL (else the URL is added
last); without ``$BROWSER``, the desktop's opener (``xdg-open``, or ``open`` on macOS) when there is
a display. :mod:`webbrowser` itself is not used because inside a full-screen terminal application
it does two wrong things: the browser inherits the terminal, so its messages (Chromium's dbus
complaints, say) are written over the TUI's screen; and without a display it falls back to console
browsers (lynx, w3m) that would fight the TUI for the terminal. Here the browser gets no terminal
(stdin, stdout and stderr to /dev/null, its own session), and without a browser the caller says
where the file is instead.

:func:`open_in_browser` blocks for up to ``wait_s`` seconds (to tell a command that failed at once
from a browser that keeps running): call it off the UI thread.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

WAIT_S = 2.0  # how long a browser command may take to fail before it counts as started


@dataclass(frozen=True)
class Opened:
    """What became of opening a file: ``ok`` with the command used, or why not (``why``)."""

    ok: bool
    argv: tuple[str, ...] = ()
    why: str = ""


def browser_argv(url: str, env: Mapping[str, str] | None = None, *, platform: str = sys.platform) -> list[str] | None:
    """The command that opens ``url``: from ``$BROWSER`` (first entry whose program exists), else the
    desktop's opener when there is a display; None when there is no browser to open it in."""
    env = os.environ if env is None else env
    path = env.get("PATH")
    for entry in env.get("BROWSER", "").split(os.pathsep):
        try:
            words = shlex.split(entry)
        except ValueError:  # an unbalanced quote: not a command
            continue
        if not words or shutil.which(words[0], path=path) is None:
            continue
        if any("%s" in w for w in words):
            return [w.replace("%s", url) for w in words]
        return [*words, url]
    if platform == "darwin" and shutil.which("open", path=path):
        return ["open", url]
    if (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")) and shutil.which("xdg-open", path=path):
        return ["xdg-open", url]
    return None


def open_in_browser(file: str, env: Mapping[str, str] | None = None, *, wait_s: float = WAIT_S) -> Opened:
    """Start the browser on ``file`` (as a ``file://`` URL), detached from the terminal. A command that
    exits non-zero within ``wait_s`` failed; one still running, or done with 0, opened the page."""
    url = Path(file).resolve().as_uri()
    argv = browser_argv(url, env)
    if argv is None:
        return Opened(False, why="no browser here (no $BROWSER, no display)")
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True, env=None if env is None else dict(env))
    except OSError as exc:
        return Opened(False, tuple(argv), f"cannot start {argv[0]}: {exc.strerror or exc}")
    try:
        code = proc.wait(timeout=wait_s)
    except subprocess.TimeoutExpired:  # a browser that stays: it is showing the page; reap it when it ends
        threading.Thread(target=proc.wait, name="browser-reaper", daemon=True).start()
        return Opened(True, tuple(argv))
    if code != 0:
        return Opened(False, tuple(argv), f"{shlex.join(argv[:1])} exited with status {code}")
    return Opened(True, tuple(argv))
