"""The workbench app: five views over one :class:`~gftpwb.core.live.state.LiveState`, and the run/stop/quit flow.

A run goes through the front-end service (:mod:`gftpwb.shell.interactive`, the only shell module the TUI
imports: the same loading, preflight, results directory, journal, tag logs and exit codes as ``gftpwb
run``), in a Textual async worker on the app's own event loop. The
``LiveState`` is one more bus subscriber; a timer draws the view on screen a few times a second, so
progress floods cost one cheap update per event and one frame per tick, not one message per line.
"""

from __future__ import annotations

import asyncio
import csv
import io
import os
import signal
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Input, Static, TabbedContent, TabPane
from textual.worker import Worker, WorkerState

from gftpwb.core.errors import Diagnostic, GftpwbError, ScenarioError
from gftpwb.core.harness.agenda import Schedule, left_out_needs
from gftpwb.core.live import read
from gftpwb.core.live.state import LiveState
from gftpwb.core.plan import plan
from gftpwb.core.records import Summary
from gftpwb.core.scenario.model import Host, Scenario
from gftpwb.core.specs import RunSpec
from gftpwb.shell import interactive as service
from gftpwb.shell.interactive import Executor, PreparedRun, RunRequest, ScenarioRun

from .results_view import ResultsView
from .run_view import RunView
from .state import SaveText
from .views import TONE_STYLE, ScenarioView, ThreadsView, TuneView, View
from .widgets import ChoiceScreen, ConfirmScreen, FilterInput

VIEWS = (("scenario", "Scenario", ScenarioView), ("run", "Run", RunView), ("threads", "Threads", ThreadsView),
         ("tune", "Auto-tune", TuneView), ("results", "Results", ResultsView))


