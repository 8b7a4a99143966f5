"""Small widgets the views share: a keyed table that updates in place, the filter line, a yes/no dialog."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.geometry import Size
from textual.message import Message
from textual.screen import ModalScreen
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widgets import Button, DataTable, Input, Log, Static
from textual.widgets.data_table import ColumnKey
from textual_plotext import PlotextPlot

from gftpwb.core.live.models import RateChartData, TuneRowView

Cell = str | Text
Row = tuple[str, Sequence[Cell]]  # (row key, cells)


class LiveTable(DataTable):
    """A DataTable fed whole snapshots, cheaply enough for a few frames a second under load.

    Rows sit at positional keys ("0", "1", ...): a snapshot updates only the cells whose text or style
    changed, a new order is just changed cells (no rebuild), and rows are added or removed at the end.
    Column widths grow when a wider value arrives and never shrink while the table lives: Textual
    re-measures a whole column whenever a cell gets narrower, which is quadratic under a flood of
    updates. String cells are shown literally (no markup), which is also what keeps them cheap.
    The cursor follows the logical row (by the snapshot's keys) when the order changes.
    """

    def __init__(self, columns: Sequence[tuple[str, str]], **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self._spec = list(columns)  # (label, key)
        self._column_keys = [key for _, key in self._spec]
        self._shown: list[tuple[tuple[str, str], ...]] = []  # per position: (plain, style) of each cell
        self._widths = [cell_len(label) for label, _ in self._spec]
        self._order: list[str] = []

    def on_mount(self) -> None:
        for label, key in self._spec:
            self.add_column(label, key=key)
        self._fitted: tuple[str, str, int, int] | None = None  # fit()'s arguments

    def fit(self, key: str, through: str, least: int = 8, enough: int = 24) -> None:
        """Narrow column ``key`` (a long text: parameters), its cells cut with an ellipsis, so the
        columns up to ``through`` stay on screen; as wide as its widest cell when every column fits,
        else the room the others leave but no more than ``enough`` cells (the columns after
        ``through`` get the rest, then run past the right edge: they scroll; the first of them the
        screen cannot hold whole starts past it). Kept up as the table's width and cells change."""
        self._fitted = (key, through, least, enough)
        self._fit()

    def _fit(self) -> None:
        if self._fitted is None or not self.size.width:
            return
        key, through, least, enough = self._fitted
        index, last = self._column_keys.index(key), self._column_keys.index(through)
        padding = 2 * self.cell_padding
        room = self.size.width - padding - 2  # 2: the vertical scrollbar's room

        def left(columns: list[int]) -> int:
            return room - sum(width + padding for i, width in enumerate(columns) if i != index)

        natural = self._widths[index]
        width = max(least, min(natural, left(self._widths[:last + 1]), max(enough, left(self._widths))))
        width += self._past_the_edge(index, last, width)
        column = self.columns[ColumnKey(key)]
        if column.auto_width or column.width != width:
            column.auto_width = False
            column.width = width
            self._require_update_dimensions = True
            self.refresh()

    def _past_the_edge(self, index: int, last: int, width: int) -> int:
        """How much wider the narrowed column must be for the first column after ``through`` that the
        screen cannot hold whole to start past its right edge: it is reached by scrolling, never shown
        cut (a number cut at the edge reads as another number)."""
        padding = 2 * self.cell_padding
        visible = self.size.width - (self.styles.scrollbar_size_vertical if self.show_vertical_scrollbar else 0)
        widths = [width if i == index else w for i, w in enumerate(self._widths)]
        start = 0
        for i, w in enumerate(widths):
            if start + w + padding > visible:
                return visible - start if i > last and start < visible else 0
            start += w + padding
        return 0

    def on_resize(self) -> None:
        self._fit()

    def watch_show_vertical_scrollbar(self) -> None:
        self._fit()  # the scrollbar takes columns: what the screen holds whole changes

    def _update_dimensions(self, new_rows) -> None:
        """Textual 8.2 keeps a row rendered before the idle pass measured the new rows in its render
        cache (keyed by an update count this pass does not bump): the first row of a fresh snapshot
        then kept the header widths ("swe" for "sweep[0]/1"). Bumping the count drops it."""
        super()._update_dimensions(new_rows)
        self._update_count += 1

    @property
    def keys(self) -> list[str]:
        """The snapshot's row keys, in the order shown."""
        return list(self._order)

    def cursor_key(self) -> str | None:
        if not self._order or self.cursor_row < 0 or self.cursor_row >= len(self._order):
            return None
        return self._order[self.cursor_row]

    def key_of(self, row_key) -> str:
        """The snapshot key of a DataTable row key (as messages such as RowSelected carry)."""
        return self._order[int(row_key.value)]

    def row_cells(self, key: str) -> list:
        """The cells shown for the row with the snapshot key ``key``."""
        return self.get_row(str(self._order.index(key)))

    @staticmethod
    def _text(cell: Cell) -> Text:
        """A cell as Text that ends in an ellipsis where a narrowed column (:meth:`fit`) cuts it."""
        if isinstance(cell, Text):
            if cell.overflow is None:
                cell = cell.copy()
                cell.no_wrap, cell.overflow = True, "ellipsis"
            return cell
        return Text(cell, no_wrap=True, overflow="ellipsis")

    def show(self, rows: Sequence[Row]) -> None:
        keep = self.cursor_key()
        for position, (_, cells) in enumerate(rows):
            shown = tuple((cell, "") if isinstance(cell, str) else (cell.plain, str(cell.style)) for cell in cells)
            if position >= len(self._shown):
                texts = [self._text(cell) for cell in cells]
                self.add_row(*texts, key=str(position))
                self._shown.append(shown)
                for index, text in enumerate(texts):
                    self._widths[index] = max(self._widths[index], text.cell_len)
                continue
            old = self._shown[position]
            if old == shown:
                continue
            for index, (cell, now, before) in enumerate(zip(cells, shown, old, strict=True)):
                if now != before:
                    text = self._text(cell)
                    grow = text.cell_len > self._widths[index]
                    if grow:
                        self._widths[index] = text.cell_len
                    self.update_cell(str(position), self._column_keys[index], text, update_width=grow)
            self._shown[position] = shown
        for position in range(len(self._shown) - 1, len(rows) - 1, -1):
            self.remove_row(str(position))
        del self._shown[len(rows):]
        self._order = [key for key, _ in rows]
        self._fit()
        if not self.show_cursor:
            return  # nothing to follow (a ranking): the view stays where the user scrolled it
        if keep is not None and keep in self._order and self._order.index(keep) != self.cursor_row:
            self.move_cursor(row=self._order.index(keep), animate=False, scroll=False)


class FastTable(ScrollView, can_focus=True):
    """A table for views that change several times a second with many rows (per-thread telemetry).

    Textual's DataTable renders every visible cell through Rich again after any update (~0.3 ms a
    cell), which made a 64-thread view cost tens of milliseconds a frame. This one keeps a ready
    Strip per row, rebuilt only when that row's cells change, and draws lines with the Line API:
    a frame is a crop per visible line. Same ``show(rows)`` snapshot interface as LiveTable; the
    header stays in place, numbers can be right-aligned, a click on a header posts HeaderSelected.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "cursor(-1000000000)", "Top", show=False),
        Binding("end", "cursor(1000000000)", "Bottom", show=False),
    ]
    COMPONENT_CLASSES: ClassVar[set[str]] = {"fast-table--header", "fast-table--cursor"}
    DEFAULT_CSS = """
    FastTable { height: 1fr; }
    FastTable > .fast-table--header { text-style: bold; background: $panel; }
    FastTable > .fast-table--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    FastTable:blur > .fast-table--cursor { background: $block-cursor-blurred-background; }
    """

    class HeaderSelected(Message):
        def __init__(self, table: FastTable, column_key: str) -> None:
            super().__init__()
            self.table = table
            self.column_key = column_key

    def __init__(self, columns: Sequence[tuple[str, str, str]], **kwargs) -> None:
        """``columns``: (label, key, "left", "right" or "bar"). A "bar" column's cells are fractions
        (``"0.73"``) drawn as bars that take the width the other columns leave (at least the label's)."""
        super().__init__(**kwargs)
        self._spec = list(columns)
        self._widths = [cell_len(label) for label, _, _ in self._spec]
        self._rows: list[tuple[Cell, ...]] = []
        self._shown: list[tuple[tuple[str, str], ...]] = []
        self._strips: list[Strip | None] = []
        self._order: list[str] = []
        self._styles: dict[str, Style] = {}
        self.cursor_row = 0

    # --- the snapshot interface (as LiveTable) --------------------------------------------------

    @property
    def keys(self) -> list[str]:
        return list(self._order)

    @property
    def row_count(self) -> int:
        return len(self._rows)

    def cursor_key(self) -> str | None:
        return self._order[self.cursor_row] if 0 <= self.cursor_row < len(self._order) else None

    def row_cells(self, key: str) -> list[Text]:
        return [c if isinstance(c, Text) else Text(c) for c in self._rows[self._order.index(key)]]

    def show(self, rows: Sequence[Row]) -> None:
        keep = self.cursor_key()
        widened = False
        shown_rows = []
        for position, (_, cells) in enumerate(rows):
            shown = tuple((cell, "") if isinstance(cell, str) else (cell.plain, str(cell.style)) for cell in cells)
            shown_rows.append(shown)
            for index, (plain, _) in enumerate(shown):
                if self._spec[index][2] == "bar":
                    continue
                width = cell_len(plain)
                if width > self._widths[index]:
                    self._widths[index] = width
                    widened = True
            if position < len(self._shown) and self._shown[position] == shown:
                continue
            if position < len(self._shown):
                self._rows[position], self._shown[position], self._strips[position] = tuple(cells), shown, None
            else:
                self._rows.append(tuple(cells))
                self._shown.append(shown)
                self._strips.append(None)
        del self._rows[len(rows):], self._shown[len(rows):], self._strips[len(rows):]
        if self._fit() or widened:
            self._strips = [None] * len(self._rows)
        self._order = [key for key, _ in rows]
        if keep is not None and keep in self._order:
            self.cursor_row = self._order.index(keep)
        self.cursor_row = min(self.cursor_row, max(len(self._rows) - 1, 0))
        self.virtual_size = Size(self._total_width(), len(self._rows) + 1)
        self.refresh()

    def set_row(self, key: str, cells: Sequence[Cell]) -> None:
        """Replace one row's cells in place (no change of order or width); redraws that line only."""
        position = self._order.index(key)
        self._rows[position] = tuple(cells)
        self._shown[position] = tuple((c, "") if isinstance(c, str) else (c.plain, str(c.style)) for c in cells)
        self._strips[position] = None
        self.refresh_line(position + 1 - int(self.scroll_y))

    # --- drawing --------------------------------------------------------------------------------

    def _total_width(self) -> int:
        return sum(width + 2 for width in self._widths)

    def _fit(self) -> bool:
        """Give a "bar" column the width the others leave; True if a width changed."""
        changed = False
        for index, (label, _, justify) in enumerate(self._spec):
            if justify != "bar":
                continue
            others = sum(w + 2 for i, w in enumerate(self._widths) if i != index)
            width = max(cell_len(label), self.size.width - others - 2 - 1)  # 1: room for the scrollbar
            if width != self._widths[index]:
                self._widths[index] = width
                changed = True
        return changed

    def on_resize(self, event: events.Resize) -> None:
        if self._fit():
            self._strips = [None] * len(self._rows)
            self.virtual_size = Size(self._total_width(), len(self._rows) + 1)
            self.refresh()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = Style.parse(name) if name and name != "none" else Style()
        return style

    def _line(self, cells: Sequence[tuple[str, str]]) -> Strip:
        segments = []
        for (plain, style), width, (_, _, justify) in zip(cells, self._widths, self._spec, strict=True):
            if justify == "bar":
                text = hbar(float(plain), width) if plain and plain[0].isdigit() else plain.ljust(width)
            else:
                text = plain.rjust(width) if justify == "right" else plain.ljust(width)
            segments.append(Segment(" "))
            segments.append(Segment(text, self._style(style)))
            segments.append(Segment(" "))
        return Strip(segments, self._total_width())

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        base = self.rich_style
        if y == 0:
            header = self._line([(label, "") for label, _, _ in self._spec])
            return header.apply_style(self.get_component_rich_style("fast-table--header")) \
                .crop_extend(scroll_x, scroll_x + width, base)
        index = scroll_y + y - 1
        if index >= len(self._rows):
            return Strip.blank(width, base)
        strip = self._strips[index]
        if strip is None:
            strip = self._strips[index] = self._line(self._shown[index])
        under = base + self.get_component_rich_style("fast-table--cursor") \
            if index == self.cursor_row and self.show_cursor else base
        return strip.apply_style(under).crop_extend(scroll_x, scroll_x + width, under)

    show_cursor = True

    # --- cursor and mouse -------------------------------------------------------------------------

    def _move(self, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self._rows) - 1))
        visible = max(self.size.height - 1, 1)
        top = int(self.scroll_y)
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False)
        elif self.cursor_row >= top + visible:
            self.scroll_to(y=self.cursor_row - visible + 1, animate=False)
        self.refresh()

    def action_cursor(self, delta: int) -> None:
        self._move(self.cursor_row + delta)

    def action_page(self, direction: int) -> None:
        self._move(self.cursor_row + direction * max(self.size.height - 2, 1))

    def on_click(self, event: events.Click) -> None:
        if event.y == 0:
            x = event.x + int(self.scroll_x)
            edge = 0
            for (_, key, _), width in zip(self._spec, self._widths, strict=True):
                edge += width + 2
                if x < edge:
                    self.post_message(self.HeaderSelected(self, key))
                    return
            return
        self._move(int(self.scroll_y) + event.y - 1)


