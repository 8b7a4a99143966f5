"""The headless console: a live progress line on a terminal, plain lines otherwise, and the report
tables at the end. It only reads events (the TUI reads the same ones) and asks each run's kind how
to word it (:mod:`gftpwb.core.registry`): what a run that steers others announces, what a finished
run's line says, and which report section its records go to."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Sequence

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.text import Text

from gftpwb.core.checks import Check
from gftpwb.core.events import (
    CopiesFinished,
    Event,
    ExpectationsChecked,
    MonitorsFinished,
    Notice,
    OutputLine,
    Progress,
    RunDelayed,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
    TuneUpdate,
)
from gftpwb.core.format import CONSOLE_STATUS_STYLE, counts_text, human_bytes, rate_text, short_error
from gftpwb.core.harness.aggregate import concurrent_aggregates, copies_table, summary_text
from gftpwb.core.journal import Journal
from gftpwb.core.monitors.report import monitors_table
from gftpwb.core.records import PASSED, STOPPED_BY_TEXT, ResultRecord
from gftpwb.core.registry import ReportTable, registry
from gftpwb.core.report import report_sections
from gftpwb.core.report_tables import checks_table
from gftpwb.core.specs import RunSpec
from gftpwb.shell.sinks.plain_table import PlainTable


class _Flight:
    """One run in flight: its label, start time and latest progress sample."""

    def __init__(self, label: str, t0: float, waiting: str):
        self.label = label
        self.t0 = t0
        self.progress: Progress | None = None
        self.waiting = waiting


class _CopyFlight:
    """The copies of one run in flight (a test's ``concurrency``): one status line for all of them,
    with how many run and are done, and their bytes and rates added up."""

    def __init__(self, label: str, t0: float, run_ids: list[str]):
        self.label = label
        self.t0 = t0
        self.run_ids = run_ids
        self.started: set[str] = set()
        self.progress: dict[str, Progress] = {}
        self.lines: dict[str, Text] = {}  # finished copies' result lines, printed in order at the end

    def render(self) -> Text:
        elapsed = time.monotonic() - self.t0
        running = len(self.started) - len(self.lines)
        line = Text(f"{self.label}  {elapsed:6.1f}s  {running} running, {len(self.lines)}/{len(self.run_ids)} done")
        live = [p for run_id, p in self.progress.items() if run_id not in self.lines]
        if live:
            rate = sum(p.rate_avg_mib_s or 0.0 for p in live)
            line.append(f"  {human_bytes(sum(p.bytes for p in self.progress.values()))}  {rate_text(rate)} MiB/s "
                        "sum of copies")
        else:
            line.append("  waiting for the copies' first progress reports", style="dim")
        return line


class _LiveLine:
    """The live view of the runs in flight, one line each (several when a test runs on several
    hosts at once), and one line for all copies of a run; re-rendered by rich.live on its own timer."""

    def __init__(self) -> None:
        self.flights: dict[str, _Flight | _CopyFlight] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for flight in list(self.flights.values()):
            if isinstance(flight, _CopyFlight):
                yield flight.render()
            else:
                yield from self._render(flight)

    @staticmethod
    def _render(flight: _Flight) -> RenderResult:
        elapsed = time.monotonic() - flight.t0
        p = flight.progress
        line = Text(f"{flight.label}  {elapsed:6.1f}s  ")
        if p is None:
            line.append(flight.waiting, style="dim")
            yield line
            return
        if p.length_bytes:
            done = min(p.bytes / p.length_bytes, 1.0)
            yield ProgressBar(total=p.length_bytes, completed=p.bytes, width=24)
            eta = ""
            if p.rate_avg_mib_s and p.bytes < p.length_bytes:
                eta = f"  ETA {(p.length_bytes - p.bytes) / (p.rate_avg_mib_s * 1048576):.1f}s"
            line.append(f"{done:4.0%}  ")
        else:
            eta = ""
        line.append(f"{human_bytes(p.bytes)}  {rate_text(p.rate_avg_mib_s)} MiB/s avg{span_text(p)}  "
                    f"{rate_text(p.rate_inst_mib_s)} MiB/s inst{eta}")
        yield line


def span_text(p: Progress) -> str:
    """' (since the starting gun)': what a sample's average spans, when the kind says (else "")."""
    return f" ({p.span})" if p.span else ""


def plain_or_terminal_console(*, stderr: bool = False) -> Console:
    """A terminal console, or for pipes and CI logs a wide one, so lines and tables do not wrap;
    ``stderr``: on stderr (when stdout carries the event stream)."""
    console = Console(highlight=False, stderr=stderr)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=200, stderr=stderr)
    return console


