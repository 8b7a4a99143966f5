"""The five views of the workbench. Each draws values the live state's read models compute
(:mod:`gftpwb.core.live.read`; for past results :mod:`gftpwb.shell.results_index` and
:mod:`gftpwb.core.compare`); none computes a rate, a status or a ranking itself. Views read the app
through :class:`gftpwb.tui.state.WorkbenchState` and never import it. ``refresh_view`` is called by the
app's timer only for the view shown.
"""

from __future__ import annotations

import os
from typing import ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, ProgressBar, Static

from gftpwb.core.compare import DIFF_COLUMNS, diff_cells, diff_rates
from gftpwb.core.errors import GftpwbError
from gftpwb.core.format import (
    STATUS_STYLE,
    TUNE_STYLE,
    ci_text,
    cv_text,
    p_text,
    rate_text,
    short_error,
)
from gftpwb.core.live import read
from gftpwb.core.live.cells import (
    TEST_COLUMNS,
    THREAD_COLUMNS,
    THREAD_SORT_KEYS,
    TUNE_COLUMNS,
    test_cells,
    thread_cells,
    totals_text,
    tune_cells,
)
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import registry
from gftpwb.core.summary import CaseSummary, DirectorySummary, params_text
from gftpwb.shell.results_index import ResultsDirInfo, list_results, load_records, read_directory
from gftpwb.shell.sinks.journal import JOURNAL_NAME

from .state import SaveText, WorkbenchState
from .widgets import FastTable, LiveTable, Row, TuneChart

Table = tuple[tuple[str, ...], list[tuple[str, ...]]]  # (header, rows) as exported


def _styled(cells: tuple[str, ...], column: int) -> list[str | Text]:
    out: list[str | Text] = list(cells)
    status = cells[column].split(":", 1)[0]
    out[column] = Text(cells[column], style=STATUS_STYLE.get(status, ""))
    return out


def _contains(needle: str, *texts: str) -> bool:
    return not needle or any(needle.lower() in text.lower() for text in texts)


class View(Vertical):
    """A view: ``refresh_view`` draws it, ``export_table`` says what Export writes."""

    @property
    def wb(self) -> WorkbenchState:
        return cast(WorkbenchState, self.app)

    def refresh_view(self) -> None:
        raise NotImplementedError

    def export_table(self) -> Table:
        raise NotImplementedError

    can_focus = True  # so the view's own keys work while it shows no table

    def token(self, name: str, extra: str = "") -> str:
        """A Rich style from one of the theme's design tokens (``accent``, ``warning``, ``success``...),
        so inline text follows the theme as the stylesheet's ``$accent`` does."""
        colour = self.app.theme_variables.get(name, "")
        return f"{extra} {colour}".strip()

    def focus_main(self) -> None:
        """Focus the view's table, or the view itself: never leave focus on a hidden view's table, or
        TabbedContent switches back to the pane holding the focused widget."""
        for table in self.query("DataTable, FastTable"):
            if self._shown(table):
                table.focus()
                return
        self.focus()

    def _shown(self, widget) -> bool:
        """Whether ``widget`` and every container between it and this view are displayed (the auto-tune
        view hides the box around its ranking, not the ranking itself)."""
        node = widget
        while node is not None and node is not self:
            if not node.display:
                return False
            node = node.parent
        return True


# --- Scenario -------------------------------------------------------------------------------------


class ScenarioView(View):
    def compose(self) -> ComposeResult:
        yield Static(id="scenario-head", classes="head")
        yield Static(id="diagnostics")
        yield LiveTable([(label, f"c{i}") for i, label in enumerate(TEST_COLUMNS)], id="tests")

    def _rows(self) -> list:
        return [row for row in read.test_rows(self.wb.live) if _contains(self.wb.filter_text, row.test_id)]

    def refresh_view(self) -> None:
        wb = self.wb
        head = self.query_one("#scenario-head", Static)
        diagnostics = self.query_one("#diagnostics", Static)
        table = self.query_one("#tests", LiveTable)
        if wb.diagnostics:
            head.update(Text.assemble(("invalid scenario ", "bold red"), wb.scenario_path or "",
                                      ("  (fix it and press l to reload; nothing runs until it is valid)", "dim")))
            diagnostics.update(Text("\n".join(str(d) for d in wb.diagnostics), style="red"))
            diagnostics.display, table.display = True, False
            return
        diagnostics.display, table.display = False, True
        if wb.scenario is None:
            head.update(Text("No scenario loaded: start with  gftpwb tui SCENARIO.yaml  (past results: press 5)",
                             style="dim"))
        else:
            rows = self._rows()
            selected = "" if not wb.filter_text else f"  filter {wb.filter_text!r}: {len(rows)} shown, r runs them"
            description = f" — {wb.scenario.description}" if wb.scenario.description else ""
            head.update(Text.assemble((wb.scenario.name, "bold"), description, (selected, "yellow")))
        table.show([(row.test_id, _styled(test_cells(row), 3)) for row in self._rows()])

    def export_table(self) -> Table:
        return TEST_COLUMNS, [test_cells(row) for row in self._rows()]