BLOCKS = " ▁▂▃▄▅▆▇█"
HBLOCKS = " ▏▎▍▌▋▊▉█"


def hbar(fraction: float, width: int) -> str:
    """A horizontal bar of ``width`` cells filled to ``fraction`` (0..1) in eighths of a cell."""
    units = round(min(max(fraction, 0.0), 1.0) * width * 8)
    if fraction > 0:
        units = max(units, 1)
    full, rest = divmod(units, 8)
    return ("█" * full + (HBLOCKS[rest] if rest else "")).ljust(width)[:width]


#: Rows of a plotext figure that are not plot: the frame's top and bottom, the ticks and the labels
#: under it (a title takes one more).
FRAME_ROWS = 4
MOST_LABELS = 9  # y-axis labels at most (160x50 has 40 plot rows: a label every 5th)


def _decimals(step: float) -> int:
    """The decimals that write ``step`` (at most 2 significant digits) exactly: 0 for 310, 2 for 0.25."""
    for decimals in range(10):
        if abs(round(step, decimals) - step) <= 1e-9 * step:
            return decimals
    return 9


def _round_up(value: float) -> float:
    """``value`` rounded up to two significant digits (306.6 -> 310, 0.173 -> 0.18)."""
    unit = 10.0 ** (math.floor(math.log10(value)) - 1)
    return math.ceil(value / unit - 1e-9) * unit


