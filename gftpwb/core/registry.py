"""Test kinds and engines as plug-ins: what one provides, and the registry that finds them.

A **kind** is everything gftpwb knows about one ``kind:`` of test, in facets, so a new kind
implements what it needs and nothing more:

* ``dsl`` (:class:`Dsl`, required): its keys and schema fragment, the checks the schema cannot
  express, and how a test becomes a typed model;
* ``planner`` (:class:`Planner`, required): how a test becomes run specs, and what the preflight
  looks for before they run (programs, host checks, the servers they talk to);
* ``run`` (:class:`Run`, required data): its runner and the rest of its shell side, by name;
* ``report`` (:class:`Report`, optional): the report section its records are tabulated in, which of
  their numbers are statistics, what ``expect:`` may set thresholds on;
* ``present`` (:class:`Present`, optional): how the console and the TUI show its runs;
* ``tuning`` (:class:`Tuning`, optional data): the parameters of its runs an auto-tune may vary,
  with the values it tries, and how one run with given values is made;

and ``exports``: the other formats its tests can be written in (a tgftp batchfile line). An
**engine** (``engine:`` of a test) carries out the transfers of the kinds that offer engines in
another way than running the real program: the simulated engine computes them from a link model.

Plug-ins are values (a :class:`Kind`, an instance of an :class:`Engine`) named by entry points in
the group ``gftpwb.kinds``. The built-in ones are declared in gftpwb's own ``pyproject.toml`` exactly
as a third-party package declares its own::

    [project.entry-points."gftpwb.kinds"]
    iperf3 = "gftpwb_iperf3.kind:KIND"

so adding a kind is one folder plus that line; the loader, planner, executor, console and TUI ask
this registry and never test a kind's name. Loading is lazy: entry points are read on the first
question (``gftpwb --help`` never does), and a kind's shell side (its runner, extra event consumers)
is named by a ``"module:attribute"`` string that is imported only when a run needs it, so the core
never imports the shell and start-up does not import every kind's runner.

Extension points for later work hang here too:

* ``Run.consumers``: bus subscribers a kind adds to every scenario run (gfapi writes its CSV files
  so); monitors and tracing that follow runs attach the same way;
* ``Report.section``: the report section its records appear in (:class:`ReportSection`, a list of
  tables, charts and data); plots of a kind are further blocks of its section;
* ``Report.figures`` / ``Report.measure``: which numbers of its records are statistics of a case
  (the rate of a guc run, the files/s of a gfapi run), and ``Report.facts`` what else a report says
  of a run (guc's transfer mode); :mod:`gftpwb.core.summary` asks them and never tests a kind's name;
* ``Kind.exports``: a format another tool reads, by name (``"tgftp-batchfile"``), so a converter asks
  the kind and never tests its name.
"""

from __future__ import annotations

import abc
import importlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from gftpwb.core.errors import Diagnostic, EnvironmentProblem, UsageError

if TYPE_CHECKING:
    from importlib import metadata

    from gftpwb.core.records import ResultRecord
    from gftpwb.core.reporttypes import Measured, ReportData, ReportTable
    from gftpwb.core.scenario.keys import Key
    from gftpwb.core.scenario.model import Scenario, TestModel
    from gftpwb.core.scenario.yamlpos import Path, Positions
    from gftpwb.core.specs import RunSpec

ENTRY_POINT_GROUP = "gftpwb.kinds"
# What reports are made of lives in gftpwb.core.reporttypes (made when a report is): still importable
# from here, as it always was, without making those classes at every start.
_REPORT_TYPES = frozenset({"DerivedFigure", "Measured", "ReportData", "ReportTable"})