class ConsoleSink:
    def __init__(self, console: Console | None = None, *, live: bool | None = None):
        self.console = console or plain_or_terminal_console()
        self.live_enabled = self.console.is_terminal if live is None else live
        self._live: Live | None = None
        self._line = _LiveLine()
        self._todo = 0
        self._index = 0
        self._plan: dict[str, RunSpec] = {}
        self._kind_of_test: dict[str, str] = {}
        self.journal = Journal()  # every finished record, earlier attempts' too, for the tables at the end
        self._tune: TuneUpdate | None = None  # the latest ranking of the auto-tune in flight
        self.gone = False  # the terminal went away (SIGHUP, a closed pipe): nothing more is shown
        self._noted: set[str] = set()  # tests whose runs were said to have no live progress
        # Copies of a run (concurrency): their group by run id, the run ids of each group in plan order,
        # and the groups in flight (the report's table of what ran together comes from the records).
        self._group_of: dict[str, str] = {}
        self._groups: dict[str, list[str]] = {}
        self._copies: dict[str, _CopyFlight] = {}
        self.checks: list[Check] = []  # thresholds checked as tests ended
        self._in_flight: dict[str, str] = {}  # run id -> test id, of the runs started and not finished
        self.monitors: MonitorsFinished | None = None  # the monitors' figures over the whole run

    def __call__(self, event: Event) -> None:
        self.journal(event)
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler and not self.gone:
            try:
                handler(event)
            except OSError:  # EIO after a hang-up, EPIPE: the run goes on and is journalled, unseen
                self.gone = True
                if self._live is not None:
                    with contextlib.suppress(OSError):
                        self._live.stop()
                    self._live = None

    def _on_ScenarioStarted(self, event: ScenarioStarted) -> None:
        self.journal.earlier = list(event.earlier)  # a resumed run's summary shows every run, not only the new
        self._plan = {s.run_id: s for s in event.plan}
        self._kind_of_test = {s.test_id: s.kind for s in event.plan}
        for spec in event.plan:
            if spec.harness is not None and spec.harness.copy is not None and spec.run_id not in event.skipped_run_ids:
                self._group_of[spec.run_id] = spec.group
                self._groups.setdefault(spec.group, []).append(spec.run_id)
        self._todo = len([s for s in event.plan if s.run_id not in event.skipped_run_ids])
        skipped = len(event.plan) - self._todo
        extra = f" ({skipped} already done, resuming)" if skipped else ""
        self.console.print(f"gftpwb: {event.scenario}: {self._todo} run(s){extra} -> {event.results_dir}")
        for engine in registry().engines():
            runs = sum(1 for s in event.plan if s.engine == engine.name)
            if runs:
                self.console.print(Text(engine.banner(runs), style="bold magenta"))
        if self.live_enabled:
            self._live = Live(self._line, console=self.console, refresh_per_second=8, transient=True)
            self._live.start()

    def _engine_mark(self, engine: str) -> str:
        label = registry().engine_label(engine)
        return f" {label}" if label else ""

    def _on_RunDelayed(self, event: RunDelayed) -> None:
        spec = event.spec
        if spec.run_id in self._group_of:
            self._copy_flight(spec, event.t)
        elif self.live_enabled:
            self._line.flights[spec.run_id] = _Flight(f"  {spec.run_id}", event.t,
                                                      f"waiting {event.delay_s:g}s (delay) before it starts")
        else:
            self.console.print(f"    {spec.run_id}: waiting {event.delay_s:g}s (delay) before it starts",
                               soft_wrap=True)

    def _copy_flight(self, spec: RunSpec, t: float) -> _CopyFlight:
        """The status line of a run's copies, made (and announced) when the first copy waits or starts."""
        group = self._group_of[spec.run_id]
        flight = self._copies.get(group)
        if flight is None:
            run_ids = self._groups[group]
            first = self._index + 1
            self._index += len(run_ids)
            label = f"[{first}-{self._index}/{self._todo}] {group} ×{len(run_ids)}{self._engine_mark(spec.engine)}"
            flight = self._copies[group] = _CopyFlight(label, t, run_ids)
            self._line.flights[f"copies:{group}"] = flight
            announced = registry().kind(spec.kind).present.announce(spec)
            if announced is not None or not self.live_enabled:  # a run that steers others says so in any case
                what = announced if announced is not None else " ".join(spec.argv)
                self.console.print(f"{label}: {len(run_ids)} copies at once: {what}", soft_wrap=True)
                if announced is None:
                    self._note_progress(spec)
        return flight

    def _note_progress(self, spec: RunSpec) -> None:
        """Once per test: that its runs report no live progress, and why (the kind says)."""
        note = registry().kind(spec.kind).present.progress_note(spec)
        if note and spec.test_id not in self._noted:  # once per test: its runs are alike
            self._noted.add(spec.test_id)
            self.console.print(Text(f"note: {spec.test_id}: {note}", style="dim"), soft_wrap=True)

    def _on_RunStarted(self, event: RunStarted) -> None:
        spec = event.spec
        self._in_flight[spec.run_id] = spec.test_id
        if spec.run_id in self._group_of:
            self._copy_flight(spec, event.t).started.add(spec.run_id)
            return
        kind = registry().kind(spec.kind)
        mark = self._engine_mark(spec.engine)
        if spec.run_id in self._plan or not self._plan:
            self._index += 1
            counter = f"[{self._index}/{self._todo}]"
        else:  # a run another one started (an auto-tune's transfer)
            tune = self._tune
            counter = f"  [{tune.transfers_used + 1}/{tune.budget}]" if tune else "  "
        announced = kind.present.announce(spec)
        if announced is not None:  # a run that steers others: they show as runs of their own
            self.console.print(f"{counter} {spec.run_id}:{mark} {announced}", soft_wrap=True)
            return
        waiting = kind.present.progress_note(spec) or kind.present.waiting(spec)
        self._line.flights[spec.run_id] = _Flight(f"{counter} {spec.run_id}{mark}", event.t, waiting)
        if not self.live_enabled:
            self.console.print(f"{counter} {spec.run_id}:{mark} {' '.join(event.argv)}", soft_wrap=True)
            self._note_progress(spec)

    def _on_Progress(self, event: Progress) -> None:
        group = self._group_of.get(event.run_id)
        if group is not None:
            copies = self._copies.get(group)
            if copies is not None and event.channel is None:
                copies.progress[event.run_id] = event
            return  # copies: one status line, no per-copy progress lines
        flight = self._line.flights.get(event.run_id)
        if isinstance(flight, _Flight):
            flight.progress = event
        test = self._in_flight.get(event.run_id)
        if any(other != test for other in self._in_flight.values()):
            return  # other tests run at the same time: their progress lines would interleave
        if not self.live_enabled:
            part = f" [{event.channel}]" if event.channel else ""
            avg, inst = rate_text(event.rate_avg_mib_s, 2), rate_text(event.rate_inst_mib_s, 2)
            seconds = f"{event.elapsed_s:.3f}" if event.span else f"{event.elapsed_s:.1f}"  # a named window: exact
            self.console.print(Text(f"    {event.run_id}{part}: {event.bytes} bytes  {avg} MiB/s avg"
                                    f"{span_text(event)}  {inst} MiB/s inst  ({seconds}s)"),
                               soft_wrap=True)  # Text: "[...]" is no markup

    def _on_OutputLine(self, event: OutputLine) -> None:
        return None  # captured in the record and the tag log; errors are shown when the run ends

    def _on_Notice(self, event: Notice) -> None:
        style = "yellow" if event.level == "warning" else ""
        self.console.print(Text(f"{event.level}: {event.text}", style=style))

    def _on_TuneUpdate(self, event: TuneUpdate) -> None:
        self._tune = event
        if event.finished:
            self._tune = None
            self.print_ranking(event)

    def _on_RunFinished(self, event: RunFinished) -> None:
        r = event.record
        self._line.flights.pop(r.run_id, None)
        self._in_flight.pop(r.run_id, None)
        mark = "ok  " if r.status == PASSED else f"{r.status.upper():<4}"
        text = Text(f"{mark} {r.run_id}{self._engine_mark(r.engine)}  ", style=CONSOLE_STATUS_STYLE.get(r.status, ""))
        kind = registry().find(r.kind)
        if r.status == PASSED and kind is not None:
            text.append(kind.present.headline(r), style="")
        else:
            text.append(short_error(r.error), style="")
            partial = kind.present.partial_headline(r) if kind is not None else ""
            if partial:  # what the run's surviving parts measured: a result of its own, marked as such
                text.append(f"\n     {partial}", style="yellow")
        copies = self._copies.get(self._group_of.get(r.run_id, ""))
        if copies is not None:
            copies.lines[r.run_id] = text  # printed with the others, in order, when all copies are done
        else:
            self.console.print(text, soft_wrap=True)

    def _on_CopiesFinished(self, event: CopiesFinished) -> None:
        """Every run of a group is done (copies, hosts at once): the copies' result lines in order, then
        what they all did together."""
        self._flush_copies(event.group)
        if event.aggregate is not None:
            style = "" if event.aggregate.all_passed else "red"
            self.console.print(Text(f"  ×{event.aggregate.copies} {event.group}: {summary_text(event.aggregate)}",
                                    style=style), soft_wrap=True)

    def _flush_copies(self, group: str) -> None:
        copies = self._copies.pop(group, None)
        if copies is None:
            return
        self._line.flights.pop(f"copies:{group}", None)
        for run_id in copies.run_ids:
            line = copies.lines.get(run_id)
            if line is not None:
                self.console.print(line, soft_wrap=True)

    def _on_MonitorsFinished(self, event: MonitorsFinished) -> None:
        self.monitors = event

    def _on_ScenarioFinished(self, event: ScenarioFinished) -> None:
        for group in list(self._copies):  # copies stopped before their batch ended
            self._flush_copies(group)
        if self._live is not None:
            self._live.stop()
            self._live = None
        self.print_table(list(self.journal.latest().values()))
        if self.monitors is not None and self.monitors.figures:
            self.console.print(PlainTable(monitors_table(self.monitors.figures, self.monitors.types,
                                                         self.monitors.samples)))
        print_checks(self.console, self.checks)
        s = event.summary
        note = f" ({STOPPED_BY_TEXT.get(s.stopped_by, 'interrupted by the user')})" if s.interrupted else ""
        self.console.print(f"{counts_text(s.counts)} of {s.total} planned{note}. Results: {s.results_dir}")

    def _on_ExpectationsChecked(self, event: ExpectationsChecked) -> None:
        self.checks.extend(event.checks)
        for check in event.checks:
            self.console.print(Text(f"expect: {check.line()}", style="green" if check.ok else "bold red"),
                               soft_wrap=True)

    def print_ranking(self, event: TuneUpdate) -> None:
        """The final ranking of an auto-tune, as the tuning kind's hook draws it (tables and lines)."""
        kind = registry().find(event.kind)
        for block in kind.present.update_blocks(event) if kind is not None else ():
            if isinstance(block, ReportTable):
                self.console.print(PlainTable(block))
            else:
                text, style = block
                self.console.print(Text(text, style=style))

    def print_table(self, records: Sequence[ResultRecord]) -> None:
        """The report: each section's tables, then a line for every run that did not pass."""
        print_report(self.console, records, self._kind_of_test)


def print_checks(console: Console, checks: Sequence[Check]) -> None:
    """The thresholds checked (``expect:``): a table when there are any, violations in red."""
    table = checks_table(checks)
    if table is not None:
        console.print(PlainTable(table))


def print_report(console: Console, records: Sequence[ResultRecord], kind_of_test: dict[str, str]) -> None:
    """Each report section's tables (the kinds' statistics of ``records``), the aggregates of runs that ran
    at the same time, then a line for every run that did not pass: the end of ``gftpwb run`` and
    ``gftpwb report`` alike."""
    shown: set[int] = set()
    for section, section_records in report_sections(records, kind_of_test):
        if section.list_failures:
            shown.update(id(r) for r in section_records)
        for table in section.build(section_records):
            console.print(PlainTable(table))
    together = concurrent_aggregates(records)
    if together:  # runs that started together (copies, hosts): what they moved at once
        console.print(PlainTable(copies_table(together)))
    for r in (r for r in records if id(r) in shown and r.status != PASSED):
        console.print(Text(f"  {r.run_id}: {r.status}: {short_error(r.error)}",
                           style=CONSOLE_STATUS_STYLE.get(r.status, "")))
