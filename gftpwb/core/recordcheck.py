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

from .records import PASSED, ResultRecord
from .registry import registry

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
        kind.params_text(dict(record.params))
        kind.facts(record)
        if record.status == PASSED:
            kind.headline(record)
            for key, measured in kind.measure(record).items():
                value = measured.value
                if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                          or not math.isfinite(value) or abs(value) > MAX_FIGURE):
                    return f"its {key} is not a number a run can measure ({str(value)[:40]})"
        if kind.report is not None:
            for table in kind.report.build([record]):
                for cells, _style in table.rows:
                    if not all(isinstance(cell, str) for cell in cells):
                        return f"its {kind.name} report table has a cell that is not text"
    except READ_ERRORS as exc:
        return f"the {kind.name} kind cannot read its params or details ({type(exc).__name__}: {str(exc)[:80]})"
    return None
