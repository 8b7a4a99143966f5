"""The results view: past results directories under the results base, one opened (each case's
statistics from :mod:`gftpwb.core.summary`, then its runs), and the diff of two. It draws what
:mod:`gftpwb.shell.results_index` and :mod:`gftpwb.core.compare` compute; it computes no statistic.
"""

from __future__ import annotations

import os
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Static

from gftpwb.core.compare import DIFF_COLUMNS, diff_cells, diff_rates
from gftpwb.core.errors import GftpwbError
from gftpwb.core.format import STATUS_STYLE, ci_text, cv_text, rate_text, short_error
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import registry
from gftpwb.core.summary import CaseSummary, DirectorySummary, params_text
from gftpwb.shell.results_index import ResultsDirInfo, list_results, load_records, read_directory
from gftpwb.shell.sinks.journal import JOURNAL_NAME

from .views import Table, View, _contains, fields
from .widgets import LiveTable, Row

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