def __getattr__(name: str) -> Any:
    if name in _REPORT_TYPES:
        from gftpwb.core import reporttypes

        return getattr(reporttypes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def resolve(reference: str) -> Any:
    """Import ``"package.module:attribute"`` and return the attribute (as entry points do)."""
    module, _, attribute = reference.partition(":")
    value: Any = importlib.import_module(module)
    for part in attribute.split(".") if attribute else ():
        value = getattr(value, part)
    return value


# --- what checks and builders see of a test ---------------------------------------------------------


@dataclass
class TestInput:
    """One test of a scenario file on its way to the typed model: its own mapping (``raw``), the
    same with the defaults its kind takes merged in (``merged``), where it stands in the file, and
    the lists a check reports into (positioned at a key of the test, or at the test itself)."""

    __test__ = False  # not a pytest test class

    raw: dict[str, Any]
    merged: dict[str, Any]
    index: int
    pos: Positions
    filename: str
    errors: list[Diagnostic] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    #: The scenario's host inventory as written (name -> its mapping; ``local`` is implicit), for
    #: kinds whose keys name hosts besides ``on`` (an iperf3 test's client and server hosts).
    inventory: dict[str, Any] = field(default_factory=dict)
    #: Every test of the scenario as written, for keys that name another test (a guc test's baseline).
    tests: tuple[dict[str, Any], ...] = ()

    @property
    def id(self) -> str:
        """The test's id; its place (``tests[2]``) for a test without one (only when the schema's
        error says so and :meth:`Dsl.check_values` still looks at its values)."""
        return str(self.raw["id"]) if "id" in self.raw else f"tests[{self.index}]"

    @property
    def path(self) -> Path:
        return ("tests", self.index)

    @property
    def on(self) -> tuple[str, ...]:
        value = self.merged.get("on", "local")
        return (value,) if isinstance(value, str) else tuple(value)

    def where(self, key: str | None = None, *, of_key: bool = False) -> tuple[int, int]:
        """Line and column of ``key``'s value (or of the key itself), else of the test."""
        if key is None or key not in self.raw:
            return self.pos.of_value(self.path)
        path = (*self.path, key)
        return self.pos.of_key(path) if of_key else self.pos.of_value(path)

    def error(self, message: str, key: str | None = None, *, of_key: bool = False) -> None:
        line, col = self.where(key, of_key=of_key)
        self.errors.append(Diagnostic(self.filename, line, col, message))

    def warning(self, message: str, key: str | None = None, *, of_key: bool = False) -> None:
        line, col = self.where(key, of_key=of_key)
        self.warnings.append(Diagnostic(self.filename, line, col, message, severity="warning"))


@dataclass(frozen=True)
class Program:
    """A program a run needs on the host it runs on, and how to get it (for the preflight's message)."""

    name: str
    hint: str


@dataclass(frozen=True)
class HostCheck:
    """Something the preflight looks at on a host before any run of the scenario starts: run ``argv``
    there (never through a shell; scenario values are arguments of their own) and ``problem(stdout)``
    says what stops the runs, in words, or None when all is well. ``who`` names who asks, for the
    message (``test 'disk', target``). Checks with the same host and argv run once. A host that
    cannot be reached, or a check that cannot start, is left to the run, which reports it.

    Why: a problem found inside a run fails that run after others may have started (exit 1); found
    here it refuses the whole scenario with exit 3 (EXIT_ENVIRONMENT) and nothing is made or run.
    """

    host: str
    argv: tuple[str, ...]
    problem: Callable[[str], str | None] = field(compare=False)
    who: str = ""


# --- reports ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportSection:
    """A part of the end-of-run report. Kinds that name the same section (guc and connection tests)
    are tabulated together; sections appear in ``order``. ``tables`` turns the records of the
    section's tests into tables (pure): a function, or its ``"module:attribute"`` (imported when a
    report is made)."""

    name: str
    order: int
    tables: Callable[[Sequence[ResultRecord]], list[ReportTable]] | str
    #: Whether the report lists the section's runs that did not pass under its tables (an auto-tune's
    #: section does not: its transfers' failures are in its ranking).
    list_failures: bool = True

    #: Charts of the section for the HTML report (besides those every section gets from its kinds'
    #: figures: rate per case, rate over time): ``charts(records, samples) -> list[Chart]`` (pure;
    #: :mod:`gftpwb.core.charts`), or its ``"module:attribute"``; ``samples`` maps run ids to
    #: :class:`gftpwb.core.samples.RunSamples`.
    charts: Callable[[Sequence[ResultRecord], Any], list[Any]] | str | None = None

    #: The section's tables that are more than the cases' statistics, as data for ``report --json``
    #: and ``--csv``: ``data(records, cases) -> list[ReportData]`` (pure), or its ``"module:attribute"``;
    #: ``cases`` are the section's :class:`gftpwb.core.summary.CaseSummary`, already computed (their
    #: statistics are the expensive part of a large report).
    data: Callable[[Sequence[ResultRecord], Sequence[Any]], list[ReportData]] | str | None = None

    #: Kinds whose tests' records this section gets too, besides those of its own kinds (which keep
    #: their own section): a comparison across kinds (other protocols against guc and iperf3 on the
    #: same path). Only when the section has records of its own.
    also: tuple[str, ...] = ()

    def build(self, records: Sequence[ResultRecord]) -> list[ReportTable]:
        make = registry().resolve(self.tables) if isinstance(self.tables, str) else self.tables
        return make(records)

    def build_charts(self, records: Sequence[ResultRecord], samples: Any) -> list[Any]:
        if self.charts is None:
            return []
        make = registry().resolve(self.charts) if isinstance(self.charts, str) else self.charts
        return make(records, samples)

    def build_data(self, records: Sequence[ResultRecord], cases: Sequence[Any]) -> list[ReportData]:
        if self.data is None:
            return []
        make = registry().resolve(self.data) if isinstance(self.data, str) else self.data
        return make(records, cases)


# --- figures: the numbers of a kind's records that are statistics ----------------------------------


@dataclass(frozen=True)
class Figure:
    """A number each passed run of a kind has, whose values over a case's runs are summarised by
    :func:`gftpwb.core.stats.describe` (median, CV, confidence intervals). ``path`` finds it in the
    record as JSON (``("rate_incl_setup_mib_s",)``, ``("details", "gfapi", "cluster", "last_done",
    "files_s")``), so records read from any results directory are measured the same way."""

    key: str  # its name in reports and the JSON summary
    label: str  # how a column header names it
    unit: str
    path: tuple[str, ...]
    digits: int = 1
    higher_is_better: bool = True
    #: Whether every value is above 0 (a rate, a count per second, a time, a ratio of rates): its
    #: intervals are then made on the log scale and never reach 0 (:mod:`gftpwb.core.intervals`).
    positive: bool = True
    #: A flag of the record (a path, like ``path``) that, when true, keeps the value out of the
    #: statistics with the reason ``excluded_reason`` (guc's average of a short transfer is
    #: "quantised"). Data rather than code, so the history's SQL view leaves out the same values.
    excluded_by: tuple[str, ...] = ()
    excluded_reason: str = ""
    #: More reasons to leave a value the record has out, looked at in order after ``excluded_by``
    #: (guc's average of a multi-file transfer is its last file's: "per file"). Data too, for the
    #: same reason.
    exclusions: tuple[Exclusion, ...] = ()

    def excluded(self, record: Any, value: float | None) -> str:
        """Why ``value``, the figure's value in ``record``, is not a statistic ("" when it is one)."""
        if self.excluded_by and _flag_in_record(record, self.excluded_by):
            return self.excluded_reason
        if value is not None:
            for rule in self.exclusions:
                if rule.applies(record):
                    return rule.reason
        return ""


@dataclass(frozen=True)
class Exclusion:
    """A value of the record (``path``, like :attr:`Figure.path`) that keeps a figure's value out of
    the statistics with ``reason``: a number above ``above``, or with ``above`` None, a flag that
    is true. A value that is missing or of another type keeps nothing out."""

    path: tuple[str, ...]
    reason: str
    above: float | None = None

    def applies(self, record: Any) -> bool:
        if self.above is None:
            return _flag_in_record(record, self.path)
        value = _in_record(record, self.path)
        return value is not None and value > self.above


@dataclass(frozen=True)
class Metric:
    """A number of a case that ``expect:`` can set a threshold on (``median_rate: ">= 900MiB/s"``).
    Either a statistic of one of the kind's figures (``figure`` and ``statistic``: median, mean, min,
    max or cv), or a fact of its runs (``fact``: the tune's ``p_within_margin``; the worst run's
    value counts). ``unit`` says how a threshold is written: ``"MiB/s"`` a rate (``900MiB/s``,
    ``1Gbit/s``; a bare number is MiB/s), ``"%"`` a percentage (``5%``), ``""`` a plain number
    (a probability also as a percentage)."""

    name: str
    description: str
    unit: str = ""
    figure: str = ""
    statistic: str = "median"
    fact: str = ""


def value_at(data: Any, path: Sequence[str]) -> float | None:
    """The number at ``path`` in nested mappings (None when a step is missing or it is no number)."""
    for step in path:
        if not isinstance(data, dict):
            return None
        data = data.get(step)
    return float(data) if isinstance(data, int | float) and not isinstance(data, bool) else None


# --- the plug-in protocol: a kind is a name and its facets -------------------------------------------
#
# A kind implements what it needs and nothing more: three facets are required (how its tests are
# written, planned and run), two are optional with defaults that suit a kind that runs one process
# per run and moves bytes (how its records are reported, how its runs are shown). A facet with
# methods is a class to subclass (abstract methods must be written, the others have defaults); a
# facet that is only data is a frozen dataclass to fill in.


class Vocabulary:
    """What a plug-in adds to the scenario language: its keys, the schema definitions they refer to,
    and the checks the schema cannot express. An engine's is this; a kind's is a :class:`Dsl`."""

    def test_keys(self) -> tuple[Key, ...]:
        """Keys it adds (a kind: those a test of it takes besides ``id``, ``kind``, ``description``
        and ``on``; an engine: those it adds to the kinds that take an engine, the simulated link)."""
        return ()

    def definitions(self) -> dict[str, dict[str, Any]]:
        """Schema definitions its keys refer to with ``#/definitions/<name>``."""
        return {}

    def check(self, test: TestInput) -> None:
        """Problems the schema cannot express; report them with ``test.error`` / ``test.warning``."""
        return None


class Dsl(Vocabulary, abc.ABC):
    """A kind's part of the scenario language (required): its keys, and how a valid test of it
    becomes its typed model."""

    @abc.abstractmethod
    def test_keys(self) -> tuple[Key, ...]:
        """The keys a test of this kind takes besides ``id``, ``kind``, ``description`` and ``on``."""

    def defaults_keys(self) -> tuple[Key, ...]:
        """Keys it offers to the scenario's ``defaults:`` block (a test inherits those of its keys)."""
        return ()

    @abc.abstractmethod
    def build(self, test: TestInput) -> TestModel:
        """The typed model of a valid test (``test.merged`` holds its values with defaults)."""

    def check_values(self, test: TestInput) -> None:
        """Problems of single values (a URL's typo) that are worth reporting even when the scenario
        breaks the schema: the loader calls this instead of :meth:`check` then, so every problem of
        the file is reported in one pass. Nothing of the test has been checked: read each value
        defensively (``test.merged.get(key)``, its type checked) and leave a value of the wrong type
        to the schema's error."""
        return None


class Planner(abc.ABC):
    """How a test of a kind becomes run specs, and what those runs need before they start (required)."""

    @abc.abstractmethod
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        """Run specs for ``test`` and how many case numbers it takes, starting at ``first_case``."""

    def describe(self, spec: RunSpec, limit: str) -> list[str]:
        """What ``run --dry-run`` prints for a spec; ``limit`` is the timeout note to append."""
        engine = registry().engine_label(spec.engine)
        return [f"{spec.run_id}: {_shlex_join(spec.argv)}{limit}{f'  # {engine}' if engine else ''}"]

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        """Programs that must be on PATH before a run of ``spec`` on this machine (the preflight)."""
        return ()

    def host_checks(self, spec: RunSpec) -> tuple[HostCheck, ...]:
        """What the preflight runs on the hosts a run of ``spec`` uses before any run starts (guc's
        ``files:``: that the server's user can pass every directory above the test files)."""
        return ()

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        """The servers a run of ``spec`` talks to, as URLs (``gsiftp://host:2811``): the environment
        in meta.json records each one's route and MTU as the run's host sees it, and the banner of
        (Grid)FTP servers. None for runs that move no data over a network (simulated ones)."""
        return ()


class ImportedDsl(Dsl):
    """A kind's :class:`Dsl` named by ``"module:attribute"`` (a Dsl subclass or instance), imported on
    its first use. A kind's module (its entry point) then costs nothing to load: ``gftpwb validate``
    loads every kind but imports the language of only those its scenario uses (and none when the
    installed kinds are gftpwb's own, whose schema is shipped: :func:`gftpwb.core.dsl.schema.scenario_schema`)."""

    def __init__(self, reference: str):
        self.reference = reference
        self._target: Dsl | None = None

    @property
    def target(self) -> Dsl:
        if self._target is None:
            self._target = _facet(self.reference, Dsl)
        return self._target

    def test_keys(self) -> tuple[Key, ...]:
        return self.target.test_keys()

    def defaults_keys(self) -> tuple[Key, ...]:
        return self.target.defaults_keys()

    def definitions(self) -> dict[str, dict[str, Any]]:
        return self.target.definitions()

    def check(self, test: TestInput) -> None:
        self.target.check(test)

    def check_values(self, test: TestInput) -> None:
        self.target.check_values(test)

    def build(self, test: TestInput) -> TestModel:
        return self.target.build(test)


class ImportedPlanner(Planner):
    """A kind's :class:`Planner` named by ``"module:attribute"``, imported on its first use (see
    :class:`ImportedDsl`)."""

    def __init__(self, reference: str):
        self.reference = reference
        self._target: Planner | None = None

    @property
    def target(self) -> Planner:
        if self._target is None:
            self._target = _facet(self.reference, Planner)
        return self._target

    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        return self.target.plan(scenario, test, first_case)

    def describe(self, spec: RunSpec, limit: str) -> list[str]:
        return self.target.describe(spec, limit)

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return self.target.programs(spec)

    def host_checks(self, spec: RunSpec) -> tuple[HostCheck, ...]:
        return self.target.host_checks(spec)

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        return self.target.endpoints(spec)


def _facet(reference: str, facet: type) -> Any:
    """The facet ``reference`` names: an instance of ``facet``, or a subclass of it made with no arguments
    (a plug-in that names a wrong one is reported as the registry reports a kind it cannot load)."""
    try:
        value = resolve(reference)
        if isinstance(value, type) and issubclass(value, facet):
            value = value()
    except Exception as exc:
        raise EnvironmentProblem(f"cannot load the facet {reference}: {type(exc).__name__}: {exc}") from exc
    if not isinstance(value, facet):
        what = value.__name__ if isinstance(value, type) else type(value).__name__
        raise EnvironmentProblem(f"{reference} names a {what}, not a {facet.__module__}.{facet.__name__}")
    return value


@dataclass(frozen=True)
class Run:
    """How a kind's runs are carried out (required): the shell side, named by ``"module:attribute"``
    strings imported only when a run needs them, so the core never imports the shell and start-up
    does not import every kind's runner."""

    #: Its runner, ``async run(ctx, spec) -> ResultRecord`` (see :mod:`gftpwb.shell.context`);
    #: imported when the first run of the kind starts.
    runner: str
    #: Factories ``f(results_dir) -> handler``: bus subscribers added to every scenario run that has
    #: a test of this kind (gfapi writes its CSV files so; imported then).
    consumers: tuple[str, ...] = ()
    #: A factory ``f(spec) -> PhaseReader | None`` (:mod:`gftpwb.core.trace.records`): reads a traced
    #: run's output lines and reports the phases of the run (guc: connect, login, data, close from its
    #: ``-dbg`` conversation). "": the trace has the run's span and samples only.
    trace_phases: str = ""
    #: Whether its runs write tgftp tag logs (the record's ``taglog`` is then the spec's log name).
    writes_taglog: bool = False


@dataclass(frozen=True)
class Report:
    """How a kind's records are reported (optional; the default: in no table, with no statistics).
    Fill in the data; subclass to override :meth:`measure` or :meth:`facts`."""

    #: The report section its records are tabulated in at the end of a run (None: not tabulated).
    section: ReportSection | None = None
    #: The numbers of its records that are statistics of a case, the headline one first (reports
    #: show its median, CV and confidence interval; the others have theirs in the JSON summary).
    figures: tuple[Figure, ...] = ()
    #: What ``expect:`` may set thresholds on for a test of this kind (none: the kind takes no
    #: ``expect``); checked at the end of each test (:mod:`gftpwb.core.expect`).
    metrics: tuple[Metric, ...] = ()

    def measure(self, record: ResultRecord) -> dict[str, Measured]:
        """Each of :attr:`figures` in a passed record (found by its path); override to leave a value
        out of the statistics with the reason (``Measured(value, excluded="quantised")``)."""
        from gftpwb.core.reporttypes import Measured

        out = {}
        for figure in self.figures:
            value = _in_record(record, figure.path)
            out[figure.key] = Measured(value, figure.excluded(record, value))
        return out

    def facts(self, record: ResultRecord) -> dict[str, str | float | int | bool | None]:
        """What else a report says of one run, as plain values (guc: its transfer mode)."""
        return {}

    def measurement(self, record: ResultRecord) -> dict[str, str]:
        """How a record's figures were measured, where that can differ between records of one kind (the
        tool that timed it, how its totals were aggregated, a delay inside its timed loop): ``compare``
        warns when A's and B's differ, as it does when two tools timed the rates. {} : nothing to tell."""
        return {}


@dataclass(frozen=True)
class Present:
    """How a kind's runs are shown by the front ends (optional; the defaults suit a run of one
    process that moves bytes). Subclass to override a method."""

    #: A run that reported no per-thread telemetry shows as one row in the threads view.
    whole_run_row: bool = True

    def announce(self, spec: RunSpec) -> str | None:
        """A run that steers others rather than moving data shows this line when it starts, instead
        of a progress line of its own (an auto-tune). None: an ordinary run."""
        return None

    def waiting(self, spec: RunSpec) -> str:
        """The console's text while a run has reported no progress yet."""
        return "waiting for the first progress report"

    def progress_note(self, spec: RunSpec) -> str:
        """Why a run will report no live progress, only its elapsed time ("" when it reports progress);
        front ends say it (guc between two servers in stream mode runs without -vb)."""
        return ""

    def headline(self, record: ResultRecord) -> str:
        """The console's one-line result of a passed run (its time alone when it moved no bytes)."""
        from gftpwb.core.format import human_bytes, rate_text

        if record.bytes is None:
            return f"done in {record.seconds or 0:.3f}s"
        rate = rate_text(record.rate_incl_setup_mib_s)
        return f"{human_bytes(record.bytes)} in {record.seconds or 0:.3f}s  {rate} MiB/s"

    def partial_headline(self, record: ResultRecord) -> str:
        """What a run that did not pass still measured, as one line ("": nothing worth a figure, the
        default): a gfapi run that lost a host keeps the figures of the threads that finished."""
        return ""

    def remarks(self, record: ResultRecord) -> tuple[str, ...]:
        """A few words each on what a reader of a finished run's figures must know, for the front ends'
        short notes (the TUI's scenario view): a figure too short to publish, a partial result."""
        return ()

    def params_text(self, params: dict[str, Any]) -> str:
        """A run's parameters as one short text (reports, comparisons)."""
        return " ".join(f"{k}={v}" for k, v in params.items())

    def update_blocks(self, event: Any) -> list[ReportTable | tuple[str, str]]:
        """What the console prints when a running test of this kind publishes its final update (an
        auto-tune's :class:`~gftpwb.core.events.TuneUpdate`): tables and (text, style) lines."""
        return []


@dataclass(frozen=True)
class Tunable:
    """One parameter of a kind's runs an auto-tune may vary: the name of the kind's option (a key of
    its ``options`` and of its runs' params), the schema of one value, and the values a search tries
    when the auto-tune names none (empty: only when named)."""

    name: str
    schema: Mapping[str, Any]
    description: str = ""
    values: tuple[Any, ...] = ()
    #: How the tool is told it (``-tcp-bs``, ``XRD_CPCHUNKSIZE``): what messages call it.
    flag: str = ""
    #: Values are sizes (``8M``): the plan keeps them in bytes.
    size: bool = False
    #: A switch: true passes it, false is the same as leaving it out (guc's -fast); else false is a
    #: value of its own (xrdcp's page checksums off).
    switch: bool = False
    #: It sets a socket buffer, which the kernel caps at net.core.rmem_max / wmem_max: candidates that
    #: differ only above the cap behave the same (the auto-tune marks them).
    socket_buffer: bool = False


@dataclass(frozen=True)
class Transfer:
    """One run of a kind with given parameter values, as a tuning facet makes it (the auto-tune
    turns it into a run spec of that kind)."""

    argv: tuple[str, ...]
    params: dict[str, Any]
    details: dict[str, Any] = field(default_factory=dict)
    length_bytes: int | None = None


@dataclass(frozen=True)
class Tuning:
    """What an auto-tune may vary in a kind's runs (optional; no parameters: the kind is not tuned).

    ``transfer`` names ``f(source, target, params, length, extra_args) -> Transfer``: one run between
    the two ends with those parameter values, ``length`` bytes (``"module:attribute"``, imported when
    a tune is planned); ``label`` names ``f(transfer, extra_args) -> str``: how a candidate is shown,
    read from the run it makes (guc's: the arguments of its command line, as tgftp -a prints its
    line), so every table, record and export names what ran."""

    parameters: tuple[Tunable, ...] = ()
    transfer: str = ""
    label: str = ""
    #: Its runs can read /dev/zero and write /dev/null on the same servers (tgftp -a's memory to memory).
    memory_ends: bool = False
    #: Its runs move ``length`` bytes whatever the source holds (guc -len); else they move their
    #: source whole, and ``length`` must say how much that is.
    sets_length: bool = False

    def parameter(self, name: str) -> Tunable | None:
        return next((t for t in self.parameters if t.name == name), None)

    def make_transfer(self, source: str, target: str, params: Mapping[str, Any], length: int | None,
                      extra_args: Sequence[str] = ()) -> Transfer:
        make = registry().resolve(self.transfer)
        return make(source, target, dict(params), length, tuple(extra_args))

    def label_of(self, transfer: Transfer, extra_args: Sequence[str] = ()) -> str:
        """How a candidate is shown, from the run it makes."""
        if not self.label:
            return " ".join(f"{k}={v}" for k, v in transfer.params.items()) or "defaults"
        return registry().resolve(self.label)(transfer, tuple(extra_args))

    def candidate_label(self, source: str, target: str, params: Mapping[str, Any], length: int | None,
                        extra_args: Sequence[str] = ()) -> str:
        """The label of the run these parameter values make between these ends: what runs, not what
        was asked for (guc between two servers runs without the ``-vb`` a stream-mode candidate asks
        for, by the mode rule)."""
        return self.label_of(self.make_transfer(source, target, params, length, extra_args), extra_args)


_FACETS = (("dsl", Dsl), ("planner", Planner), ("run", Run), ("report", Report), ("present", Present),
           ("tuning", Tuning))


@dataclass(frozen=True, eq=False)
class Kind:
    """One kind of test: its name and its facets. A plug-in's module makes one and names it in an
    entry point (``KIND = Kind(name=..., description=..., dsl=..., planner=..., run=Run(...))``);
    gftpwb asks its facets and never tests its name."""

    #: The ``kind:`` value in scenarios, and ``kind`` in specs and records.
    name: str
    #: What it does, in one sentence (schema, editors).
    description: str
    dsl: Dsl
    planner: Planner
    run: Run
    report: Report = Report()
    present: Present = Present()
    tuning: Tuning = Tuning()
    #: Where it stands in the schema and in reports among the others (built-ins: 10-50).
    order: int = 100
    #: Other formats a test of this kind can be written in: the format's name -> ``"module:attribute"``
    #: of what writes it (``"tgftp-batchfile"``: ``f(test, point) -> (guc parameters, is a connection
    #: test, note)``, one case as a tgftp 0.7.0 batchfile line). A format a kind does not name has
    #: no equivalent of its tests.
    exports: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # a wrong facet would otherwise surface as an AttributeError in the middle of a run
        for attribute, facet in _FACETS:
            value = getattr(self, attribute)
            if not isinstance(value, facet):
                raise TypeError(f"kind {self.name!r}: {attribute} must be a {facet.__module__}.{facet.__name__}, "
                                f"not {type(value).__name__}")


def _flag_at(data: Any, path: Sequence[str]) -> bool:
    for step in path:
        if not isinstance(data, dict):
            return False
        data = data.get(step)
    return data is True


# What a figure's path may start with: the record's details, or one of these fields.
_RECORD_FIELDS = frozenset({"seconds", "bytes", "rate_incl_setup_mib_s", "rate_guc_avg_mib_s", "exit_code"})


def _start(record: Any, path: Sequence[str]) -> tuple[bool, Any]:
    """Where ``path`` starts in ``record`` seen as JSON with only its details and ``_RECORD_FIELDS``
    (False: it starts nowhere)."""
    if not path:
        return False, None
    head = path[0]
    if head == "details":
        return True, record.details
    if head in _RECORD_FIELDS:
        return True, getattr(record, head)
    return False, None


def _in_record(record: Any, path: Sequence[str]) -> float | None:
    """:func:`value_at` of ``path`` in the record as JSON (details and ``_RECORD_FIELDS``), without
    building that JSON for every record of a report."""
    found, data = _start(record, path)
    return value_at(data, path[1:]) if found else None


def _flag_in_record(record: Any, path: Sequence[str]) -> bool:
    found, data = _start(record, path)
    return _flag_at(data, path[1:]) if found else False


class Engine(abc.ABC):
    """Another way to carry out the transfers of kinds that take ``engine:`` (guc, autotune)."""

    #: The ``engine:`` value.
    name: str
    #: What it does (the engine key's description in the schema).
    description: str
    #: How its results are marked wherever they are shown ("SIMULATED").
    label: str
    #: Where its schema definitions go among the kinds' (built-ins: 10-50).
    order: int = 100
    #: ``"module:attribute"`` of ``async run(ctx, spec) -> ResultRecord`` for a transfer spec.
    runner: str = ""
    #: The keys it adds to the kinds that take an engine (the simulated link), their definitions and
    #: the checks of a test's engine settings.
    dsl: Vocabulary = Vocabulary()

    def buffer_cap(self, spec: RunSpec) -> int | None:
        """The TCP buffer limit (rmem_max / wmem_max) of the ends it models, if it models one."""
        return None

    def rtt_s(self, spec: RunSpec) -> float | None:
        """The round-trip time of the path it models, if it models one (the auto-tune's warm start
        compares paths by it)."""
        return None

    @abc.abstractmethod
    def banner(self, runs: int) -> str:
        """What the console says first when ``runs`` runs of a scenario use this engine."""


Plugin = Kind | Engine


class EntryPoints(Protocol):
    def __call__(self) -> Iterable[metadata.EntryPoint]: ...


def _entry_points() -> Iterable[metadata.EntryPoint]:
    from gftpwb.core.entrypoints import entry_points  # read as importlib.metadata does, without its imports

    return entry_points(ENTRY_POINT_GROUP)


def _shlex_join(argv: Sequence[str]) -> str:
    import shlex

    return shlex.join(argv)


class Registry:
    """The kinds and engines found through entry points, loaded on the first question."""

    def __init__(self, entry_points: EntryPoints = _entry_points):
        self._entry_points = entry_points
        self._kinds: dict[str, Kind] | None = None
        self._engines: dict[str, Engine] = {}
        self._resolved: dict[str, Any] = {}
        self._memo: dict[str, Any] = {}
        self._found: list[Any] | None = None

    def entry_points(self) -> list[Any]:
        """The plug-ins' entry points (read once; nothing of them imported)."""
        if self._found is None:
            self._found = sorted(self._entry_points(), key=lambda e: e.name)
        return self._found

    def memo(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()``'s value, made once per registry: what is derived from the plug-ins (the schema,
        key tables) is built on first use and forgotten with the registry."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def _load(self) -> dict[str, Kind]:
        if self._kinds is not None:
            return self._kinds
        kinds: dict[str, Kind] = {}
        engines: dict[str, Engine] = {}
        for entry in self.entry_points():
            try:
                plugin = entry.load()
            except Exception as exc:
                raise EnvironmentProblem(f"cannot load the test kind {entry.name!r} ({entry.value}): "
                                         f"{type(exc).__name__}: {exc}") from exc
            if not isinstance(plugin, Kind | Engine):
                raise EnvironmentProblem(f"entry point {entry.name!r} ({entry.value}) of {ENTRY_POINT_GROUP} is "
                                         "neither a Kind nor an Engine")
            if plugin.name != entry.name:
                raise EnvironmentProblem(f"entry point {entry.name!r} ({entry.value}) names a plug-in called "
                                         f"{plugin.name!r}; the two names must be the same")
            table: dict[str, Any] = kinds if isinstance(plugin, Kind) else engines
            if plugin.name in kinds or plugin.name in engines:
                raise EnvironmentProblem(f"two plug-ins are called {plugin.name!r} ({entry.value} and another)")
            table[plugin.name] = plugin
        if not kinds:
            raise EnvironmentProblem(f"no test kinds are registered (entry points {ENTRY_POINT_GROUP}): gftpwb is not "
                                     "installed; install it (make demo does: pip install -e .)")
        order = lambda p: (p.order, p.name)  # noqa: E731
        self._kinds = dict(sorted(kinds.items(), key=lambda item: order(item[1])))
        self._engines = dict(sorted(engines.items(), key=lambda item: order(item[1])))
        return self._kinds

    # --- questions ------------------------------------------------------------------------------

    def kinds(self) -> list[Kind]:
        """Every kind, in schema order."""
        return list(self._load().values())

    def kind_names(self) -> tuple[str, ...]:
        return tuple(self._load())

    def kind(self, name: str) -> Kind:
        kinds = self._load()
        try:
            return kinds[name]
        except KeyError:
            raise UsageError(f"unknown test kind {name!r}; registered: {', '.join(kinds)}") from None

    def find(self, name: str) -> Kind | None:
        """The kind called ``name``, or None (records read from elsewhere may name any kind)."""
        return self._load().get(name)

    def engines(self) -> list[Engine]:
        self._load()
        return list(self._engines.values())

    def engine(self, name: str) -> Engine:
        self._load()
        try:
            return self._engines[name]
        except KeyError:
            raise UsageError(f"unknown engine {name!r}; registered: {', '.join(self._engines)}") from None

    def engine_label(self, name: str) -> str:
        """How runs on engine ``name`` are marked ("" for the real engine)."""
        self._load()
        engine = self._engines.get(name)
        return engine.label if engine is not None else ""

    def plugins(self) -> list[Plugin]:
        """Kinds and engines together, in schema order (where their definitions go)."""
        self._load()
        return sorted([*self._kinds.values(), *self._engines.values()],  # type: ignore[union-attr]
                      key=lambda p: (p.order, p.name))

    def resolve(self, reference: str) -> Any:
        """A plug-in's lazily named part (``"module:attribute"``), imported once."""
        if reference not in self._resolved:
            self._resolved[reference] = resolve(reference)
        return self._resolved[reference]

    def phase_reader(self, spec: RunSpec) -> Any:
        """A reader of the phases of a traced run of ``spec`` (None when its kind reads none)."""
        kind = self.find(spec.kind)
        if kind is None or not kind.run.trace_phases:
            return None
        return self.resolve(kind.run.trace_phases)(spec)

    def runner(self, kind: str) -> Any:
        """The runner of ``kind`` (imported now, if it was not)."""
        return self.resolve(self.kind(kind).run.runner)

    def engine_runner(self, engine: str) -> Any:
        return self.resolve(self.engine(engine).runner)


_REGISTRY: Registry | None = None


def registry() -> Registry:
    """The process-wide registry (entry points are read on its first question)."""
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = Registry()
    return _REGISTRY


def reset_registry() -> None:
    """Forget what was loaded, so the next question reads the entry points again (after a plug-in
    was installed or put on ``sys.path``, as the tests do)."""
    global _REGISTRY
    _REGISTRY = None