class WorkbenchApp(App[None]):
    """``gftpwb tui`` and ``gftpwb run --tui``.

    ``prepared`` starts that run as soon as the app is up (``run --tui``: the CLI prepared the results
    directory, so its errors were reported before the screen opened). ``executor_factory`` and
    ``clock`` are seams for tests and benchmarks; ``stable`` turns off cursor blinking for snapshots;
    ``handle_signals`` makes SIGTERM and SIGHUP (a dropped SSH session) stop the run gracefully.
    """

    CSS_PATH = str(Path(__file__).with_name("workbench.tcss"))  # absolute: subclasses elsewhere find it too
    TITLE = "gftpwb"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "run", "Run"),
        Binding("s", "stop", "Stop"),
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("slash,f", "filter", "Filter", key_display="/"),
        Binding("e", "export", "Export"),
        # l reloads the scenario file; the key bar offers it only while the file is invalid (check_action)
        Binding("l", "reload_invalid", "Reload"),
        Binding("l", "reload", "Reload scenario", show=False),
        *(Binding(str(n), f"view('{key}')", label, show=False) for n, (key, label, _) in enumerate(VIEWS, start=1)),
    ]

    def __init__(self, scenario_path: str | None = None, *, prepared: PreparedRun | None = None,
                 results_base: str = service.DEFAULT_BASE,
                 executor_factory: Callable[[], Executor] | None = None, clock: Callable[[], float] = time.monotonic,
                 refresh_s: float = 0.25, stable: bool = False, handle_signals: bool = False,
                 accept_new_host_keys: bool = False, overrides: Mapping[str, str] | None = None):
        super().__init__()
        self.accept_new_host_keys = accept_new_host_keys
        self.overrides = dict(overrides or {})  # --set values of the scenario's variables
        self.scenario_path = scenario_path
        self.results_base = results_base
        self.executor_factory = executor_factory  # None: the run's own (tests give stand-in runners)
        self.clock = clock
        self.refresh_s = refresh_s
        self.stable = stable
        self.handle_signals = handle_signals
        self.live = LiveState()
        self.scenario: Scenario | None = None
        self.diagnostics: list[Diagnostic] = []
        self.invalid_exit_code = 0  # the code validate gives the scenario's problems (2), while it has them
        self.ever_valid = False  # the scenario loaded once: quitting then is not validate's refusal
        self.filter_text = ""
        self.summary: Summary | None = None
        self.stopping = False
        self._prepared = prepared
        self._run: ScenarioRun | None = None
        self._worker: Worker[Summary] | None = None
        self._checking_hosts = False  # a preflight with host checks is running on a worker thread
        self._quit_when_done = False
        self._drawn_version = -1
        self._signals: list[int] = []

    # --- layout -----------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="status")
        with TabbedContent(initial="run" if self._prepared is not None else "scenario", id="tabs"):
            for n, (key, label, view) in enumerate(VIEWS, start=1):
                with TabPane(f"{n} {label}", id=key):
                    yield view(id=f"view-{key}")
        yield FilterInput(placeholder="filter (test id, host, results dir); Enter keeps it, empty clears",
                          id="filter")
        yield Footer()

    def on_mount(self) -> None:
        filter_input = self.query_one("#filter", Input)
        filter_input.display = False
        filter_input.disabled = True  # hidden: must not take focus (and the keys meant for the views)
        if self.stable:
            filter_input.cursor_blink = False
        if self.scenario_path:
            self.load()
        if self.handle_signals:
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):
                loop.add_signal_handler(sig, self._on_signal, signal.Signals(sig).name)
                self._signals.append(sig)
        self.set_interval(self.refresh_s, self.draw)
        self.draw(force=True)
        self.active_view().focus_main()
        if self._prepared is not None:
            prepared, self._prepared = self._prepared, None
            self.start(prepared)

    def on_unmount(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._signals:
            loop.remove_signal_handler(sig)

    # --- drawing ----------------------------------------------------------------------------------

    def active_view(self) -> View:
        key = self.query_one("#tabs", TabbedContent).active or "scenario"
        return self.query_one(f"#view-{key}", View)

    def draw(self, force: bool = False) -> None:
        """The timer's tick: draw the status line and the view shown, if anything moved."""
        moving = self.live.active  # elapsed time and ETA move with the clock while a run is in flight
        if not force and not moving and self.live.version == self._drawn_version:
            return
        if not self.query("#status"):  # shutting down (only Textual's default screen is left)
            return
        self._drawn_version = self.live.version
        self._draw_status()
        view = self.active_view()
        if force or not isinstance(view, ResultsView):  # past results change only on a rescan
            with self.batch_update():
                view.refresh_view()

    def _draw_status(self) -> None:
        live = self.live
        name = self.scenario.name if self.scenario else (live.scenario or self.scenario_path or "no scenario")
        text = Text.assemble(("gftpwb ", "bold"), (name, "bold"))
        if self.diagnostics:
            text.append(f"  invalid: {len(self.diagnostics)} problem(s)", style="bold red")
        elif live.active:
            panel = read.run_panel(live, self.clock())
            state = "stopping" if self.stopping else "running"
            text.append(f"  ● {state} {min(panel.runs_done + 1, panel.runs_total)}/{panel.runs_total}",
                        style="bold cyan")
        elif live.summary is not None:
            words, tone = read.outcome(live.summary)
            text.append(f"  {words}", style=TONE_STYLE[tone])
        if live.results_dir:
            text.append(f"  {live.results_dir}", style="dim")
        if self.filter_text:
            text.append(f"  filter: {self.filter_text}", style="yellow")
        self.query_one("#status", Static).update(text)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        view = self.active_view()
        if isinstance(view, ResultsView):
            view.rescan()
        self.draw(force=True)
        view.focus_main()

    # --- scenario ---------------------------------------------------------------------------------

    def load(self) -> None:
        """(Re)read the scenario file; problems are shown in the scenario view, nothing can run."""
        assert self.scenario_path is not None
        try:
            self.scenario = service.load(self.scenario_path, self.overrides)  # tgftp batchfiles too
            self.diagnostics, self.invalid_exit_code, self.ever_valid = [], 0, True
        except ScenarioError as exc:
            self.scenario = None
            self.diagnostics, self.invalid_exit_code = list(exc.diagnostics), exc.exit_code
            self.refresh_bindings()  # l Reload instead of r Run
            return
        self.refresh_bindings()
        if not self.live.active:
            self.live.show_plan(self.scenario.name, plan(self.scenario))

    @property
    def invalid(self) -> bool:
        """A scenario file was given and does not load: its problems show, nothing can run."""
        return self.scenario_path is not None and self.scenario is None and bool(self.diagnostics)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The key bar offers what does something now: with an invalid scenario, ``l Reload`` instead of
        ``r Run`` (which only said there was nothing to run); elsewhere ``l`` works without being shown."""
        if action == "run":
            return not self.invalid
        if action == "reload_invalid":
            return self.invalid
        return True

    def action_reload_invalid(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        if self.scenario_path is None:
            self.notify("no scenario file to reload", severity="warning")
            return
        if self.live.active:
            self.notify("a run is in progress; reload after it ends", severity="warning")
            return
        self.load()
        if self.diagnostics:
            self.notify(f"{len(self.diagnostics)} problem(s) in {self.scenario_path}", severity="error")
        else:
            self.notify(f"reloaded {self.scenario_path}")
        self.draw(force=True)

    # --- run / stop / quit ------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return self._worker is not None

    def selected_tests(self) -> list[str]:
        """The tests the scenario view shows: the filter narrows what ``run`` runs (like ``--only``)."""
        assert self.scenario is not None
        needle = self.filter_text.lower()
        return [t.id for t in self.scenario.tests if needle in t.id.lower()]

    def action_run(self) -> None:
        if self.running:
            self.notify("a run is already in progress (s stops it)", severity="warning")
            return
        if self._checking_hosts:
            self.notify("the hosts are being checked before the run starts", severity="warning")
            return
        if self.scenario is None:
            self.notify("no valid scenario to run" + (": see the scenario view" if self.diagnostics else ""),
                        severity="error")
            return
        stopped = self.live.summary is not None and self.live.summary.interrupted
        if stopped and self.live.results_dir and os.path.isdir(self.live.results_dir):
            directory = self.live.results_dir

            def answered(choice: str | None) -> None:
                if choice in ("resume", "new"):
                    self._start_prepared(directory if choice == "resume" else None)

            self.push_screen(ChoiceScreen(
                f"The last run was stopped. Resume it in {directory} (the runs not finished run now; finished "
                "ones are kept), or start anew in a new results directory?",
                [("resume", "Resume", "r"), ("new", "Start anew", "a"), ("cancel", "Cancel", "escape")]), answered)
            return
        self._start_prepared(None)

    def _say_left_out_needs(self) -> None:
        """A filter that leaves out a test another selected test ``needs``: that test's runs will be
        skipped (as with ``--only``); say so now, not only in the log when they are."""
        assert self.scenario is not None
        if not self.filter_text:
            return
        left_out = left_out_needs(Schedule.of(self.scenario), self.selected_tests())
        if left_out:
            lines = [f"{test_id}: {reason}" for test_id, reason in left_out.items()]
            self.notify("\n".join([*lines, "their runs are skipped: widen the filter to run what they need"]),
                        title="filter", severity="warning", timeout=15)

    def _start_prepared(self, resume: str | None) -> None:
        """Plan, preflight, prepare and start. A preflight with checks on hosts (which may wait for SSH
        connections) runs on a worker thread, so the screen keeps answering; the run then starts here."""
        assert self.scenario is not None
        try:
            specs = self._planned()
            self._say_left_out_needs()
            if not service.needs_host_checks(specs) and self.scenario.slurm is None:
                service.preflight(specs)  # the programs on PATH only: nothing to wait for
                self.start(self._prepare(specs, resume))
                return
        except GftpwbError as exc:
            self._cannot_start(exc)
            return
        self._checking_hosts = True
        self.run_worker(partial(self._check_hosts_then_start, specs, self.scenario.hosts, resume), thread=True,
                        name="preflight", group="preflight", exit_on_error=False)

    def _check_hosts_then_start(self, specs: list[RunSpec], hosts: tuple[Host, ...], resume: str | None) -> None:
        """On a worker thread: the front end's preflight, host checks included; back on the app's thread
        to start the run or show why not."""
        try:
            service.preflight(specs, hosts, slurm=self.scenario.slurm if self.scenario is not None else None)
        except GftpwbError as exc:
            self.call_from_thread(self._cannot_start, exc)
        except Exception as exc:
            self.call_from_thread(self._cannot_start, GftpwbError(f"the host checks failed: {exc}"))
        else:
            self.call_from_thread(self._start_checked, specs, resume)

    def _start_checked(self, specs: list[RunSpec], resume: str | None) -> None:
        try:
            self.start(self._prepare(specs, resume))
        except GftpwbError as exc:
            self._cannot_start(exc)

    def _cannot_start(self, exc: GftpwbError) -> None:
        self._checking_hosts = False
        self.notify(str(exc), title="cannot start", severity="error", timeout=10)

    def _planned(self) -> list[RunSpec]:
        """The runs of the selected tests (the filter narrows them, like ``--only``)."""
        assert self.scenario is not None
        only = self.selected_tests()
        if not only:
            raise GftpwbError(f"the filter {self.filter_text!r} matches no test")
        return plan(self.scenario, only if self.filter_text else ())

    def _prepare(self, specs: list[RunSpec], resume: str | None = None) -> PreparedRun:
        """A run of ``specs`` (preflight passed) in a new results directory, or with ``resume`` in that
        one (as ``gftpwb run --resume DIR``: the plan must be the one that directory was made for)."""
        assert self.scenario is not None and self.scenario_path is not None
        only = self.selected_tests()
        directory = service.results_dir(self.scenario, self.results_base, resume=resume)
        # The headless command that repeats this run, so the results directory says how to reproduce it.
        command = service.repeat_command(self.scenario_path, directory, only=only if self.filter_text else (),
                                          accept_new_host_keys=self.accept_new_host_keys, overrides=self.overrides)
        return service.prepare_run(RunRequest(scenario=self.scenario, specs=specs, results_dir=directory,
                                      command=command, resume=resume is not None,
                                      accept_new_host_keys=self.accept_new_host_keys))

    def start(self, prepared: PreparedRun) -> None:
        """Run a prepared scenario run in a worker; the live state is one more subscriber of its bus."""
        self._checking_hosts = False
        prepared.request.subscribers.append(self.live)
        self._run = ScenarioRun(prepared, self.executor_factory() if self.executor_factory else None)
        self.summary = None
        self.stopping = False
        self._worker = self.run_worker(self._run.run(), name="scenario run", group="run", exit_on_error=False)
        tabs = self.query_one("#tabs", TabbedContent)
        if tabs.active in ("scenario", "results"):  # the threads and auto-tune views stay where they are
            tabs.active = "run"
        self.draw(force=True)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self._worker or event.state in (WorkerState.PENDING, WorkerState.RUNNING):
            return
        if event.state == WorkerState.SUCCESS:
            self.summary = event.worker.result
        elif event.state == WorkerState.ERROR:
            error = event.worker.error
            self.notify(f"the run stopped on an unexpected error: {error!r}; finished runs are in the journal",
                        title="error", severity="error", timeout=30)
        self._worker = None
        self._run = None
        self.stopping = False
        results = self.query_one("#view-results", ResultsView)
        results.rescan()
        self.draw(force=True)
        if self._quit_when_done:
            self.exit()

    def action_stop(self, stopped_by: str = "SIGINT") -> None:
        if not self.running or self._run is None:
            self.notify("nothing is running")
            return
        if self.stopping:
            return
        self.stopping = True
        self._run.stop(stopped_by)  # records say what stopped them
        self.notify("stopping: the run in flight is recorded as interrupted; nothing else starts")
        self.draw(force=True)

    async def action_quit(self) -> None:
        if not self.running:
            self.exit()
            return
        if self._quit_when_done:
            return

        def answered(stop: bool | None) -> None:
            if stop:
                self._stop_and_quit()

        self.push_screen(ConfirmScreen("A run is in progress. Stop it (the run in flight is recorded as "
                                       "interrupted; finished runs are kept) and quit?",
                                       yes="Stop and quit", no="Keep running"), answered)

    def _stop_and_quit(self, stopped_by: str = "SIGINT") -> None:
        self._quit_when_done = True
        if self.running:
            self.action_stop(stopped_by)
        else:
            self.exit()

    def _on_signal(self, name: str) -> None:
        self._stop_and_quit(name)

    # --- filter / export / save -------------------------------------------------------------------

    def action_filter(self) -> None:
        filter_input = self.query_one("#filter", Input)
        filter_input.disabled = False
        filter_input.display = True
        filter_input.value = self.filter_text
        filter_input.focus()

    def close_filter(self) -> None:
        filter_input = self.query_one("#filter", Input)
        filter_input.display = False
        filter_input.disabled = True
        self.active_view().focus_main()
        self.draw(force=True)

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter":
            self.filter_text = event.value.strip()
            self.draw(force=True)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            self.close_filter()

    def action_view(self, key: str) -> None:
        self.query_one("#tabs", TabbedContent).active = key

    def output_dir(self) -> str:
        """Where exports and saved lines go: the results directory of this session's run, else here."""
        return self.live.results_dir if self.live.results_dir and os.path.isdir(self.live.results_dir) else "."

    def save_text(self, name: str, text: str, *, what: str) -> str | None:
        path = os.path.join(self.output_dir(), name)
        try:
            service.save_text(path, text)
        except OSError as exc:
            self.notify(f"cannot write {path}: {exc.strerror or exc}", severity="error")
            return None
        self.notify(f"{what} saved to {path}")
        return path

    def on_save_text(self, message: SaveText) -> None:
        self.save_text(message.filename, message.text, what=message.what)

    def action_export(self) -> None:
        view = self.active_view()
        header, rows = view.export_table()
        if not rows:
            self.notify("nothing to export in this view", severity="warning")
            return
        key = self.query_one("#tabs", TabbedContent).active
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        path = os.path.join(self.output_dir(), f"gftpwb-{key}-{stamp}.csv")
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(header)
        writer.writerows(rows)
        try:
            service.save_text(path, buffer.getvalue(), newline="")
        except OSError as exc:
            self.notify(f"cannot write {path}: {exc.strerror or exc}", severity="error")
            return
        self.notify(f"exported {len(rows)} row(s) to {path}")