#: Steps by how round they read (mantissas of a power of ten): 1, then 2 and 5, then 2.5, then
#: 1.5, 3, 4, 6 and 8; any other two significant digits after them.
ROUND_STEPS = ((1.0,), (2.0, 5.0), (2.5,), (1.5, 3.0, 4.0, 6.0, 8.0))
WASTE = 1.15  # a rounder step may leave the top this much above the peak (else the chart loses height)


def _step_up(value: float, mantissas: tuple[float, ...]) -> float:
    """The smallest m x 10^k (m one of ``mantissas``) at least ``value``."""
    power = 10.0 ** math.floor(math.log10(value))
    return min(m * power * scale for m in mantissas for scale in (1.0, 10.0) if m * power * scale >= value * (1 - 1e-9))


def y_axis(high: float, rows: int) -> tuple[float, list[float], list[str]]:
    """The y axis of a chart from 0 with ``rows`` plot rows that must reach ``high``: its top, and its
    labels (values and texts), evenly spaced in value and each on a row of its own, the same number of
    rows apart, so they read as a linear scale (plotext's own ticks share a row at 80x24 and one is
    dropped: 3270.5, 2725.4, 2180.3, 1090.2, ...). At most :data:`MOST_LABELS`; the roundest step
    (0, 100, 200, ...) whose top stays within :data:`WASTE` of ``high``, else the step that wastes
    least, rounded up to two significant digits (0, 310, 620, ... on the 6 rows of 80x24)."""
    high = high if high > 0 else 1.0
    if rows < 2:
        return high, [0.0], ["0"]
    # Intervals between labels: about one per 6 rows (two at least, where there is room); a step is
    # as good as it is round, less a point for each interval short of that.
    least = min(2, rows - 1)
    target = max(least, min((rows - 1) // 6, MOST_LABELS - 1))
    candidates = []  # (score, top, fewer labels last, step, rows per label)
    for per_label in range(1, rows):
        intervals = (rows - 1) // per_label
        if intervals < least or intervals + 1 > MOST_LABELS:
            continue
        need = high * per_label / (rows - 1)
        steps = [(rank, _step_up(need, mantissas)) for rank, mantissas in enumerate(ROUND_STEPS)]
        steps.append((len(ROUND_STEPS), _round_up(need)))
        candidates += [(rank + max(0, target - intervals), step * (rows - 1) / per_label, -intervals, step, per_label)
                       for rank, step in steps]
    snug = [c for c in candidates if c[1] <= high * WASTE]
    _, top, _, step, per_label = min(snug) if snug else min(candidates, key=lambda c: (c[1], c[2]))
    top = max(top, high)  # (float rounding: never under high)
    values = [k * step for k in range((rows - 1) // per_label + 1)]
    decimals = _decimals(step)
    return top, values, [f"{v:.{decimals}f}" for v in values]


class RateChart(PlotextPlot):
    """The aggregate rate over time (textual-plotext): MiB/s against seconds since the scenario
    started, one line per host when the runs span several, sized to the widget.

    plotext builds the whole figure as text on every render (10-50 ms from 80x24 to 160x50), so the
    chart is rebuilt only when its data changed, and the run view asks for new data only when a
    history step (a second) has passed: under load that is about once a second, not once a frame.
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._data: RateChartData | None = None
        self._rows = 0

    def on_resize(self) -> None:
        if self._data is not None and self._plot_rows(self._data) != self._rows:
            data, self._data = self._data, None
            self.show(data)  # the y axis' labels follow the rows there are

    def _plot_rows(self, data: RateChartData) -> int:
        return self.size.height - FRAME_ROWS - (0 if data.total else 1)

    def show(self, data: RateChartData) -> None:
        if data == self._data:
            return
        self._data = data
        self._rows = self._plot_rows(data)
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        plt.xlabel(f"seconds since the start (one point per {data.step_s:g} s)")
        plt.ylabel("MiB/s")
        if not data.total:
            plt.title("no data moved yet")
            self.refresh()
            return
        xs = list(data.seconds)
        plt.plot(xs, list(data.total), label="all" if data.hosts else "", marker="braille", color="cyan")
        for n, (host, series) in enumerate(data.hosts.items()):
            plt.plot(xs, list(series), label=host, marker="braille", color=HOST_COLORS[n % len(HOST_COLORS)])
        top, values, labels = y_axis(data.peak * 1.05, self._rows)
        plt.ylim(0, top)
        plt.yticks(values, labels)
        if len(xs) == 1:
            plt.xlim(0, xs[0] + data.step_s)
        self.refresh()


HOST_COLORS = ("orange", "magenta", "green", "yellow", "red", "blue")


class TuneChart(PlotextPlot):
    """Each auto-tune candidate's mean (●) with its 95 % interval, by rank, and the pick with the
    margin band's edge under it: candidates whose interval reaches past that edge are not yet told apart.

    Lying (one row per candidate, #1 on top, MiB/s along the bottom), as a terminal has about three
    times more columns than rows: upright, 80x24 left 4 plot rows, the intervals were 1-2 rows tall and
    the pick and the band's edge (20 MB/s apart) fell on one row even at 120x40. Upright (candidates
    along the bottom) only when there are more candidates than plot rows."""

    FRAME_ROWS = 4  # rows of the widget that are not plot: the frame, the ticks and the label

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._key: object = None

    def on_resize(self) -> None:
        if self._key is not None:
            rows, pick_mean, margin, _ = self._key  # type: ignore[misc]
            self.show(rows, pick_mean, margin)

    def show(self, rows: Sequence[TuneRowView], pick_mean: float | None, margin: float) -> None:
        upright = sum(1 for r in rows if r.mean_mib_s is not None) > self.size.height - self.FRAME_ROWS
        key = (tuple(rows), pick_mean, margin, upright)
        if key == self._key:
            return
        self._key = key
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        ranked = [r for r in rows if r.mean_mib_s is not None]
        # No legend: plotext puts it in the top left corner, over the best candidates at 80x24.
        legend = f"● mean  {'│' if upright else '─'} 95 % CI   {'─' if upright else '│'} pick  " \
                 f"{'┄' if upright else '┆'} pick - margin ({margin:g})"
        if upright:  # beside the ranking: narrow, so the legend alone (plotext drops a label that does not fit)
            plt.ylabel("MiB/s")
            plt.xlabel(legend)
        else:
            plt.xlabel(f"MiB/s   {legend}")
        if not ranked:
            plt.title("no candidate has a mean yet")
            self.refresh()
            return
        low = min((r.ci_low_mib_s if r.ci_low_mib_s is not None else r.mean_mib_s) for r in ranked)  # type: ignore[misc]
        high = max((r.ci_high_mib_s if r.ci_high_mib_s is not None else r.mean_mib_s) for r in ranked)  # type: ignore[misc]
        if pick_mean is not None:
            low, high = min(low, pick_mean - margin), max(high, pick_mean)
        (self._upright if upright else self._lying)(ranked, pick_mean, margin, low, high)
        self.refresh()

    def _upright(self, ranked: list[TuneRowView], pick_mean: float | None, margin: float, low: float,
                 high: float) -> None:
        plt = self.plt
        xs = [r.rank for r in ranked]
        if pick_mean is not None:
            band = pick_mean - margin
            plt.plot([0.5, max(xs) + 0.5], [pick_mean, pick_mean], color="green", marker="─")
            plt.plot([0.5, max(xs) + 0.5], [band, band], color="yellow", marker="┄")
        for r in ranked:
            if r.ci_low_mib_s is not None and r.ci_high_mib_s is not None:
                colour = "gray" if r.style == "eliminated" else "cyan"
                plt.plot([r.rank, r.rank], [r.ci_low_mib_s, r.ci_high_mib_s], color=colour, marker="│")
        plt.scatter(xs, [r.mean_mib_s for r in ranked], marker="●", color="white")
        pad = max((high - low) * 0.1, 1.0)
        plt.ylim(max(low - pad, 0.0), high + pad)
        plt.xlim(0.5, max(xs) + 0.5)
        plt.xticks(xs, [f"#{x}" for x in xs])

    def _lying(self, ranked: list[TuneRowView], pick_mean: float | None, margin: float, low: float,
               high: float) -> None:
        plt = self.plt
        top = max(r.rank for r in ranked)

        def y(rank: int) -> int:  # rank 1 on the top row
            return top + 1 - rank

        for r in ranked:
            if r.ci_low_mib_s is not None and r.ci_high_mib_s is not None:
                colour = "gray" if r.style == "eliminated" else "cyan"
                plt.plot([r.ci_low_mib_s, r.ci_high_mib_s], [y(r.rank), y(r.rank)], color=colour, marker="─")
        if pick_mean is not None:  # over the intervals (they cross it), under the means
            band = pick_mean - margin
            plt.plot([band, band], [0.5, top + 0.5], color="yellow", marker="┆")
            plt.plot([pick_mean, pick_mean], [0.5, top + 0.5], color="green", marker="│")
        plt.scatter([r.mean_mib_s for r in ranked], [y(r.rank) for r in ranked], marker="●", color="white")
        pad = max((high - low) * 0.05, 1.0)
        plt.xlim(max(low - pad, 0.0), high + pad)
        plt.ylim(0.5, top + 0.5)
        plt.yticks([y(r.rank) for r in ranked], [f"#{r.rank}" for r in ranked])


class TailLog(Log):
    """An output log that stays at its newest line when it is resized (Textual's Log scrolls to the end
    only as lines are written: when the monitors panel or the expect lines appeared, the log shrank and
    hid the newest lines until the next one came)."""

    def on_resize(self) -> None:
        if self.auto_scroll:
            self.scroll_end(animate=False)


class FilterInput(Input):
    """The filter line under the views; Enter or Escape closes it, the filter stays until cleared."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close filter", show=False)]

    def action_close(self) -> None:
        self.app.call_later(self.app.close_filter)  # type: ignore[attr-defined]


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question: y answers yes, n or Escape no; the buttons take Enter and clicks ("No" has focus)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, yes: str = "Yes", no: str = "No") -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="error")
                yield Button(f"{self.no} (n)", id="no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        self.dismiss(value)


class ChoiceScreen(ModalScreen[str | None]):
    """A question with several answers, each a button and a key: ``choices`` are (value, label, key);
    the dialog returns the value chosen (the first button has focus)."""

    def __init__(self, question: str, choices: Sequence[tuple[str, str, str]]) -> None:
        super().__init__()
        self.question = question
        self.choices = list(choices)
        for value, label, key in self.choices:
            self._bindings.bind(key, f"answer({value!r})", label, show=False)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm"):
            yield Static(self.question, id="confirm-question")
            with Horizontal(id="confirm-buttons"):
                for n, (value, label, key) in enumerate(self.choices):
                    shown = "Esc" if key == "escape" else key
                    yield Button(f"{label} ({shown})", id=f"choice-{value}", variant="primary" if n == 0 else "default")

    def on_mount(self) -> None:
        self.query_one(Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss((event.button.id or "").removeprefix("choice-"))

    def action_answer(self, value: str) -> None:
        self.dismiss(value)
