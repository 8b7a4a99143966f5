"""``kind: doze``: a nap (the same keys, plan and runner) with the two optional facets a kind may add:
its report section (a table of its runs at the end of a run) and its own console line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.format import rate_text
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import Kind, Present, Report, ReportSection, ReportTable, Run

from .kind import KIND as NAP


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    rows = tuple(((r.run_id, str(r.params["seconds"]), rate_text(r.seconds, 3)), "" if r.status == PASSED else "red")
                 for r in records)
    return [ReportTable("Dozes (seconds)", "asked for vs slept", (("run", "left"), ("asked", "right"),
                                                                 ("slept", "right")), rows)]


class DozePresent(Present):
    def headline(self, record: ResultRecord) -> str:
        return f"slept {record.params['seconds']:g}s (took {record.seconds:.2f}s)"

    def params_text(self, params: dict[str, Any]) -> str:
        return f"{params['seconds']:g}s"


KIND = Kind(
    name="doze",
    description="a nap, with a report table and a console line of its own.",
    dsl=NAP.dsl,
    planner=NAP.planner,
    run=Run(NAP.run.runner),  # naps.txt lists the naps only
    report=Report(ReportSection("dozes", 50, tables)),
    present=DozePresent(),
)
