"""A WAN link of the lab, as settings: round-trip time, loss, rate, jitter, MTU; what they imply.

The lab makes such a link between two namespace hosts with a user-space delay line (the kernel has
no netem): :mod:`gftpwb.shell.lab.wan` does that, this module says what a link *is*, pure, so the
command line, the lab, ``meta.json`` and the simulated engine read and write one vocabulary:

* ``rtt`` is split evenly between the two directions (each way ``rtt / 2``);
* ``loss`` is the probability that the line drops a packet, independently, in each direction;
* ``rate`` is a tc rate (``1gbit``) applied by tbf on each end's TUN device, with a queue sized to
  the path's bandwidth-delay product (at least a few packets), so a sender meets a bottleneck with
  a buffer a WAN router of that path would have;
* ``jitter`` adds a uniform ``[-jitter, +jitter]`` to each packet's one-way delay, never reordering;
* ``mtu`` is the TUN devices' MTU (9000: jumbo frames, as research networks run).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from .units import parse_duration, parse_fraction

# tc's rate syntax (tc(8) "RATES"): what --rate takes, and tbf is given unchanged.
RATE_PATTERN = re.compile(r"^\d+(\.\d+)?(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps)$", re.IGNORECASE)
_RATE_UNITS = {"bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9, "tbit": 1e12,
               "bps": 8, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9}
MAX_RTT_S = 10.0
DEFAULT_MTU = 9000
MIN_QUEUE_PACKETS = 8  # a shaper's queue holds at least this many full packets, however small the BDP
OFFLOAD_PACKET = 65536  # with segmentation offload a packet the line carries is up to 64 KiB
PAIR_PATTERN = re.compile(r"^(h\d+)-(h\d+)$")
KEYS = ("rtt", "loss", "rate", "jitter", "mtu")


def parse_tc_rate(text: str) -> float:
    """Bits per second of a tc rate (``400mbit``, ``1gbit``, ``100mbps``); ValueError for a user."""
    match = RATE_PATTERN.fullmatch(text.strip()) if isinstance(text, str) else None
    if not match:
        raise ValueError(f"bad rate {text!r}: use a tc rate such as 400mbit, 1gbit or 100mbps")
    unit = match.group(2).lower()
    return float(text.strip()[: -len(unit)]) * _RATE_UNITS[unit]


def parse_rtt(text: str | float) -> float:
    """Seconds of a round-trip time or jitter (``60ms``, ``0.06``); ValueError for a user."""
    seconds = parse_duration(text)
    if seconds > MAX_RTT_S:
        raise ValueError(f"{text!r} is longer than {MAX_RTT_S:g} s, more than any path on Earth has")
    return seconds


def parse_loss(text: str | float) -> float:
    """The drop probability of a loss (``0.01%``, ``0.0001``); ValueError for a user."""
    value = parse_fraction(text)
    if not 0 <= value < 1:
        raise ValueError(f"bad loss {text!r}: a share below 100 % (e.g. 0.01% or 0.0001)")
    return value


def parse_mtu(text: str | int) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise ValueError(f"bad MTU {text!r}: a whole number of bytes, 576 to 65000") from None
    if not 576 <= value <= 65000:
        raise ValueError(f"bad MTU {text!r}: a whole number of bytes, 576 to 65000")
    return value


@dataclass(frozen=True)
class LinkSettings:
    """What one WAN link of the lab is asked to be; see the module docstring."""

    rtt_s: float = 0.0
    loss: float = 0.0
    rate: str = ""  # a tc rate, "" for unshaped
    jitter_s: float = 0.0
    mtu: int = DEFAULT_MTU

    @property
    def rate_bit_s(self) -> float | None:
        return parse_tc_rate(self.rate) if self.rate else None

    @property
    def one_way_us(self) -> float:
        return self.rtt_s / 2 * 1e6

    @property
    def offload(self) -> bool:
        """Segmentation offload (packets of up to 64 KiB through the line) on a lossless link: the line
        then carries several times the rate. With loss it carries every segment on its own, so a loss
        is one segment's, as on a real path."""
        return self.loss == 0

    def bdp_bytes(self) -> int | None:
        """Bandwidth x RTT, when the link has a rate."""
        rate = self.rate_bit_s
        return None if rate is None else int(rate / 8 * self.rtt_s)

    def queue_bytes(self) -> int | None:
        """The shaper's queue: the bandwidth-delay product, at least a few of the largest packets."""
        bdp = self.bdp_bytes()
        if bdp is None:
            return None
        return max(bdp, MIN_QUEUE_PACKETS * (OFFLOAD_PACKET if self.offload else self.mtu))

    def burst_bytes(self) -> int | None:
        """tbf's bucket: 1 ms at the rate, at least one of the largest packets (tbf would split a
        larger one)."""
        rate = self.rate_bit_s
        if rate is None:
            return None
        return max(int(rate / 8 / 1000), OFFLOAD_PACKET if self.offload else self.mtu) + 1024

    def tbf(self) -> list[str]:
        """``tc qdisc replace dev DEV root`` + this: the rate with its queue; [] when unshaped."""
        if not self.rate:
            return []
        return ["tbf", "rate", self.rate, "burst", str(self.burst_bytes()), "limit", str(self.queue_bytes())]

    def line_settings(self, seed: int, buffer_bytes: int) -> str:
        """The delay line's settings file (key = value, read at start and on SIGHUP)."""
        return (f"delay_us = {self.one_way_us:.3f}\njitter_us = {self.jitter_s * 1e6:.3f}\n"
                f"loss = {self.loss:.12g}\nseed = {seed}\nbuffer_bytes = {buffer_bytes}\n")

    def describe(self) -> str:
        parts = [f"RTT {_ms(self.rtt_s)}"]
        if self.jitter_s:
            parts.append(f"jitter ±{_ms(self.jitter_s)}")
        parts.append(f"loss {self.loss * 100:g} %" if self.loss else "no loss")
        parts.append(f"rate {self.rate}" if self.rate else "unshaped")
        parts.append(f"MTU {self.mtu}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "rtt_ms": round(self.rtt_s * 1000, 6), "jitter_ms": round(self.jitter_s * 1000, 6),
                "rate_bit_s": self.rate_bit_s, "bdp_bytes": self.bdp_bytes(), "queue_bytes": self.queue_bytes(),
                "offload": self.offload}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LinkSettings:
        return cls(rtt_s=float(data.get("rtt_s", 0.0)), loss=float(data.get("loss", 0.0)),
                   rate=str(data.get("rate") or ""), jitter_s=float(data.get("jitter_s", 0.0)),
                   mtu=int(data.get("mtu", DEFAULT_MTU)))

    def changed(self, values: Mapping[str, str]) -> LinkSettings:
        """These settings with ``values`` (``{"rtt": "60ms", "rate": "1gbit"}``, as typed) applied;
        ValueError naming the bad one. ``rate: ""`` or ``none`` takes the rate away."""
        out = self
        for key, text in values.items():
            if key == "rtt":
                out = replace(out, rtt_s=parse_rtt(text))
            elif key == "loss":
                out = replace(out, loss=parse_loss(text))
            elif key == "rate":
                rate = "" if text in ("", "none", "unshaped") else text.strip()
                if rate:
                    parse_tc_rate(rate)
                out = replace(out, rate=rate)
            elif key == "jitter":
                out = replace(out, jitter_s=parse_rtt(text))
            elif key == "mtu":
                out = replace(out, mtu=parse_mtu(text))
            else:
                raise ValueError(f"unknown link setting {key!r}: use {', '.join(KEYS)}")
        if out.jitter_s and out.jitter_s > out.rtt_s / 2:
            raise ValueError(f"jitter {_ms(out.jitter_s)} is more than the one-way delay ({_ms(out.rtt_s / 2)})")
        return out


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:g} ms"


