"""The five views of the workbench. Each draws values the live state's read models compute
(:mod:`gftpwb.core.live.read`; for past results the front-end service's
:func:`~gftpwb.shell.interactive.read_directory` and
:mod:`gftpwb.core.compare`); none computes a rate, a status or a ranking itself. Views read the app
through :class:`gftpwb.tui.state.WorkbenchState` and never import it. ``refresh_view`` is called by the
app's timer only for the view shown.
"""

from __future__ import annotations

from typing import ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import ProgressBar, Static

from gftpwb.core.format import (
    STATUS_STYLE,
    TUNE_STYLE,
    certainty_text,
)
from gftpwb.core.live import read
from gftpwb.core.live.cells import (
    TEST_COLUMNS,
    THREAD_COLUMNS,
    THREAD_SORT_KEYS,
    TUNE_COLUMNS,
    error_groups,
    test_cells,
    thread_cells,
    totals_text,
    tune_cells,
)
from gftpwb.core.registry import registry

from .state import SaveText, WorkbenchState
from .widgets import FastTable, LiveTable, Row, TuneChart

Table = tuple[tuple[str, ...], list[tuple[str, ...]]]  # (header, rows) as exported
TONE_STYLE = {"ok": "green", "bad": "red", "stopped": "magenta"}  # how read.outcome's tones are shown


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


def errors_text(failed: list) -> Text:
    """Every error of the rows under the per-thread table, each once and whole (the table shows their
    state; rows that share an error, a lost host's, are named together), wrapped to the width."""
    groups = error_groups(failed)
    text = Text()
    text.append(f"{len(failed)} row(s) with an error", style="bold red")
    if len(groups) > 1:
        text.append(f", {len(groups)} different", style="bold red")
    for where, error in groups:
        text.append(f"\n  {where}: ", style="red")
        text.append(error)
    return text


class ThreadsView(View):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "sort_next", "Sort"),
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
        with VerticalScroll(id="thread-errors"):  # all of every error, scrolled when they are many
            yield Static(id="thread-errors-text")
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
        failed = [row for row in rows if row.error]
        self.query_one("#thread-errors", VerticalScroll).display = bool(failed)
        if failed:
            self.query_one("#thread-errors-text", Static).update(errors_text(failed))
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


#: The ranking's columns on screen: the note (long: "1 failed; guc failed: 500 Command failed") goes
#: under the table, wrapped, so the table fits 80 columns without scrolling sideways.
RANKING_COLUMNS = TUNE_COLUMNS[:TUNE_COLUMNS.index("note")]


def notes_text(rows: list, styles: dict[str, str]) -> Text:
    """The candidates' notes after their ranks, in their rows' styles, one after the other and wrapped
    at the width (a line each would take the 80x24 chart's last rows, its axis labels)."""
    notes = [Text.assemble((f"#{row.rank} ", "bold"), (row.note, styles.get(row.style, "")))
             for row in rows if row.note]
    return Text("   ").join(notes)


class TuneView(View):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("c", "copy_line", "Copy line"),
        Binding("w", "save_line", "Save line"),
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
            with Vertical(id="tune-table"):
                yield LiveTable([(label, f"c{i}") for i, label in enumerate(RANKING_COLUMNS)], id="ranking",
                                show_cursor=False)
                yield Static(id="tune-notes")
            yield TuneChart(id="tune-chart")
        yield Static(id="tune-line")

    def on_resize(self, event) -> None:
        # Side by side when there is room for the table and a useful chart; stacked at 80 columns.
        self.query_one("#tune-body").set_class(event.size.width >= 140, "-wide")

    def panel(self):
        return read.tune(self.wb.live, self.test_id)

    def refresh_view(self) -> None:
        panel = self.panel()
        has_line = panel is not None and bool(panel.guc_line)
        if has_line != getattr(self, "_line_keys", None):  # the key bar offers c and w only with a line
            self._line_keys = has_line
            self.refresh_bindings()
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
        sure = certainty_text(panel.p_within_margin, panel.p_with_history, panel.history_share)
        facts_line = fields(("P(within margin)", sure), ("stop reason", reason))
        if panel.warm_start:  # what the history did: which campaigns, the probes' verdict, a fall-back
            style = "bold yellow" if panel.warm_start.startswith("fell back") else ""
            facts_line = Text.assemble(facts_line, "\n", ("start ", "dim"), (panel.warm_start, style))
        facts.update(facts_line)
        pick = next((r for r in panel.rows if r.candidate == panel.leader), None)
        self.query_one("#tune-chart", TuneChart).show(panel.rows, pick.mean_mib_s if pick else None,
                                                      panel.margin_mib_s)
        rows: list[Row] = []
        for row in panel.rows:
            style = TUNE_STYLE.get(row.style, "")
            rows.append((row.candidate, [Text(cell, style=style) for cell in tune_cells(row)[:len(RANKING_COLUMNS)]]))
        table.show(rows)
        notes = self.query_one("#tune-notes", Static)
        notes.display = any(row.note for row in panel.rows)
        if notes.display:
            notes.update(notes_text(panel.rows, TUNE_STYLE))
        if panel.guc_line:
            label = ("final: ", "bold green") if panel.finished else ("leader so far: ", "bold")
            line.update(Text.assemble(label, panel.guc_line, ("   c: copy  w: save", "dim")))
        else:
            line.update(Text("no leader yet", style="dim"))

    def export_table(self) -> Table:
        panel = self.panel()
        return TUNE_COLUMNS, [tune_cells(row) for row in panel.rows] if panel else []

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Copy and Save only once there is a line to copy: before, the key bar offered keys that did
        nothing (refresh_view shows them when the first leader arrives)."""
        if action in ("copy_line", "save_line"):
            return self._has_line()
        return True

    def _has_line(self) -> bool:
        panel = self.panel()
        return panel is not None and bool(panel.guc_line)

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
