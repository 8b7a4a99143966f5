"""An auto-tune's ranking for people: the final table and the pick as tgftp prints it. Pure."""

from __future__ import annotations

from gftpwb.core.events import TuneUpdate
from gftpwb.core.format import rate_text
from gftpwb.core.registry import ReportTable, registry

from .ranking import tie_note

MIB_NOTE = "MB and MiB both mean 2^20 bytes here, as in guc and tgftp."


def ranking_table(event: TuneUpdate) -> ReportTable:
    """The final ranking: best first; the pick bold green, dropped and failed candidates dim."""
    label = registry().engine_label(event.engine)
    engine = f" {label}" if label else ""
    title = (f"{event.test_id}:{engine} auto-tune ranking ({event.strategy}, {event.transfers_used} of "
             f"{event.budget} transfers, rates in MiB/s incl. set-up)")
    columns = (("rank", "right"), ("config", "left"), ("mean", "right"), ("95 % CI", "right"), ("runs", "right"),
               ("failures", "right"), ("note", "left"))
    rows = []
    for row in event.rows:
        ci = "-" if row.ci_low_mib_s is None else f"{row.ci_low_mib_s:.1f}-{row.ci_high_mib_s:.1f}"
        marks = [tie_note(event.margin_mib_s)] if row.tied_with_leader else []
        if row.note:
            marks.append(row.note)
        style = "bold green" if row.rank == 1 and event.leader == row.candidate else (
            "dim" if row.eliminated or row.mean_mib_s is None else "")
        rows.append(((str(row.rank), row.candidate, rate_text(row.mean_mib_s), ci, str(row.runs), str(row.failures),
                      "; ".join(marks)), style))
    return ReportTable(title, f"{MIB_NOTE} CI: 95 % confidence interval of the mean.", columns, tuple(rows))


def pick_lines(event: TuneUpdate) -> list[tuple[str, str]]:
    """What follows the ranking: the pick as tgftp -a prints it, or why there is none; (text, style)."""
    if event.leader is None:
        return [(f"{event.test_id}: no pick: no candidate reached the tie margin ({event.margin_mib_s:g} MB/s)",
                 "red")]
    label = registry().engine_label(event.engine)
    engine = f" {label}" if label else ""
    return [(f"{event.test_id}:{engine} best guc parameters (as tgftp -a prints them):", ""), (event.leader, "")]
