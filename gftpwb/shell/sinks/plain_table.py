"""A report table drawn for a console without colours (a pipe, a file, CI logs): the same characters
as rich draws, a hundred times faster for long tables.

``gftpwb report`` of 1000 cases spent 1.3 s of its CPU in rich laying out and drawing the table (each
cell measured, wrapped, padded and cropped as a renderable of its own). When the console prints no
styles and every cell is plain text that fits its column, that work comes to padding each cell to
its column's width. :class:`PlainTable` does just that for the rows and leaves everything else to
rich: it asks rich to draw the same table with the same column widths and one empty row (title,
borders, header, caption: rich's own characters) and puts its rows where that row was.
Whenever a table is not that simple (styles to print, a cell rich would read as markup or emoji,
wide or control characters, a table wider than the console), it is rich's table as ever.
``tests/test_plain_table.py`` holds the two to the same output.
"""

from __future__ import annotations

from rich._emoji_replace import _emoji_replace
from rich.cells import cell_len, get_character_cell_size
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markup import RE_TAGS
from rich.segment import Segment
from rich.table import Table

from gftpwb.core.registry import ReportTable

_JUSTIFY = {"left": str.ljust, "right": str.rjust}


def rich_table(table: ReportTable) -> Table:
    """A report table drawn by rich."""
    out = Table(title=table.title, caption=table.caption, title_justify="left")
    for name, justify in table.columns:
        out.add_column(name, justify=justify)  # type: ignore[arg-type]
    for cells, style in table.rows:
        out.add_row(*cells, style=style)
    return out


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
    """A :class:`~gftpwb.core.registry.ReportTable` as a rich renderable: rich's
    :class:`~rich.table.Table` where it must be, rows padded here where that gives the same text."""

    def __init__(self, table: ReportTable):
        self.table = table

    def _widths(self, options: ConsoleOptions) -> list[int] | None:
        """Each column's width as rich lays it out (its widest cell or header, columns narrowed the
        way rich narrows them when the table is wider than the console), or None when rich must
        draw the table."""
        table = self.table
        columns = table.columns
        if not columns or not table.rows or any(justify not in _JUSTIFY for _, justify in columns):
            return None
        widths = []
        for i, (name, _justify) in enumerate(columns):
            if not _plain(name):
                return None
            widest = cell_len(name)
            for cells, _style in table.rows:
                if len(cells) != len(columns):
                    return None
                cell = cells[i]
                if not _plain(cell):
                    return None
                widest = max(widest, len(cell))
            widths.append(widest)
        # each cell padded by one space either side, a border between columns and around them
        room = options.max_width - (len(widths) + 1)
        padded = [min(w + 2, room) for w in widths]  # rich measures a column within the room there is
        if sum(padded) > room:  # rich narrows the widest columns in turn; their cells wrap
            padded = Table._collapse_widths(padded, [True] * len(padded), room)
            if sum(padded) > room or min(padded) < 3:  # rich's last resort: rich draws it
                return None
        return [p - 2 for p in padded]

    def _skeleton(self, widths: list[int], **options: object) -> Table:
        skeleton = Table(title_justify="left", **options)  # type: ignore[arg-type]
        for (name, justify), width in zip(self.table.columns, widths, strict=True):
            skeleton.add_column(name, justify=justify, width=width)  # type: ignore[arg-type]
        return skeleton

    def _wrapped(self, console: Console, options: ConsoleOptions, widths: list[int],
                 rows: list[tuple[str, ...]]) -> list[list[list[Segment]]] | None:
        """The lines of rows with a cell wider than its column, as rich wraps them: drawn by rich in
        a table of the same widths, a rule between rows to tell them apart."""
        skeleton = self._skeleton(widths, show_header=False, show_lines=True)
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

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        widths = None
        if console.color_system is None and not console.record and not console.legacy_windows:
            widths = self._widths(options)
        if widths is None:
            yield rich_table(self.table)
            return
        table = self.table
        skeleton = self._skeleton(widths, title=table.title, caption=table.caption)
        skeleton.add_row(*("" for _ in widths))
        # rich's characters of the empty row, which the rows replace
        blank = "│" + "│".join(" " * (w + 2) for w in widths) + "│"
        lines = console.render_lines(skeleton, options, pad=False)
        texts = ["".join(segment.text for segment in line) for line in lines]
        # every character of a plain cell takes one column: its length is its width
        wide = [any(len(cell) > w for cell, w in zip(cells, widths, strict=True)) for cells, _style in table.rows]
        too_wide = [cells for (cells, _style), w in zip(table.rows, wide, strict=True) if w]
        wrapped = self._wrapped(console, options, widths, too_wide) if too_wide else []
        if texts.count(blank) != 1 or wrapped is None:
            yield rich_table(self.table)  # not the table this module knows: rich draws it
            return
        wrapped_rows = iter(wrapped)
        at = texts.index(blank)
        newline = Segment.line()
        for line in lines[:at]:
            yield from line
            yield newline
        justify = [_JUSTIFY[j] for _, j in table.columns]
        for (cells, _style), wraps in zip(table.rows, wide, strict=True):
            if wraps:
                for line in next(wrapped_rows):
                    yield from line
                    yield newline
                continue
            yield Segment("│ " + " │ ".join(j(cell, w) for j, cell, w in zip(justify, cells, widths, strict=True))
                          + " │")
            yield newline
        for line in lines[at + 1:]:
            yield from line
            yield newline