# --- Run ------------------------------------------------------------------------------------------


def fields(*pairs: tuple[str, str | Text], sep: str = "   ") -> Text:
    """Labelled values, ``label value`` with the label dim and a clear gap between pairs, so a value
    never runs into the next label ("39%3.87 GiB", "MiB/savg" in the first pass)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for n, (label, value) in enumerate(pairs):
        if n:
            text.append(sep)
        text.append(f"{label} ", style="dim")
        text.append(value) if isinstance(value, Text) else text.append(value, style="bold")
    return text


def engine_badge(label: str) -> Text:
    """The mark of runs another engine carried out (the simulated engine's ``SIMULATED``)."""
    return Text(f" {label} ", style="bold black on yellow") if label else Text("")


# --- Per-thread -----------------------------------------------------------------------------------


def errors_text(failed: list, shown: int = 2) -> Text:
    """The errors of the rows that have one, under the per-thread table (the table shows their state)."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"{len(failed)} row(s) with an error", style="bold red")
    for row in failed[:shown]:
        where = f"{row.host} thread {row.thread}" if row.thread else row.host
        text.append(f"\n  {where} ({row.run_id}): ", style="red")
        text.append(short_error(row.error, 200))
    if len(failed) > shown:
        text.append(f"\n  … {len(failed) - shown} more (e exports every row with its error)", style="dim")
    return text


class ThreadsView(View):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "sort_next", "Sort by next"),
        Binding("O", "sort_reverse", "Reverse"),
    ]

    sort_column = "host"
    sort_reverse = False

    def compose(self) -> ComposeResult:
        yield Static(id="threads-head", classes="head")
        columns = [(label, key, "left" if key in ("run_id", "host", "state") else "right")
                   for label, key in zip(THREAD_COLUMNS, THREAD_SORT_KEYS, strict=True)]
        columns.insert(THREAD_SORT_KEYS.index("mib_s") + 1, ("rate", "mib_s", "bar"))  # a bar per row
        yield FastTable(columns, id="thread-table")
        yield Static(id="thread-errors")
        yield Static(id="thread-totals")

    def _rows(self):
        return read.thread_rows(self.wb.live, self.sort_column, self.sort_reverse, self.wb.filter_text)

    def refresh_view(self) -> None:
        rows = self._rows()
        label = dict(zip(THREAD_SORT_KEYS, THREAD_COLUMNS, strict=True))[self.sort_column]
        arrow = "↓" if self.sort_reverse else "↑"
        head = self.query_one("#threads-head", Static)
        if rows:
            head.update(Text.assemble((f"{len(rows)} row(s)", "bold"), f"  sorted by {label} {arrow}",
                                      ("  (o, O or click a header to sort)", "dim")))
        else:
            head.update(Text("No run yet. gfapi tests show one row per worker thread and host; guc runs one row "
                             "per host, or per stream where guc reports streams.", style="dim"))
        peak = max((row.mib_s for row in rows if row.mib_s is not None), default=0.0)
        at = THREAD_SORT_KEYS.index("mib_s") + 1
        shown = []
        for row in rows:
            cells = _styled(thread_cells(row), 8)
            if row.error:  # the error goes under the table: in the state column it ran past the right edge
                state = row.state + (f" ({row.engine})" if row.engine else "")
                cells[8] = Text(state, style=STATUS_STYLE.get(row.state, ""))
            fraction = f"{row.mib_s / peak:.3f}" if peak > 0 and row.mib_s is not None else ""
            cells.insert(at, Text(fraction, style="red" if row.error else "cyan"))
            shown.append((row.key, cells))
        self.query_one("#thread-table", FastTable).show(shown)
        errors = self.query_one("#thread-errors", Static)
        failed = [row for row in rows if row.error]
        errors.display = bool(failed)
        if failed:
            errors.update(errors_text(failed))
        totals = self.query_one("#thread-totals", Static)
        totals.display = bool(rows)
        if rows:
            totals.update(Text.assemble(("total  ", "bold"), totals_text(read.thread_summary(self.wb.live, rows))))

    def export_table(self) -> Table:
        rows = self._rows()
        return THREAD_COLUMNS, [thread_cells(row) for row in rows]

    def action_sort_next(self) -> None:
        index = THREAD_SORT_KEYS.index(self.sort_column)
        self.sort_column = THREAD_SORT_KEYS[(index + 1) % len(THREAD_SORT_KEYS)]
        self.refresh_view()

    def action_sort_reverse(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self.refresh_view()

    def on_fast_table_header_selected(self, event: FastTable.HeaderSelected) -> None:
        column = event.column_key
        if column == self.sort_column:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_column, self.sort_reverse = column, column in ("percent", "mib", "mib_s", "iops", "files_s")
        self.refresh_view()


# --- Auto-tune ------------------------------------------------------------------------------------


class TuneView(View):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_line", "Copy guc line"),
        Binding("w", "save_line", "Save guc line"),
        Binding("n", "next_test", "Next tune test", show=False),
    ]

    test_id: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="tune-head", classes="head")
        with Horizontal(id="tune-progress"):
            yield Static("transfers", id="tune-budget-label")
            yield ProgressBar(id="tune-budget", show_eta=False, show_percentage=False)
            yield Static(id="tune-budget-text")
        yield Static(id="tune-facts")
        with Horizontal(id="tune-body"):
            yield LiveTable([(label, f"c{i}") for i, label in enumerate(TUNE_COLUMNS)], id="ranking",
                            show_cursor=False)
            yield TuneChart(id="tune-chart")
        yield Static(id="tune-line")

    def on_resize(self, event) -> None:
        # Side by side when there is room for the table and a useful chart; stacked at 80 columns.
        self.query_one("#tune-body").set_class(event.size.width >= 140, "-wide")

    def panel(self):
        return read.tune(self.wb.live, self.test_id)

    def refresh_view(self) -> None:
        panel = self.panel()
        head = self.query_one("#tune-head", Static)
        line = self.query_one("#tune-line", Static)
        progress = self.query_one("#tune-progress")
        table = self.query_one("#ranking", LiveTable)
        body = self.query_one("#tune-body")
        facts = self.query_one("#tune-facts", Static)
        if panel is None:
            head.update(Text("No auto-tune test has reported yet: auto-tune tests show their ranking here, "
                             "updated as each transfer completes.", style="dim"))
            progress.display = body.display = line.display = facts.display = False
            return
        progress.display = body.display = line.display = facts.display = True
        others = f"   ({len(panel.test_ids)} tune tests, n: next)" if len(panel.test_ids) > 1 else ""
        state = ("finished", self.token("success", "bold")) if panel.finished else \
            ("running", self.token("accent", "bold"))
        simulated = registry().engine_label(panel.engine)
        head.update(Text.assemble(engine_badge(simulated), " " if simulated else "", ("auto-tune ", "bold"),
                                  (panel.test_id, "bold"), "  ", state, "  ",
                                  fields((panel.strategy, ""), ("margin", f"{panel.margin_mib_s:g} MB/s"), sep="· "),
                                  (others, "dim")))
        bar = self.query_one("#tune-budget", ProgressBar)
        bar.update(total=max(panel.budget, 1), progress=min(panel.transfers_used, max(panel.budget, 1)))
        self.query_one("#tune-budget-text", Static).update(f" {panel.transfers_used}/{panel.budget} of the budget")
        reason = panel.stop_reason or ("ran its plan" if panel.finished else "still running")
        facts.update(fields(("P(within margin)", p_text(panel.p_within_margin)), ("stop reason", reason)))
        pick = next((r for r in panel.rows if r.candidate == panel.leader), None)
        self.query_one("#tune-chart", TuneChart).show(panel.rows, pick.mean_mib_s if pick else None,
                                                      panel.margin_mib_s)
        rows: list[Row] = []
        for row in panel.rows:
            style = TUNE_STYLE.get(row.style, "")
            rows.append((row.candidate, [Text(cell, style=style) for cell in tune_cells(row)]))
        table.show(rows)
        if panel.guc_line:
            label = ("final: ", "bold green") if panel.finished else ("leader so far: ", "bold")
            line.update(Text.assemble(label, panel.guc_line, ("   c: copy  w: save", "dim")))
        else:
            line.update(Text("no leader yet", style="dim"))

    def export_table(self) -> Table:
        panel = self.panel()
        return TUNE_COLUMNS, [tune_cells(row) for row in panel.rows] if panel else []

    def action_copy_line(self) -> None:
        panel = self.panel()
        if panel is None or not panel.guc_line:
            self.app.notify("no guc line yet", severity="warning")
            return
        self.app.copy_to_clipboard(panel.guc_line)
        self.app.notify(f"copied: {panel.guc_line}")

    def action_save_line(self) -> None:
        panel = self.panel()
        if panel is None or not panel.guc_line:
            self.app.notify("no guc line yet", severity="warning")
            return
        self.post_message(SaveText(f"autotune-{panel.test_id}.txt", panel.guc_line + "\n", what="guc line"))

    def action_next_test(self) -> None:
        ids = read.tune_test_ids(self.wb.live)
        if ids:
            current = self.panel()
            index = ids.index(current.test_id) if current and current.test_id in ids else -1
            self.test_id = ids[(index + 1) % len(ids)]
            self.refresh_view()


# --- Results --------------------------------------------------------------------------------------

DIR_COLUMNS = ("", "results directory", "scenario", "created (UTC)", "records")
RECORD_COLUMNS = ("run", "status", "MiB/s incl.", "guc avg", "seconds", "parameters", "error")
# Statistics first and parameters last: parameters can be long (a gfapi workload), numbers are short.
CASE_COLUMNS = ("test", "n", "median", "mean ± 95% CI", "CV", "runs", "figure", "parameters")


def case_cells(case: CaseSummary) -> tuple[str, ...]:
    """One case of a results directory: its headline figure's statistics (median, mean ± CI, CV, n)."""
    head = case.headline
    stats = head.stats if head is not None else None
    figure = "-" if head is None else head.figure.label if head.figure.unit in head.figure.label else \
        f"{head.figure.label} ({head.figure.unit})"
    engine = registry().engine_label(case.engine)
    params = case.params_text + (f" [{engine}]" if engine else "")
    runs = f"{case.passed}/{case.total} passed" + (f", {case.warmups} warm-up" if case.warmups else "")
    if stats is None:
        return (case.test_id, "0", "-", "-", "-", runs, figure, params)
    half = stats.ci_mean.half_width if stats.ci_mean is not None else None
    return (case.test_id, str(stats.n), rate_text(stats.median), ci_text(stats.mean, half), cv_text(stats.cv), runs,
            figure, params)


class ResultsView(View):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "mark", "Mark for diff"),
        Binding("d", "diff", "Diff marked"),
        Binding("u", "rescan", "Rescan", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="results-head", classes="head")
        yield LiveTable([(label, f"d{i}") for i, label in enumerate(DIR_COLUMNS)], id="dirs")
        yield Static(id="detail-head", classes="head")
        yield LiveTable([(label, f"s{i}") for i, label in enumerate(CASE_COLUMNS)], id="cases")
        yield LiveTable([(label, f"r{i}") for i, label in enumerate(RECORD_COLUMNS)], id="records")
        yield LiveTable([(label, f"x{i}") for i, label in enumerate(DIFF_COLUMNS)], id="diff")

    def on_mount(self) -> None:
        self._dirs: list[ResultsDirInfo] = []
        self._marked: list[str] = []
        self._open: str | None = None
        self._diff: tuple[str, str] | None = None
        self._scanned = False
        self._cache: dict[str, tuple[tuple[float, int], list[ResultRecord], list[str]]] = {}
        self._summaries: dict[str, tuple[tuple[float, int], DirectorySummary | None]] = {}
        self.query_one("#diff").display = False

    def _records(self, path: str) -> tuple[list[ResultRecord], list[str]]:
        """A directory's records, read again only when its journal changed."""
        try:
            stat = os.stat(os.path.join(path, JOURNAL_NAME))
            stamp = (stat.st_mtime, stat.st_size)
        except OSError:
            stamp = (0.0, -1)
        cached = self._cache.get(path)
        if cached is None or cached[0] != stamp:
            records, problems = load_records(path)
            cached = self._cache[path] = (stamp, records, problems)
        return cached[1], cached[2]

    def _summary(self, path: str) -> DirectorySummary | None:
        """A directory's per-case statistics (core/summary), computed again only when its journal changed."""
        try:
            stat = os.stat(os.path.join(path, JOURNAL_NAME))
            stamp = (stat.st_mtime, stat.st_size)
        except OSError:
            stamp = (0.0, -1)
        cached = self._summaries.get(path)
        if cached is None or cached[0] != stamp:
            try:
                summary: DirectorySummary | None = read_directory(path)
            except GftpwbError:
                summary = None
            cached = self._summaries[path] = (stamp, summary)
        return cached[1]

    def rescan(self) -> None:
        self._dirs = list_results(self.wb.results_base)
        self._scanned = True

    def _shown_dirs(self) -> list[ResultsDirInfo]:
        return [d for d in self._dirs if _contains(self.wb.filter_text, d.name, d.scenario)]

    def refresh_view(self) -> None:
        if not self._scanned:
            self.rescan()
        dirs = self._shown_dirs()
        base = self.wb.results_base
        head = self.query_one("#results-head", Static)
        if not self._dirs:
            head.update(Text(f"No results under {base}/ yet.", style="dim"))
        else:
            head.update(Text.assemble((f"{len(dirs)} results directories", "bold"), f" under {base}/",
                                      ("   enter: open  m: mark  d: diff", "dim")))
        rows: list[Row] = []
        for info in dirs:
            mark = "A" if self._marked[:1] == [info.path] else ("B" if self._marked[1:2] == [info.path] else "")
            rows.append((info.path, [Text(mark, style="bold yellow"), info.name, info.scenario,
                                     info.created_at.replace("T", " ")[:19], str(info.records)]))
        self.query_one("#dirs", LiveTable).show(rows)
        self._refresh_detail()

    def _refresh_detail(self) -> None:
        detail = self.query_one("#detail-head", Static)
        records_table = self.query_one("#records", LiveTable)
        diff_table = self.query_one("#diff", LiveTable)
        if self._diff is not None:
            a, b = self._diff
            detail.update(Text.assemble(("diff ", "bold"), f"A {os.path.basename(a)}  B {os.path.basename(b)}",
                                        ("  (mean MiB/s incl. set-up of passed runs, per test and options)", "dim")))
            records_table.display, diff_table.display = False, True
            self.query_one("#cases").display = False
            diff_table.show([(f"{row.test_id}|{row.params}", list(diff_cells(row))) for row in self._diff_rows()])
            return
        cases_table = self.query_one("#cases", LiveTable)
        records_table.display, diff_table.display, cases_table.display = True, False, True
        if self._open is None:
            detail.update(Text("Select a results directory and press enter to see its cases and runs.", style="dim"))
            records_table.show([])
            cases_table.show([])
            return
        records, problems = self._records(self._open)
        summary = self._summary(self._open)
        cases = list(summary.cases) if summary is not None else []
        note = f"  ({len(problems)} unreadable line(s) skipped)" if problems else ""
        detail.update(Text.assemble((os.path.basename(self._open), "bold"), "   ",
                                    fields(("cases", str(len(cases))), ("runs", str(len(records)))), note,
                                    ("   statistics of passed runs, warm-ups left out", "dim")))
        cases_table.show([(f"{c.test_id}|{c.case}|{c.kind}", list(case_cells(c))) for c in cases])
        records_table.show([(r.run_id, [r.run_id, Text(r.status, style=STATUS_STYLE.get(r.status, "")),
                                         rate_text(r.rate_incl_setup_mib_s), rate_text(r.rate_guc_avg_mib_s),
                                         "-" if r.seconds is None else f"{r.seconds:.2f}", params_text(r),
                                         short_error(r.error, 60)])
                            for r in records])

    def _diff_rows(self):
        assert self._diff is not None
        a, _ = self._records(self._diff[0])
        b, _ = self._records(self._diff[1])
        return diff_rates(a, b)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "dirs":
            self._open = self.query_one("#dirs", LiveTable).key_of(event.row_key)
            self._diff = None
            self._refresh_detail()

    def _highlighted(self) -> str | None:
        return self.query_one("#dirs", LiveTable).cursor_key()

    def action_mark(self) -> None:
        path = self._highlighted()
        if path is None:
            return
        if path in self._marked:
            self._marked.remove(path)
        else:
            self._marked = [*self._marked, path][-2:]
        self.refresh_view()

    def action_diff(self) -> None:
        pair = self._marked if len(self._marked) == 2 else [*self._marked, self._open or self._highlighted() or ""]
        pair = [p for p in pair if p]
        if len(pair) != 2 or pair[0] == pair[1]:
            self.app.notify("mark two results directories with m (or mark one and open another) to diff them",
                            severity="warning")
            return
        self._diff = (pair[0], pair[1])
        self._refresh_detail()

    def action_rescan(self) -> None:
        self.rescan()
        self.refresh_view()

    def export_table(self) -> Table:
        if self._diff is not None:
            return DIFF_COLUMNS, [diff_cells(row) for row in self._diff_rows()]
        if self._open is not None:
            records, _ = self._records(self._open)
            return RECORD_COLUMNS, [(r.run_id, r.status, rate_text(r.rate_incl_setup_mib_s),
                                     rate_text(r.rate_guc_avg_mib_s), "" if r.seconds is None else f"{r.seconds:.3f}",
                                     params_text(r), short_error(r.error)) for r in records]
        return DIR_COLUMNS[1:], [(d.name, d.scenario, d.created_at, str(d.records)) for d in self._shown_dirs()]
