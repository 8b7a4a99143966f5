"""Compare the rates of two scenario runs (two results directories), case by case. Pure.

Cases are matched by test id and parameters rather than by case number, so a run of an edited
scenario (a test added in front, a matrix value dropped) still lines up with an older one. Only the
latest record of each run id counts, so a resumed directory compares by what it finally holds.
The figure compared is each kind's headline figure (:attr:`gftpwb.core.registry.Kind.figures`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .records import ResultRecord
from .summary import CaseSummary, summarize_cases


@dataclass(frozen=True)
class RateDiff:
    test_id: str
    params: str
    a_mib_s: float | None  # mean of the headline figure over counted runs; None: none (or no such case)
    b_mib_s: float | None
    a_runs: str  # "2/2" passed/runs, "" when the case is missing on that side
    b_runs: str

    @property
    def delta_mib_s(self) -> float | None:
        if self.a_mib_s is None or self.b_mib_s is None:
            return None
        return self.b_mib_s - self.a_mib_s

    @property
    def delta_pct(self) -> float | None:
        if self.delta_mib_s is None or not self.a_mib_s:
            return None
        return 100.0 * self.delta_mib_s / self.a_mib_s


def _cases(records: list[ResultRecord]) -> dict[tuple[str, str], CaseSummary]:
    return {(row.test_id, row.params_text): row for row in summarize_cases(records)}


def _mean(case: CaseSummary | None) -> float | None:
    headline = case.headline if case is not None else None
    return headline.stats.mean if headline is not None and headline.stats is not None else None


def diff_rates(a: list[ResultRecord], b: list[ResultRecord]) -> list[RateDiff]:
    """One row per case of either run: A's cases in order, then those only B has."""
    cases_a, cases_b = _cases(a), _cases(b)
    rows = []
    for key in [*cases_a, *(k for k in cases_b if k not in cases_a)]:
        ra, rb = cases_a.get(key), cases_b.get(key)
        rows.append(RateDiff(
            test_id=key[0], params=key[1], a_mib_s=_mean(ra), b_mib_s=_mean(rb),
            a_runs=f"{ra.passed}/{ra.total}" if ra else "", b_runs=f"{rb.passed}/{rb.total}" if rb else "",
        ))
    return rows


DIFF_COLUMNS = ("test", "guc options", "A MiB/s", "B MiB/s", "Δ MiB/s", "Δ %", "A ok", "B ok")


def diff_cells(row: RateDiff) -> tuple[str, ...]:
    def num(value: float | None, fmt: str) -> str:
        return "-" if value is None else format(value, fmt)

    return (row.test_id, row.params, num(row.a_mib_s, ".1f"), num(row.b_mib_s, ".1f"), num(row.delta_mib_s, "+.1f"),
            num(row.delta_pct, "+.1f"), row.a_runs or "-", row.b_runs or "-")
