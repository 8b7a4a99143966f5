"""The run view: where the scenario run is, what moves now and how fast (the rate chart), what the
monitors read on each host (beside the chart from 120 columns, under it below), the thresholds
(``expect:``) violated, the trace level of the runs in flight (``t`` switches it), and the output of
the runs. It draws what :mod:`gftpwb.core.live.read` computes; see :mod:`gftpwb.tui.views`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Log, ProgressBar, Static
from textual.widgets._progress_bar import Bar

from gftpwb.core.checks import Check
from gftpwb.core.format import duration_text, human_bytes, rate_text, short_error
from gftpwb.core.live import read
from gftpwb.core.live.models import RunLine
from gftpwb.core.live.monitors import MonitorRow, sparkline
from gftpwb.shell import interactive as service

from .views import TONE_STYLE, Table, View, engine_badge, fields
from .widgets import RateChart, TailLog

WIDE = 120  # from this width the monitors panel stands beside the chart, below it under the chart
SPARK_NARROW = 12  # sparkline cells of a monitor's one-line row under the chart
NARROW_ROWS = 3  # lines of the monitors panel under the chart (80x24 leaves the chart 6 rows with it)
ELLIPSIS = "…"


def fold_middle(word: str, width: int) -> str:
    """``word`` in ``width`` cells, its middle folded into ``…`` when it is longer (a URL keeps its host
    and its file)."""
    if len(word) <= width:
        return word
    keep = max(width - len(ELLIPSIS), 2)
    return word[: keep - keep // 2] + ELLIPSIS + word[len(word) - keep // 2:]


def longest_start(words: Sequence[str], width: int) -> list[str]:
    """The most leading ``words`` that fit ``width`` joined by spaces."""
    taken: list[str] = []
    for word in words:
        if len(" ".join([*taken, word])) > width:
            break
        taken.append(word)
    return taken


def command_lines(command: str, width: int) -> str:
    """The run's command in at most two lines of ``width``: whole on one line when it fits, wrapped at
    its words onto two when they hold it, else with the middle folded into ``…``: the end keeps the last
    two words (a copy's source and target, which a cut at the right edge lost), each folded in its own
    middle only when the two do not fit a line together."""
    line = f"$ {command}"
    words = line.split(" ")
    if width <= 0 or len(line) <= width:
        return line
    first = longest_start(words, width)
    if first and len(" ".join(words[len(first):])) <= width:
        return " ".join(first) + "\n" + " ".join(words[len(first):])
    room = width - len(ELLIPSIS) - 1  # a line that leaves words out says so: "… " or " …"
    tail = list(reversed(longest_start(list(reversed(words[2:])), room)))
    if len(tail) >= min(2, len(words) - 2):
        head = longest_start(words[: len(words) - len(tail)], room) or [fold_middle(words[0], room)]
        return f"{' '.join(head)} {ELLIPSIS}\n{ELLIPSIS} {' '.join(tail)}"
    if len(words) >= 4:  # "$ program … source" over "  target", each folded in its middle
        lead = f"$ {words[1]} {ELLIPSIS} "
        return lead + fold_middle(words[-2], width - len(lead)) + "\n  " + fold_middle(words[-1], width - 2)
    return fold_middle(line, width)


def monitor_title(rows: Sequence[MonitorRow], *, waiting: bool) -> str:
    if not rows:
        return "monitors: waiting for the first samples" if waiting else "monitors"
    stopped = all(row.stopped for row in rows)
    return f"monitors: {len(rows)} on {len({row.host for row in rows})} host(s), " + \
        ("last samples (stopped)" if stopped else "latest sample")


def monitor_text(rows: Sequence[MonitorRow], width: int, height: int, *, wide: bool) -> Text:
    """The monitors panel: per monitor and host its headline's sparkline and the latest figures; two
    lines a row beside the chart when they fit (sparkline as wide as the panel), one line a row under
    it. Rows that do not fit are counted on the last line."""
    text = Text(no_wrap=True, overflow="ellipsis")
    height = max(height, 1)
    two_lines = wide and 2 * len(rows) <= height
    fits = height // 2 if two_lines else height
    shown = rows if len(rows) <= fits else rows[: max(fits - 1, 0)]
    name_width = max((len(f"{row.monitor} {row.host}") for row in shown), default=0)
    for n, row in enumerate(shown):
        if n:
            text.append("\n")
        text.append(f"{row.monitor} {row.host}".ljust(name_width) + " ", style="bold")
        if row.error:
            text.append(f"error: {row.error}", style="red")
            continue
        spark_width = max(width - name_width - 1, 8) if two_lines else SPARK_NARROW
        text.append(sparkline(row.series, spark_width, row.scale_max), style="cyan")
        text.append("\n  " if two_lines else "  ")
        for k, (label, value) in enumerate(row.figures):
            text.append(("   " if k else "") + f"{label} ", style="dim")
            text.append(value)
        if row.ended:
            text.append(f"   lost: {row.ended}", style="red")
    if len(shown) < len(rows):
        more = "from 120 columns beside the chart; " if not wide else ""
        text.append(("\n" if shown else "") + f"… {len(rows) - len(shown)} more ({more}all in monitors.jsonl)",
                    style="dim")
    return text


def checks_text(checks: Sequence[Check], violated: Sequence[Check]) -> Text:
    """The thresholds line: how many were checked and violated, and the first violations."""
    text = Text(no_wrap=True, overflow="ellipsis")
    if not violated:
        text.append(f"expect: all {len(checks)} threshold(s) met so far", style="green")
        return text
    text.append(f"expect: {len(violated)} of {len(checks)} VIOLATED", style="bold red")
    for check in violated[:2]:
        value = check.value_text + (f" ({check.note})" if check.note else "")
        text.append(f"\n  {check.test_id} {check.case_text}: {check.metric} {check.expression}: {value}", style="red")
    if len(violated) > 2:
        text.append(f"\n  … {len(violated) - 2} more (expectations.jsonl; all listed when the TUI closes)",
                    style="dim")
    return text


class RunView(View):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("t", "trace_level", "Trace run/io"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="run-head", classes="head")
        yield Static(id="run-cmd")
        with Horizontal(id="run-progress"):
            yield ProgressBar(id="run-bar", show_eta=False, show_percentage=False)
            yield Static(id="run-eta")
        yield Static(id="run-rates")
        yield Static(id="run-checks")
        with Horizontal(id="run-body"):
            yield RateChart(id="spark")
            yield Static(id="monitors")
        yield TailLog(id="log", max_lines=2000, auto_scroll=True)

    def on_mount(self) -> None:
        self._seq = 0
        self._chart_moment: tuple | None = None
        self._monitors_moment: tuple | None = None
        self._checks_shown = 0

    def on_resize(self, event) -> None:
        self.query_one("#run-body").set_class(event.size.width >= WIDE, "-wide")

    @property
    def wide(self) -> bool:
        return self.query_one("#run-body").has_class("-wide")

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
            levels = sorted(set(read.trace_levels(wb.live).values()) - {"off"})
            if levels:  # traced runs in flight: their level now (t switches it)
                text.append_text(Text.assemble("   ", ("trace ", "dim"), (" + ".join(levels), "bold")))
            if wb.stopping:
                text.append("   stopping: recording the run in flight as interrupted…", style="magenta")
            head.update(text)
        else:
            s = panel.summary
            counts = ", ".join(f"{n} {k}" for k, n in sorted(s.counts.items())) if s else ""
            tone = read.outcome(s)[1] if s else "bad"
            style = TONE_STYLE[tone]
            again = "   r: resume or start anew" if panel.state == "interrupted" else ""
            violated = len(read.violations(wb.live))
            expect = (f"   {violated} threshold(s) violated", "bold red") if violated else ("", "")
            skipped = read.skip_reasons(wb.live)
            why = (f"   skipped: {short_error(skipped[0])}" + (f" (+{len(skipped) - 1} more)" if len(skipped) > 1
                                                                else ""), "yellow") if skipped else ("", "")
            head.update(Text.assemble((panel.state, f"bold {style}"), f": {counts or 'no runs'} of "
                                      f"{s.total if s else 0} planned", expect, why, (again, "dim")))
        command = self.query_one("#run-cmd", Static)
        command.display = shown is not None  # several runs in flight: their commands are in the log
        width = command.content_size.width or max(self.size.width - 2, 0)
        command.update(Text(command_lines(shown.command, width) if shown else "", style="dim", no_wrap=True,
                            overflow="ellipsis"))
        bar = self.query_one("#run-bar", ProgressBar)
        eta = self.query_one("#run-eta", Static)
        if shown is not None and shown.waiting:  # nothing reported yet: not "0 % moved 0 B"
            bar.display = False
            eta.update(Text(shown.waiting, style="yellow"))
        elif shown is not None and shown.length_bytes and (shown.status == "running" or shown.bytes):
            bar.display = True
            bar.update(total=shown.length_bytes, progress=min(shown.bytes, shown.length_bytes))
            # Textual's Bar rounds its fill to half cells of the width it had when the value was set (0
            # while hidden): set it again, so it follows the width the layout gave it since.
            bar.query_one(Bar).percentage = bar.percentage
            left = ("ETA", duration_text(shown.eta_s)) if shown.eta_s is not None else ("status", shown.status)
            eta.update(fields(("", f"{100 * (shown.fraction or 0):.0f} %"),
                              ("moved", f"{human_bytes(shown.bytes)} of {human_bytes(shown.length_bytes)}"), left))
        else:
            bar.display = False
            unknown = shown is not None and shown.status == "running"
            eta.update(Text("length unknown (no -len): bytes and rates only" if unknown else "", style="dim"))
        eta.styles.width = "auto" if bar.display else "1fr"  # without the bar, a long text wraps in the row
        self.query_one("#run-progress").display = bar.display or (shown is not None and shown.status == "running")
        pairs: list[tuple[str, str | Text]] = []
        if panel.running:  # nothing in flight: no rate now (the last run's takes their place, 80 columns)
            pairs += [("now", f"{rate_text(panel.rate_inst_mib_s)} MiB/s"),
                      ("average", f"{rate_text(panel.rate_avg_mib_s)} MiB/s")]
        pairs += [("moved in all", human_bytes(panel.bytes_moved)), ("runs", f"{panel.runs_done}/{panel.runs_total}")]
        if not panel.running and panel.last is not None and panel.last.rate_avg_mib_s is not None:
            pairs.append(("last run", f"{rate_text(panel.last.rate_avg_mib_s)} MiB/s"))
        self.query_one("#run-rates", Static).update(fields(*pairs))
        checks = self.query_one("#run-checks", Static)
        checks.display = bool(wb.live.checks)
        if wb.live.checks and len(wb.live.checks) != self._checks_shown:
            self._checks_shown = len(wb.live.checks)  # checks only arrive (a new run starts with none)
            checks.update(checks_text(wb.live.checks, read.violations(wb.live)))
        elif not wb.live.checks:
            self._checks_shown = 0
        self._refresh_monitors()
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

    def _refresh_monitors(self) -> None:
        monitors = self.query_one("#monitors", Static)
        board = self.wb.live.monitors
        configured = bool(self.wb.scenario is not None and self.wb.scenario.monitors)
        moment = (id(board), board.version, configured, self.wb.live.active, self.wide, monitors.content_size)
        if moment == self._monitors_moment:
            return  # samples come about once a second: most frames have nothing new to draw
        self._monitors_moment = moment
        rows = read.monitor_rows(self.wb.live)
        monitors.display = bool(rows) or configured
        self.query_one("#run-body").set_class(monitors.display, "-monitors")  # the log gives a line to them
        if monitors.display:
            wide = self.wide
            monitors.border_title = monitor_title(rows, waiting=configured and self.wb.live.active)
            height = monitors.content_size.height if wide else NARROW_ROWS
            monitors.update(monitor_text(rows, monitors.content_size.width, height or NARROW_ROWS, wide=wide))

    def action_trace_level(self) -> None:
        """Switch the trace level of the runs in flight between run and io (NetLogger's "detailed
        tracing on and off while running"), through the front-end service as SIGUSR2 and SIGUSR1 do;
        say why when nothing can switch."""
        target, why = read.trace_target(read.trace_levels(self.wb.live))
        if target is None:
            self.app.notify(why, title="trace level", severity="warning", timeout=8)
            return
        asked = service.switch_trace(target, "tui key t")
        if not asked:
            self.app.notify("no run in flight can switch its trace level: only gfapi workers can (guc runs keep "
                            "the level they started with)", title="trace level", severity="warning", timeout=8)
            return
        self.app.notify(f"trace level {target} asked of {asked} run(s) in flight", title="trace level")
        self.refresh_view()

    def export_table(self) -> Table:
        header = ("run", "status", "bytes", "seconds", "MiB/s incl. set-up", "MiB/s guc avg", "error")
        rows = [(r.run_id, r.status, str(r.bytes if r.bytes is not None else ""),
                 "" if r.seconds is None else f"{r.seconds:.3f}", rate_text(r.rate_incl_setup_mib_s, 3),
                 rate_text(r.rate_guc_avg_mib_s, 2), short_error(r.error)) for r in read.finished_records(self.wb.live)]
        return header, rows
