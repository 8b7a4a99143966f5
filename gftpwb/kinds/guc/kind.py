"""The ``guc`` kind: globus-url-copy transfers (registered as entry point ``gftpwb.kinds: guc``).

This module is the kind's manifest: its name, how it is reported and shown, and its language and
planning by name (:mod:`.facets`), imported when a scenario has a guc test, so loading every kind
costs next to nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gftpwb.core.registry import (
    Exclusion,
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

from .tuning import GUC_TUNING

if TYPE_CHECKING:
    from gftpwb.core.records import ResultRecord
    from gftpwb.core.specs import RunSpec

# guc and connection tests: one row per case with the rates of its passed runs.
TRANSFERS = ReportSection("transfers", 20, "gftpwb.kinds.guc.report:tables", charts="gftpwb.kinds.guc.charts:charts",
                          data="gftpwb.kinds.guc.report_data:data")
GUC_WAITING = "waiting for guc's first progress report (third-party transfers report every 5 s)"
NO_PROGRESS = ("no live progress, elapsed time only: between two servers -vb would switch guc from stream mode "
               "to MODE E")
# The figures of a guc run that are statistics of its case: the rate on our clock first (what
# tgftp reports, and what to trust), then guc's own average (without connection set-up).
# A plain copy whose size only guc's last progress report gave (its listing did not answer): that count is
# from before the copy ended, so its rate is too low and stays out of the statistics (gftpwb.kinds.guc.sizing).
LOWER_BOUND = "size a lower bound"
RATE = Figure("rate_incl_setup_mib_s", "rate incl. set-up", "MiB/s", ("rate_incl_setup_mib_s",),
              excluded_by=("details", "size_lower_bound"), excluded_reason=LOWER_BOUND)
RATE_METRICS = (
    Metric("median_rate", "median rate incl. set-up of the case's counted runs", "MiB/s", RATE.key, "median"),
    Metric("mean_rate", "mean rate incl. set-up", "MiB/s", RATE.key, "mean"),
    Metric("min_rate", "slowest counted run's rate incl. set-up", "MiB/s", RATE.key, "min"),
    Metric("cv", "coefficient of variation of the rate incl. set-up (stdev / mean)", "%", RATE.key, "cv"),
)
QUANTISED = "quantised"
PER_FILE = "per file"  # guc's average of a multi-file transfer is its last file's
GUC_AVG = Figure("rate_guc_avg_mib_s", "guc avg", "MiB/s", ("rate_guc_avg_mib_s",),
                 excluded_by=("details", "guc_avg_quantised"), excluded_reason=QUANTISED,
                 exclusions=(Exclusion(("details", "files", "count"), PER_FILE, above=1),))


class _Report:
    """The kind's report functions, imported when first used (kept out of every command's start-up)
    and then found as plain attributes: an import statement in ``headline``, which the read-back
    check calls for each of 100,000 records, cost 0.12 s."""

    def __getattr__(self, name: str) -> Any:
        from . import report

        value = getattr(report, name)
        setattr(self, name, value)
        return value


_report = _Report()


class TransferReport(Report):
    """guc and connection tests: their transfer mode and whether they had live progress."""

    def facts(self, record: ResultRecord) -> dict[str, str | float | int | bool | None]:
        from .facets import transfer_facts

        return transfer_facts(record)


class GucPresent(Present):
    def waiting(self, spec: RunSpec) -> str:
        return GUC_WAITING

    def progress_note(self, spec: RunSpec) -> str:
        return NO_PROGRESS if spec.details.get("live_progress") is False else ""

    def headline(self, record: ResultRecord) -> str:
        return _report.headline(record)

    def params_text(self, params: dict[str, Any]) -> str:
        return _report.params_text(params)


KIND = Kind(
    name="guc",
    description="globus-url-copy transfers.",
    order=10,
    dsl=ImportedDsl("gftpwb.kinds.guc.facets:GucDsl"),
    planner=ImportedPlanner("gftpwb.kinds.guc.facets:GucPlanner"),
    run=Run("gftpwb.kinds.guc.run.runner:run", trace_phases="gftpwb.kinds.guc.phases:phase_reader",
            writes_taglog=True),
    report=TransferReport(TRANSFERS, figures=(RATE, GUC_AVG), metrics=RATE_METRICS),
    present=GucPresent(),
    tuning=GUC_TUNING,
    exports={"tgftp-batchfile": "gftpwb.kinds.guc.facets:tgftp_batchfile_line"},
)
