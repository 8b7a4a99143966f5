"""How wide each column of a report table is drawn in a console of a given width: numbers are never
cut.

rich narrows every column of a table wider than the console alike and cuts the words that no longer
fit with an ellipsis, numbers included (``2869…`` at 80 columns). A report must never show a cut
number, so the columns are laid out here and rich only draws them:

* a table that fits is drawn at its natural widths, and a table rich narrows without cutting a
  word or splitting a number cell (its text wrapped at spaces) at the widths rich gives it: the
  same characters as rich draws;
* otherwise the text columns (left-justified: test ids, options, notes) are narrowed first, the
  widest in turn, down to their widest word (their cells and headers wrap at spaces), then the
  columns kept whole (right-justified numbers, and the left-justified ones a table names in
  ``ReportTable.whole``), down to their widest cell (headers wrap at spaces); no word is broken
  (``parall`` over ``el`` reads as two words);
* when even that does not fit, the table is split into parts of whole columns, one under the other,
  as many columns in a part as fit without folding a word (one column at least), each part
  repeating the table's key columns (``ReportTable.keys``: the test id and case number) so a
  row reads across the parts; the title is on the first part (the others say "continued"), the
  caption under the last;
* only a word wider than the console by itself is folded (its column narrowed down to
  :data:`TEXT_FLOOR` characters, then to the console's width).

Both :func:`gftpwb.shell.sinks.plain_table.rich_table` and
:class:`~gftpwb.shell.sinks.plain_table.PlainTable` lay out with :func:`layout`, from the same
measures (rich's measurements there, string lengths here for plain cells), so they stay in step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich._ratio import ratio_reduce
from rich.table import Table

TEXT_FLOOR = 6  # a text column is narrowed to no fewer characters: its cells fold onto more lines


@dataclass(frozen=True)
class Measure:
    """What one column needs, in characters without padding: ``natural`` its widest cell or header
    on one line, ``least`` its widest word (rich's minimum: narrower cuts a word), ``whole`` what a
    column kept whole needs (its widest cell and its header's widest word); ``text`` whether its
    cells may fold."""

    natural: int
    least: int
    whole: int
    text: bool


@dataclass(frozen=True)
class Part:
    """Columns of a table drawn together (indices into the table's columns) at their widths, padding
    included; ``first`` and ``last`` say whether the part carries the title and the caption."""

    columns: tuple[int, ...]
    widths: tuple[int, ...]
    first: bool
    last: bool


def measure(header: tuple[int, int], cells: Sequence[tuple[int, int]], text: bool) -> Measure:
    """A column's :class:`Measure` from its header's and cells' (widest word, width)."""
    natural = max([header[1], *(c[1] for c in cells)])
    least = max([header[0], *(c[0] for c in cells)])
    return Measure(natural, least, max([header[0], *(c[1] for c in cells)]), text)


def _rich_widths(natural: list[int], room: int) -> list[int]:
    """rich's narrowing (rich.table.Table._calculate_column_widths): the widest columns in turn,
    then every column alike."""
    widths = Table._collapse_widths(natural, [True] * len(natural), room)
    if sum(widths) > room:
        widths = ratio_reduce(sum(widths) - room, [1] * len(widths), widths, widths)
    return widths


def plan(measures: Sequence[Measure], room: int, pad: int = 2, fold: bool = True) -> list[int] | None:
    """The widths (padding included) of columns drawn in ``room`` characters (the console's width
    less the borders), or None when the columns kept whole and the text columns at their floor
    (their widest word unless ``fold``) do not fit."""
    natural = [min(m.natural + pad, room) for m in measures]
    if sum(natural) <= room:
        return natural
    widths = _rich_widths(natural, room)
    if sum(widths) <= room and all(w >= min((m.least if m.text else m.whole) + pad, n) and w > pad
                                   for w, m, n in zip(widths, measures, natural, strict=True)):
        return widths  # rich's own widths cut nothing: rich's own table
    text_floor = [min(TEXT_FLOOR + pad, n) for n in natural]
    words = [max(min(m.least + pad, n), f) for m, n, f in zip(measures, natural, text_floor, strict=True)]
    whole = [min(m.whole + pad, n) for m, n in zip(measures, natural, strict=True)]
    text = [i for i, m in enumerate(measures) if m.text]
    kept = [i for i, m in enumerate(measures) if not m.text]
    widths = list(natural)
    excess = sum(widths) - room
    # text wrapped at spaces, then headers of the columns kept whole wrapped, then text words folded
    for group, floors in ((text, words), (kept, whole), (text, text_floor))[:3 if fold else 2]:
        excess = _narrow(widths, group, floors, excess)
    return widths if excess <= 0 else None


def _narrow(widths: list[int], group: list[int], floors: list[int], excess: int) -> int:
    """Narrow the widest columns of ``group`` in turn (not below ``floors``) by up to ``excess``
    characters in all; what is left of ``excess``."""
    while excess > 0:
        shrinkable = [i for i in group if widths[i] > floors[i]]
        if not shrinkable:
            break
        widest = max(widths[i] for i in shrinkable)
        tops = [i for i in shrinkable if widths[i] == widest]
        runner_up = max([floors[i] for i in tops] + [widths[i] for i in shrinkable if widths[i] < widest])
        step = min(widest - runner_up, -(-excess // len(tops)))  # down to the next one, or what is left
        for i in tops:
            cut = min(step, excess, widths[i] - floors[i])
            widths[i] -= cut
            excess -= cut
    return excess


def layout(measures: Sequence[Measure], keys: int, max_width: int, extra: Callable[[int], int],
           pad: int = 2) -> list[Part] | None:
    """The parts a table of these columns is drawn in, ``max_width`` characters wide; ``extra(n)``
    is the width of the borders of n columns; ``keys`` leading columns are repeated in every part.
    None when a column alone would not have one character: rich lays it out as it can."""
    everything = tuple(range(len(measures)))
    if max_width - extra(len(measures)) < 1:
        return None
    widths = plan(measures, max_width - extra(len(measures)), pad, fold=False)
    if widths is not None:
        return [Part(everything, tuple(widths), True, True)]
    if max_width - extra(1) < pad + 1:
        return None
    key = list(range(min(max(keys, 0), len(measures) - 1)))

    def fitted(columns: list[int], fold: bool = True) -> list[int] | None:
        return plan([measures[i] for i in columns], max_width - extra(len(columns)), pad, fold)

    for repeated in (key, []):  # without the keys when they and a column do not fit together
        groups: list[list[int]] = []  # as many columns in a part as fit without folding a word
        for i in range(len(repeated), len(measures)):
            if groups and fitted(repeated + groups[-1] + [i], fold=False) is not None:
                groups[-1].append(i)
            else:
                groups.append([i])
        found = [fitted(repeated + group, fold=False) for group in groups]
        if all(f is not None for f in found):
            break
    else:  # a word wider than the console by itself: folded (a column drawn alone always fits, its
        # width capped at the room)
        found = [fitted(repeated + group) for group in groups]
    return [Part(tuple(repeated + group), tuple(widths), n == 0, n == len(groups) - 1)
            for n, (group, widths) in enumerate(zip(groups, found, strict=True)) if widths is not None]
