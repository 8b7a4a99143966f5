"""What a scenario, a test or ``--trace`` asks to trace: a level and a sampling rate.

Levels follow pyGlobus' NetLogger tracing (PERF1 and PERF2): ``off``; ``run`` (spans of every run and
its phases, per-interval samples: a few events per run, NetLogger's once-per-connection level);
``io`` (``run`` plus an event for every read, write, open, close, fsync and unlink of the workers,
PERF2), of which ``every: N`` keeps one in N per thread for long runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

OFF, RUN, IO = "off", "run", "io"
LEVELS = (OFF, RUN, IO)
MAX_EVERY = 1 << 20

# The JSON-Schema fragment of the ``trace`` key (scenario and test level).
TRACE_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"enum": list(LEVELS)},
        {
            "type": "object",
            "additionalProperties": False,
            "required": ["level"],
            "properties": {
                "level": {"enum": list(LEVELS), "description": "off, run or io."},
                "every": {"type": "integer", "minimum": 1, "maximum": MAX_EVERY,
                          "description": "io level: record one I/O event in N per thread (default 1: all)."},
            },
        },
    ],
}
TRACE_EXPECTED = "off, run, io or {level: io, every: 64}"


@dataclass(frozen=True)
class TraceSetting:
    """A trace level and, for ``io``, how many I/O events of a thread make one recorded event."""

    level: str = OFF
    every: int = 1

    @property
    def on(self) -> bool:
        return self.level != OFF

    @property
    def io(self) -> bool:
        return self.level == IO

    def details(self) -> dict[str, Any]:
        """What a traced run's record says of its tracing (``details.trace``)."""
        return {"level": self.level, **({"every": self.every} if self.io and self.every != 1 else {})}

    @classmethod
    def of(cls, value: Any) -> TraceSetting:
        """The setting a (schema-valid) ``trace:`` value means."""
        if isinstance(value, dict):
            return cls(str(value["level"]), int(value.get("every", 1)))
        return cls(str(value))

    @classmethod
    def of_details(cls, details: dict[str, Any]) -> TraceSetting:
        """The setting a spec or record carries in its details (off when it has none)."""
        value = details.get("trace")
        return cls.of(value) if isinstance(value, dict) else cls()


NO_TRACE = TraceSetting()


def parse_option(text: str) -> TraceSetting:
    """``--trace LEVEL[:EVERY]`` (``run``, ``io``, ``io:64``, ``off``); ValueError says what is wrong."""
    level, sep, every = text.strip().partition(":")
    if level not in LEVELS:
        raise ValueError(f"--trace {text!r}: the level is off, run or io (io:N keeps one I/O event in N)")
    if not sep:
        return TraceSetting(level)
    if level != IO:
        raise ValueError(f"--trace {text!r}: only the io level samples (io:N)")
    if not every.isdigit() or not 1 <= int(every) <= MAX_EVERY:
        raise ValueError(f"--trace {text!r}: N of io:N is a whole number from 1 to {MAX_EVERY}")
    return TraceSetting(level, int(every))
