"""Summaries of result records for people: per-case means, minima and maxima. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import fmean

from gftpwb.core.dsl.model import GucOptions
from gftpwb.kinds.guc.driver import option_args

from .records import PASSED, ResultRecord


@dataclass(frozen=True)
class CaseSummary:
    test_id: str
    case: int
    params: str  # guc flags, as tgftp users read them: "-p 4 -tcp-bs 8M -len 4G"
    runs: int
    passed: int
    mean_incl_setup: float | None
    min_incl_setup: float | None
    max_incl_setup: float | None
    mean_guc_avg: float | None
    statuses: tuple[str, ...]


def params_text(params: dict[str, object]) -> str:
    try:
        return " ".join(option_args(GucOptions.from_mapping(dict(params))))
    except (TypeError, ValueError, KeyError):
        return " ".join(f"{k}={v}" for k, v in params.items())


def summarize_cases(records: list[ResultRecord]) -> list[CaseSummary]:
    """One row per (test, case) in first-seen order; rates only over passed runs."""
    groups: dict[tuple[str, int], list[ResultRecord]] = {}
    for record in records:
        groups.setdefault((record.test_id, record.case), []).append(record)
    rows = []
    for (test_id, case), group in groups.items():
        ok = [r for r in group if r.status == PASSED]
        incl = [r.rate_incl_setup_mib_s for r in ok if r.rate_incl_setup_mib_s is not None]
        guc = [r.rate_guc_avg_mib_s for r in ok if r.rate_guc_avg_mib_s is not None]
        rows.append(CaseSummary(
            test_id=test_id, case=case, params=params_text(group[0].params), runs=len(group), passed=len(ok),
            mean_incl_setup=fmean(incl) if incl else None, min_incl_setup=min(incl) if incl else None,
            max_incl_setup=max(incl) if incl else None, mean_guc_avg=fmean(guc) if guc else None,
            statuses=tuple(r.status for r in group),
        ))
    return rows


def human_bytes(nbytes: int | None) -> str:
    if nbytes is None:
        return "-"
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return f"{nbytes} B"  # pragma: no cover


def short_error(error: str, limit: int = 160) -> str:
    """The first and last line of a multi-line error, on one line, for tables and progress output."""
    lines = [line for line in error.splitlines() if line.strip()]
    if not lines:
        return ""
    text = lines[0] if len(lines) == 1 else f"{lines[0]} — {lines[-1]}"
    return text if len(text) <= limit else text[: limit - 1] + "…"
