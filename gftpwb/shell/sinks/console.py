"""The headless console: a live progress line on a terminal, plain lines otherwise, and a results
table at the end. It only reads events; the TUI reads the same ones."""

from __future__ import annotations

import os
import time

from rich.console import Console, ConsoleOptions, RenderResult
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from gftpwb.core.events import (
    Event,
    Notice,
    OutputLine,
    Progress,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
    TuneUpdate,
)
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.report import human_bytes, short_error, summarize_cases
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.autotune.ranking import tie_note
from gftpwb.kinds.gfapi.report import gfapi_headline, summarize_gfapi_cases

MIB_NOTE = "MB and MiB both mean 2^20 bytes here, as in guc and tgftp."
GFAPI_WAITING = "building, connecting and preparing the workers; measurement starts when all are ready"
STATUS_STYLE = {"passed": "green", "failed": "red", "timeout": "yellow", "interrupted": "magenta"}


def _rate(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


class _Flight:
    """One run in flight: its label, start time and latest progress sample."""

    def __init__(self, label: str, t0: float):
        self.label = label
        self.t0 = t0
        self.progress: Progress | None = None
        self.waiting = "waiting for guc's first progress report (third-party transfers report every 5 s)"


class _LiveLine:
    """The live view of the runs in flight, one line each (several when a test runs on several
    hosts at once); re-rendered by rich.live on its own timer."""

    def __init__(self) -> None:
        self.flights: dict[str, _Flight] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for flight in list(self.flights.values()):
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
        line.append(f"{human_bytes(p.bytes)}  {_rate(p.rate_avg_mib_s)} MiB/s avg  "
                    f"{_rate(p.rate_inst_mib_s)} MiB/s inst{eta}")
        yield line


def plain_or_terminal_console() -> Console:
    """A terminal console, or for pipes and CI logs a wide one, so lines and tables do not wrap."""
    console = Console(highlight=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(highlight=False, width=200)
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
        self._records: list[ResultRecord] = []
        self._tune: TuneUpdate | None = None  # the latest ranking of the auto-tune in flight
        self._tune_tests: set[str] = set()

    def __call__(self, event: Event) -> None:
        handler = getattr(self, f"_on_{type(event).__name__}", None)
        if handler:
            handler(event)

    def _on_ScenarioStarted(self, event: ScenarioStarted) -> None:
        self._plan = {s.run_id: s for s in event.plan}
        self._todo = len([s for s in event.plan if s.run_id not in event.skipped_run_ids])
        skipped = len(event.plan) - self._todo
        extra = f" ({skipped} already done, resuming)" if skipped else ""
        self.console.print(f"gftpwb: {event.scenario}: {self._todo} run(s){extra} -> {event.results_dir}")
        self._tune_tests = {s.test_id for s in event.plan if s.kind == "autotune"}
        simulated = [s for s in event.plan if s.engine == "simulated"]
        if simulated:
            self.console.print(Text(f"SIMULATED: {len(simulated)} run(s) use the simulated engine: results come "
                                    "from a link model, not from transfers", style="bold magenta"))
        if self.live_enabled:
            self._live = Live(self._line, console=self.console, refresh_per_second=8, transient=True)
            self._live.start()

    def _on_RunStarted(self, event: RunStarted) -> None:
        spec = event.spec
        sim = " SIMULATED" if spec.engine == "simulated" else ""
        if spec.run_id in self._plan or not self._plan:
            self._index += 1
            counter = f"[{self._index}/{self._todo}]"
        else:  # a transfer an auto-tune started
            tune = self._tune
            counter = f"  [{tune.transfers_used + 1}/{tune.budget}]" if tune else "  "
        if spec.kind == "autotune":  # its transfers show as runs of their own
            what = f"auto-tune, {spec.params.get('strategy')}, {len(spec.params.get('candidates', []))} candidates"
            self.console.print(f"{counter} {spec.run_id}:{sim} {what}", soft_wrap=True)
            return
        self._line.flights[spec.run_id] = _Flight(f"{counter} {spec.run_id}{sim}", event.t)
        if spec.kind == "gfapi":
            self._line.flights[spec.run_id].waiting = GFAPI_WAITING
        if not self.live_enabled:
            self.console.print(f"{counter} {spec.run_id}:{sim} {' '.join(event.argv)}", soft_wrap=True)

    def _on_Progress(self, event: Progress) -> None:
        flight = self._line.flights.get(event.run_id)
        if flight is not None:
            flight.progress = event
        if not self.live_enabled:
            self.console.print(f"    {event.run_id}: {event.bytes} bytes  {_rate(event.rate_avg_mib_s, 2)} MiB/s avg"
                               f"  {_rate(event.rate_inst_mib_s, 2)} MiB/s inst  ({event.elapsed_s:.1f}s)",
                               soft_wrap=True)

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
        self._records.append(r)
        mark = "ok  " if r.status == PASSED else f"{r.status.upper():<4}"
        sim = " SIMULATED" if r.engine == "simulated" else ""
        text = Text(f"{mark} {r.run_id}{sim}  ", style=STATUS_STYLE.get(r.status, ""))
        if r.kind == "autotune":
            pick = (r.details.get("pick") or {}) if isinstance(r.details, dict) else {}
            if r.status == PASSED:
                text.append(f"pick {pick.get('params')} ({_rate(pick.get('mean_mib_s'))} MiB/s) after "
                            f"{r.details.get('transfers_used')} transfers", style="")
            else:
                text.append(short_error(r.error), style="")
        elif r.status == PASSED and r.kind == "gfapi":
            text.append(gfapi_headline(r), style="")
        elif r.status == PASSED and r.kind == "connection-test":
            text.append(f"connection ok (connect, login, data channel) in {r.seconds:.3f}s", style="")
        elif r.status == PASSED:
            text.append(f"{human_bytes(r.bytes)} in {r.seconds:.3f}s  {_rate(r.rate_incl_setup_mib_s)} MiB/s "
                        f"incl. set-up  {_rate(r.rate_guc_avg_mib_s)} MiB/s guc avg", style="")
        else:
            text.append(short_error(r.error), style="")
        self.console.print(text, soft_wrap=True)

    def _on_ScenarioFinished(self, event: ScenarioFinished) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
        self.print_table(self._records)
        s = event.summary
        counts = ", ".join(f"{n} {status}" for status, n in sorted(s.counts.items())) or "no runs"
        note = " (interrupted by the user)" if s.interrupted else ""
        self.console.print(f"{counts} of {s.total} planned{note}. Results: {s.results_dir}")

    def print_ranking(self, event: TuneUpdate) -> None:
        """The final ranking of an auto-tune, then the pick as tgftp prints it."""
        sim = " SIMULATED" if event.engine == "simulated" else ""
        title = (f"{event.test_id}:{sim} auto-tune ranking ({event.strategy}, {event.transfers_used} of "
                 f"{event.budget} transfers, rates in MiB/s incl. set-up)")
        table = Table(title=title, caption=f"{MIB_NOTE} CI: 95 % confidence interval of the mean.",
                      title_justify="left")
        for name, justify in (("rank", "right"), ("config", "left"), ("mean", "right"), ("95 % CI", "right"),
                              ("runs", "right"), ("failures", "right"), ("note", "left")):
            table.add_column(name, justify=justify)
        for row in event.rows:
            ci = "-" if row.ci_low_mib_s is None else f"{row.ci_low_mib_s:.1f}-{row.ci_high_mib_s:.1f}"
            marks = []
            if row.tied_with_leader:
                marks.append(tie_note(event.margin_mib_s))
            if row.note:
                marks.append(row.note)
            style = "bold green" if row.rank == 1 and event.leader == row.candidate else (
                "dim" if row.eliminated or row.mean_mib_s is None else "")
            table.add_row(str(row.rank), row.candidate, _rate(row.mean_mib_s), ci, str(row.runs),
                          str(row.failures), "; ".join(marks), style=style)
        self.console.print(table)
        if event.leader is None:
            self.console.print(Text(f"{event.test_id}: no pick: no candidate reached the tie margin "
                                    f"({event.margin_mib_s:g} MB/s)", style="red"))
        else:
            self.console.print(f"{event.test_id}:{sim} best guc parameters (as tgftp -a prints them):")
            self.console.print(event.leader, highlight=False, markup=False)

    def print_table(self, records: list[ResultRecord]) -> None:
        records = [r for r in records if r.kind != "autotune" and r.test_id not in self._tune_tests]
        self.print_gfapi_table([r for r in records if r.kind == "gfapi"])
        self.print_guc_table([r for r in records if r.kind != "gfapi"])
        failed = [r for r in records if r.status != PASSED]
        for r in failed:
            self.console.print(Text(f"  {r.run_id}: {r.status}: {short_error(r.error)}",
                                    style=STATUS_STYLE.get(r.status, "")))

    def print_gfapi_table(self, records: list[ResultRecord]) -> None:
        if not records:
            return
        table = Table(title="gfapi results (means of passed runs; MiB/s, files/s, IOPS at last done)",
                      caption="first done: stonewalled when the first thread finished; skew: latest minus "
                      "earliest thread start", title_justify="left")
        for name, justify in (("test", "left"), ("#", "right"), ("workload hosts x procs x threads files", "left"),
                              ("ok/runs", "right"), ("MiB/s", "right"), ("files/s", "right"), ("IOPS", "right"),
                              ("first done MiB/s", "right"), ("% done", "right"), ("max skew ms", "right")):
            table.add_column(name, justify=justify)
        for row in summarize_gfapi_cases(records):
            style = "" if row.passed == row.runs else "red"
            table.add_row(row.test_id, f"{row.case:03d}", row.setup, f"{row.passed}/{row.runs}",
                          _rate(row.last_mib_s), _rate(row.last_files_s, 0), _rate(row.last_iops, 0),
                          _rate(row.first_mib_s), _rate(row.first_pct), _rate(row.max_skew_ms, 2), style=style)
        self.console.print(table)

    def print_guc_table(self, records: list[ResultRecord]) -> None:
        if not records:
            return
        sim = " SIMULATED" if any(r.engine == "simulated" for r in records) else ""
        table = Table(title=f"Results{sim} (rates in MiB/s)", caption=MIB_NOTE, title_justify="left")
        for name, justify in (("test", "left"), ("#", "right"), ("guc options", "left"), ("ok/runs", "right"),
                              ("mean incl. set-up", "right"), ("min", "right"), ("max", "right"),
                              ("mean guc avg", "right")):
            table.add_column(name, justify=justify)
        for row in summarize_cases(records):
            style = "" if row.passed == row.runs else "red"
            table.add_row(row.test_id, f"{row.case:03d}", row.params, f"{row.passed}/{row.runs}",
                          _rate(row.mean_incl_setup), _rate(row.min_incl_setup), _rate(row.max_incl_setup),
                          _rate(row.mean_guc_avg), style=style)
        self.console.print(table)
