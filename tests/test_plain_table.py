"""PlainTable (gftpwb/shell/sinks/plain_table.py) draws exactly what rich's Table draws: held to rich
by hypothesis on tables of every shape (markup-like, emoji-like, wide and non-ASCII cells, long titles
and captions that wrap, tables wider than the console), with and without colours."""

from __future__ import annotations

import io

import pytest
from hypothesis import event, given, seed, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.registry import ReportTable
from gftpwb.shell.sinks.plain_table import PlainTable, _plain, rich_table

# characters a report cell may hold, and the ones that send a table back to rich
_ALPHABET = st.sampled_from([*"ab xyz019.%+-/()=#|", "±", "Δ", "µ", "[", "]", ":", "\\", "漢", "\t", "é"])
_WORDS = ["[bold]", "[/]", ":smile:", ":x", "[+1.0, -2.0] %", "t000[1]/48", "10:00", "n=99"]
_PLAIN = st.lists(st.text(st.sampled_from(list("abxyz019.%+-/()=#|±Δµé")), min_size=1, max_size=8),
                  max_size=3).map(" ".join)  # what report cells are: words, one space apart
_ODD = st.one_of(st.text(_ALPHABET, max_size=14), st.sampled_from(_WORDS),
                 st.builds(lambda a, b: a + b, st.sampled_from(_WORDS), st.text(_ALPHABET, max_size=5)))
_CELL = st.one_of(_PLAIN, _ODD)


@st.composite
def report_tables(draw: st.DrawFn) -> ReportTable:
    plain = draw(st.booleans())  # half the tables as reports make them, half with anything in them
    cell = _PLAIN if plain else _CELL
    columns = tuple(draw(st.lists(st.tuples(cell, st.sampled_from(["left", "right"])), min_size=1, max_size=6)))
    rows = tuple((tuple(draw(cell) for _ in columns), draw(st.sampled_from(["", "dim", "bold red"])))
                 for _ in range(draw(st.integers(1 if plain else 0, 8))))
    title = draw(st.one_of(st.just(""), _PLAIN, st.text(_ALPHABET, max_size=80)))
    caption = draw(st.one_of(st.just(""), _PLAIN, st.text(_ALPHABET, max_size=120)))
    whole = tuple(name for name, _ in columns if draw(st.booleans()))
    return ReportTable(title, caption, columns, rows, whole=whole, keys=draw(st.integers(0, 3)))


_NUMBER = st.builds(lambda v, ci: f"{v:.1f}" + (f" ± {ci:.1f}" if ci else ""), st.floats(0, 1e6), st.one_of(
    st.none(), st.floats(0.1, 1e4)))
_TEXT = st.lists(st.text(st.sampled_from(list("abcdefghij-/0123456789.")), min_size=1, max_size=14),
                 min_size=1, max_size=6).map(" ".join)


@st.composite
def wide_report_tables(draw: st.DrawFn) -> ReportTable:
    """Tables as reports make them, often too wide for the console: a key column, text and numbers."""
    kinds = draw(st.lists(st.sampled_from(["number", "text", "verdict"]), min_size=1, max_size=13))
    columns = (("test", "left"), *((f"{kind} {i}", "left" if kind != "number" else "right")
                                   for i, kind in enumerate(kinds)))
    cell = {"number": _NUMBER, "text": _TEXT, "verdict": st.sampled_from(["met", "VIOLATED", "no data"])}
    rows = tuple(((draw(_TEXT), *(draw(cell[kind]) for kind in kinds)), draw(st.sampled_from(["", "dim"])))
                 for _ in range(draw(st.integers(1, 6))))
    whole = tuple(name for name, _ in columns if name.startswith("verdict"))
    return ReportTable(draw(_PLAIN), draw(_PLAIN), columns, rows, whole=whole, keys=draw(st.integers(0, 2)))


def _drawn(renderable: object, width: int, colours: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, width=width, highlight=False, force_terminal=colours,
                      color_system="truecolor" if colours else None)
    try:
        console.print(renderable)
    except Exception as exc:  # rich refuses bad markup ("[/]"): so must the other
        return f"raised {type(exc).__name__}"
    return out.getvalue()


@settings(max_examples=400, deadline=None)
@given(report_tables(), st.integers(10, 200), st.booleans())
def test_plain_table_draws_what_rich_draws(table: ReportTable, width: int, colours: bool) -> None:
    assert _drawn(PlainTable(table), width, colours) == _drawn(rich_table(table), width, colours)


