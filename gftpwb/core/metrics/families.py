"""What finished runs and checked thresholds say as metric families, the same for a run in progress
(:mod:`.live`) and a finished results directory (``gftpwb report --openmetrics``).

Per case and host (labels ``scenario``, ``test``, ``case``, ``host``; ``case`` is the case number as
reports show it, ``001``):

* ``gftpwb_runs_total{status}``: runs by status (a results directory: the latest record of each run
  id; a run in progress: the runs this process finished);
* ``gftpwb_transferred_bytes_total``: bytes the runs moved (a run in progress adds its runs in flight);
* ``gftpwb_last_run_passed``, ``gftpwb_last_run_duration_seconds``,
  ``gftpwb_last_run_end_timestamp_seconds``: the latest finished run;
* each figure the kind names (:attr:`gftpwb.core.registry.Report.figures`) of the latest run that
  counts for statistics (passed, not a warm-up, its value not excluded), in base units
  (:func:`.names.figure_metric`: ``gftpwb_guc_rate_incl_setup_bytes_per_second``);
* ``gftpwb_threshold_violated{scenario,test,case,metric}``: 1 when the latest check of a threshold
  (``expect:``) failed, 0 when it was met (their sum is the number violated);
* ``gftpwb_case_info{scenario,test,case,kind,params}``: 1, to name a case in a dashboard (a join);
* ``gftpwb_scenario_runs_planned{scenario}``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from gftpwb.core.checks import Check
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import registry

from .model import COUNTER, GAUGE, Family
from .names import figure_metric

LABELS = ("scenario", "test", "case", "host")
Labels = tuple[str, str, str, str]


def case_label(case: int) -> str:
    """A case as reports number it (``#001``), without the ``#``."""
    return f"{case:03d}"


def labels_of(record: ResultRecord) -> Labels:
    return (record.scenario, record.test_id, case_label(record.case), record.host)


def unix_time(iso: str) -> float | None:
    """An ISO 8601 time with its offset as Unix seconds (None: none, or not one)."""
    try:
        moment = datetime.fromisoformat(iso)
    except ValueError:
        return None
    return moment.timestamp() if moment.tzinfo is not None else None


@dataclass
class _Last:
    passed: bool
    seconds: float | None
    ended: float | None


class ResultFigures:
    """Takes finished records and checked thresholds, one at a time; :meth:`families` says what they
    add up to. Every figure is kept per case and host, so asking costs the number of cases, never
    the number of runs (a run in progress asks after each of them)."""

    def __init__(self, scenario: str = ""):
        self.scenario = scenario
        self.planned: int | None = None
        self._runs: Counter[tuple[Labels, str]] = Counter()
        self._bytes: dict[Labels, float] = {}
        self._last: dict[Labels, _Last] = {}
        self._figures: dict[str, tuple[str, dict[Labels, float]]] = {}  # name -> (help, values)
        self._info: dict[tuple[str, str, str], tuple[str, str]] = {}
        self._checks: dict[tuple[str, str, str, str], bool] = {}  # (scenario, test, case, metric) -> violated

    def add(self, record: ResultRecord, moved: int | None = None) -> None:
        """A finished run; ``moved``: its bytes when the record does not say (the progress seen)."""
        labels = labels_of(record)
        self.scenario = self.scenario or record.scenario
        self._runs[(labels, record.status)] += 1
        nbytes = record.bytes if record.bytes is not None else moved
        self._bytes[labels] = self._bytes.get(labels, 0.0) + max(nbytes or 0, moved or 0)
        self._last[labels] = _Last(record.status == PASSED, record.seconds, unix_time(record.ended_at))
        kind = registry().find(record.kind)
        if kind is None:
            return
        case = (record.scenario, record.test_id, labels[2])
        if case not in self._info:
            self._info[case] = (record.kind, kind.present.params_text(dict(record.params)))
        if record.status != PASSED or record.details.get("warmup"):
            return
        measured = kind.report.measure(record)
        for figure in kind.report.figures:
            value = measured.get(figure.key)
            if value is None or value.value is None or value.excluded:
                continue
            name, factor = figure_metric(record.kind, figure.key, figure.unit)
            help_text = f"{figure.label} ({figure.unit}) of the latest counted run of the case, in base units"
            self._figures.setdefault(name, (help_text, {}))[1][labels] = value.value * factor

    def check(self, checks: Iterable[Check]) -> None:
        """Thresholds checked at the end of a test (the latest check of each counts)."""
        for c in checks:
            self._checks[(self.scenario, c.test_id, case_label(c.case), c.metric)] = not c.ok

    def families(self, *, flight_bytes: dict[Labels, float] | None = None) -> list[Family]:
        runs = Family("gftpwb_runs", COUNTER, "Runs finished, by status", (*LABELS, "status"))
        for (labels, status), count in sorted(self._runs.items()):
            runs.add((*labels, status), count)
        moved = Family("gftpwb_transferred_bytes", COUNTER, "Bytes moved by the case's runs", LABELS)
        totals = dict(self._bytes)
        for labels, value in (flight_bytes or {}).items():
            totals[labels] = totals.get(labels, 0.0) + value
        for labels, value in sorted(totals.items()):
            moved.add(labels, value)
        passed = Family("gftpwb_last_run_passed", GAUGE, "1 when the latest finished run of the case passed", LABELS)
        duration = Family("gftpwb_last_run_duration_seconds", GAUGE, "Wall time of the latest finished run", LABELS)
        ended = Family("gftpwb_last_run_end_timestamp_seconds", GAUGE,
                       "When the latest run of the case ended, Unix time", LABELS)
        for labels, last in sorted(self._last.items()):
            passed.add(labels, 1.0 if last.passed else 0.0)
            if last.seconds is not None:
                duration.add(labels, last.seconds)
            if last.ended is not None:
                ended.add(labels, last.ended)
        out = [runs, moved, passed, duration, ended]
        for name, (help_text, values) in sorted(self._figures.items()):
            family = Family(name, GAUGE, help_text, LABELS)
            for labels, value in sorted(values.items()):
                family.add(labels, value)
            out.append(family)
        violated = Family("gftpwb_threshold_violated", GAUGE,
                          "1 when the latest check of a threshold (expect:) failed, 0 when it was met",
                          ("scenario", "test", "case", "metric"))
        for key, bad in sorted(self._checks.items()):
            violated.add(key, 1.0 if bad else 0.0)
        info = Family("gftpwb_case_info", GAUGE, "A case's kind and parameters (always 1)",
                      ("scenario", "test", "case", "kind", "params"))
        for (scenario, test, case), (kind, params) in sorted(self._info.items()):
            info.add((scenario, test, case, kind, params), 1.0)
        out += [violated, info]
        if self.planned is not None:
            planned = Family("gftpwb_scenario_runs_planned", GAUGE, "Runs the scenario run planned", ("scenario",))
            planned.add((self.scenario,), self.planned)
            out.append(planned)
        return [family for family in out if family.samples]


def directory_families(scenario: str, records: Iterable[ResultRecord], checks: Iterable[Check],
                       planned: int | None) -> list[Family]:
    """The families of a finished results directory (its latest record of each run id, in order)."""
    figures = ResultFigures(scenario)
    figures.planned = planned
    for record in records:
        figures.add(record)
    figures.check(checks)
    return figures.families()
