"""The summary of a scenario run's records: per case, the statistics of every figure its kind names,
and per run what a report says of it. Pure.

This is the data model every report reads: the console table at the end of ``gftpwb run``,
``gftpwb report`` (console, ``--json``, ``--csv``, ``--junit``), and later the HTML report and
``compare``. Kinds contribute through the registry (:attr:`gftpwb.core.registry.Report.figures`,
``measure``, ``facts``); nothing here knows a kind by name.

Which runs count:

* the **latest record of each run id** (a resumed run's final record supersedes its interrupted one);
* statistics take **passed** runs that are not **warm-ups** (``details.warmup``, the first
  ``warmup: N`` runs of a case) and whose value the kind did not exclude (a quantised guc average);
  every run still appears, marked, in ``runs``.
"""

from __future__ import annotations

import contextlib
import contextvars
import weakref
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .monitors.summary import DirectoryMonitors
from .records import PASSED, ResultRecord, latest_by_run
from .registry import Figure, Kind, Measured, registry
from .samples import RunSamples
from .stats import Stats, describe_many

if TYPE_CHECKING:
    from .checks import Check

SUMMARY_VERSION = 2

Fact = str | float | int | bool | None


@dataclass(frozen=True)
class RunRow:
    """One run as a report shows it."""

    run_id: str
    repeat: int
    host: str
    status: str
    warmup: bool
    values: dict[str, float | None]  # figure key -> value (None: the run has none)
    excluded: dict[str, str]  # figure key -> why its value is not a statistic
    outlier: tuple[str, ...]  # figure keys whose statistics flag this run as an outlier
    facts: dict[str, Fact]
    seconds: float | None
    bytes: int | None
    started_at: str
    error: str
    engine: str
    record: ResultRecord = field(repr=False, compare=False)

    @property
    def counted(self) -> bool:
        """Whether the run's figures go into the statistics (passed and not a warm-up)."""
        return self.status == PASSED and not self.warmup


@dataclass(frozen=True)
class FigureStats:
    """The statistics of one figure over a case's counted runs, and what was left out and why."""

    figure: Figure
    stats: Stats | None
    excluded: dict[str, int]  # reason -> runs whose value was left out for it
    # the values the statistics took, in the runs' order (compare tests them against another case's)
    values: tuple[float, ...] = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class CaseSummary:
    """One case (a test times one matrix combination) of one kind: its runs and their statistics."""

    test_id: str
    case: int
    kind: str
    test_kind: str  # the kind of the test (an auto-tune's transfers are guc runs of an autotune test)
    params: dict[str, Any]
    params_text: str
    engine: str
    runs: tuple[RunRow, ...]
    figures: tuple[FigureStats, ...]
    #: How the case's figures were measured, as its kind tells (:meth:`~gftpwb.core.registry.Report.measurement`
    #: of its first record: a case's runs come from one directory and one tool): kept when the runs are
    #: dropped for a comparison, which warns when A's and B's differ.
    measured: tuple[tuple[str, str], ...] = ()

    @property
    def total(self) -> int:
        return len(self.runs)

    @property
    def passed(self) -> int:
        return sum(1 for r in self.runs if r.status == PASSED)

    @property
    def warmups(self) -> int:
        return sum(1 for r in self.runs if r.warmup)

    @property
    def statuses(self) -> dict[str, int]:
        return dict(Counter(r.status for r in self.runs))

    @property
    def headline(self) -> FigureStats | None:
        """The kind's headline figure (its first), if it has figures."""
        return self.figures[0] if self.figures else None

    def figure(self, key: str) -> FigureStats | None:
        return next((f for f in self.figures if f.figure.key == key), None)


def params_text(record: ResultRecord) -> str:
    """A record's parameters as its kind writes them (``k=v`` for a kind not installed here)."""
    kind = registry().find(record.kind)
    if kind is not None:
        return kind.present.params_text(dict(record.params))
    return " ".join(f"{k}={v}" for k, v in record.params.items())


