"""The report's table of the monitors over the whole scenario run: the headline figures of each
monitor on each host (mean and max). Everything else is in ``monitors.jsonl`` and, per run, in
``monitor-summaries.jsonl``. Pure."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from typing import Any

from gftpwb.core.registry import ReportTable

from .model import COMMAND, CPU, DISK, MEMORY, NET, TCP

HEADLINES: dict[str, tuple[str, ...]] = {
    CPU: ("busy_pct", "load1"),
    MEMORY: ("used_mib",),
    NET: ("*.rx_mib_s", "*.tx_mib_s", "*.rx_drops_s", "*.tx_drops_s"),
    DISK: ("*.util_pct", "*.read_mib_s", "*.write_mib_s"),
    TCP: ("connections", "cwnd_mean", "rtt_ms_mean", "retrans_s", "delivery_mbit_s"),
    COMMAND: ("*",),
}
# Per-interface and per-device figures that stayed at zero are left out (a host has many idle ones).
SKIP_IDLE = (NET, DISK)


def _number(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"


def monitors_table(figures: Mapping[str, Mapping[str, Mapping[str, Mapping[str, Any]]]],
                   types: Mapping[str, str], samples: int) -> ReportTable:
    """One row per headline figure of each monitor and host, in the order of ``monitors:``."""
    rows = []
    order = [*(m for m in types if m in figures), *(m for m in figures if m not in types)]
    for monitor in order:
        hosts = figures[monitor]
        kind = types.get(monitor, COMMAND)
        patterns = HEADLINES.get(kind, ("*",))
        for host, values in hosts.items():
            for pattern in patterns:
                for name in sorted(n for n in values if fnmatch.fnmatchcase(n, pattern)):
                    stat = values[name]
                    if kind in SKIP_IDLE and stat["max"] == 0:
                        continue
                    rows.append(((monitor, host, name, _number(stat["mean"]), _number(stat["max"]),
                                  str(stat["n"])), ""))
    return ReportTable(
        title=f"Monitors over the whole run ({samples} samples)",
        caption="mean weighted by time; idle interfaces and devices left out (all in monitors.jsonl, per run "
                "in monitor-summaries.jsonl)",
        columns=(("monitor", "left"), ("host", "left"), ("figure", "left"), ("mean", "right"), ("max", "right"),
                 ("samples", "right")),
        rows=tuple(rows), keys=2)
