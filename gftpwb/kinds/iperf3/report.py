"""iperf3 results for people: the console's line for a run, and the report's table of cases. Pure.

Rates are iperf3's own receiver rate (after the omitted seconds), in MiB/s as everywhere in gftpwb,
and in Mbit/s (decimal) as network people quote them.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Any

from gftpwb.core.format import human_bytes, rate_text
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import ReportTable
from gftpwb.core.units import MIB, format_size_arg

from .job import Iperf3Job


def mbit_s(mib_s: float | None) -> float | None:
    return None if mib_s is None else mib_s * MIB * 8 / 1e6


def params_text(params: dict[str, Any]) -> str:
    """``h1 -> h2 -P 4 -w bdp -t 10``."""
    try:
        job = Iperf3Job.from_params(dict(params))
        return f"{job.client} -> {job.server} {job.settings_text()}"
    except (TypeError, ValueError):
        return " ".join(f"{k}={v}" for k, v in params.items())


def _window_text(info: dict[str, Any]) -> str:
    window = info.get("window_bytes")
    if window is None:
        return "auto"
    text = format_size_arg(window) if window % 1024 == 0 else f"{window} B"
    if info.get("window_from") == "bdp":
        rtt = " ".join(filter(None, (f"RTT {rate_text(info.get('rtt_ms'), 3)} ms", info.get("rtt_from"))))
        text += f" (bdp, {rtt})"
    return text


def headline(record: ResultRecord) -> str:
    info: dict[str, Any] = record.details.get("iperf3") or {}
    streams = len(info.get("streams") or []) or record.params.get("streams", 1)
    retr = info.get("retransmits")
    return (f"{human_bytes(record.bytes)} received: {rate_text(record.rate_guc_avg_mib_s)} MiB/s "
            f"({rate_text(mbit_s(record.rate_guc_avg_mib_s))} Mbit/s), {streams} stream(s), "
            f"{'-' if retr is None else retr} retransmits, window {_window_text(info)}")


def _mean(values: list[Any]) -> float | None:
    known = [v for v in values if isinstance(v, int | float)]
    return fmean(known) if known else None


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per case: iperf3's receiver rate (mean, min, max of the passed runs), retransmits,
    window and RTT."""
    groups: dict[tuple[str, int], list[ResultRecord]] = {}
    for record in records:
        groups.setdefault((record.test_id, record.case), []).append(record)
    rows = []
    for (test_id, case), group in groups.items():
        ok = [r for r in group if r.status == PASSED]
        rates = [r.rate_guc_avg_mib_s for r in ok if r.rate_guc_avg_mib_s is not None]
        infos = [r.details.get("iperf3") or {} for r in ok]
        mean = fmean(rates) if rates else None
        rows.append(((test_id, f"{case:03d}", params_text(group[0].params), f"{len(ok)}/{len(group)}", rate_text(mean),
                      rate_text(min(rates) if rates else None), rate_text(max(rates) if rates else None),
                      rate_text(mbit_s(mean)), rate_text(_mean([i.get("retransmits") for i in infos]), 0),
                      _window_text(infos[-1]) if infos else "-"), "" if len(ok) == len(group) else "red"))
    columns = (("test", "left"), ("#", "right"), ("client -> server, iperf3 settings", "left"), ("ok/runs", "right"),
               ("mean MiB/s", "right"), ("min", "right"), ("max", "right"), ("mean Mbit/s", "right"),
               ("retransmits", "right"), ("window", "left"))
    return [ReportTable("iperf3 baselines (receiver rate after the omitted seconds)",
                        "MiB/s = 2^20 bytes/s; Mbit/s = 10^6 bits/s; retransmits: mean per run", columns, tuple(rows),
                        keys=2)]
