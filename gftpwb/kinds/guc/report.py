"""guc results for people: the console's line for a run, and the report's table of cases. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.format import human_bytes, rate_text
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import ReportTable, registry
from gftpwb.core.report import summarize_cases

from .driver import option_args
from .model import GucOptions

MIB_NOTE = "MB and MiB both mean 2^20 bytes here, as in guc and tgftp."


def params_text(params: dict[str, Any]) -> str:
    """guc flags, as tgftp users read them: ``-p 4 -tcp-bs 8M -len 4G``."""
    try:
        return " ".join(option_args(GucOptions.from_mapping(dict(params))))
    except (TypeError, ValueError, KeyError):
        return " ".join(f"{k}={v}" for k, v in params.items())


def headline(record: ResultRecord) -> str:
    return (f"{human_bytes(record.bytes)} in {record.seconds:.3f}s  {rate_text(record.rate_incl_setup_mib_s)} MiB/s "
            f"incl. set-up  {rate_text(record.rate_guc_avg_mib_s)} MiB/s guc avg")


def engine_marks(records: Sequence[ResultRecord]) -> str:
    """`` SIMULATED`` when some records come from an engine other than the real one."""
    labels = sorted({registry().engine_label(r.engine) for r in records} - {""})
    return "".join(f" {label}" for label in labels)


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per case: mean, min and max of the rate incl. set-up and guc's own average."""
    rows = tuple(((row.test_id, f"{row.case:03d}", row.params, f"{row.passed}/{row.runs}",
                   rate_text(row.mean_incl_setup), rate_text(row.min_incl_setup), rate_text(row.max_incl_setup),
                   rate_text(row.mean_guc_avg)), "" if row.passed == row.runs else "red")
                 for row in summarize_cases(records, lambda r: params_text(r.params)))
    columns = (("test", "left"), ("#", "right"), ("guc options", "left"), ("ok/runs", "right"),
               ("mean incl. set-up", "right"), ("min", "right"), ("max", "right"), ("mean guc avg", "right"))
    return [ReportTable(f"Results{engine_marks(records)} (rates in MiB/s)", MIB_NOTE, columns, rows)]

