"""One time line for runs and samples. Pure.

Events carry the controller's monotonic time (``Event.t``); records and ``monitors.jsonl`` carry UTC.
A :class:`ClockMap` taken once per scenario run (a monotonic reading and a wall-clock reading at the
same moment) converts between the two, so a run's start and end and a sample's time sit on the same
line whatever the wall clock does meanwhile.

A host's sampler counts time in hundredths of a second of its ``/proc/uptime`` and tells, once, which
wall-clock time of the host that count stood for (:class:`~.sampler.ClockLine`). With the host's clock
offset (host minus controller, measured over SSH as for gfapi's synchronised starts; zero here) a
reading's uptime becomes controller time: :class:`HostClock`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from gftpwb.core.clockoffset import ZERO, ClockOffset

from .sampler import ClockLine


@dataclass(frozen=True)
class ClockMap:
    """The controller's monotonic clock (``mono``) and wall clock (``epoch``) read at one moment."""

    mono: float
    epoch: float

    def to_epoch(self, mono: float) -> float:
        return self.epoch + (mono - self.mono)

    def to_mono(self, epoch: float) -> float:
        return self.mono + (epoch - self.epoch)

    def utc(self, mono: float) -> str:
        """ISO 8601 UTC with microseconds, as records write their times."""
        return datetime.fromtimestamp(self.to_epoch(mono), UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class HostClock:
    """A host's sampler clock on the controller's time line.

    ``uptime_cs`` counted ``epoch`` (host wall clock, mid-point of the two uptime readings around
    ``date``); ``offset`` is the host's clock minus the controller's. Without a host wall-clock
    reading (no ``date``), ``fallback_epoch`` (the controller's time when the line arrived) is used.
    """

    uptime_cs: float
    epoch: float
    offset: ClockOffset = ZERO

    @classmethod
    def of(cls, line: ClockLine, offset: ClockOffset, fallback_epoch: float) -> HostClock:
        mid = (line.before_cs + line.after_cs) / 2
        if line.epoch is None:
            return cls(mid, fallback_epoch, ZERO)
        return cls(mid, line.epoch, offset)

    def to_epoch(self, uptime_cs: int) -> float:
        """The controller's wall-clock time of a reading taken at ``uptime_cs`` on the host."""
        return self.epoch + (uptime_cs - self.uptime_cs) / 100 - self.offset.offset_s
