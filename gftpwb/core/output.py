"""What a run's output parser (a *session*) hands the shell: items as output arrives, and an outcome
once the process has ended. Pure data; a kind that runs one program per run writes a session with
``feed``/``close``/``outcome`` and lets the shell's ``run_process`` do the rest (starting, timeouts,
stopping, events, the record)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class ProgressSample:
    """A live sample: bytes so far, average and instantaneous rate in MiB/s (guc's "MB").

    ``channel`` names the part of the run the sample is about (a stream, a stripe) when it is not
    the whole run; such samples become :class:`~gftpwb.core.events.Progress` events of that channel,
    which the live views show as rows of their own."""

    bytes: int
    avg_mib_s: float | None
    inst_mib_s: float | None
    channel: str | None = None


@dataclass(frozen=True)
class TextLine:
    """A line of output on ``stream`` (``stdout`` or ``stderr``)."""

    stream: str
    text: str


ParsedItem = ProgressSample | TextLine


@dataclass
class Outcome:
    """How a run ended, as its session judges it from the output, exit status and time."""

    status: str
    bytes: int | None
    rate_incl_setup_mib_s: float | None
    rate_guc_avg_mib_s: float | None
    error: str
    output: str
    details: dict[str, Any] = field(default_factory=dict)  # what the session adds to the record's details


class Session(Protocol):
    """A pure run session: bytes in, items out, and an outcome once the process has ended."""

    def feed(self, stream: str, data: bytes) -> Sequence[ParsedItem]: ...
    def close(self) -> Sequence[ParsedItem]: ...
    def outcome(self, exit_code: int | None, wall_seconds: float, *, timed_out: bool = False,
                interrupted: bool = False, timeout_s: float | None = None, start_error: str = "") -> Outcome: ...
