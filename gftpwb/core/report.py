"""Summaries of result records for people: per-case means, minima and maxima, and the tables kinds
build from them for the end-of-run report. Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from .records import PASSED, ResultRecord
from .registry import registry


@dataclass(frozen=True)
class CaseSummary:
    test_id: str
    case: int
    params: str  # the run's parameters as its kind writes them (guc: "-p 4 -tcp-bs 8M -len 4G")
    runs: int
    passed: int
    mean_incl_setup: float | None
    min_incl_setup: float | None
    max_incl_setup: float | None
    mean_guc_avg: float | None
    statuses: tuple[str, ...]


def params_text(record: ResultRecord) -> str:
    """A record's parameters as its kind writes them (``k=v`` for a kind not installed here)."""
    kind = registry().find(record.kind)
    if kind is not None:
        return kind.params_text(dict(record.params))
    return " ".join(f"{k}={v}" for k, v in record.params.items())


def summarize_cases(records: Sequence[ResultRecord],
                    text: Callable[[ResultRecord], str] = params_text) -> list[CaseSummary]:
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
            test_id=test_id, case=case, params=text(group[0]), runs=len(group), passed=len(ok),
            mean_incl_setup=fmean(incl) if incl else None, min_incl_setup=min(incl) if incl else None,
            max_incl_setup=max(incl) if incl else None, mean_guc_avg=fmean(guc) if guc else None,
            statuses=tuple(r.status for r in group),
        ))
    return rows


def mean(values: Sequence[Any]) -> float | None:
    """The mean of the values that are known, None when none is."""
    known = [v for v in values if v is not None]
    return fmean(known) if known else None
