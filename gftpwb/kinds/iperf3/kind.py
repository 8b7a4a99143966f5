"""The ``iperf3`` kind: a network baseline between two hosts (registered as entry point
``gftpwb.kinds: iperf3``). Everything about it lives in this folder; this module is its manifest, its
language and planning (:mod:`.facets`) are imported when a scenario has an iperf3 test."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gftpwb.core.registry import (
    Figure,
    ImportedDsl,
    ImportedPlanner,
    Kind,
    Metric,
    Present,
    Report,
    ReportSection,
    Run,
)

if TYPE_CHECKING:
    from gftpwb.core.records import ResultRecord
    from gftpwb.core.specs import RunSpec

# iperf3's receiver rate after the omitted seconds (its own clock; the record keeps it where a guc
# record keeps guc's own average), then all bytes over the client's wall time.
RECEIVER = Figure("rate_guc_avg_mib_s", "iperf3 rate", "MiB/s", ("rate_guc_avg_mib_s",))
WALL = Figure("rate_incl_setup_mib_s", "rate incl. omit + set-up", "MiB/s", ("rate_incl_setup_mib_s",))
METRICS = (
    Metric("median_rate", "median iperf3 receiver rate of the case's counted runs", "MiB/s", RECEIVER.key, "median"),
    Metric("mean_rate", "mean iperf3 receiver rate", "MiB/s", RECEIVER.key, "mean"),
    Metric("min_rate", "slowest counted run's iperf3 receiver rate", "MiB/s", RECEIVER.key, "min"),
    Metric("cv", "coefficient of variation of the receiver rate (stdev / mean)", "%", RECEIVER.key, "cv"),
)


class Iperf3Present(Present):
    def waiting(self, spec: RunSpec) -> str:
        return "starting the iperf3 server; progress comes from its interval reports (every second)"

    def headline(self, record: ResultRecord) -> str:
        from .report import headline

        return headline(record)

    def params_text(self, params: dict[str, Any]) -> str:
        from .report import params_text

        return params_text(params)


KIND = Kind(
    name="iperf3",
    description=("a network baseline: iperf3 from a client host to a server started for each run on a "
                 "server host (memory to memory, as guc from /dev/zero to /dev/null)."),
    order=50,
    dsl=ImportedDsl("gftpwb.kinds.iperf3.facets:Iperf3Dsl"),
    planner=ImportedPlanner("gftpwb.kinds.iperf3.facets:Iperf3Planner"),
    run=Run("gftpwb.kinds.iperf3.run.runner:run"),
    report=Report(ReportSection("iperf3", 25, "gftpwb.kinds.iperf3.report:tables"), figures=(RECEIVER, WALL),
                  metrics=METRICS),
    present=Iperf3Present(),
)