def test_a_plain_table_is_drawn_without_rich_table_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A report's table (plain cells that fit) takes the fast path: rich lays out only an empty row."""
    table = ReportTable("Results (rates in MiB/s)", "a caption that says what the columns mean",
                        (("test", "left"), ("#", "right"), ("mean [95 % CI]", "right"), ("notes", "left")),
                        tuple(((f"t{i:03d}", f"{i:03d}", f"{i * 1.5:.1f} ± 2.6", f"outliers t000[{i}]/48"), "")
                              for i in range(50)))
    expected = _drawn(rich_table(table), 120, False)
    laid_out: list[int] = []
    add_row = Table.add_row

    def counting_add_row(self: Table, *cells: object, **options: object) -> None:
        laid_out.append(1)
        add_row(self, *cells, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(Table, "add_row", counting_add_row)
    assert _drawn(PlainTable(table), 120, False) == expected
    assert len(laid_out) == 1  # only the skeleton's empty row, not 50 rows


def test_a_table_wider_than_the_console_wraps_as_rich_wraps_it() -> None:
    """Rich narrows the widest column and wraps its long cells; those rows are rich's, the rest padded."""
    rows = tuple(((f"t{i:03d}", f"{i}.5", "1 warm-up" + "; outliers t000[1]/48, t000[1]/61" * (i % 7 == 3)), "")
                 for i in range(30))
    table = ReportTable("Results", "a caption long enough to wrap at this width, centred under the table",
                        (("test", "left"), ("median", "right"), ("notes", "left")), rows)
    assert PlainTable(table)._parts(Console(width=50).options) is not None
    assert _drawn(PlainTable(table), 50, False) == _drawn(rich_table(table), 50, False)


@settings(max_examples=300, deadline=None)
@given(wide_report_tables(), st.integers(20, 200), st.booleans())
def test_numbers_are_never_cut_and_both_draw_alike(table: ReportTable, width: int, colours: bool) -> None:
    """At any width a report table's numbers (and the cells kept whole) are drawn whole on one line,
    nothing is cut with an ellipsis, the table keeps within the width, and PlainTable draws what
    rich_table draws, split into parts or not."""
    drawn = _drawn(rich_table(table), width, colours)
    assert _drawn(PlainTable(table), width, colours) == drawn
    plain = _drawn(rich_table(table), width, False)
    assert "…" not in plain
    lines = plain.splitlines()
    assert all(len(line) <= width for line in lines)
    for cells, _style in table.rows:
        for (name, justify), cell in zip(table.columns, cells, strict=True):
            if (justify == "right" or name in table.whole) and len(cell) + 4 <= width:
                assert any(f" {cell} " in line for line in lines), (cell, plain)


def test_a_table_too_wide_for_its_numbers_is_drawn_in_parts_repeating_its_keys() -> None:
    cells = ("stream-8", "007", "-p 8 -tcp-bs 4M", "2/2", "2869.3", "2869.3 ± 120.5", "3.2 %", "2901.7", "1 warm-up")
    table = ReportTable("Results", "the caption", (("test", "left"), ("#", "right"), ("guc options", "left"),
                        ("ok/runs", "right"), ("median", "right"), ("mean [95 % CI]", "right"), ("CV", "right"),
                        ("guc avg", "right"), ("notes", "left")), ((cells, ""),), keys=2)
    out = _drawn(PlainTable(table), 60, False)
    assert out == _drawn(rich_table(table), 60, False)
    assert out.startswith("Results ") and "Results (continued)" in out and out.rstrip().endswith("the caption")
    assert out.count("┏") >= 2 and out.count("stream-8") == out.count(" 007 ") == out.count("┏")  # keys in every part
    for cell in cells[3:8]:
        assert f" {cell} " in out


def _rich_as_before(table: ReportTable) -> Table:
    """The table as rich drew it before the layout of table_layout.py: rich's own narrowing."""
    out = Table(title=table.title, caption=table.caption, title_justify="left")
    for name, justify in table.columns:
        out.add_column(name, justify=justify)  # type: ignore[arg-type]
    for cells, style in table.rows:
        out.add_row(*cells, style=style)
    return out


def _cut_nothing(table: ReportTable, width: int) -> bool:
    """Whether rich's own widths cut no word and split no number cell (nor a cell kept whole)."""
    drawn = _rich_as_before(table)
    console = Console(width=width)
    options = console.options.update_width(width - drawn._extra_width)
    widths = drawn._calculate_column_widths(console, options)
    for i, ((name, justify), w) in enumerate(zip(table.columns, widths, strict=True)):
        cells = [cells[i] for cells, _style in table.rows]
        words = [len(word) for text in (name, *cells) for word in text.split()]
        need = max(words, default=0) if justify == "left" and name not in table.whole else \
            max([len(c) for c in cells] + [len(word) for word in name.split()], default=0)
        if w < min(need + 2, width - drawn._extra_width) or w < 3:
            return False
    return True


@settings(max_examples=300, deadline=None)
@given(st.one_of(wide_report_tables(), report_tables().filter(lambda t: all(
    _plain(c) for c in (*(n for n, _ in t.columns), *(c for cells, _ in t.rows for c in cells))))),
    st.integers(20, 200))
def test_what_rich_drew_without_cutting_is_drawn_as_before(table: ReportTable, width: int) -> None:
    """Where rich's own layout cut nothing (every table at 160 columns, the goldens' 200), the
    characters are rich's as before, byte for byte."""
    if _cut_nothing(table, width):
        before = _drawn(_rich_as_before(table), width, False)
        widest = max(map(len, before.splitlines()), default=0)
        event("as wide as the console (narrowed by rich)" if widest >= width - 1 else "fits")
        assert _drawn(rich_table(table), width, False) == before
        assert _drawn(PlainTable(table), width, False) == before


# guc's results table with long parameter columns (guc options, notes), as `gftpwb report` draws it
_GUC_COLUMNS = (("test", "left"), ("#", "right"), ("guc options", "left"), ("mode", "left"), ("ok/runs", "right"),
                ("median", "right"), ("mean [95 % CI]", "right"), ("CV", "right"), ("guc avg", "right"),
                ("notes", "left"))
_OPTIONS = ["-p 8", "-tcp-bs 16M", "-len 2G", "-cc 4", "-fast", "-bs 1M", "-pp -ipv6", "-stripe", "-sync-level 3",
            "copy_mode=pull", "checksum=adler32", "page_checksums=false"]
_NOTES = ["guc avg: 2 quantised", "1 warm-up", "outliers parallel[3]/1, parallel[3]/4", "xrdcp avg: 1 per file",
          "2 timed by tgftp to the whole second"]


@st.composite
def guc_results_tables(draw: st.DrawFn) -> ReportTable:
    rows = []
    for case in range(draw(st.integers(1, 6))):
        rows.append(((draw(st.sampled_from(["parallel", "stream-mode", "extended-block-size", "tpc"])),
                      f"{case:03d}", " ".join(draw(st.lists(st.sampled_from(_OPTIONS), min_size=1, max_size=7))),
                      draw(st.sampled_from(["extended", "stream (no -vb)", "third-party"])), "2/2", "2147.7",
                      draw(_NUMBER), "17.3 %", "1954.9",
                      "; ".join(draw(st.lists(st.sampled_from(_NOTES), max_size=3)))), ""))
    return ReportTable("Results (rates in MiB/s)", "MB and MiB both mean 2^20 bytes here. guc avg: median of guc's "
                       "own average; quantised ones (transfers under 1 s) left out.", _GUC_COLUMNS, tuple(rows), keys=2)


_BOX = "│┃┏┓┗┛┡┩┣┫┳┻╇╋━─┌┐└┘├┤┬┴┼"


@seed(FUZZ_SEED)
@settings(max_examples=150, deadline=None)
@given(guc_results_tables(), st.integers(60, 200), st.booleans())
def test_no_header_or_cell_word_is_broken_at_any_width(table: ReportTable, width: int, colours: bool) -> None:
    """A report table narrower than its natural width wraps its cells and headers at spaces and, where
    even that does not fit, is drawn in parts: every word on the screen is one of the table's words,
    whole (never ``parall`` over ``el``, ``guc option`` over ``s``)."""
    say_seed()
    words = {word for text in (table.title, table.caption, *(name for name, _ in table.columns),
                               *(cell for cells, _ in table.rows for cell in cells)) for word in text.split()}
    words |= {"(continued)"}
    drawn = _drawn(rich_table(table), width, False)
    assert _drawn(PlainTable(table), width, colours) == _drawn(rich_table(table), width, colours)
    shown = {word for line in drawn.splitlines() for word in line.translate({ord(c): " " for c in _BOX}).split()}
    assert shown <= words, (sorted(shown - words), drawn)
