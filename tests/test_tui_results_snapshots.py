"""SVG snapshots of the results view's comparison and report tables at 80x24 and 120x40, over two
fixed results directories (tests/support/results_pair.py: B's first sweep case 8 % faster, significant; a
threshold violated in both). The cases' snapshot is test_tui_snapshots.py's. Update with
``pytest --snapshot-update`` after looking at them."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.results_pair import write_pair
from support.tui import app_for, feeding

SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


@pytest.fixture
def pair(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # relative paths on screen
    write_pair(Path("results"))


@SIZES
def test_results_view_compares_two_runs(snap_compare, pair, size):
    """Marked newest first; A is the older. The highlighted case's verdict in words under the table."""
    assert snap_compare(app_for(None, []), terminal_size=size, run_before=feeding("5", "m", "down", "m", "d"))


@SIZES
def test_results_view_report_tables(snap_compare, pair, size):
    """The report's tables of the newest directory: the kinds' sections, the thresholds (one violated)."""
    assert snap_compare(app_for(None, []), terminal_size=size, run_before=feeding("5", "enter", "t"))