def parse_pair(text: str) -> tuple[str, str]:
    """``h1-h2`` -> ("h1", "h2"), the hosts in order; ValueError for a user."""
    match = PAIR_PATTERN.fullmatch(text.strip())
    if not match or match.group(1) == match.group(2):
        raise ValueError(f"bad host pair {text!r}: two lab hosts joined by '-', such as h1-h2")
    return _ordered(match.group(1), match.group(2))


def _ordered(a: str, b: str) -> tuple[str, str]:
    return (a, b) if int(a[1:]) < int(b[1:]) else (b, a)


def parse_link_option(text: str) -> tuple[tuple[str, str], dict[str, str]]:
    """``--link h1-h2:rtt=60ms,loss=0.01%`` -> (("h1", "h2"), {"rtt": "60ms", "loss": "0.01%"})."""
    pair_text, sep, rest = text.partition(":")
    pair = parse_pair(pair_text)
    values: dict[str, str] = {}
    for item in (rest.split(",") if sep and rest.strip() else []):
        key, eq, value = item.partition("=")
        if not eq or key.strip() not in KEYS:
            raise ValueError(f"bad link setting {item!r} in {text!r}: use KEY=VALUE with KEY one of {', '.join(KEYS)}")
        values[key.strip()] = value.strip()
    return pair, values


def plan_links(hosts: Iterable[str], default: LinkSettings | None,
               pairs: Mapping[tuple[str, str], Mapping[str, str]]) -> dict[tuple[str, str], LinkSettings]:
    """Every WAN link of a lab: with ``default``, one between every two hosts; each pair in ``pairs``
    takes ``default`` (or plain settings) with its own values on top. ValueError for an unknown host."""
    names = list(hosts)
    out: dict[tuple[str, str], LinkSettings] = {}
    if default is not None:
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                out[_ordered(a, b)] = default
    for pair, values in pairs.items():
        for name in pair:
            if name not in names:
                raise ValueError(f"--link {pair[0]}-{pair[1]}: the lab has no host {name} (hosts: {', '.join(names)})")
        out[pair] = (default or LinkSettings()).changed(values)
    return dict(sorted(out.items(), key=lambda item: (int(item[0][0][1:]), int(item[0][1][1:]))))


def links_on_path(links: Iterable[Mapping[str, Any]], addresses: Iterable[str], devices: Iterable[str]) -> list[dict]:
    """The lab links a run's traffic may have crossed, for ``meta.json``: a link whose TUN device a
    host routed through, or both of whose ends' addresses the run talked to or ran on."""
    seen_addresses = set(addresses)
    seen_devices = set(devices)
    out = []
    for link in links:
        ends = link.get("ends", [])
        through = any(end.get("device") in seen_devices for end in ends)
        both = len(ends) == 2 and all(end.get("address") in seen_addresses for end in ends)
        if through or both:
            out.append(dict(link))
    return out
