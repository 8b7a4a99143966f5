"""The results view: past results directories under the results base; one opened shows each case's
statistics (:mod:`gftpwb.core.summary`, as ``gftpwb report`` computes them) with its thresholds met or
violated, then its runs; ``t`` shows the report's tables instead (the kinds' sections through the
registry, the monitors', the thresholds'); two marked are compared as ``gftpwb compare`` compares them
(:mod:`gftpwb.core.compare`), the verdict said in words. ``R`` writes the HTML report with
``gftpwb report --html``'s code in a thread and opens it in the browser (:mod:`gftpwb.tui.opener`:
``$BROWSER``, else the desktop's); ``e`` exports full-precision values into the directory they
describe. Directories are read and written through the front-end service
(:mod:`gftpwb.shell.interactive`). The view computes no statistic itself.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import ClassVar

from rich import box
from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import ScrollableContainer
from textual.widgets import DataTable, Static

from gftpwb import __version__
from gftpwb.core.checks import Check
from gftpwb.core.compare import (
    ALPHA,
    COMPARE_COLUMNS,
    TEST_NAME,
    VERDICT_STYLE,
    Comparison,
    change_cells,
    compare_summaries,
    undecided,
)
from gftpwb.core.compare_decision import needed_text
from gftpwb.core.compare_words import change_sentence, comparison_counts
from gftpwb.core.errors import GftpwbError
from gftpwb.core.export_csv import comparison_csv, csv_text, runs_csv
from gftpwb.core.format import STATUS_STYLE, cv_text, rate_text, short_error
from gftpwb.core.registry import registry
from gftpwb.core.report import MEAN_CI_COLUMN, mean_cell
from gftpwb.core.report_csv import report_csv
from gftpwb.core.report_tables import VIOLATED_STYLE, directory_tables
from gftpwb.core.slurm.report import allocation_text
from gftpwb.core.summary import CaseSummary, DirectorySummary, params_text
from gftpwb.shell import interactive as service
from gftpwb.shell.interactive import ResultsDirInfo, Stamp, list_results, read_directory

from .opener import open_in_browser
from .views import Table, View, _contains, fields
from .widgets import LiveTable, Row

# The scenario is said after the directory's name only when the name does not end with it (the default
# name, <UTC stamp>-<scenario>, does): 80 columns then hold every column, expect whole.
DIR_COLUMNS = ("", "results directory", "created (UTC)", "records", "expect")
DIR_FIT = ("d1", "d4", 24)  # a name too long for the rest is cut with an ellipsis, never the expect cell
RECORD_COLUMNS = ("run", "status", "MiB/s incl.", "guc avg", "seconds", "parameters", "error")
# What tells the cases apart first (their parameters: narrowed to what the statistics up to the
# thresholds leave, LiveTable.fit), then the statistics; the runs' counts and the figure's name last.
CASE_COLUMNS = ("test", "parameters", "n", "median", MEAN_CI_COLUMN, "CV", "expect", "runs", "figure")
CASE_FIT = ("s1", "s6")  # the parameters' column narrows so the columns through expect stay on screen
# gftpwb compare's columns: the case, its change, the verdict and the change's CI first (kept on screen
# at 80 columns, the parameters narrowed for them), then p and the medians.
COMPARE_ORDER = (0, 1, 2, 6, 9, 7, 8, 4, 5, 3)
COMPARE_FIT = ("x2", "x7")  # (keys are x<index in COMPARE_COLUMNS>)
VERDICT_AT = COMPARE_ORDER.index(9)
# The CI's level is said once in the comparison's head, not in its column's header: "CI of change"
# keeps the header whole at 80 columns.
CI_LEVEL = "95 %"
COMPARE_LABELS = tuple(COMPARE_COLUMNS[i][0].removeprefix(f"{CI_LEVEL} ") for i in COMPARE_ORDER)
#: The comparison's significance threshold (|change| at least this many %), stepped by + and -;
#: it starts at ``gftpwb compare --threshold``'s default.
DEFAULT_THRESHOLD_PCT = 5.0
THRESHOLD_STEPS = (0.0, 1.0, 2.0, 3.0, 5.0, 10.0, 15.0, 20.0, 25.0, 50.0)
SHORT_HEIGHT = 36  # rows of the view under which a comparison or an open directory shortens the list
HTML_NAME = "report.html"  # where R writes a directory's HTML report: inside it, next to its runs
KEYS_HINT = "   enter: open  esc: back"  # the other keys are in the key bar; one line at 80 columns

def expect_text(checks: list[Check]) -> tuple[str, str]:
    """A case's or a directory's thresholds (``expect:``) in a cell: ``met``, ``VIOLATED``, ``1/3
    violated``; "" when none were checked. With its style (violations in red)."""
    if not checks:
        return "", ""
    violated = sum(1 for c in checks if not c.ok)
    if not violated:
        return ("met" if len(checks) == 1 else f"{len(checks)} met"), "green"
    return ("VIOLATED" if len(checks) == 1 else f"{violated}/{len(checks)} violated"), VIOLATED_STYLE


def names_its_scenario(name: str, scenario: str) -> bool:
    """``name`` is the scenario's or a default results directory's name: ``<stamp>-<scenario>``, or
    ``<stamp>-<scenario>.<n>`` for a later run started within the same second."""
    if name == scenario or name.endswith(f"-{scenario}"):
        return True
    head, _, number = name.rpartition(".")
    return number.isdigit() and head.endswith(f"-{scenario}")


def directory_cell(info: ResultsDirInfo) -> str | Text:
    """A results directory's name, and its scenario when the name does not say it (``first  scenario
    tuijourney``; the default name ``20261128T002412Z-tuijourney`` does, and so does
    ``20261128T002412Z-tuijourney.1``, the second run made in the same second)."""
    if not info.scenario or names_its_scenario(info.name, info.scenario):
        return info.name
    return Text.assemble(info.name, ("  scenario ", "dim"), info.scenario)


def case_cells(case: CaseSummary, checks: Sequence[Check] = ()) -> tuple[str, ...]:
    """One case of a results directory: its headline figure's statistics (median, mean ± CI, CV, n)
    and its thresholds."""
    head = case.headline
    stats = head.stats if head is not None else None
    figure = "-" if head is None else head.figure.label if head.figure.unit in head.figure.label else \
        f"{head.figure.label} ({head.figure.unit})"
    engine = registry().engine_label(case.engine)
    params = case.params_text + (f" [{engine}]" if engine else "")
    runs = f"{case.passed}/{case.total} passed" + (f", {case.warmups} warm-up" if case.warmups else "")
    expect = expect_text(list(checks))[0]
    if stats is None:
        return (case.test_id, params, "0", "-", "-", "-", expect, runs, figure)
    return (case.test_id, params, str(stats.n), rate_text(stats.median), mean_cell(stats), cv_text(stats.cv),
            expect, runs, figure)


def undecided_brief(c: Comparison) -> str:
    """``gftpwb compare``'s note on the cases its test cannot decide, in two lines at 80 columns (its
    four ran past the note's height): how many, and the runs the test needs; "" when the test decided
    every case."""
    u = undecided(c)
    if u is None:
        return ""
    return (f"{u.cases} of {u.of} case(s): too few runs for the test, no verdict (it needs "
            f"{needed_text(u.runs_needed)}). Repeat them.")


def case_checks(summary: DirectorySummary, case: CaseSummary) -> list[Check]:
    return [c for c in summary.checks if c.test_id == case.test_id and c.case == case.case]


class ResultsView(View):
    #: Journals under this size are read on the spot (about 30 ms for a few hundred records); larger
    #: ones in a worker thread.
    SYNC_READ_BYTES = 4 << 20
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("m", "mark", "Mark"),
        Binding("d", "diff", "Compare"),
        Binding("t", "tables", "Tables"),
        Binding("R", "html", "HTML"),
        Binding("e", "export", "Export"),
        Binding("plus", "threshold(1)", "Threshold +", show=False),
        Binding("minus", "threshold(-1)", "Threshold -", show=False),
        Binding("u", "rescan", "Rescan", show=False),
        Binding("escape", "back", "Back", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield Static(id="results-head", classes="head")
        yield LiveTable([(label, f"d{i}") for i, label in enumerate(DIR_COLUMNS)], id="dirs")
        yield Static(id="detail-head", classes="head")
        yield LiveTable([(label, f"s{i}") for i, label in enumerate(CASE_COLUMNS)], id="cases")
        yield LiveTable([(label, f"r{i}") for i, label in enumerate(RECORD_COLUMNS)], id="records")
        with ScrollableContainer(id="report"):
            yield Static(id="report-body")
        # the highlighted case in words over the table: always in view, the table scrolls under it
        yield Static(id="compare-note")
        yield LiveTable([(label, f"x{i}") for label, i in zip(COMPARE_LABELS, COMPARE_ORDER, strict=True)],
                        id="compare")

    def on_mount(self) -> None:
        self._dirs: list[ResultsDirInfo] = []
        self._violations: dict[str, tuple[Stamp, tuple[str, str]]] = {}
        self._marked: list[str] = []
        self._open: str | None = None
        self._mode = "cases"  # what the detail shows of the open directory: "cases" or "report"
        self._diff: tuple[str, str] | None = None
        self._scanned = False
        self._warm = False  # service.warm_up started (numpy and scipy, loaded before the first comparison)
        self._summaries: dict[str, tuple[Stamp, DirectorySummary | None, str]] = {}
        self._reading: set[str] = set()  # directories a worker thread is reading
        self._comparisons: dict[tuple, Comparison | None] = {}
        self._html: dict[str, str] = {}  # directory -> the HTML report R wrote of it
        self.threshold_pct = DEFAULT_THRESHOLD_PCT  # the comparison's, changed with + and -
        self.query_one("#dirs", LiveTable).fit(*DIR_FIT)
        self.query_one("#cases", LiveTable).fit(*CASE_FIT)
        self.query_one("#compare", LiveTable).fit(*COMPARE_FIT)
        self._show("cases")

    # --- reading (cached by the journal's size and time) -----------------------------------------

    @staticmethod
    def _read(path: str) -> tuple[Stamp, DirectorySummary | None, str]:
        stamp = service.journal_stamp(path)
        try:
            return stamp, read_directory(path), ""
        except GftpwbError as exc:
            return stamp, None, str(exc)

    def summary(self, path: str) -> tuple[DirectorySummary | None, str]:
        """A directory's summary (core/summary, through results_index), and why there is none."""
        cached = self._summaries.get(path)
        if cached is None or cached[0] != service.journal_stamp(path):
            cached = self._summaries[path] = self._read(path)
        return cached[1], cached[2]

    def _ready(self, paths: Sequence[str]) -> bool:
        """Whether the summaries of ``paths`` are read and current. Small journals are read at once; a
        large one (a long study: seconds of JSON and statistics) in a worker thread, which draws the
        detail again when it is done, so the screen keeps answering meanwhile."""
        ready = True
        for path in paths:
            stamp = service.journal_stamp(path)
            cached = self._summaries.get(path)
            if cached is not None and cached[0] == stamp:
                continue
            if stamp[1] < self.SYNC_READ_BYTES:
                self._summaries[path] = self._read(path)
                continue
            ready = False
            if path not in self._reading:
                self._reading.add(path)
                self.run_worker(lambda path=path: self._read_in_thread(path), thread=True, group="read",
                                exit_on_error=False)
        return ready

    def _read_in_thread(self, path: str) -> None:
        read = self._read(path)
        self.app.call_from_thread(self._have_read, path, read)

    def _have_read(self, path: str, read: tuple[Stamp, DirectorySummary | None, str]) -> None:
        self._reading.discard(path)
        self._summaries[path] = read
        self._refresh_detail()

    def _reading_text(self, paths: Sequence[str]) -> Text:
        size = sum(max(service.journal_stamp(p)[1], 0) for p in paths)
        names = " and ".join(os.path.basename(p) for p in paths)
        return Text.assemble((f"reading {names}", "bold"), (f"   ({size / (1 << 20):.0f} MiB of journal)…", "dim"))

    def comparison(self) -> Comparison | None:
        """B against A as ``gftpwb compare A B --threshold T`` compares them (T: :attr:`threshold_pct`),
        cached."""
        assert self._diff is not None
        a, b = self._diff
        key = (a, b, service.journal_stamp(a), service.journal_stamp(b), self.threshold_pct)
        if key not in self._comparisons:
            sa, sb = self.summary(a)[0], self.summary(b)[0]
            self._comparisons[key] = compare_summaries(sa, sb, threshold_pct=self.threshold_pct) \
                if sa is not None and sb is not None else None
        return self._comparisons[key]

    def _expect(self, path: str) -> tuple[str, str]:
        stamp = service.expectations_stamp(path)
        cached = self._violations.get(path)
        if cached is None or cached[0] != stamp:
            cached = self._violations[path] = (stamp, expect_text(service.checks_of(path)))
        return cached[1]

    def rescan(self) -> None:
        if not self._scanned and not self._warm:  # the first look at past results: comparing will follow
            self._warm = True
            self.run_worker(service.warm_up, thread=True, group="warm-up", exit_on_error=False)
        self._dirs = list_results(self.wb.results_base)
        self._scanned = True

    def _shown_dirs(self) -> list[ResultsDirInfo]:
        return [d for d in self._dirs if _contains(self.wb.filter_text, d.name, d.scenario)]

    # --- drawing ----------------------------------------------------------------------------------

    def _show(self, mode: str) -> None:
        """Show the detail widgets of ``mode``: cases (cases and runs), report, or compare."""
        for widget_id, modes in (("#cases", ("cases",)), ("#records", ("cases",)), ("#report", ("report",)),
                                 ("#compare", ("compare",)), ("#compare-note", ("compare",))):
            self.query_one(widget_id).display = mode in modes

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
                                      (KEYS_HINT, "dim")))
        rows: list[Row] = []
        letters = dict(zip(self._older_first(self._marked), "AB", strict=False)) if len(self._marked) == 2 else \
            dict.fromkeys(self._marked, "*")
        for info in dirs:
            mark = letters.get(info.path, "")
            expect, style = self._expect(info.path)
            rows.append((info.path, [Text(mark, style="bold yellow"), directory_cell(info),
                                     info.created_at.replace("T", " ")[:16], str(info.records),
                                     Text(expect, style=style)]))
        self.query_one("#dirs", LiveTable).show(rows)
        self._refresh_detail()

    def _fit_comparison(self) -> None:
        """A comparison in a short terminal (80x24) keeps the directories' list to the marked two: its
        head, the verdict in words and the table need the rows. An open directory there keeps the list
        to two rows and its cases to about a third, so its runs have rows too."""
        short = self.size.height < SHORT_HEIGHT
        self.set_class(self._diff is not None and short, "-short-comparison")
        # an open directory's runs had only their header left at 80x24 (the list and the cases took it)
        self.set_class(self._diff is None and self._open is not None and short, "-short-detail")

    def on_resize(self) -> None:
        self._fit_comparison()

    def _refresh_detail(self) -> None:
        detail = self.query_one("#detail-head", Static)
        self._fit_comparison()
        if self._diff is not None:
            self._show("compare")
            self._draw_comparison(detail)
            return
        self._show(self._mode)
        if self._open is None:
            detail.update(Text("Select a results directory and press enter to see its cases and runs.", style="dim"))
            self.query_one("#cases", LiveTable).show([])
            self.query_one("#records", LiveTable).show([])
            return
        if not self._ready([self._open]):
            detail.update(self._reading_text([self._open]))
            self.query_one("#cases", LiveTable).show([])
            self.query_one("#records", LiveTable).show([])
            self.query_one("#report-body", Static).update("")
            return
        summary, problem = self.summary(self._open)
        name = os.path.basename(self._open)
        if summary is None:
            detail.update(Text.assemble((name, "bold"), "   ", (problem, "red")))
            self.query_one("#cases", LiveTable).show([])
            self.query_one("#records", LiveTable).show([])
            self.query_one("#report-body", Static).update("")
            return
        note = f"  ({len(summary.problems)} unreadable line(s) skipped)" if summary.problems else ""
        pairs: list[tuple[str, str | Text]] = [("cases", str(len(summary.cases))),
                                               ("runs", str(len(summary.records)))]
        if summary.checks:
            text, style = expect_text(list(summary.checks))
            pairs.append(("expect", Text(text, style=f"bold {style}")))
        if self._open in self._html:
            pairs.append(("HTML", self._html[self._open]))
        slurm = allocation_text(summary.meta)
        if slurm:  # the Slurm nodes its slots (node1, ...) stood for
            pairs.append(("on", slurm))
        what = "   t: cases" if self._mode == "report" else "   statistics of passed runs, warm-ups left out"
        detail.update(Text.assemble((name, "bold"), "   ", fields(*pairs), (note, "yellow"), (what, "dim")))
        if self._mode == "report":
            self._draw_report(summary)
            return
        cases = self.query_one("#cases", LiveTable)
        shown: list[Row] = []
        for case in summary.cases:
            checks = case_checks(summary, case)
            cells: list[str | Text] = list(case_cells(case, checks))
            at = CASE_COLUMNS.index("expect")
            cells[at] = Text(cells[at], style=expect_text(checks)[1])  # type: ignore[arg-type]
            shown.append((f"{case.test_id}|{case.case}|{case.kind}", cells))
        cases.show(shown)
        self.query_one("#records", LiveTable).show([
            (r.run_id, [r.run_id, Text(r.status, style=STATUS_STYLE.get(r.status, "")),
                        rate_text(r.rate_incl_setup_mib_s), rate_text(r.rate_guc_avg_mib_s),
                        "-" if r.seconds is None else f"{r.seconds:.2f}", params_text(r), short_error(r.error, 60)])
            for r in summary.records])

    def _draw_report(self, summary: DirectorySummary) -> None:
        """The report's tables (every kind's section, monitors, thresholds) as ``gftpwb report`` prints
        them in a terminal as wide as the view: a table wider than that is drawn in parts (its key
        columns repeated, "(continued)"), text cells fold, numbers are never cut; the view scrolls
        down, not sideways past a cut number. Redrawn at the new width when the terminal is resized."""
        body = self.query_one("#report-body", Static)
        tables = []
        for table in directory_tables(summary):
            drawn = service.report_table(table)
            drawn.box, drawn.show_edge, drawn.caption_justify = box.SIMPLE_HEAD, False, "left"
            tables.append(drawn)
        if not tables:
            body.update(Text("no report tables: no run of a kind with a report section", style="dim"))
            return
        spaced: list = []
        for table in tables:
            spaced += [table, Text("")]
        body.update(Group(*spaced[:-1]))

    def _draw_comparison(self, detail: Static) -> None:
        assert self._diff is not None
        a, b = self._diff
        table = self.query_one("#compare", LiveTable)
        note = self.query_one("#compare-note", Static)
        if not self._ready([a, b]):
            detail.update(self._reading_text([a, b]))
            table.show([])
            note.update("")
            return
        c = self.comparison()
        names = Text.assemble(("compare ", "bold"), ("B ", "bold yellow"), os.path.basename(b), ("  against  ", "dim"),
                              ("A ", "bold yellow"), os.path.basename(a))
        if c is None:
            detail.update(Text.assemble(names, "   ", ("a directory cannot be read", "red")))
            table.show([])
            note.update("")
            return
        # one thing a line, each folded at the view's width (nothing cut at the right edge): the two
        # directories, the counts, then the threshold and how the table's figures are made
        detail.update(Text.assemble(names, "\n", (comparison_counts(c), "bold"), "\n",
                                    fields(("threshold", f"{c.threshold_pct:g} %")), ("  +/-: change it", "dim"),
                                    (f"   medians of counted runs; p: {TEST_NAME}; significant when p < {ALPHA} "
                                     f"and |change| >= {c.threshold_pct:g} %; CI: {CI_LEVEL}, the test inverted (none "
                                     "where it cannot decide)", "dim")))
        rows: list[Row] = []
        for n, x in enumerate(c.changes):
            cells, style = change_cells(x)
            shown: list[str | Text] = [cells[i] for i in COMPARE_ORDER]
            shown[VERDICT_AT] = Text(cells[9], style=VERDICT_STYLE.get(x.verdict, style))
            rows.append((str(n), shown))
        table.show(rows)
        self._draw_compare_note(c)

    def _draw_compare_note(self, c: Comparison) -> None:
        """The highlighted case's verdict in words, then what only one side has and how they differ."""
        key = self.query_one("#compare", LiveTable).cursor_key()
        lines: list[Text] = []
        if not c.changes:
            lines.append(Text("no case in common (cases match by test id, kind and parameters)", style="yellow"))
        else:
            x = c.changes[int(key) if key is not None else 0]
            lines.append(Text.assemble((f"{x.test_id} {x.params_text}: ".lstrip(), "bold"),
                                       (change_sentence(x, c.threshold_pct), VERDICT_STYLE.get(x.verdict, "") or "")))
        if undecided_brief(c):
            lines.append(Text(undecided_brief(c), style="yellow"))
        for what, cases in (("only in A", c.only_a), ("only in B", c.only_b)):
            if cases:
                lines.append(Text(f"{what}: {'; '.join(cases)}", style="dim"))
        for host, what, va, vb in c.environment:
            lines.append(Text(f"environments differ: {host}: {what}: A {va!r}, B {vb!r}", style="yellow"))
        self.query_one("#compare-note", Static).update(Text("\n").join(lines))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "compare" and self._diff is not None:
            c = self.comparison()
            if c is not None:
                self._draw_compare_note(c)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        if event.data_table.id == "dirs":
            self._open = self.query_one("#dirs", LiveTable).key_of(event.row_key)
            self._diff = None
            self._refresh_detail()

    # --- keys -------------------------------------------------------------------------------------

    def _highlighted(self) -> str | None:
        return self.query_one("#dirs", LiveTable).cursor_key()

    def _selected(self) -> str | None:
        """The directory the keys act on: the one open, else the one under the cursor."""
        return self._open or self._highlighted()

    def action_mark(self) -> None:
        path = self._highlighted()
        if path is None:
            return
        if path in self._marked:
            self._marked.remove(path)
        else:
            self._marked = [*self._marked, path][-2:]
        self.refresh_view()

    def _older_first(self, paths: Sequence[str]) -> list[str]:
        """A is the older of two directories, B the newer, whatever order they were marked in: a
        change then reads forward in time, as ``gftpwb compare OLD NEW``."""
        created = {d.path: d.created_at for d in self._dirs}
        return sorted(paths, key=lambda p: (created.get(p, ""), os.path.basename(p)))

    def action_diff(self) -> None:
        pair = self._marked if len(self._marked) == 2 else [*self._marked, self._open or self._highlighted() or ""]
        pair = [p for p in pair if p]
        if len(pair) != 2 or pair[0] == pair[1]:
            self.app.notify("mark two results directories with m (or mark one and open another) to compare them",
                            severity="warning")
            return
        a, b = self._older_first(pair)
        self._diff = (a, b)
        self._refresh_detail()
        self.query_one("#compare", LiveTable).focus()  # up and down walk the cases; the note follows

    def action_tables(self) -> None:
        if self._diff is None and self._open is None:
            path = self._highlighted()
            if path is None:
                self.app.notify("no results directory to show", severity="warning")
                return
            self._open = path
        self._diff = None
        self._mode = "cases" if self._mode == "report" else "report"
        self._refresh_detail()
        # arrow keys scroll the report; back in the cases, they walk the directories again
        (self.query_one("#report") if self._mode == "report" else self.query_one("#dirs", LiveTable)).focus()

    def action_threshold(self, step: int) -> None:
        """The next or previous significance threshold of :data:`THRESHOLD_STEPS` (from one between
        two steps, the nearest step that way); the comparison and its words follow."""
        if step > 0:
            higher = [t for t in THRESHOLD_STEPS if t > self.threshold_pct]
            self.threshold_pct = higher[0] if higher else self.threshold_pct
        else:
            lower = [t for t in THRESHOLD_STEPS if t < self.threshold_pct]
            self.threshold_pct = lower[-1] if lower else self.threshold_pct
        if self._diff is None:
            self.app.notify(f"comparison threshold: {self.threshold_pct:g} % (d compares)")
        self._refresh_detail()

    def action_back(self) -> None:
        """Leave the comparison (or the report tables) for the directories and the one open."""
        self._diff = None
        self._mode = "cases"
        self._refresh_detail()
        self.query_one("#dirs", LiveTable).focus()

    def action_rescan(self) -> None:
        self.rescan()
        self.refresh_view()

    def action_html(self) -> None:
        """Write the selected directory's HTML report (``gftpwb report DIR --html DIR/report.html``) and
        open it in the browser, in a thread: the report reads every record and draws charts, and a
        browser command may take a moment to fail; the screen keeps answering."""
        directory = self._selected()
        if directory is None:
            self.app.notify("no results directory selected", severity="warning")
            return
        target = os.path.join(directory, HTML_NAME)
        self.app.notify(f"writing the HTML report of {os.path.basename(directory)}…")
        self.run_worker(lambda: self._write_html(directory, target), thread=True, group="html",
                        exit_on_error=False)

    def _write_html(self, directory: str, target: str) -> None:
        """In the worker thread: no widget is touched here, only through ``call_from_thread``."""
        app = self.app

        def warn(line: str) -> None:
            app.call_from_thread(app.notify, line, severity="warning")

        try:
            service.write_html_report(target, directory, f"gftpwb {__version__}", warn)
        except GftpwbError as exc:
            app.call_from_thread(app.notify, str(exc), title="HTML report", severity="error", timeout=15)
            return
        except Exception as exc:  # a bug must not end the session: say it, no traceback on the screen
            app.call_from_thread(app.notify, f"{type(exc).__name__}: {exc}", title="HTML report failed",
                                 severity="error", timeout=15)
            return
        app.call_from_thread(self._html_written, directory, target)
        opened = open_in_browser(target)
        if opened.ok:
            app.call_from_thread(app.notify, f"opened in the browser ({opened.argv[0]})", title="HTML report")
        else:  # over SSH, say: where the file is, to copy or open by hand
            app.call_from_thread(app.notify, f"not opened: {opened.why}; the report is at {target}",
                                 title="HTML report", severity="warning", timeout=20)

    def _html_written(self, directory: str, target: str) -> None:
        self._html[directory] = target
        self.app.notify(f"HTML report written: {target}", timeout=15)
        self._refresh_detail()

    # --- export: full precision, next to what it describes ------------------------------------------

    def _write(self, path: str, text: str) -> bool:
        try:
            service.save_text(path, text, newline="")
        except OSError as exc:
            self.app.notify(f"cannot write {path}: {exc.strerror or exc}", severity="error")
            return False
        return True

    def exports(self) -> list[tuple[str, Callable[[], str]]]:
        """(path, contents) of what ``e`` writes now: a comparison into B's directory, an open
        directory's case statistics (``gftpwb report --csv``'s) and runs into it, else the listing."""
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        if self._diff is not None:
            a, b = self._diff
            c = self.comparison()
            if c is None or not c.changes:
                return []
            return [(os.path.join(b, f"gftpwb-compare-{os.path.basename(a)}-{stamp}.csv"), lambda: comparison_csv(c))]
        if self._open is not None:
            summary = self.summary(self._open)[0]
            if summary is None:
                return []
            return [(os.path.join(self._open, f"gftpwb-cases-{stamp}.csv"), lambda: report_csv([summary])),
                    (os.path.join(self._open, f"gftpwb-runs-{stamp}.csv"), lambda: runs_csv(summary))]
        header, rows = self.export_table()
        if not rows:
            return []
        return [(os.path.join(self.wb.results_base, f"gftpwb-results-{stamp}.csv"), lambda: csv_text(header, rows))]

    def action_export(self) -> None:
        if self._reading:
            self.app.notify("still reading; export when the results are shown", severity="warning")
            return
        exports = self.exports()
        if not exports:
            self.app.notify("nothing to export here", severity="warning")
            return
        written = [path for path, make in exports if self._write(path, make())]
        if written:
            self.app.notify("exported (full precision): " + ", ".join(written), timeout=10)

    def export_table(self) -> Table:
        return ("results directory", "scenario", "created (UTC)", "records"), \
            [(d.name, d.scenario, d.created_at, str(d.records)) for d in self._shown_dirs()]
