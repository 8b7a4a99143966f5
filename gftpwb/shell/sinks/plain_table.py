"""A report table drawn for a console without colours (a pipe, a file, CI logs): the same characters
as rich draws, a hundred times faster for long tables.

``gftpwb report`` of 1000 cases spent 1.3 s of its CPU in rich laying out and drawing the table (each
cell measured, wrapped, padded and cropped as a renderable of its own). When the console prints no
styles and every cell is plain text that fits its column, that work comes to padding each cell to
its column's width. :class:`PlainTable` does just that for the rows and leaves everything else to
rich: it asks rich to draw the same table with the same column widths and one empty row (title,
borders, header, caption: rich's own characters) and puts its rows where that row was; rows with
a cell wider than its column are rich's own lines of the same table.
Whenever a table is not that simple (styles to print, a cell rich would read as markup or emoji,
wide or control characters, next to no room), it is :func:`rich_table` as ever.

Both draw a table in the parts and at the column widths :mod:`.table_layout` gives (not rich's own
narrowing, which cuts numbers with an ellipsis in a narrow console): :func:`rich_table` from
rich's measurements, :class:`PlainTable` from its cells' lengths. ``tests/test_plain_table.py``
holds the two to the same output, at every width.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich._emoji_replace import _emoji_replace
from rich.cells import get_character_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import RE_TAGS
from rich.measure import Measurement
from rich.segment import Segment
from rich.table import Table

from gftpwb.core.registry import ReportTable
from gftpwb.shell.sinks.table_layout import Part, layout, measure

_JUSTIFY = {"left": str.ljust, "right": str.rjust}
_WIDE = 10**6  # a width no cell reaches: measured unclamped; the layout clamps


def rich_table(table: ReportTable) -> ReportRichTable:
    """A report table drawn by rich, laid out so that no number is cut (:mod:`.table_layout`)."""
    return ReportRichTable(table)


def _extra(box: bool, edge: bool) -> Callable[[int], int]:
    """The width of the borders of n columns (rich.table.Table._extra_width)."""
    return lambda n: (2 if box and edge else 0) + (n - 1 if box else 0)


def _text(table: ReportTable) -> list[bool]:
    """Which columns are text whose cells may fold: left-justified ones not kept whole."""
    return [justify == "left" and name not in table.whole for name, justify in table.columns]


class _Planned(Table):
    """rich's Table drawn at the column widths it is given (padding included): it lays out nothing."""

    def __init__(self, widths: Sequence[int], **options: Any):
        super().__init__(**options)
        self.planned = list(widths)

    def _calculate_column_widths(self, console: Console, options: ConsoleOptions) -> list[int]:
        return list(self.planned)


def _part_table(table: ReportTable, part: Part, annotated: bool = True, **options: Any) -> _Planned:
    """The columns of one part of a report table, with its title (the first part's; "continued" on
    the others) and its caption (under the last part) if ``annotated``."""
    title = table.title if part.first or not table.title else f"{table.title} (continued)"
    drawn = _Planned(part.widths, title=title if annotated else None,
                     caption=table.caption if part.last and annotated else None, title_justify="left", **options)
    for i in part.columns:
        name, justify = table.columns[i]
        drawn.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
    return drawn


class ReportRichTable(Table):
    """A :class:`~gftpwb.core.registry.ReportTable` as rich's Table (its box, edges and justification
    may be changed as any Table's), drawn in the parts and at the widths :func:`.table_layout.layout`
    gives rather than rich's own, which cut numbers in a narrow console."""

    def __init__(self, table: ReportTable):
        super().__init__(title=table.title, caption=table.caption, title_justify="left")
        self.report = table
        for name, justify in table.columns:
            self.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]
        for cells, style in table.rows:
            self.add_row(*cells, style=style)

    def parts(self, console: Console, options: ConsoleOptions) -> list[Part] | None:
        """The parts this table is drawn in (None: rich lays it out), measured as rich measures."""
        if any(len(cells) != len(self.columns) for cells, _style in self.report.rows):
            return None
        wide = options.update_width(_WIDE)
        measures = []
        for column, text in zip(self.columns, _text(self.report), strict=True):
            header = Measurement.get(console, wide, column.header)
            cells = [Measurement.get(console, wide, cell) for cell in column.cells]
            measures.append(measure(header, cells, text))
        width = options.max_width if self.width is None else self.width
        return layout(measures, self.report.keys, width, _extra(self.box is not None, self.show_edge),
                      self._get_padding_width(0))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        parts = self.parts(console, options) if self.columns and not self.expand and self.min_width is None else None
        if parts is None:
            yield from super().__rich_console__(console, options)
            return
        for part in parts:
            drawn = _part_table(self.report, part, box=self.box, show_edge=self.show_edge,
                                show_header=self.show_header, show_lines=self.show_lines)
            drawn.caption_justify, drawn.title_justify = self.caption_justify, self.title_justify
            for cells, style in self.report.rows:
                drawn.add_row(*(cells[i] for i in part.columns), style=style)
            yield drawn


