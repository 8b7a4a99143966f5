"""The ``gfapi`` kind: parallel small-file workers on a GlusterFS volume (libgfapi) or a POSIX
directory, on one or many hosts (registered as entry point ``gftpwb.kinds: gfapi``). This module is
its manifest; its language and planning (:mod:`.facets`) are imported when a scenario has a gfapi test."""

from __future__ import annotations

from typing import TYPE_CHECKING

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

_LAST_DONE = ("details", "gfapi", "cluster", "last_done")
# The figures of a gfapi run that are statistics of its case, at "last done" (the whole work): files/s
# first (small files are the point), then MiB/s and IOPS.
FILES_S = Figure("files_s", "files/s", "files/s", (*_LAST_DONE, "files_s"), digits=0)
MIB_S = Figure("mib_s", "MiB/s", "MiB/s", (*_LAST_DONE, "mib_s"))
IOPS = Figure("iops", "IOPS", "IOPS", (*_LAST_DONE, "iops"), digits=0)
METRICS = (
    Metric("files_per_s", "median files/s at last done of the case's counted runs", "", FILES_S.key, "median"),
    Metric("median_rate", "median MiB/s at last done", "MiB/s", MIB_S.key, "median"),
    Metric("iops", "median IOPS at last done", "", IOPS.key, "median"),
    Metric("cv", "coefficient of variation of files/s (stdev / mean)", "%", FILES_S.key, "cv"),
)


class GfapiPresent(Present):
    def waiting(self, spec: RunSpec) -> str:
        return "building, connecting and preparing the workers; measurement starts when all are ready"

    def headline(self, record: ResultRecord) -> str:
        from .report import gfapi_headline

        return gfapi_headline(record)

    def partial_headline(self, record: ResultRecord) -> str:
        from .report import partial_headline

        return partial_headline(record)

    def remarks(self, record: ResultRecord) -> tuple[str, ...]:
        from .report import remarks

        return remarks(record)


class GfapiReport(Report):
    """gfapi's facts of a run, for reports as data (``report --json``): whether its figures are too short
    to publish, and what a partial run's surviving threads measured."""

    def facts(self, record: ResultRecord) -> dict[str, str | float | int | bool | None]:
        from .report import run_facts

        return run_facts(record)

    def measurement(self, record: ResultRecord) -> dict[str, str]:
        from .report import measurement

        return measurement(record)


KIND = Kind(
    name="gfapi",
    description="parallel small-file workers on a GlusterFS volume (libgfapi) or a POSIX directory.",
    order=40,
    dsl=ImportedDsl("gftpwb.kinds.gfapi.facets:GfapiDsl"),
    planner=ImportedPlanner("gftpwb.kinds.gfapi.facets:GfapiPlanner"),
    run=Run("gftpwb.kinds.gfapi.run.runner:run",
            consumers=("gftpwb.kinds.gfapi.run.files:GfapiFilesSink",)),  # result.csv, threads.csv, hosts.csv per run
    report=GfapiReport(ReportSection("small files", 10, "gftpwb.kinds.gfapi.report:tables",
                                charts="gftpwb.kinds.gfapi.charts:charts"),
                  figures=(FILES_S, MIB_S, IOPS), metrics=METRICS),
    present=GfapiPresent(whole_run_row=False),  # its threads report themselves (WorkerProgress)
)
