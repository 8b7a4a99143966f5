"""GridFTP performance markers (reply 112) in guc's ``-dbg`` output: per-stripe progress. Pure.

A striped server reports each stripe's bytes so far on the control channel, at the start, every
5 s and when the stripe ends; ``guc -dbg`` prints every reply::

    debug: response from ftp://10.0.0.1:2813/dev/null:
    112-Perf Marker
     Timestamp:  1795363503.7
     Stripe Index: 1
     Stripe Bytes Transferred: 536870912
     Total Stripe Count: 2
    112 End.

(the receiving server sends them). :class:`StripeTracker` turns markers into progress samples of
channel ``stripe <index>``: the instantaneous rate between two markers of a stripe, and its average
since the first marker of the transfer, both on the server's timestamps (0.1 s resolution), so a
burst of markers arriving late on a busy control channel still gives the right rates.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.output import ProgressSample
from gftpwb.core.units import MIB

_FIELD = re.compile(r"^\s*(Timestamp|Stripe Index|Stripe Bytes Transferred|Total Stripe Count):\s*(\S+)\s*$")


@dataclass(frozen=True)
class PerfMarker:
    timestamp: float
    stripe: int
    bytes: int
    stripes: int | None


@dataclass
class _StripeState:
    first_t: float
    last_t: float
    bytes: int = 0
    markers: int = 0
    last_bytes: int = 0


@dataclass
class StripeTracker:
    """Feed it guc's stderr lines (one at a time); it returns samples for completed markers."""

    stripe_count: int | None = None
    _fields: dict[str, str] | None = None
    _start_t: float | None = None
    _stripes: dict[int, _StripeState] = field(default_factory=dict)

    def feed_line(self, line: str) -> list[ProgressSample]:
        text = line.strip()
        if text.startswith("112-"):
            self._fields = {}
            return []
        if self._fields is None:
            return []
        if text.startswith("112 "):
            marker = self._marker(self._fields)
            self._fields = None
            return [] if marker is None else [self._sample(marker)]
        match = _FIELD.match(text)
        if match:
            self._fields[match.group(1)] = match.group(2)
        return []

    @staticmethod
    def _marker(fields: dict[str, str]) -> PerfMarker | None:
        try:
            count = fields.get("Total Stripe Count")
            return PerfMarker(float(fields["Timestamp"]), int(fields["Stripe Index"]),
                              int(fields["Stripe Bytes Transferred"]), int(count) if count else None)
        except (KeyError, ValueError):
            return None  # not a perf marker we can read: ignored, as guc itself does

    def _sample(self, marker: PerfMarker) -> ProgressSample:
        if marker.stripes:
            self.stripe_count = marker.stripes
        if self._start_t is None or marker.timestamp < self._start_t:
            self._start_t = marker.timestamp
        state = self._stripes.get(marker.stripe)
        inst = None
        if state is None:
            state = self._stripes[marker.stripe] = _StripeState(marker.timestamp, marker.timestamp)
        elif marker.timestamp > state.last_t:
            inst = (marker.bytes - state.last_bytes) / MIB / (marker.timestamp - state.last_t)
        state.last_t, state.last_bytes = max(state.last_t, marker.timestamp), marker.bytes
        state.bytes = max(state.bytes, marker.bytes)
        state.markers += 1
        since = marker.timestamp - self._start_t
        avg = marker.bytes / MIB / since if since > 0 else None
        return ProgressSample(marker.bytes, avg, inst, f"stripe {marker.stripe}")

    def summary(self) -> dict[str, Any] | None:
        """Per stripe: final bytes, markers seen, and the rate from the first marker of the transfer to
        the stripe's last one (None when they coincide); None when no marker was seen."""
        if not self._stripes or self._start_t is None:
            return None
        rows = []
        for index in sorted(self._stripes):
            state = self._stripes[index]
            span = state.last_t - self._start_t
            rows.append({"stripe": index, "bytes": state.bytes, "markers": state.markers,
                         "seconds": round(span, 1), "mib_s": round(state.bytes / MIB / span, 3) if span > 0 else None})
        return {"count": self.stripe_count or len(rows), "stripes": rows}
