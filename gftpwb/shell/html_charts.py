"""Draw report charts (:mod:`gftpwb.core.charts`) as SVG with matplotlib, for the HTML report.

matplotlib is imported here only, and this module only when ``report --html`` runs, so no other
command pays for it. Output is deterministic: the Agg backend (no display), matplotlib's own DejaVu
Sans for text layout (shipped with it, so the same metrics everywhere), no date or creator in the
SVG, and element ids numbered per chart (``c<n>-...``, also unique within one HTML page, where
several SVGs sit inline). Text stays text (``svg.fonttype: none``): small, searchable, selectable.
"""

from __future__ import annotations

import io
import re
from typing import Any

from gftpwb.core.charts import Chart, IntervalChart, LineChart

WIDTH_IN = 9.0
COLOURS = ("#1f5f99", "#d1631c", "#2e8b57", "#8b3a8b", "#b8860b", "#4682b4", "#a0522d", "#556b2f", "#c71585",
           "#2f4f4f")
HIGHLIGHT = "#d1631c"
MARKS = {True: ("threshold met", "#0a8a3a"), False: ("threshold violated", "#c00020")}
RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "gftpwb",
    "font.family": "DejaVu Sans",
    "font.size": 9.5,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.grid": True,
    "grid.color": "#dde2ea",
    "grid.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.fontsize": 8,
    "legend.frameon": False,
}
SPANS = {"stall": ("stalled (no new bytes)", "#f2b8b5", None), "gap": ("no progress report", "#c9d3e6", "//")}
_ID = re.compile(r'\bid="([^"]+)"')
_REF = re.compile(r'(url\(#|href="#)([^")]+)')
_METADATA = re.compile(r"\s*<metadata>.*?</metadata>", re.S)


def _matplotlib() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    return matplotlib


class SvgCharts:
    """Draws charts one after another; the n-th chart's ids start with ``c<n>-``."""

    def __init__(self) -> None:
        self.count = 0
        self._mpl = _matplotlib()

    def __call__(self, chart: Chart) -> str:
        from matplotlib.figure import Figure

        self.count += 1
        with self._mpl.rc_context(RC):
            if isinstance(chart, IntervalChart):
                figure = Figure(figsize=_interval_size(chart))
                _draw_interval(figure, chart)
            else:
                figure = Figure(figsize=(WIDTH_IN, 3.6))
                _draw_lines(figure, chart)
            figure.set_layout_engine("constrained")
            buffer = io.StringIO()
            figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
        return _inline(buffer.getvalue(), f"c{self.count}-")


def _inline(svg: str, prefix: str) -> str:
    """The ``<svg>`` element alone (no XML declaration, doctype or RDF metadata), its ids prefixed."""
    svg = _METADATA.sub("", svg[svg.index("<svg"):], count=1)
    svg = _ID.sub(lambda m: f'id="{prefix}{m.group(1)}"', svg)
    return _REF.sub(lambda m: f"{m.group(1)}{prefix}{m.group(2)}", svg)


def _interval_size(chart: IntervalChart) -> tuple[float, float]:
    if chart.connect:
        return (WIDTH_IN, 3.8)
    return (WIDTH_IN, max(2.4, 1.3 + 0.3 * len(chart.points)))


def _errors(chart: IntervalChart) -> tuple[list[float], list[float]]:
    below = [p.value - p.low if p.low is not None else 0.0 for p in chart.points]
    above = [p.high - p.value if p.high is not None else 0.0 for p in chart.points]
    return [max(v, 0.0) for v in below], [max(v, 0.0) for v in above]


def _draw_interval(figure: Any, chart: IntervalChart) -> None:
    ax = figure.add_subplot()
    ax.set_title(chart.title, loc="left")
    labels = [p.label for p in chart.points]
    colours = [HIGHLIGHT if p.highlight else COLOURS[0] for p in chart.points]
    below, above = _errors(chart)
    positions = list(range(len(chart.points)))
    if chart.connect:  # a trend: categories (dates) left to right, values up
        ax.plot(positions, [p.value for p in chart.points], color=COLOURS[0], linewidth=1.2, zorder=1)
        ax.scatter(positions, [p.value for p in chart.points], c=colours, s=28, zorder=2)
        ax.set_xticks(positions, labels, rotation=30, ha="right")
        ax.set_xlabel(chart.category_label)
        ax.set_ylabel(chart.value_label)
        ax.set_ylim(0, max(p.value for p in chart.points) * 1.1 or 1.0)  # room above the highest point
        return
    if chart.bars:
        ax.barh(positions, [p.value for p in chart.points], color=colours, height=0.6,
                xerr=[below, above] if any(below) or any(above) else None, error_kw={"ecolor": "#333", "capsize": 3})
    else:
        for i, p in enumerate(chart.points):
            ax.errorbar([p.value], [i], xerr=[[below[i]], [above[i]]], fmt="o", color=colours[i], ecolor=colours[i],
                        capsize=4, markersize=5)
    _draw_marks(ax, chart)
    ax.margins(x=0.06, y=0.5 / max(len(positions), 1))
    ax.set_yticks(positions, labels)
    for tick, point in zip(ax.get_yticklabels(), chart.points, strict=True):
        if point.highlight:
            tick.set_color(HIGHLIGHT)
            tick.set_fontweight("bold")
    if chart.bars:
        ax.set_xlim(left=0)
    ax.invert_yaxis()  # the first category on top, as in the table
    ax.set_xlabel(chart.value_label)
    ax.set_ylabel(chart.category_label)
    ax.grid(axis="y", visible=False)


def _draw_marks(ax: Any, chart: IntervalChart) -> None:
    """Each threshold as a bar across its category's row, labelled with its expression."""
    seen: set[bool] = set()
    for i, point in enumerate(chart.points):
        for mark in point.marks:
            name, colour = MARKS[mark.ok]
            ax.plot([mark.value], [i], marker="|", markersize=18, markeredgewidth=2.5, color=colour, linestyle="none",
                    label=None if mark.ok in seen else name, zorder=3)
            ax.annotate(mark.label, (mark.value, i), xytext=(4, 7), textcoords="offset points", fontsize=7.5,
                        color=colour)
            seen.add(mark.ok)
    if seen:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))


def _draw_lines(figure: Any, chart: LineChart) -> None:
    ax = figure.add_subplot()
    ax.set_title(chart.title, loc="left")
    for i, line in enumerate(chart.lines):
        ax.plot(line.x, line.y, label=line.label, color=COLOURS[i % len(COLOURS)], linewidth=1.3,
                linestyle="--" if line.dashed else "-", drawstyle="steps-pre" if chart.steps else "default",
                marker=None if chart.steps or len(line.x) >= 30 else "o", markersize=3)
    seen: set[str] = set()
    for span in chart.spans:
        name, colour, hatch = SPANS.get(span.kind, SPANS["stall"])
        ax.axvspan(span.start, span.end, facecolor=colour, alpha=0.5, linewidth=0, hatch=hatch,
                   label=None if name in seen else name)
        seen.add(name)
    ax.set_xlabel(chart.x_label)
    ax.set_ylabel(chart.y_label)
    ax.set_xlim(left=0)
    top = max((y for line in chart.lines for y in line.y), default=0.0)
    ax.set_ylim(0, top * 1.08 if top > 0 else None)  # room above the highest line: a flat rate is not hidden
    if chart.integer_x:
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if chart.lines:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), ncols=1 if len(chart.lines) <= 16 else 2)