def _measure(kind: Kind | None, record: ResultRecord) -> dict[str, Measured]:
    if kind is None or record.status != PASSED:
        return {}
    for _held, measured in _holders():
        found = measured.get(id(record))
        if found is not None:
            return found
    return kind.report.measure(record)


def summarize_cases(records: Sequence[ResultRecord], kind_of_test: Mapping[str, str] | None = None, *,
                    latest: bool = True) -> list[CaseSummary]:
    """One summary per (test, case, kind), in first-seen order. ``kind_of_test`` names each test's
    kind (from the plan); a test not in it goes by its records' kind. ``latest``: only the last
    record of each run id counts (pass False for records already reduced so)."""
    kinds_of = dict(kind_of_test or {})
    chosen = list(latest_by_run(list(records)).values()) if latest else list(records)
    groups: dict[tuple[str, int, str], list[ResultRecord]] = {}
    for record in chosen:
        groups.setdefault((record.test_id, record.case, record.kind), []).append(record)
    reg = registry()
    out: list[CaseSummary | None] = []
    pending: list[tuple[int, tuple[Any, ...], _Runs]] = []  # cases not summarised yet
    for (test_id, case, kind_name), group in groups.items():
        kind = reg.find(kind_name)
        test_kind = kinds_of.get(test_id, kind_name)
        key = (test_id, case, kind_name, test_kind, id(kind), tuple(map(id, group)))
        found = _CASES.get(key)
        if found is None:
            pending.append((len(out), key, _Runs(kind, test_id, case, kind_name, test_kind, group)))
        out.append(found)
    # every figure of every new case described at once (gftpwb.core.stats.describe_many)
    described = iter(describe_many([sample for _, _, runs in pending for sample in runs.samples()]))
    for i, key, runs in pending:
        found = runs.summary([next(described) for _ in runs.figures])
        _CASES[key] = found
        out[i] = found
    for held, _measured in _holders():
        held.extend(out)  # type: ignore[arg-type]
    return out  # type: ignore[return-value]


# A report summarises the same records twice (the directory's summary, then each section's tables
# from its records): at 100,000 records that doubled its time. The same records (the same objects:
# a finished record is never changed) give the same case, so a case is kept while it is in use.
_CASES: weakref.WeakValueDictionary[tuple[Any, ...], CaseSummary] = weakref.WeakValueDictionary()


# The holders open in this thread (the TUI reads a directory in a worker thread while the screen's
# thread may summarise another): a context variable, which each thread has its own value of.
_HOLDERS: contextvars.ContextVar[tuple[tuple[list[CaseSummary], Mapping[int, dict[str, Measured]]], ...]] = (
    contextvars.ContextVar("gftpwb_case_holders", default=()))


def _holders() -> tuple[tuple[list[CaseSummary], Mapping[int, dict[str, Measured]]], ...]:
    return _HOLDERS.get()


@contextlib.contextmanager
def holding_cases(measured: Mapping[int, dict[str, Measured]] | None = None) -> Iterator[list[CaseSummary]]:
    """Keep every case summarised inside the ``with`` (in the list it gives) for as long as the
    caller keeps that list: reading a journal checks its records by tabulating them, and the summary
    of the same records right after finds their cases done. ``measured``: what the kinds measured
    in records (by ``id``; the caller holds the records) that the check measured already."""
    held: list[CaseSummary] = []
    token = _HOLDERS.set((*_HOLDERS.get(), (held, measured or {})))
    try:
        yield held
    finally:
        _HOLDERS.reset(token)


class _RunRowBeingMade:
    """A :class:`RunRow` while :func:`_run_row` sets its fields: a plain class of the same layout,
    whose attributes are set by plain assignment (a frozen dataclass's ``__init__`` sets each field
    through ``object.__setattr__``, half the cost of making 100,000 rows)."""


