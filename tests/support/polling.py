"""Waiting for a condition in a test: poll it until it holds, or fail loudly with what was awaited.

Tests wait for conditions, never for fixed times (a loaded machine is slower, not wrong); the timeout
only guards against a hang, so it is generous and never part of what a test asserts. A wait that
runs out raises AssertionError naming what it waited for (and, with ``detail``, what it saw last)
instead of falling through to a later, less clear failure.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

TIMEOUT_S = 60.0
STEP_S = 0.05


def _timed_out(what: str, timeout: float, detail: Callable[[], Any] | None) -> AssertionError:
    seen = f"; last seen: {detail()}" if detail is not None else ""
    return AssertionError(f"timed out after {timeout:g} s waiting for {what}{seen}")


def eventually(condition: Callable[[], T], what: str, *, timeout: float = TIMEOUT_S, step: float = STEP_S,
               detail: Callable[[], Any] | None = None) -> T:
    """``condition()``'s first true value, polled every ``step`` seconds; AssertionError naming
    ``what`` when it is still false after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise _timed_out(what, timeout, detail)
        time.sleep(step)


async def eventually_async(condition: Callable[[], T], what: str, *, timeout: float = TIMEOUT_S,
                           step: float = STEP_S, detail: Callable[[], Any] | None = None,
                           pause: Callable[[float], Awaitable[Any]] | None = None) -> T:
    """:func:`eventually` in a coroutine: the event loop runs between polls (``pause(step)``,
    ``asyncio.sleep`` unless given: a Textual pilot's ``pilot.pause`` lets the app draw)."""
    pause = pause or asyncio.sleep
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise _timed_out(what, timeout, detail)
        await pause(step)
