"""The simulated engine's link model: what a guc transfer would measure on a described link.

Seeded and deterministic, so strategies can be compared over thousands of campaigns and a resumed
simulated run repeats exactly what an uninterrupted one does. It is a *model*, deliberately simple
(the one in ../shared/research/autotune-tracing.md §2.4, Appendix A), and every result it produces
is labelled SIMULATED. It never stands in for a real-guc test.

How a configuration's rate comes about (rates in MiB/s, MB = 2^20 bytes as in guc):

* streams ``p``: guc ``-p`` (extended block mode, MODE E); without ``-p`` guc uses stream mode, one
  stream with no per-stream set-up;
* per-stream window ``w``: ``-tcp-bs`` capped by the kernel's limit (``buffer_cap``, the ends'
  net.core.rmem_max / wmem_max), or the kernel's autotuned ``window`` when ``-tcp-bs`` is not given;
* throughput ``min(bandwidth, p * w / rtt) * (1 - contention * p) * block efficiency``, never more
  than ``bandwidth`` (a block size above guc's default gains nothing past the link's capacity);
* time ``setup + per_stream * p + length / throughput`` (``-fast`` halves the per-stream set-up;
  ``-cc`` and ``-pp`` change nothing for one file): the fastest the path allows;
* noise only slows: the time is multiplied by a factor of at least 1, ``exp(sigma * |Z|)`` (Z
  standard normal: a half-lognormal, most runs near the fastest and a tail of slower ones), sigma
  chosen so that the factor's coefficient of variation is ``noise``; with probability ``outliers`` a
  run is slowed further to 0.5-0.8x of its rate (a competing flow, a stall); with probability
  ``failures`` it fails; a run longer than the timeout times out.

So no run, however noisy, reports a rate the link cannot carry: its data phase (guc's average) is at
most ``bandwidth``, and its rate incl. set-up less. What the model cannot produce: runs faster than
its noise-free time, links shared between runs (concurrent simulated runs are each computed alone,
so their sum may exceed the link), losses, slow start, or anything a real transfer measures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from gftpwb.core.units import MIB, parse_duration, parse_fraction, parse_rate, parse_size

if TYPE_CHECKING:  # numpy is imported when a run is simulated, not whenever a scenario is loaded
    import numpy as np

OUTLIER_LOW, OUTLIER_HIGH = 0.5, 0.8
DEFAULT_BLOCK = 256 * 1024  # guc's default block size, the block-efficiency reference


@dataclass(frozen=True)
class LinkModel:
    """A simulated path between the two ends of a transfer; see the module docstring."""

    bandwidth_mib_s: float = 1024.0
    rtt_s: float = 0.020
    window: int = 4 * MIB
    buffer_cap: int | None = None
    setup_s: float = 0.4
    per_stream_s: float = 0.02
    contention: float = 0.004
    noise: float = 0.03
    outliers: float = 0.0
    failures: float = 0.0
    seed: int = 0
    time_scale: float = 0.0  # the simulated engine sleeps this fraction of each simulated duration

    def describe(self) -> str:
        cap = f", buffer cap {self.buffer_cap // MIB}M" if self.buffer_cap else ""
        return (f"SIMULATED link: {self.bandwidth_mib_s:g} MiB/s, RTT {self.rtt_s * 1000:g} ms, "
                f"window {self.window / MIB:g}M{cap}, noise {self.noise:.0%}, seed {self.seed}")


@dataclass(frozen=True)
class Transfer:
    """What a guc transfer is, as far as the model cares: the guc options that change the rate."""

    parallel: int | None = None
    tcp_buffer: int | None = None
    block_size: int | None = None
    fast: bool = False
    length: int = 4 * 1024 * MIB


@dataclass(frozen=True)
class SimOutcome:
    status: str  # "passed", "failed" or "timeout"
    seconds: float
    rate_incl_setup_mib_s: float | None
    rate_guc_avg_mib_s: float | None
    error: str = ""


def effective_window(link: LinkModel, transfer: Transfer) -> int:
    if transfer.tcp_buffer is None:
        return link.window
    return min(transfer.tcp_buffer, link.buffer_cap) if link.buffer_cap else transfer.tcp_buffer


def data_rate(link: LinkModel, transfer: Transfer) -> float:
    """Throughput of the data phase without noise, MiB/s."""
    streams = transfer.parallel or 1
    per_stream = effective_window(link, transfer) / MIB / link.rtt_s
    rate = min(link.bandwidth_mib_s, streams * per_stream) * max(1.0 - link.contention * streams, 0.05)
    if transfer.block_size:
        efficiency = transfer.block_size / (transfer.block_size + 4096)
        rate *= efficiency / (DEFAULT_BLOCK / (DEFAULT_BLOCK + 4096))
    return min(rate, link.bandwidth_mib_s)


def setup_seconds(link: LinkModel, transfer: Transfer) -> float:
    if transfer.parallel is None:  # stream mode: the control connection's data channel only
        return link.setup_s
    per_stream = link.per_stream_s * (0.5 if transfer.fast else 1.0)
    return link.setup_s + per_stream * transfer.parallel


def base_seconds(link: LinkModel, transfer: Transfer) -> float:
    return setup_seconds(link, transfer) + transfer.length / MIB / data_rate(link, transfer)


def expected_rate(link: LinkModel, transfer: Transfer) -> float:
    """The true mean of the measured rate (incl. set-up) over successful runs, timeouts ignored:
    the yardstick "within the margin of the true best" is judged against."""
    base = transfer.length / MIB / base_seconds(link, transfer)
    sigma = slowdown_sigma(link.noise)
    # E[1 / exp(sigma |Z|)] = 2 exp(sigma^2 / 2) Phi(-sigma)
    noise_mean = math.exp(sigma * sigma / 2) * math.erfc(sigma / math.sqrt(2))
    outlier_mean = (OUTLIER_LOW + OUTLIER_HIGH) / 2
    return base * noise_mean * (1 - link.outliers + link.outliers * outlier_mean)


def _slowdown_cv(sigma: float) -> float:
    """The coefficient of variation of ``exp(sigma |Z|)``, from its first two moments
    (``E[exp(k sigma |Z|)] = 2 exp(k^2 sigma^2 / 2) Phi(k sigma)``)."""
    mean = math.exp(sigma * sigma / 2) * (1 + math.erf(sigma / math.sqrt(2)))
    square = math.exp(2 * sigma * sigma) * (1 + math.erf(2 * sigma / math.sqrt(2)))
    return math.sqrt(max(square / (mean * mean) - 1, 0.0))


@lru_cache(maxsize=64)
def slowdown_sigma(cv: float) -> float:
    """The sigma of the slowdown factor ``exp(sigma |Z|)`` whose coefficient of variation is ``cv``
    (bisection: the CV grows with sigma, from 0 at sigma 0)."""
    if cv <= 0:
        return 0.0
    low, high = 0.0, 4.0  # a CV of 100 % (the most noise takes) needs sigma about 1.03
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if _slowdown_cv(middle) < cv else (low, middle)
    return (low + high) / 2


def run_rng(seed: int, key: str) -> np.random.Generator:
    """The generator of one run: a function of the link seed and the run's id only, so a run draws
    the same numbers whatever ran before it (resume, ``--only``, order)."""
    import hashlib  # here: planning needs the link model, not its seeds

    import numpy as np

    digest = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")
    return np.random.default_rng([seed & 0xFFFFFFFFFFFFFFFF, digest])


def simulate(link: LinkModel, transfer: Transfer, rng: np.random.Generator,
             timeout_s: float | None = None) -> SimOutcome:
    """One simulated transfer. Always draws the same amount of randomness, so outcomes line up."""
    draws = rng.random(4)
    factor = math.exp(-slowdown_sigma(link.noise) * abs(float(rng.standard_normal())))  # <= 1: only slower
    if draws[0] < link.outliers:
        factor *= OUTLIER_LOW + (OUTLIER_HIGH - OUTLIER_LOW) * draws[1]
    setup = setup_seconds(link, transfer)
    seconds = base_seconds(link, transfer) / factor
    data_seconds = max(seconds - setup, 1e-6)
    if draws[2] < link.failures:
        at = round(setup + draws[3] * (seconds - setup), 6)
        return SimOutcome("failed", at, None, None, "SIMULATED failure: the data connection was reset")
    if timeout_s and seconds > timeout_s:
        return SimOutcome("timeout", float(timeout_s), None, None,
                          f"SIMULATED timeout: the transfer needed {seconds:.1f}s")
    mib = transfer.length / MIB  # rates from the unrounded time: rounding never makes a run faster
    return SimOutcome("passed", round(seconds, 6), mib / seconds, mib / data_seconds)


def build_link(data: dict[str, Any] | None) -> LinkModel | None:
    """The link model a ``link:`` mapping describes (defaults for what it leaves out)."""
    if data is None:
        return None
    base = LinkModel()
    converters: dict[str, tuple[str, Any]] = {
        "bandwidth": ("bandwidth_mib_s", parse_rate), "rtt": ("rtt_s", parse_duration),
        "window": ("window", parse_size),
        "buffer_cap": ("buffer_cap", parse_size), "setup": ("setup_s", parse_duration),
        "per_stream": ("per_stream_s", parse_duration), "contention": ("contention", float),
        "noise": ("noise", parse_fraction), "outliers": ("outliers", parse_fraction),
        "failures": ("failures", parse_fraction), "seed": ("seed", int), "time_scale": ("time_scale", float),
    }
    values = {field: convert(data[key]) for key, (field, convert) in converters.items() if key in data}
    return LinkModel(**{**base.__dict__, **values})
