"""Clock offset of a host against the controller, from request/response time samples. Pure.

The controller notes its wall clock just before asking the host for the time (``sent``) and just
after the answer arrives (``received``); the host answers with its own wall clock (``remote``). As in
NTP, the host's reading is assumed to fall in the middle of the round trip, so the offset is
``remote - (sent + received) / 2``, known to within half the round trip. The sample with the shortest
round trip is the least disturbed (scheduling, queueing), so that one is used.

Synchronised starts (gfapi) convert a host's timestamps to controller time with
:func:`to_controller_time`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class ClockSample:
    """One exchange, all in seconds since the epoch: controller before, host reading, controller after."""

    sent: float
    remote: float
    received: float

    @property
    def rtt(self) -> float:
        return self.received - self.sent

    @property
    def offset(self) -> float:
        return self.remote - (self.sent + self.received) / 2


@dataclass(frozen=True)
class ClockOffset:
    """How far the host's clock is ahead of the controller's (negative: behind), ± ``uncertainty_s``."""

    offset_s: float
    uncertainty_s: float
    samples: int

    def to_dict(self) -> dict[str, float | int]:
        return {"offset_s": self.offset_s, "uncertainty_s": self.uncertainty_s, "samples": self.samples}


ZERO = ClockOffset(0.0, 0.0, 0)  # the controller itself


def estimate_offset(samples: Iterable[ClockSample]) -> ClockOffset:
    """The offset from the sample with the shortest round trip; raises ValueError without samples."""
    usable = [s for s in samples if s.rtt >= 0]
    if not usable:
        raise ValueError("no usable clock samples")
    best = min(usable, key=lambda s: s.rtt)
    return ClockOffset(offset_s=best.offset, uncertainty_s=best.rtt / 2, samples=len(usable))


def to_controller_time(remote_time: float, offset: ClockOffset) -> float:
    """A timestamp read on the host, expressed on the controller's clock."""
    return remote_time - offset.offset_s


def parse_remote_time(text: str) -> float:
    """A host's answer: seconds since the epoch as printed by ``date +%s.%N`` or bash's
    ``$EPOCHREALTIME`` (whose decimal mark follows the locale, so a comma is accepted)."""
    value = text.strip().replace(",", ".")
    try:
        result = float(value)
    except ValueError:
        raise ValueError(f"not a timestamp: {text.strip()[:40]!r}") from None
    if result != result or result <= 0:  # NaN or nonsense
        raise ValueError(f"not a timestamp: {text.strip()[:40]!r}")
    return result
