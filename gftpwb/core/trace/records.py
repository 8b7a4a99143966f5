"""What a run trace holds (``trace.jsonl``, one JSON object a line) and what kinds report of a run's
phases. Pure data; timestamps are integer nanoseconds of Unix time on the controller's clock.

Record types (``type``):

* ``meta`` (first line): format version and clock;
* ``span``: something with a start and a duration: a run (``name`` ``run``), a phase of it
  (``guc.connect``, ``worker.run``, ...), on a ``track`` (a control connection, a worker thread);
* ``mark``: an instant (a control command sent, a performance marker, a trace level switch);
* ``sample``: per-interval values of a run (bytes and rates of a channel or of the whole run);
* ``iofile``: a binary file of per-I/O events (:mod:`gftpwb.core.trace.iofmt`) that belongs to a run,
  with the clock offset of the host it came from (host clock minus controller clock, ns).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

TRACE_NAME = "trace.jsonl"
TRACE_DIR = "trace"  # the binary I/O trace files, beside trace.jsonl
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Phase:
    """A closed phase of a run that a kind read from its program's output (monotonic seconds, as events
    carry them); ``track`` names what it happened on (a control connection), ``args`` what else is known."""

    name: str
    start: float
    end: float
    track: str = ""
    args: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Mark:
    """An instant a kind read from its program's output (a command sent, a performance marker)."""

    name: str
    t: float
    track: str = ""
    args: dict[str, Any] = field(default_factory=dict)


class PhaseReader(Protocol):
    """Reads one run's output lines as they come and reports its phases (``Run.trace_phases`` makes one
    per traced run). ``close`` is called when the run ends, with the time it ended."""

    def feed(self, stream: str, text: str, t: float) -> list[Phase | Mark]: ...

    def close(self, t: float) -> list[Phase | Mark]: ...
