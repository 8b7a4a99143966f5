"""Every table a report shows of one results directory, as :class:`~gftpwb.core.registry.ReportTable`
values any front end can draw: the kinds' report sections (through the registry's hooks, so a kind's
own tables, such as guc's efficiency, stripe and memory-vs-disk tables, come with it), the monitors'
table and the thresholds checked (``expect:``). Pure.

``gftpwb report`` prints the same tables (its console draws them with rich); the TUI's report view
draws this list, so neither names a kind.
"""

from __future__ import annotations

from collections.abc import Sequence

from .checks import Check
from .monitors.report import monitors_table
from .registry import ReportTable
from .report import report_sections
from .summary import DirectorySummary

CHECK_COLUMNS = (("test", "left"), ("case", "left"), ("expect", "left"), ("value", "right"), ("verdict", "left"),
                 ("note", "left"))
VIOLATED_STYLE = "bold red"


def checks_table(checks: Sequence[Check]) -> ReportTable | None:
    """The thresholds checked (``expect:``), violations in red; None when there were none."""
    if not checks:
        return None
    violated = sum(1 for c in checks if not c.ok)
    rows = tuple(((c.test_id, c.case_text, f"{c.metric} {c.expression}", c.value_text,
                   "met" if c.ok else "VIOLATED", c.note), "" if c.ok else VIOLATED_STYLE) for c in checks)
    return ReportTable(f"Expectations: {violated} of {len(checks)} violated", "Checked when each test ended (expect:).",
                       CHECK_COLUMNS, rows, whole=("verdict",), keys=2)


def directory_tables(summary: DirectorySummary) -> list[ReportTable]:
    """The report's tables of one directory, in the report's order: each section's, then the
    monitors', then the thresholds'."""
    tables: list[ReportTable] = []
    for section, records in report_sections(summary.records, summary.kinds):
        tables.extend(section.build(records))
    monitors = summary.monitors
    if monitors is not None and monitors.figures:
        tables.append(monitors_table(monitors.figures, monitors.types, monitors.samples))
    checked = checks_table(summary.checks)
    if checked is not None:
        tables.append(checked)
    return tables
