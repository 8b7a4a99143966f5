"""What the end-of-run report is made of: tables as text cells, tables as data, derived figures, and a
figure's value in one record. Imported when a report is made (``gftpwb.core.registry`` still names
them, lazily: making these classes is a part of every command's start-up that only reports need)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReportTable:
    """A table of the end-of-run report, as plain text cells; the console draws it (rich), other
    front ends may draw it their way. ``rows`` are (cells, style), style a rich style name or "".

    In a console too narrow for the table no number is cut: right-justified columns (numbers) and
    the left-justified ones named in ``whole`` (short words: a verdict, a unit) keep their widest
    cell on one line; the other left-justified columns are text (test ids, options, notes) whose
    cells wrap and fold. When even that does not fit, the table is drawn in parts of whole columns,
    each repeating the first ``keys`` columns (the test id and case number that name a row)."""

    title: str
    caption: str
    columns: tuple[tuple[str, str], ...]  # (header, "left" | "right")
    rows: tuple[tuple[tuple[str, ...], str], ...]
    whole: tuple[str, ...] = ()  # headers of left-justified columns never folded
    keys: int = 1  # leading columns repeated in every part of a table split to fit the console


@dataclass(frozen=True)
class DerivedFigure:
    """A number a kind computes across cases (guc's efficiency against its iperf3 baseline, a stripe's
    median rate), as one row of ``report --csv``: the case it belongs to, the figure's name and unit,
    how many runs it rests on, the statistic (``"mean"``: a ratio of means, ``"median"``) and its
    value with its 95 % interval, if any."""

    test_id: str
    case: int
    kind: str
    params_text: str
    figure: str  # "efficiency.rate_guc_avg_mib_s", "stripe[0].mib_s"
    unit: str  # "ratio", "MiB/s"
    n: int
    statistic: str  # "mean" or "median": the CSV column the value goes in
    value: float | None
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class ReportData:
    """A report table as data for ``report --json`` (``rows``: JSON objects with numbers, not text)
    and ``report --csv`` (``figures``); ``name`` is its key in the JSON (``efficiency``)."""

    name: str
    rows: tuple[dict[str, Any], ...]
    figures: tuple[DerivedFigure, ...] = ()


@dataclass(frozen=True)
class Measured:
    """A figure's value in one record; ``excluded`` says why a value the run has is not a statistic
    (guc's average of a short transfer is "quantised"), "" when it is one (or there is none)."""

    value: float | None
    excluded: str = ""
