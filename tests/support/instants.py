"""Signals at every instant of a command: the instants a sweep tries, and one signal at one of them.

A sweep starts at the command's first line of its own code and goes on, finely at first (start-up is
where Python can drop a KeyboardInterrupt) and then in steps of a few per cent, until the caller says
it has gone far enough (the first run ended before the signal came).
"""

from __future__ import annotations

import signal
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

FINE_S = 0.01  # the smallest step of a sweep
GROWTH = 0.08  # later steps: this share of the instant reached


def instants(limit: int = 200) -> Iterator[float]:
    """0, 0.01, 0.02, ... then growing by 8 %: at most ``limit`` instants, in seconds after start."""
    at = 0.0
    for _ in range(limit):
        yield at
        at += max(FINE_S, at * GROWTH)


@dataclass
class Ended:
    returncode: int
    stdout: str
    stderr: str
    sent_at: datetime | None  # when the signal went (UTC), None if the process had ended before


def signal_at(proc: subprocess.Popen, at: float, sig: signal.Signals = signal.SIGINT,
              timeout: float = 180) -> Ended:
    """Send ``sig`` to ``proc`` ``at`` seconds from now (a timer: the test waits only for the end) and
    wait for its end."""
    sent: list[datetime] = []

    def send() -> None:
        if proc.poll() is None:
            sent.append(datetime.now(UTC))
            proc.send_signal(sig)

    timer = threading.Timer(at, send)
    timer.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        timer.cancel()
        timer.join()
    return Ended(proc.returncode, out, err, sent[0] if sent else None)


def all_ended_before(ended: Ended, ends: list[str]) -> bool:
    """Whether every run had ended (``ends``: their ISO end times) before the signal went, or it never
    went: a Ctrl-C then had nothing left to stop, and the command may end as if it had not come."""
    return ended.sent_at is None or all(datetime.fromisoformat(end) < ended.sent_at for end in ends)
