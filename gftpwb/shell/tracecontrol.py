"""Switching the trace level of running workers while they run (NetLogger's "turn detailed tracing on
and off while running"): ``kill -USR2 <gftpwb pid>`` switches I/O events on (``io``), ``kill -USR1``
off again (``run``), in every traced run in flight that can switch (the gfapi workers: a ``trace io``
/ ``trace run`` line on their stdin, so it reaches SSH hosts too). Each switch is published as a
:class:`~gftpwb.core.events.TraceLevelChanged` event, and the workers record it in their I/O traces.

Signals belong to the process, so the switch is process-wide: runners register a callback while
they run, :func:`install` (the session) routes the two signals to :func:`switch`. A TUI key calls
:func:`switch` the same way.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from gftpwb.core.trace.setting import IO, RUN

Switch = Callable[[str, str], None]  # (level, source)
SIGNALS = {signal.SIGUSR2: IO, signal.SIGUSR1: RUN}

_switches: list[Switch] = []


def register(callback: Switch) -> Callable[[], None]:
    """Let ``callback(level, source)`` switch a run in flight; returns the function that unregisters it."""
    _switches.append(callback)
    return lambda: _switches.remove(callback) if callback in _switches else None


def switch(level: str, source: str = "") -> int:
    """Switch every registered run to ``level``; how many were asked."""
    for callback in list(_switches):
        callback(level, source)
    return len(_switches)


def install(loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """Route SIGUSR1 and SIGUSR2 to :func:`switch` while a scenario runs; returns the function that
    removes the handlers again."""
    for sig, level in SIGNALS.items():
        loop.add_signal_handler(sig, switch, level, f"signal {sig.name}")

    def remove() -> None:
        for sig in SIGNALS:
            loop.remove_signal_handler(sig)

    return remove
