"""A sans-I/O reader of the iperf3 server's text output: the run's live progress.

iperf3 3.12 prints its JSON (``-J``) only when a test ends, and has no ``--json-stream`` (3.13 added
it), so the client's JSON gives the results and the *server's* interval reports, flushed as they
happen with ``--forceflush``, give the live figures::

    Server listening on 5201 (test #1)
    [  5] local 10.0.0.3 port 5201 connected to 10.0.0.2 port 41234
    [  5]   0.00-1.00   sec   514 MBytes  4.30 Gbits/sec                  (omitted)
    [  5]   1.00-2.00   sec   644 MBytes  5.40 Gbits/sec    3   1.75 MBytes    (reverse: Retr, Cwnd)
    [SUM]   1.00-2.00   sec  1.25 GBytes  10.7 Gbits/sec
    [  5]   0.00-6.55   sec  2.24 GBytes  2.94 Gbits/sec                  receiver

Each stream's interval becomes a progress sample of its channel (``stream 1`` ... in connection
order); once every stream has reported an interval, their sum becomes a sample of the whole run.
``[SUM]`` lines are not used: iperf3 flushes them only with the next interval. The closing summary
(``sender``/``receiver``) is skipped. Sizes are iperf3's (``MBytes`` are MiB); they carry three
significant digits, enough for a live view; the record's figures come from the client's JSON.

The server may serve an RTT probe first: samples are taken only from the ``main_test``-th test
(counted by its "Server listening" lines).
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from gftpwb.core.output import ParsedItem, ProgressSample, TextLine
from gftpwb.core.units import MIB

_UNITS = {"": 1, "K": 1024, "M": MIB, "G": 1024 * MIB, "T": 1024 * 1024 * MIB}
INTERVAL_RE = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\]\s+(?P<start>\d+(?:\.\d+)?)-(?P<end>\d+(?:\.\d+)?)\s+sec\s+"
    r"(?P<size>\d+(?:\.\d+)?)\s+(?P<unit>[KMGT]?)Bytes\s+\S+\s+[KMGT]?bits/sec(?P<rest>.*)$")
CONNECTED_RE = re.compile(r"^\[\s*(?P<id>\d+)\]\s+local\s+\S+\s+port\s+\d+\s+connected to\s+")
LISTENING = "Server listening on "
ERROR_PREFIX = "iperf3: error - "
ADDRESS_IN_USE = "Address already in use"


@dataclass
class _Stream:
    number: int
    bytes: int = 0
    seconds: float = 0.0


@dataclass
class ServerLog:
    """Feed it the server's output; it returns progress samples and text lines (prefixed ``server:``)."""

    main_test: int = 1
    tests_seen: int = 0
    errors: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    _streams: dict[str, _Stream] = field(default_factory=dict)
    _pending: dict[tuple[float, float], dict[str, tuple[int, float]]] = field(default_factory=dict)
    _decoders: dict[str, codecs.IncrementalDecoder] = field(default_factory=dict)
    _partial: dict[str, str] = field(default_factory=dict)

    @property
    def listening(self) -> int:
        """How many times the server said it listens (once per test it is ready for)."""
        return self.tests_seen

    @property
    def address_in_use(self) -> bool:
        return any(ADDRESS_IN_USE in e for e in self.errors)

    def feed(self, stream: str, data: bytes) -> list[ParsedItem]:
        decoder = self._decoders.setdefault(stream, codecs.getincrementaldecoder("utf-8")(errors="replace"))
        text = self._partial.get(stream, "") + decoder.decode(data)
        *complete, rest = text.split("\n")
        self._partial[stream] = rest
        return [item for line in complete for item in self._line(stream, line)]

    def close(self) -> list[ParsedItem]:
        items: list[ParsedItem] = []
        for stream, decoder in self._decoders.items():
            rest = self._partial.get(stream, "") + decoder.decode(b"", final=True)
            self._partial[stream] = ""
            items.extend(item for line in rest.split("\n") for item in self._line(stream, line))
        return items

    def _line(self, stream: str, raw: str) -> list[ParsedItem]:
        line = raw.rstrip("\r")
        if not line.strip():
            return []
        self.lines.append(line)
        items: list[ParsedItem] = [TextLine(stream, f"server: {line}")]
        if line.startswith(LISTENING):
            self.tests_seen += 1
            self._streams.clear()
            self._pending.clear()
        elif line.startswith(ERROR_PREFIX):
            self.errors.append(line[len(ERROR_PREFIX):].strip())
        elif self.tests_seen == self.main_test:
            items.extend(self._measure(line))
        return items

    def _measure(self, line: str) -> list[ParsedItem]:
        connected = CONNECTED_RE.match(line)
        if connected:
            key = connected["id"]
            self._streams.setdefault(key, _Stream(len(self._streams) + 1))
            return []
        match = INTERVAL_RE.match(line)
        if match is None or match["id"] == "SUM":
            return []
        rest = match["rest"].strip()
        if rest.endswith(("sender", "receiver")):
            return []  # the closing summary: the JSON has the exact figures
        stream = self._streams.setdefault(match["id"], _Stream(len(self._streams) + 1))
        start, end = float(match["start"]), float(match["end"])
        nbytes = round(float(match["size"]) * _UNITS[match["unit"]])
        seconds = max(end - start, 0.0)
        stream.bytes += nbytes
        stream.seconds += seconds
        items: list[ParsedItem] = [ProgressSample(
            stream.bytes, _mib_s(stream.bytes, stream.seconds), _mib_s(nbytes, seconds), f"stream {stream.number}")]
        pending = self._pending.setdefault((start, end), {})
        pending[match["id"]] = (nbytes, seconds)
        if len(pending) >= len(self._streams):
            del self._pending[(start, end)]
            total = sum(s.bytes for s in self._streams.values())
            elapsed = max(s.seconds for s in self._streams.values())
            interval_bytes = sum(b for b, _ in pending.values())
            interval_s = max(s for _, s in pending.values())
            items.append(ProgressSample(total, _mib_s(total, elapsed), _mib_s(interval_bytes, interval_s)))
        return items


def _mib_s(nbytes: int, seconds: float) -> float | None:
    return nbytes / MIB / seconds if seconds > 0 else None