def _plain(cell: object) -> bool:
    """Whether rich draws ``cell`` as exactly its characters, one column each, on one line."""
    if type(cell) is not str:
        return False
    if not cell.isprintable() or "\\" in cell:  # control characters, tabs; escapes
        return False
    if not cell.isascii() and any(get_character_cell_size(ch) != 1 for ch in cell if not ch.isascii()):
        return False  # wide or zero-width characters
    if cell != cell.strip(" "):  # rich strips right- or centre-justified cells
        return False
    if "[" in cell and RE_TAGS.search(cell):  # markup
        return False
    return ":" not in cell or _emoji_replace(cell) == cell


class PlainTable:
    """A :class:`~gftpwb.core.registry.ReportTable` as a rich renderable: :func:`rich_table` where it
    must be, rows padded here where that gives the same text."""

    def __init__(self, table: ReportTable):
        self.table = table

    def _parts(self, options: ConsoleOptions) -> list[Part] | None:
        """The parts of the table as :meth:`ReportRichTable.parts` lays them out, measured here (every
        character of a plain cell takes one column), or None when rich must draw the table."""
        table = self.table
        columns = table.columns
        if not columns or not table.rows or any(justify not in _JUSTIFY for _, justify in columns):
            return None
        if any(len(cells) != len(columns) for cells, _style in table.rows):
            return None
        measures = []
        for i, ((name, _justify), text) in enumerate(zip(columns, _text(table), strict=True)):
            cells = [cells[i] for cells, _style in table.rows]
            if not _plain(name) or not all(_plain(cell) for cell in cells):
                return None
            measures.append(measure(_word_and_width(name), [_word_and_width(cell) for cell in cells], text))
        parts = layout(measures, table.keys, options.max_width, _extra(True, True))
        if parts is None or any(w < 3 for part in parts for w in part.widths):
            return None  # next to no room: rich's last resort
        return parts

    def _wrapped(self, console: Console, options: ConsoleOptions, part: Part,
                 rows: list[tuple[str, ...]]) -> list[list[list[Segment]]] | None:
        """The lines of rows with a cell wider than its column, as rich wraps them: drawn by rich in
        a table of the same widths, a rule between rows to tell them apart."""
        skeleton = _part_table(self.table, part, annotated=False, show_header=False, show_lines=True)
        for cells in rows:
            skeleton.add_row(*cells)
        lines = console.render_lines(skeleton, options, pad=False)[1:-1]  # no top or bottom border
        out: list[list[list[Segment]]] = [[]]
        for line in lines:
            if "".join(segment.text for segment in line).startswith("├"):
                out.append([])
            else:
                out[-1].append(line)
        return out if len(out) == len(rows) and all(out) else None

    def _drawn(self, console: Console, options: ConsoleOptions, part: Part) -> list[Segment] | None:
        """One part of the table: its rows padded here, the rest (title, borders, header, caption)
        rich's characters; None when it is not the table this class knows."""
        table = self.table
        widths = [w - 2 for w in part.widths]
        skeleton = _part_table(table, part)
        skeleton.add_row(*("" for _ in widths))
        # rich's characters of the empty row, which the rows replace
        blank = "│" + "│".join(" " * (w + 2) for w in widths) + "│"
        lines = console.render_lines(skeleton, options, pad=False)
        texts = ["".join(segment.text for segment in line) for line in lines]
        rows = [tuple(cells[i] for i in part.columns) for cells, _style in table.rows]
        # every character of a plain cell takes one column: its length is its width
        wide = [any(len(cell) > w for cell, w in zip(cells, widths, strict=True)) for cells in rows]
        too_wide = [cells for cells, w in zip(rows, wide, strict=True) if w]
        wrapped = self._wrapped(console, options, part, too_wide) if too_wide else []
        if texts.count(blank) != 1 or wrapped is None:
            return None
        wrapped_rows = iter(wrapped)
        at = texts.index(blank)
        newline = Segment.line()
        out: list[Segment] = []
        for line in lines[:at]:
            out += [*line, newline]
        justify = [_JUSTIFY[table.columns[i][1]] for i in part.columns]
        for cells, wraps in zip(rows, wide, strict=True):
            if wraps:
                for line in next(wrapped_rows):
                    out += [*line, newline]
                continue
            out += [Segment("│ " + " │ ".join(j(cell, w) for j, cell, w in zip(justify, cells, widths, strict=True))
                            + " │"), newline]
        for line in lines[at + 1:]:
            out += [*line, newline]
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        parts = None
        if console.color_system is None and not console.record and not console.legacy_windows:
            parts = self._parts(options)
        if parts is None:
            yield rich_table(self.table)
            return
        drawn = [self._drawn(console, options, part) for part in parts]
        if any(d is None for d in drawn):
            yield rich_table(self.table)  # not the table this module knows: rich draws it
            return
        for segments in drawn:
            yield from segments  # type: ignore[misc]


def _word_and_width(cell: str) -> tuple[int, int]:
    """A plain cell's widest word and width, as rich measures its text."""
    return max((len(word) for word in cell.split()), default=len(cell)), len(cell)
