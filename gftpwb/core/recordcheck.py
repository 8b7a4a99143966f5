"""Whether a record read back from disk (a journal line, a tag log's record) can be reported.

:meth:`ResultRecord.from_dict` checks the record's own fields; what is inside ``params`` and
``details`` belongs to the record's kind, which reads it to measure, describe and tabulate the run.
A damaged or hand-edited record whose details the kind cannot read would otherwise crash every report
of its directory (``gftpwb report``, the summary of a ``--resume``, the TUI's browser, ``compare``):
it is skipped at reading time instead, with a problem line that says why, like a torn line.

The check runs the kind's own readers on the record alone, so it needs no description of each kind's
details beyond the code that already reads them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .records import PASSED, ResultRecord
from .registry import Kind, Measured, registry
from .summary import holding_cases

# What a kind's reader raises on details of the wrong shape (a string where it expects an object,
# an object where it expects a number, a missing key).
# A figure beyond this (an exabyte, 10^18 MiB/s) is damage, not a measurement; the statistics of a case
# square its values, which overflows near 1e154.
MAX_FIGURE = 1e18
READ_ERRORS = (TypeError, ValueError, AttributeError, KeyError, IndexError, ArithmeticError)


def unreadable(record: ResultRecord) -> str | None:
    """Why ``record``'s kind cannot report it (None: it can; a kind this gftpwb does not have is
    left to the reports, which show such records by their common fields only)."""
    kind = registry().find(record.kind)
    if kind is None:
        return None
    try:
        why = _alone(kind, record, None)
        if why is None and kind.report.section is not None:
            why = _table_problem(kind, [record])
    except READ_ERRORS as exc:
        return _cannot_read(kind, exc)
    return why


def unreadable_all(records: Sequence[ResultRecord]) -> list[str | None]:
    """:func:`unreadable` of each record, in order, the same answers for a fraction of the work.

    The kinds' own readers run on each record alone, as there; the kind's report tables, which cost
    a case's statistics each time, are built once over all the records of the kind that got that far.
    Those tables read every record as they would read it alone (each run of a case is measured,
    described and tabulated the same way), so when they build, each record's alone would too; when
    they do not, each record's are built alone to find the ones that cannot be read. The tables just
    built are kept until the next call (:data:`_RECENT`): the summary of the same records that
    follows (``gftpwb report``, ``compare``, ``--resume``) finds its cases already summarised."""
    global _RECENT
    reg = registry()
    out: list[str | None] = [None] * len(records)
    tabulated: dict[int, tuple[Kind, list[int]]] = {}
    texts: set[tuple[Any, ...]] = set()  # (kind, params) whose text was made without error
    measured: dict[int, dict[str, Measured]] = {}  # what the kinds measured, for the tables below
    for i, record in enumerate(records):
        kind = reg.find(record.kind)
        if kind is None:
            continue
        try:
            why = _alone(kind, record, texts, measured)
        except READ_ERRORS as exc:
            why = _cannot_read(kind, exc)
        if why is not None:
            out[i] = why
        elif kind.report.section is not None:
            tabulated.setdefault(id(kind), (kind, []))[1].append(i)
    kept: list[Any] = []
    for kind, positions in tabulated.values():
        with holding_cases(measured) as held:
            try:
                tables = kind.report.section.build([records[i] for i in positions])  # type: ignore[union-attr]
                ok = all(isinstance(cell, str) for table in tables for cells, _style in table.rows for cell in cells)
            except READ_ERRORS:
                ok = False
        if ok:
            kept.append(held)
            continue
        for i in positions:  # one of them cannot be tabulated: find which, each alone
            try:
                out[i] = _table_problem(kind, [records[i]])
            except READ_ERRORS as exc:
                out[i] = _cannot_read(kind, exc)
    _RECENT = kept
    return out


# The cases unreadable_all summarised last, which the summary of the same records reuses
# (gftpwb.core.summary keeps a case only while something holds it).
_RECENT: list[Any] = []


def _cannot_read(kind: Kind, exc: BaseException) -> str:
    return f"the {kind.name} kind cannot read its params or details ({type(exc).__name__}: {str(exc)[:80]})"


def _params_key(kind: Kind, params: dict[str, Any]) -> tuple[Any, ...] | None:
    """What names ``params`` for the kind's text of them (types too: 1, 1.0 and True are equal keys
    but not the same parameter); None when a value is not hashable (a list): not remembered."""
    key = (id(kind), *((name, type(value), value) for name, value in params.items()))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _alone(kind: Kind, record: ResultRecord, texts: set[tuple[Any, ...]] | None,
           measured: dict[int, dict[str, Measured]] | None = None) -> str | None:
    """What the kind's readers say of the record on its own, all but the report tables (raises what
    they raise). ``texts``: parameters already written as text without error, not written again;
    ``measured``: gets what the kind measured in the record."""
    key = _params_key(kind, record.params) if texts is not None else None
    if key is None or key not in texts:  # type: ignore[operator]
        kind.present.params_text(dict(record.params))
        if key is not None:
            texts.add(key)  # type: ignore[union-attr]
    kind.report.facts(record)
    if record.status == PASSED:
        kind.present.headline(record)
        figures = kind.report.measure(record)
        if measured is not None:
            measured[id(record)] = figures
        for key_, got in figures.items():
            value = got.value
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                      or not math.isfinite(value) or abs(value) > MAX_FIGURE):
                return f"its {key_} is not a number a run can measure ({str(value)[:40]})"
    return None


def _table_problem(kind: Kind, records: list[ResultRecord]) -> str | None:
    for table in kind.report.section.build(records):  # type: ignore[union-attr]
        for cells, _style in table.rows:
            if not all(isinstance(cell, str) for cell in cells):
                return f"its {kind.name} report table has a cell that is not text"
    return None