def _run_row(run_id: str, repeat: int, host: str, status: str, warmup: bool, values: dict[str, float | None],
             excluded: dict[str, str], outlier: tuple[str, ...], facts: dict[str, Fact], seconds: float | None,
             bytes: int | None, started_at: str, error: str, engine: str, record: ResultRecord) -> RunRow:
    """``RunRow(...)`` of the same fields, in half the time: the object is made as a
    :class:`_RunRowBeingMade`, given every field, then made a RunRow (its class set once). RunRow
    has no ``__post_init__`` or defaults to apply; the instance's attributes stay stored as
    ``__init__`` stores them (a ``__dict__.update`` would take 300 bytes more a row)."""
    row: Any = _RunRowBeingMade()
    row.run_id, row.repeat, row.host, row.status, row.warmup = run_id, repeat, host, status, warmup
    row.values, row.excluded, row.outlier, row.facts, row.seconds = values, excluded, outlier, facts, seconds
    row.bytes, row.started_at, row.error, row.engine, row.record = bytes, started_at, error, engine, record
    object.__setattr__(row, "__class__", RunRow)
    return row  # type: ignore[no-any-return]


class _Runs:
    """A case's runs gone through once (a report has 100,000): each run's figures, and each figure's
    values that its statistics take, in the runs' order; :meth:`summary` makes the case from them
    and the statistics of those values."""

    def __init__(self, kind: Kind | None, test_id: str, case: int, kind_name: str, test_kind: str,
                 group: list[ResultRecord]):
        self.kind, self.test_id, self.case, self.kind_name, self.test_kind = kind, test_id, case, kind_name, test_kind
        self.group = group
        self.figures = kind.report.figures if kind is not None else ()
        counted: dict[str, tuple[list[float], list[int], Counter[str]]] = {
            f.key: ([], [], Counter()) for f in self.figures}
        per_run = []
        for i, record in enumerate(group):
            measured = _measure(kind, record)
            warm = bool(record.details.get("warmup"))
            values, excluded = {}, {}
            for key, got in measured.items():
                values[key] = got.value
                if got.excluded:
                    excluded[key] = got.excluded
            if record.status == PASSED and not warm:
                for key, (kept, positions, left_out) in counted.items():
                    got = measured.get(key)
                    if got is None or got.value is None:
                        continue
                    if got.excluded:
                        left_out[got.excluded] += 1
                        continue
                    kept.append(got.value)
                    positions.append(i)
            per_run.append((warm, values, excluded))
        self.counted = counted
        self.per_run = per_run

    def samples(self) -> list[tuple[tuple[float, ...], bool]]:
        """Each figure's counted values and whether the figure is positive, in the figures' order.
        One tuple of values, which the case's :class:`FigureStats` keeps: pickled once when a
        comparison's directory is sent back."""
        for key, (values, positions, left_out) in self.counted.items():
            if not isinstance(values, tuple):
                self.counted[key] = (tuple(values), positions, left_out)  # type: ignore[assignment]
        return [(self.counted[f.key][0], f.positive) for f in self.figures]  # type: ignore[misc]

    def summary(self, described: Sequence[Stats | None]) -> CaseSummary:
        """The case, given :func:`gftpwb.core.stats.describe` of each of :meth:`samples`."""
        kind, group = self.kind, self.group
        stats: list[FigureStats] = []
        outliers: dict[int, list[str]] = {}
        for figure, figure_stats in zip(self.figures, described, strict=True):
            values, positions, left_out = self.counted[figure.key]
            if figure_stats is not None:
                for index in figure_stats.outliers:
                    outliers.setdefault(positions[index], []).append(figure.key)
            stats.append(FigureStats(figure, figure_stats, dict(left_out), tuple(values)))
        runs = tuple(_run_row(
            r.run_id, r.repeat, r.host, r.status, warm, values, excluded, tuple(outliers.get(i, ())),
            dict(kind.report.facts(r)) if kind is not None else {}, r.seconds, r.bytes, r.started_at, r.error,
            r.engine, r,
        ) for i, (r, (warm, values, excluded)) in enumerate(zip(group, self.per_run, strict=True)))
        first = group[0]
        text = kind.present.params_text(dict(first.params)) if kind is not None else params_text(first)
        measured = tuple(kind.report.measurement(first).items()) if kind is not None else ()
        return CaseSummary(test_id=self.test_id, case=self.case, kind=self.kind_name, test_kind=self.test_kind,
                           params=dict(first.params), params_text=text, engine=first.engine, runs=runs,
                           figures=tuple(stats), measured=measured)


