"""Small widgets the views share: a keyed table that updates in place, the filter line, a yes/no dialog."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Input, Static

Cell = str | Text
Row = tuple[str, Sequence[Cell]]  # (row key, cells)


class LiveTable(DataTable):
    """A DataTable fed whole snapshots: unchanged rows cost nothing, changed cells are updated in place,
    and only a change of rows or order rebuilds the table (keeping the cursor on the same row key)."""

    def __init__(self, columns: Sequence[tuple[str, str]], **kwargs) -> None:
        super().__init__(cursor_type="row", **kwargs)
        self._spec = list(columns)  # (label, key)
        self._cells: dict[str, tuple[Cell, ...]] = {}
        self._order: list[str] = []

    def on_mount(self) -> None:
        for label, key in self._spec:
            self.add_column(label, key=key)

    @property
    def keys(self) -> list[str]:
        return list(self._order)

    def cursor_key(self) -> str | None:
        if not self._order or self.cursor_row < 0 or self.cursor_row >= len(self._order):
            return None
        return self._order[self.cursor_row]

    def show(self, rows: Sequence[Row]) -> None:
        keys = [key for key, _ in rows]
        if keys == self._order:
            for key, cells in rows:
                old = self._cells.get(key)
                new = tuple(cells)
                if old == new:
                    continue
                for index, (label_key, cell) in enumerate(zip((k for _, k in self._spec), new, strict=True)):
                    if old is None or old[index] != cell:
                        self.update_cell(key, label_key, cell, update_width=True)
                self._cells[key] = new
            return
        keep = self.cursor_key()
        self.clear()
        self._cells = {}
        for key, cells in rows:
            self.add_row(*cells, key=key)
            self._cells[key] = tuple(cells)
        self._order = keys
        if keep in self._cells:
            self.move_cursor(row=keys.index(keep), animate=False)


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
