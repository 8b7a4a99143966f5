"""Charts of a report as plain data: what to draw, never how. Pure.

Kinds and the report describe their charts with these few shapes; the HTML report's renderer
(:mod:`gftpwb.shell.html_charts`, matplotlib) draws them as SVG. Keeping the description apart from
the drawing keeps the kinds' chart code pure and testable, and lets another front end draw the same
charts its own way (as the console draws :class:`gftpwb.core.registry.ReportTable` with Rich).

* :class:`IntervalChart`: one value per category with its confidence interval as whiskers (rate per
  case, an auto-tune's ranking, a test's median across earlier runs), as points or bars;
* :class:`LineChart`: lines over a numeric x axis (rate over time per run, per thread), with shaded
  spans (stalls).

Every chart names its axes with their units, and says on how many runs each value rests (``n``, in a
category's label or the chart's note): a chart without them does not say what it shows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MAX_LABEL = 48  # characters of a category label; longer ones are cut in the middle


@dataclass(frozen=True)
class Mark:
    """A threshold on a category's value axis (``expect: {median_rate: ">= 900MiB/s"}``): where it
    lies, what it says, and whether the value met it."""

    value: float
    label: str
    ok: bool


@dataclass(frozen=True)
class Point:
    """A category's value and its interval (None: no interval); ``highlight`` marks it (the pick);
    ``marks``: the thresholds set on it."""

    label: str
    value: float
    low: float | None = None
    high: float | None = None
    highlight: bool = False
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class IntervalChart:
    """Values per category with whiskers. ``bars``: bars from zero (per host, per thread) rather than
    points; ``connect``: a line through the points (a trend over time)."""

    title: str
    category_label: str  # what the categories are ("case", "candidate", "results directory")
    value_label: str  # the values with their unit ("rate incl. set-up (MiB/s)")
    points: tuple[Point, ...]
    note: str = ""  # shown under the chart
    bars: bool = False
    connect: bool = False


@dataclass(frozen=True)
class Line:
    label: str
    x: tuple[float, ...]
    y: tuple[float, ...]
    dashed: bool = False  # a warm-up


@dataclass(frozen=True)
class Span:
    """A shaded stretch of the x axis: a stall (``kind`` "stall": no new bytes) or a gap ("gap": no
    progress report at all)."""

    start: float
    end: float
    label: str
    kind: str = "stall"


@dataclass(frozen=True)
class LineChart:
    title: str
    x_label: str
    y_label: str
    lines: tuple[Line, ...]
    spans: tuple[Span, ...] = ()
    note: str = ""
    steps: bool = False  # each y holds over the interval that ends at its x (rates over report intervals)
    integer_x: bool = False  # x counts things (streams, stripes): whole-number ticks only


Chart = IntervalChart | LineChart


def short_label(text: str, limit: int = MAX_LABEL) -> str:
    """``text`` cut in the middle to ``limit`` characters (both ends of a case name say the most)."""
    if len(text) <= limit:
        return text
    keep = (limit - 1) // 2
    return f"{text[:keep]}…{text[-(limit - 1 - keep):]}"


def n_label(label: str, n: int) -> str:
    """A category's label with the runs its value rests on: ``stream-mode #000 (n=2)``."""
    return f"{label} (n={n})"


def n_span(counts: Sequence[int]) -> str:
    """The runs a chart's values rest on, for its note: ``n=4 each``, ``n=2-4 each``; "" for none."""
    if not counts:
        return ""
    low, high = min(counts), max(counts)
    return f"n={low} each" if low == high else f"n={low}-{high} each"
