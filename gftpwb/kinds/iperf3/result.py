"""The iperf3 client's JSON (``-J``) as figures for the record, and the RTT an RTT probe measured. Pure.

What iperf3 3.12 does that matters here (checked on Debian 12's iperf3):

* with ``-J`` an error is the JSON's ``"error"`` text and the exit status is still **0**, so the
  status comes from the JSON, not only from the exit status;
* ``end.sum_received`` counts what arrived after the omitted seconds; omitted intervals are in
  ``intervals`` with ``"omitted": true``;
* RTTs (``min_rtt``, ``mean_rtt``, ``max_rtt``, microseconds) are the sender's ``tcp_info``; a
  reverse test's client is the receiver and reports them as 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gftpwb.core.units import MIB


class Iperf3OutputError(ValueError):
    """The client printed no usable JSON, or iperf3 reported an error in it."""


def _mib_s(bits_per_second: Any) -> float | None:
    return round(float(bits_per_second) / 8 / MIB, 3) if isinstance(bits_per_second, int | float) else None


def _ms(microseconds: Any) -> float | None:
    return round(microseconds / 1000, 3) if isinstance(microseconds, int | float) and microseconds > 0 else None


def parse_json(text: str) -> dict[str, Any]:
    """The client's JSON document; :class:`Iperf3OutputError` when there is none or it says ``error``."""
    start = text.find("{")
    if start < 0:
        raise Iperf3OutputError("the iperf3 client printed no JSON result")
    try:
        data = json.loads(text[start:])
    except ValueError as exc:
        raise Iperf3OutputError(f"the iperf3 client's JSON result is incomplete or damaged ({exc})") from None
    if not isinstance(data, dict):
        raise Iperf3OutputError("the iperf3 client's JSON result is not an object")
    if data.get("error"):
        raise Iperf3OutputError(f"iperf3: {data['error']}")
    return data


def probe_rtt_s(text: str) -> float:
    """The smallest RTT (seconds) the probe's sender saw; :class:`Iperf3OutputError` without one."""
    data = parse_json(text)
    rtts = [s.get("sender", {}).get("min_rtt") for s in data.get("end", {}).get("streams", [])]
    known = [r for r in rtts if isinstance(r, int | float) and r > 0]
    if not known:
        raise Iperf3OutputError("the RTT probe reported no RTT (tcp_info min_rtt); set rtt: on the test")
    return min(known) / 1e6


def _side(block: dict[str, Any]) -> dict[str, Any]:
    out = {"bytes": block.get("bytes"), "seconds": block.get("seconds"),
           "bits_per_second": block.get("bits_per_second"), "mib_s": _mib_s(block.get("bits_per_second"))}
    if "retransmits" in block:
        out["retransmits"] = block["retransmits"]
    return out


def _stream(number: int, entry: dict[str, Any]) -> dict[str, Any]:
    sender, receiver = entry.get("sender", {}), entry.get("receiver", {})
    return {
        "stream": number, "socket": sender.get("socket", receiver.get("socket")),
        "sent_bytes": sender.get("bytes"), "sent_mib_s": _mib_s(sender.get("bits_per_second")),
        "received_bytes": receiver.get("bytes"), "received_mib_s": _mib_s(receiver.get("bits_per_second")),
        "retransmits": sender.get("retransmits"), "max_snd_cwnd": sender.get("max_snd_cwnd") or None,
        "min_rtt_ms": _ms(sender.get("min_rtt")), "mean_rtt_ms": _ms(sender.get("mean_rtt")),
        "max_rtt_ms": _ms(sender.get("max_rtt")),
    }


@dataclass(frozen=True)
class Iperf3Result:
    """What the record keeps of a finished client run."""

    received_bytes: int
    received_mib_s: float | None
    omitted_bytes: int
    figures: dict[str, Any]


def summarize(data: dict[str, Any]) -> Iperf3Result:
    """Totals, per-stream figures, retransmits, buffers and CPU of a finished run."""
    start, end = data.get("start", {}), data.get("end", {})
    sent, received = end.get("sum_sent", {}), end.get("sum_received", {})
    if not isinstance(received.get("bytes"), int):
        raise Iperf3OutputError("the iperf3 client's JSON has no end.sum_received (the test did not finish)")
    sums = [i.get("sum", {}) for i in data.get("intervals", [])]
    omitted = sum(s.get("bytes", 0) for s in sums if s.get("omitted"))
    cpu = end.get("cpu_utilization_percent", {})
    test = start.get("test_start", {})
    figures = {
        "version": start.get("version"),
        "streams": [_stream(n, s) for n, s in enumerate(end.get("streams", []), start=1)],
        "sent": _side(sent), "received": _side(received),
        "retransmits": sent.get("retransmits"),
        "omitted_bytes": omitted,
        "intervals": len(data.get("intervals", [])),
        "socket_buffer_requested": start.get("sock_bufsize") or None,
        "sndbuf_actual": start.get("sndbuf_actual"), "rcvbuf_actual": start.get("rcvbuf_actual"),
        "tcp_mss_default": start.get("tcp_mss_default"), "block_size": test.get("blksize"),
        "cpu_percent": {"client": _round(cpu.get("host_total")), "server": _round(cpu.get("remote_total"))},
        "congestion": {"sender": end.get("sender_tcp_congestion"), "receiver": end.get("receiver_tcp_congestion")},
    }
    return Iperf3Result(received["bytes"], _mib_s(received.get("bits_per_second")), omitted, figures)


def _round(value: Any) -> float | None:
    return round(value, 2) if isinstance(value, int | float) else None
