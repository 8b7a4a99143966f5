"""Small widgets the views share: a keyed table that updates in place, the filter line, a yes/no dialog."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Static

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
        return cell if isinstance(cell, Text) else Text(cell, no_wrap=True)

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
        if keep is not None and keep in self._order and self._order.index(keep) != self.cursor_row:
            self.move_cursor(row=self._order.index(keep), animate=False, scroll=False)


BLOCKS = " ▁▂▃▄▅▆▇█"


def bar_rows(series: Sequence[float], height: int, top: float | None = None) -> list[str]:
    """A bar chart of ``series`` in ``height`` text rows of eighth blocks, scaled from 0 to ``top``
    (default: the series' peak), so a flat line at zero is empty and any rate above zero shows."""
    peak = top if top is not None else max(series, default=0.0)
    rows = [[" "] * len(series) for _ in range(height)]
    if peak <= 0:
        return ["".join(row) for row in rows]
    for column, value in enumerate(series):
        units = round(max(value, 0.0) / peak * height * 8)
        if value > 0:
            units = max(units, 1)
        for level in range(height):
            fill = min(max(units - level * 8, 0), 8)
            rows[height - 1 - level][column] = BLOCKS[fill]
    return ["".join(row) for row in rows]


class RateChart(Static):
    """The aggregate rate over time, as bars from zero (Textual's Sparkline scales from the minimum)."""

    def show(self, series: Sequence[float]) -> None:
        height = max(self.size.height, 1)
        self.update(Text("\n".join(bar_rows(series, height)), style="cyan", no_wrap=True))


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
