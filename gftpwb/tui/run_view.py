"""The run view: where the scenario run is, what moves now and how fast (the rate chart), and the
output of the runs. It draws what :mod:`gftpwb.core.live.read` computes; see :mod:`gftpwb.tui.views`."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Log, ProgressBar, Static

from gftpwb.core.format import duration_text, human_bytes, rate_text, short_error
from gftpwb.core.live import read
from gftpwb.core.live.models import RunLine

from .views import Table, View, engine_badge, fields
from .widgets import RateChart


class RunView(View):
    def compose(self) -> ComposeResult:
        yield Static(id="run-head", classes="head")
        yield Static(id="run-cmd")
        with Horizontal(id="run-progress"):
            yield ProgressBar(id="run-bar", show_eta=False, show_percentage=False)
            yield Static(id="run-eta")
        yield Static(id="run-rates")
        yield RateChart(id="spark")
        yield Log(id="log", max_lines=2000, auto_scroll=True)

    def on_mount(self) -> None:
        self._seq = 0
        self._chart_moment: tuple | None = None

    def refresh_view(self) -> None:
        wb = self.wb
        now = wb.clock()
        panel = read.run_panel(wb.live, now)
        head = self.query_one("#run-head", Static)
        current: RunLine | None = panel.running[0] if len(panel.running) == 1 else None
        shown = current or (panel.last if not panel.running else None)
        badge = engine_badge(shown.engine if shown is not None else "")
        if panel.state == "idle":
            head.update(Text("idle: press r to run the scenario" if wb.scenario else "idle", style="dim"))
        elif panel.state == "running":
            where = f"run {min(panel.runs_done + 1, panel.runs_total)} of {panel.runs_total}"
            if current is not None:
                text = Text.assemble((where, "bold"), "   ", (current.run_id, self.token("accent", "bold")), "   ",
                                     ("on ", "dim"), current.host, "   ", ("elapsed ", "dim"),
                                     duration_text(current.elapsed_s), "   ", badge)
            elif panel.running:
                marks = {r.engine for r in panel.running if r.engine}
                text = Text.assemble((where, "bold"), f"   {len(panel.running)} runs in flight: ",
                                     ", ".join(r.run_id for r in panel.running), "   ",
                                     *(engine_badge(m) for m in sorted(marks)))
            else:
                text = Text.assemble((where, "bold"), ("   starting the next run…", "dim"))
            if wb.stopping:
                text.append("   stopping: recording the run in flight as interrupted…", style="magenta")
            head.update(text)
        else:
            s = panel.summary
            counts = ", ".join(f"{n} {k}" for k, n in sorted(s.counts.items())) if s else ""
            style = "magenta" if panel.state == "interrupted" else ("green" if s and s.all_passed else "red")
            again = "   r: resume or start anew" if panel.state == "interrupted" else ""
            head.update(Text.assemble((panel.state, f"bold {style}"), f": {counts or 'no runs'} of "
                                      f"{s.total if s else 0} planned", (again, "dim")))
        command = self.query_one("#run-cmd", Static)
        command.display = shown is not None  # several runs in flight: their commands are in the log
        command.update(Text(f"$ {shown.command}" if shown else "", style="dim", no_wrap=True, overflow="ellipsis"))
        bar = self.query_one("#run-bar", ProgressBar)
        eta = self.query_one("#run-eta", Static)
        if shown is not None and shown.length_bytes and (shown.status == "running" or shown.bytes):
            bar.display = True
            bar.update(total=shown.length_bytes, progress=min(shown.bytes, shown.length_bytes))
            left = ("ETA", duration_text(shown.eta_s)) if shown.eta_s is not None else ("status", shown.status)
            eta.update(fields(("", f"{100 * (shown.fraction or 0):.0f} %"),
                              ("moved", f"{human_bytes(shown.bytes)} of {human_bytes(shown.length_bytes)}"), left))
        else:
            bar.display = False
            unknown = shown is not None and shown.status == "running"
            eta.update(Text("length unknown (no -len): bytes and rates only" if unknown else "", style="dim"))
        self.query_one("#run-progress").display = bar.display or (shown is not None and shown.status == "running")
        pairs: list[tuple[str, str | Text]] = [
            ("now", f"{rate_text(panel.rate_inst_mib_s)} MiB/s"),
            ("average", f"{rate_text(panel.rate_avg_mib_s)} MiB/s"),
            ("moved in all", human_bytes(panel.bytes_moved)), ("runs", f"{panel.runs_done}/{panel.runs_total}")]
        if not panel.running and panel.last is not None and panel.last.rate_avg_mib_s is not None:
            pairs.append(("last run", f"{rate_text(panel.last.rate_avg_mib_s)} MiB/s"))
        self.query_one("#run-rates", Static).update(fields(*pairs))
        chart = self.query_one("#spark", RateChart)
        # The chart has one point per history step: rebuild it (plotext: 10-50 ms) when a step passes,
        # new data lands in another step, the size changes or the run starts or ends; not every frame.
        history = wb.live.history
        step = history.step_s
        moment = (int(now / step), int((history.last_t or 0.0) / step), history.t0, wb.live.active, chart.size)
        if moment != self._chart_moment:
            self._chart_moment = moment
            chart.show(read.rate_chart(wb.live, now, max(chart.size.width - 10, 10)))
        self._seq, lines, dropped = read.log_since(wb.live, self._seq)
        log = self.query_one("#log", Log)
        if dropped:
            log.write_line(f"[... {dropped} lines not shown (output faster than the screen) ...]")
        if lines:
            log.write_lines(lines[-log.max_lines:] if log.max_lines else lines)

    def export_table(self) -> Table:
        header = ("run", "status", "bytes", "seconds", "MiB/s incl. set-up", "MiB/s guc avg", "error")
        rows = [(r.run_id, r.status, str(r.bytes if r.bytes is not None else ""),
                 "" if r.seconds is None else f"{r.seconds:.3f}", rate_text(r.rate_incl_setup_mib_s, 3),
                 rate_text(r.rate_guc_avg_mib_s, 2), short_error(r.error)) for r in read.finished_records(self.wb.live)]
        return header, rows
