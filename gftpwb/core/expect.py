"""Thresholds on results (``expect:``, as k6's thresholds): a test, or the defaults, say what its
cases must reach, and a run of the scenario checks it at the end of each test. Pure.

::

    defaults:
      expect: {cv: "< 5%"}
    tests:
      - id: sweep
        kind: guc
        expect: {median_rate: ">= 900MiB/s", min_rate: "> 500MiB/s"}
      - id: files
        kind: gfapi
        expect: {files_per_s: ">= 2000"}
      - id: tune
        kind: autotune
        expect: {p_within_margin: ">= 0.9"}

The names are the metrics of the test's kind (:attr:`gftpwb.core.registry.Report.metrics`): a
statistic of one of its figures over a case's counted runs (passed, not warm-ups), or a fact of its
runs. A test inherits the defaults' thresholds on its kind's metrics (key by key, its own win).
Every case of the test is checked; a case with no value (no counted run) does not meet its
threshold. Thresholds are written ``<op> <number>[unit]``, ``op`` one of ``<``, ``<=``, ``>``,
``>=``, ``==``; rates take a rate unit (``900MiB/s``, ``1GB/s``, ``10Gbit/s``; bare: MiB/s),
percentages a ``%`` (``5%``), other metrics a plain number.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from gftpwb.core.scenario.model import Expectation

from .checks import Check
from .registry import Kind, Metric, registry
from .units import parse_rate

if TYPE_CHECKING:  # only named in annotations: validate need not import the summaries (statistics, samples)
    from .summary import CaseSummary

_OP = r"(<=|>=|<|>|==)"
_NUMBER = r"[0-9]+(\.[0-9]+)?"
RATE_UNIT = r"[KkMmGg]([iI]?[Bb]|[Bb][Ii][Tt])/s"
PATTERNS = {
    "MiB/s": rf"^\s*{_OP}\s*{_NUMBER}\s*({RATE_UNIT})?\s*$",
    "%": rf"^\s*{_OP}\s*{_NUMBER}\s*%\s*$",
    "": rf"^\s*{_OP}\s*{_NUMBER}\s*$",
}
EXAMPLES = {"MiB/s": "'>= 900MiB/s' (a rate: MiB/s, MB/s, GB/s, Gbit/s; bare: MiB/s)",
            "%": "'< 5%' (a percentage)", "": "'>= 2000' (a number)"}
_PARSE = re.compile(rf"^\s*(?P<op>{_OP})\s*(?P<number>{_NUMBER})\s*(?P<unit>\S.*?)?\s*$")
STATISTICS = ("median", "mean", "min", "max", "cv")


class ExpectError(ValueError):
    """A threshold that cannot be read (the loader reports it at its file:line:col)."""


def metric_of(kind: Kind, name: str) -> Metric | None:
    return next((m for m in kind.report.metrics if m.name == name), None)


def all_metrics() -> dict[str, Metric]:
    """Every metric name of every kind (the defaults may set any of them; first kind's wins)."""
    out: dict[str, Metric] = {}
    for kind in registry().kinds():
        for metric in kind.report.metrics:
            out.setdefault(metric.name, metric)
    return out


def parse_expectation(metric: Metric, text: str) -> Expectation:
    """``">= 900MiB/s"`` for ``metric``; raises ExpectError with what is wrong."""
    match = _PARSE.match(str(text))
    if match is None:
        raise ExpectError(f"expect.{metric.name}: cannot read {text!r}: write <op> <number>, op one of "
                          f"<, <=, >, >=, ==, e.g. {EXAMPLES.get(metric.unit, EXAMPLES[''])}")
    op, number, unit = match["op"], match["number"], (match["unit"] or "").strip()
    if metric.unit == "MiB/s":
        try:
            value = parse_rate(f"{number}{unit}") if unit else float(number)
        except (ValueError, TypeError):
            raise ExpectError(f"expect.{metric.name}: bad rate {number}{unit!s} (use MiB/s, or e.g. 20MB/s, 1GB/s, "
                              "10Gbit/s)") from None
    elif metric.unit == "%":
        if unit != "%":
            raise ExpectError(f"expect.{metric.name}: a percentage needs its %, e.g. '{op} {number}%'")
        value = float(number) / 100
    else:
        if unit:
            raise ExpectError(f"expect.{metric.name}: a plain number, without a unit: '{op} {number}'")
        value = float(number)
    return Expectation(metric.name, op, value, " ".join(str(text).split()))


def value_text(metric: Metric, value: float | None) -> str:
    if value is None:
        return "-"
    if metric.unit == "%":
        return f"{value * 100:.2f} %"
    if metric.unit == "MiB/s":
        return f"{value:.1f} MiB/s"
    return f"{value:.4g}" if abs(value) < 10 else f"{value:.1f}"


def metric_value(metric: Metric, case: CaseSummary, op: str) -> tuple[float | None, str]:
    """The metric's value in a case (the worst counted run's for a fact), or None and why."""
    if metric.fact:
        values = [float(v) for r in case.runs if r.counted
                  for v in [r.facts.get(metric.fact)] if isinstance(v, int | float) and not isinstance(v, bool)]
        if not values:
            return None, "no passed run has it"
        return (min(values) if op in (">", ">=") else max(values)), ""
    stats = case.figure(metric.figure)
    if stats is None or stats.stats is None:
        return None, "no counted run"
    value = getattr(stats.stats, metric.statistic, None)
    if value is None:
        return None, f"no {metric.statistic} (one run)" if metric.statistic == "cv" else "no value"
    return float(value), ""


def check_cases(test_id: str, expectations: Sequence[Expectation], cases: Iterable[CaseSummary]) -> list[Check]:
    """Every expectation on every case of the test (its own kind's cases)."""
    out = []
    for case in cases:
        if case.test_id != test_id or case.kind != case.test_kind:
            continue
        kind = registry().find(case.kind)
        if kind is None:
            continue
        text = f"#{case.case:03d} {case.params_text}".strip()
        for expectation in expectations:
            metric = metric_of(kind, expectation.metric)
            if metric is None:
                continue
            value, why = metric_value(metric, case, expectation.op)
            ok = value is not None and expectation.holds(value)
            out.append(Check(test_id, case.case, text, metric.name, expectation.text, value,
                             value_text(metric, value), ok, why))
    return out


def schema_of(metrics: Iterable[Metric]) -> dict[str, object]:
    """The ``expect`` mapping's schema: one pattern per metric."""
    return {"type": "object", "additionalProperties": False, "properties": {
        m.name: {"type": "string", "pattern": PATTERNS.get(m.unit, PATTERNS[""]),
                 "description": f"{m.description}; e.g. {EXAMPLES.get(m.unit, EXAMPLES[''])}"} for m in metrics}}
