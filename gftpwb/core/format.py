"""Numbers, sizes, durations and statuses as people read them: the one place every front end (the
console, the TUI, CSV exports, reports) takes its formatting and its status colours from, so a rate
reads the same everywhere. Styles are rich style names; nothing here draws."""

from __future__ import annotations

KIB = 1024
MIB = 1024 * 1024


def rate_text(value: float | None, digits: int = 1) -> str:
    """A rate (or any figure) with ``digits`` decimals, ``-`` when unknown."""
    return "-" if value is None else f"{value:.{digits}f}"


# How a confidence interval is printed, everywhere (console, TUI, HTML, the docs):
#
# * an interval symmetric about its estimate (Student's t around a mean: an auto-tune's race) as
#   ``estimate ± half-width`` (:func:`ci_text`): the same two numbers as its bounds, in the width a
#   table has at 80 columns;
# * an interval that is not (a figure's mean on the log scale, a median's, a ratio's, a change's:
#   gftpwb.core.intervals) as its bounds, ``[low, high]`` (:func:`interval_text`, after its estimate
#   :func:`estimate_text`): ``-41.6 ± 18.1 %`` would say the change could be as
#   far above the estimate as below it, which the interval [-48.0, -11.9] % does not say, and the
#   midpoint of the bounds is not the estimate either. Brackets and a comma, never a dash between the
#   bounds, whose minus signs would read as nonsense (``-3733.3-6619.2``).
#
# The machine-readable forms (--json, --csv) always give both bounds.


def ci_text(centre: float | None, half_width: float | None, digits: int = 1) -> str:
    """A symmetric confidence interval (Student's t around a mean): ``740.6 ± 11.0``. Only the
    centre when there is no interval (one run); ``-`` when there is no centre."""
    if centre is None:
        return "-"
    if half_width is None:
        return f"{centre:.{digits}f}"
    return f"{centre:.{digits}f} ± {half_width:.{digits}f}"


def interval_text(low: float | None, high: float | None, digits: int = 1, *, signed: bool = False,
                  unit: str = "") -> str:
    """A confidence interval that is not symmetric about its estimate, as its bounds: ``[2.3, 5.1]``,
    signed for a change (``[-48.0, -11.9] %``), with ``unit`` after it; ``-`` without an interval."""
    if low is None or high is None:
        return "-"
    fmt = f"+.{digits}f" if signed else f".{digits}f"
    return f"[{low:{fmt}}, {high:{fmt}}]" + (f" {unit}" if unit else "")


def estimate_text(centre: float | None, low: float | None, high: float | None, digits: int = 1) -> str:
    """An estimate and its interval's bounds, for a table cell: ``813.8 [702.4, 941.6]``; the estimate
    alone without an interval (too few runs: the column's legend says from how many there is one);
    ``-`` without an estimate."""
    if centre is None:
        return "-"
    if low is None or high is None:
        return f"{centre:.{digits}f}"
    return f"{centre:.{digits}f} {interval_text(low, high, digits)}"


def certainty_text(p: float | None, p_with_history: float | None = None, history_share: str = "", *,
                   short: bool = False) -> str:
    """An auto-tune's P(pick within the margin): ``0.97``; with a warm start, ``0.62 from this tune's
    runs; > 0.99 with the history (the pick: 2 runs and the history worth 10)``: what was measured
    first, then what the history adds and its share of the pick (``short``, for a table cell:
    ``0.62 (> 0.99 with the history)``)."""
    if p_with_history is None:
        return p_text(p)
    if short:
        return f"{p_text(p)} ({p_text(p_with_history)} with the history)"
    share = f" (the pick: {history_share})" if history_share else ""
    return f"{p_text(p)} from this tune's runs; {p_text(p_with_history)} with the history{share}"


def cv_text(cv: float | None) -> str:
    """A coefficient of variation (a fraction) as a percentage: ``2.4 %``; ``-`` when unknown."""
    return "-" if cv is None else f"{cv * 100:.1f} %"


def p_text(p: float | None) -> str:
    """An estimated probability: ``0.97``; ``> 0.99`` and ``< 0.01`` rather than ``1.00`` and ``0.00``
    (an estimate from a model and a few thousand draws is never a certainty); ``-`` when unknown."""
    if p is None:
        return "-"
    if p >= 0.995:
        return "> 0.99"
    if p < 0.005:
        return "< 0.01"
    return f"{p:.2f}"


def human_bytes(nbytes: int | None) -> str:
    """``512 B``, ``3.00 MiB``, ``1.50 GiB``; ``-`` when unknown."""
    if nbytes is None:
        return "-"
    value = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    return f"{nbytes} B"  # pragma: no cover


def duration_text(seconds: float | None) -> str:
    """``59.9s``, ``1m05s``, ``2h03m``: short enough for a status line."""
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def latency_text(ns: float | None) -> str:
    """A short latency: ``850 ns``, ``12.3 µs``, ``4.56 ms``, ``1.23 s``; ``-`` when unknown."""
    if ns is None:
        return "-"
    for limit, unit, scale in ((1e3, "ns", 1.0), (1e6, "µs", 1e3), (1e9, "ms", 1e6)):
        if ns < limit:
            return f"{ns / scale:.0f} {unit}" if unit == "ns" else f"{ns / scale:.3g} {unit}"
    return f"{ns / 1e9:.3g} s"


def short_error(error: str, limit: int = 160) -> str:
    """The first and last line of a multi-line error, on one line, for tables and progress output."""
    lines = [line for line in error.splitlines() if line.strip()]
    if not lines:
        return ""
    text = lines[0] if len(lines) == 1 else f"{lines[0]} — {lines[-1]}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def counts_text(counts: dict[str, int]) -> str:
    """``2 failed, 7 passed`` (statuses in alphabetical order), ``no runs`` when empty."""
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "no runs"


# Status colours. The TUI's tables and the console's result lines share them; the console's lines
# are not bold (a bold line of red in a scrolling log reads as an alarm, in a table cell as a mark).
STATUS_STYLE = {"passed": "green", "failed": "bold red", "timeout": "yellow", "interrupted": "magenta",
                "running": "bold cyan", "queued": "dim", "skipped": "dim", "done": "green", "preparing": "dim",
                "ready": "dim"}
CONSOLE_STATUS_STYLE = {"passed": "green", "failed": "red", "timeout": "yellow", "interrupted": "magenta"}
TUNE_STYLE = {"leader": "bold black on green", "tied": "green", "eliminated": "dim", "failed": "red"}
