"""A program on a real pseudo-terminal, its screen as a user sees it: the bytes it writes are played on a
VT100 emulator (pyte), so a test reads the screen's rows at 80x24 (or any size) instead of searching
escape sequences, waits for what appears on it and types keys, as a user at a terminal does."""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pyte

from support.polling import eventually

LEAVE_ALTERNATE_SCREEN = b"\x1b[?1049l"


class Terminal:
    """``gftpwb ARGS`` (or ``argv`` as given) on a pseudo-terminal of ``columns`` x ``lines``, in a session
    of its own (so a test can signal its process group as a terminal's Ctrl-C does)."""

    def __init__(self, argv: list[str], *, cwd: Path, env: dict[str, str] | None = None, columns: int = 80,
                 lines: int = 24) -> None:
        self.columns, self.lines = columns, lines
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        full_env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines),
                    **(env or {})}
        full_env.pop("NO_COLOR", None)
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, cwd=cwd, env=full_env,
                                        start_new_session=True)
        os.close(slave)
        self._master = master
        self._lock = threading.Lock()
        self._screen = pyte.Screen(columns, lines)
        self._stream = pyte.ByteStream(self._screen)
        self.output = bytearray()
        self._closed = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @classmethod
    def gftpwb(cls, *args: str, **kw) -> Terminal:
        return cls([sys.executable, "-m", "gftpwb", *args], **kw)

    def _read(self) -> None:
        while True:
            try:
                chunk = os.read(self._master, 65536)
            except OSError:  # the program closed the terminal
                break
            if not chunk:
                break
            with self._lock:
                self.output += chunk
                self._stream.feed(chunk)
        self._closed.set()

    def screen(self) -> str:
        """The screen's rows as the terminal shows them now, joined by newlines."""
        with self._lock:
            return "\n".join(row.rstrip() for row in self._screen.display)

    def wait_for(self, text_or_condition, what: str | None = None, *, timeout: float = 120) -> str:
        """The screen once ``text`` is on it (or ``condition(screen)`` holds); fails naming it, with the
        screen last seen, if it never comes."""
        if isinstance(text_or_condition, str):
            text = text_or_condition

            def condition(screen: str) -> bool:
                return text in screen
            what = what or f"{text!r} on the screen"
        else:
            condition = text_or_condition
        eventually(lambda: condition(self.screen()), what or "the screen", timeout=timeout,
                   detail=lambda: "\n" + self.screen())
        return self.screen()

    def press(self, keys: str | bytes) -> None:
        os.write(self._master, keys.encode() if isinstance(keys, str) else keys)

    def press_until(self, keys: str | bytes, text: str, *, again_after: float = 2.0, timeout: float = 60) -> str:
        """Press ``keys`` until ``text`` is on the screen, again each ``again_after`` seconds it is not (as a
        user presses a key again that a view, still settling its focus, did not take); the screen then."""
        deadline = time.monotonic() + timeout
        while True:
            self.press(keys)
            try:
                return self.wait_for(text, timeout=again_after)
            except AssertionError:
                if time.monotonic() > deadline:
                    raise

    def wait(self, timeout: float = 120) -> int:
        """The exit code, once the program has ended and everything it wrote has been read."""
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError(f"{self.process.args} did not end; screen:\n{self.screen()}") from None
        self._closed.wait(timeout=30)
        return code

    def printed_after_closing(self) -> str:
        """What the program printed after it left the alternate screen (a TUI's closing words), as text."""
        with self._lock:
            tail = bytes(self.output).rsplit(LEAVE_ALTERNATE_SCREEN, 1)[-1]
        return tail.decode("utf-8", "replace").replace("\r", "")

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
        with contextlib.suppress(OSError):
            os.close(self._master)