def kind_of_tests(records: Sequence[ResultRecord], planned: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each test's kind: from the plan when known, else the kind of the test's own record (a run
    whose id is the test id, as an auto-tune's; its transfers are ``<test>#<n>/<i>``), else the kind
    of its records."""
    kinds: dict[str, str] = {}
    own: dict[str, str] = {}
    for record in records:
        kinds.setdefault(record.test_id, record.kind)
        if record.run_id.split("@")[0] == record.test_id:
            own[record.test_id] = record.kind
    return {**kinds, **own, **(planned or {})}


# --- a results directory -------------------------------------------------------------------------


@dataclass(frozen=True)
class DirectorySummary:
    """One results directory as every report reads it: what ran (all attempts, resumed or not),
    each case's statistics, and where and with what it ran (``meta.json``, with the environment)."""

    path: str
    scenario: str
    created_at: str
    planned: int | None
    counts: dict[str, int]  # status -> planned runs (their latest records; every run without a plan)
    cases: tuple[CaseSummary, ...]
    meta: dict[str, Any]
    problems: tuple[str, ...]  # unreadable journal or samples lines
    not_run: tuple[str, ...]  # run ids of the plan with no record (stopped before them)
    kinds: dict[str, str]  # test id -> the test's kind
    samples: dict[str, RunSamples]  # run id -> its progress samples
    checks: tuple[Check, ...] = ()  # thresholds (expect:) checked as tests ended (expectations.jsonl)

    @property
    def violations(self) -> int:
        return sum(1 for c in self.checks if not c.ok)
    monitors: DirectoryMonitors | None = None  # monitors.jsonl and monitor-summaries.jsonl, if it has them

    @property
    def records(self) -> list[ResultRecord]:
        return [run.record for case in self.cases for run in case.runs]


def summarize_directory(path: str, records: Sequence[ResultRecord], *, meta: Mapping[str, Any] | None = None,
                        plan: Sequence[Mapping[str, Any]] = (), samples: Mapping[str, RunSamples] | None = None,
                        problems: Sequence[str] = (), checks: Sequence[Check] = (),
                        monitors: DirectoryMonitors | None = None) -> DirectorySummary:
    """The summary of a results directory's contents (read by the shell): its journal's records, its
    ``meta.json``, ``plan.json`` (the planned runs: which exist, and each test's kind) and samples."""
    latest = list(latest_by_run(list(records)).values())
    planned_kinds = {str(s["test_id"]): str(s["kind"]) for s in plan if "test_id" in s and "kind" in s}
    kinds = kind_of_tests(latest, planned_kinds)
    seen = {r.run_id for r in latest}
    planned_ids = {str(s["run_id"]) for s in plan if "run_id" in s}
    counted = [r for r in latest if r.run_id in planned_ids] if planned_ids else latest
    meta = dict(meta or {})
    planned = meta.get("runs")
    return DirectorySummary(
        path=path, scenario=str(meta.get("scenario") or (latest[0].scenario if latest else "")),
        created_at=str(meta.get("created_at") or ""), planned=planned if isinstance(planned, int) else None,
        counts=dict(Counter(r.status for r in counted)), cases=tuple(summarize_cases(latest, kinds, latest=False)),
        meta=meta, problems=tuple(problems), not_run=tuple(str(s["run_id"]) for s in plan
                                                            if "run_id" in s and str(s["run_id"]) not in seen),
        kinds=kinds, samples=dict(samples or {}), checks=tuple(checks), monitors=monitors,
    )
