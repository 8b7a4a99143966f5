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
* throughput ``min(bandwidth, p * w / rtt) * (1 - contention * p) * block efficiency``;
* time ``setup + per_stream * p + length / throughput`` (``-fast`` halves the per-stream set-up;
  ``-cc`` and ``-pp`` change nothing for one file);
* noise: the time is divided by a lognormal factor with mean 1 and coefficient of variation
  ``noise``; with probability ``outliers`` a run is slowed to 0.5-0.8x (a competing flow, a stall);
  with probability ``failures`` it fails; a run longer than the timeout times out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
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
    return rate


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
    outlier_mean = (OUTLIER_LOW + OUTLIER_HIGH) / 2
    return base * (1 - link.outliers + link.outliers * outlier_mean)


def _lognormal_sigma(cv: float) -> float:
    return math.sqrt(math.log1p(cv * cv))


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
    sigma = _lognormal_sigma(link.noise)
    factor = math.exp(sigma * float(rng.standard_normal()) - sigma * sigma / 2)
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
    seconds = round(seconds, 6)
    mib = transfer.length / MIB
    return SimOutcome("passed", seconds, mib / seconds, mib / data_seconds)


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
