"""The ``autotune`` kind: which guc parameters move data fastest between a source and a target, as
tgftp -a finds out, or with fewer transfers (registered as entry point ``gftpwb.kinds: autotune``).
This module is its manifest; its language and planning (:mod:`.facets`) are imported when a scenario
has an auto-tune."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gftpwb.core.registry import ImportedDsl, ImportedPlanner, Kind, Metric, Present, Report, ReportSection, Run

if TYPE_CHECKING:
    from gftpwb.core.records import ResultRecord
    from gftpwb.core.specs import RunSpec


class AutotuneReport(Report):
    def facts(self, record: ResultRecord) -> dict[str, str | float | int | bool | None]:
        from .report import tune_facts

        return tune_facts(record)


class AutotunePresent(Present):
    def announce(self, spec: RunSpec) -> str | None:
        return f"auto-tune, {spec.params.get('strategy')}, {len(spec.params.get('candidates', []))} candidates"

    def headline(self, record: ResultRecord) -> str:
        from gftpwb.core.format import p_text, rate_text

        pick = record.details.get("pick") or {}
        return (f"pick {pick.get('params')} ({rate_text(pick.get('mean_mib_s'))} MiB/s) after "
                f"{record.details.get('transfers_used')} transfers, P(within margin) "
                f"{p_text(record.details.get('p_within_margin'))}")

    def update_blocks(self, event: Any) -> list[Any]:
        """The final ranking, then the pick as tgftp -a prints it."""
        from .report import pick_lines, ranking_table

        return [ranking_table(event), *pick_lines(event)]


KIND = Kind(
    name="autotune",
    description="find the best guc parameters for a path, as tgftp -a does, or with fewer transfers.",
    order=30,
    dsl=ImportedDsl("gftpwb.kinds.autotune.facets:AutotuneDsl"),
    planner=ImportedPlanner("gftpwb.kinds.autotune.facets:AutotunePlanner"),
    # Its transfers are guc runs (with tag logs of their own); the tune's record ranks them and has no
    # tag log, nor a row in the results table: the console prints the ranking as the tune ends, and
    # the report one row per tune (its pick, how sure it is, why it stopped).
    run=Run("gftpwb.kinds.autotune.run.runner:run_autotune", writes_taglog=False),
    report=AutotuneReport(
        ReportSection("auto-tunes", 30, "gftpwb.kinds.autotune.report:tables", list_failures=False,
                      charts="gftpwb.kinds.autotune.charts:charts"),
        metrics=(
            Metric("p_within_margin", "estimated probability that the pick is within the tie margin of the best "
                   "candidate (0-1)", "", fact="p_within_margin"),
            Metric("pick_rate", "the pick's mean rate incl. set-up", "MiB/s", fact="pick_mean_mib_s"),
        )),
    present=AutotunePresent(),
)
