"""The results history: DuckDB over the journals where they lie (the views of
:mod:`gftpwb.core.history`). DuckDB is imported only by the commands that query (``results list``,
``results query``, the trend in ``report --html``).

A base is a local directory (or one on shared storage: NFS, CephFS, a mounted bucket) or a URL
DuckDB reads itself (``s3://bucket/results`` with its httpfs extension and credentials configured
as DuckDB documents); nothing is copied or imported, every query reads the JSONL journals.
"""

from __future__ import annotations

import glob
import json
import os
from dataclasses import dataclass
from typing import Any

from gftpwb.core.errors import UsageError
from gftpwb.core.history import JOURNAL, META, PLAN, glob_of, trend_sql, view_sql
from gftpwb.core.registry import registry
from gftpwb.core.report_charts import TrendPoint


def is_url(base: str) -> bool:
    return "://" in base


@dataclass(frozen=True)
class Table:
    """A query's answer: column names and rows of plain Python values."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]


class History:
    """A DuckDB connection (in memory) with the history views over ``base``."""

    def __init__(self, base: str):
        self.base = base
        meta = plans = True
        if not is_url(base):
            if not os.path.isdir(base):
                raise UsageError(f"{base}: no such results base (a directory holding results directories)")
            if not glob.glob(glob_of(glob.escape(base), JOURNAL)):
                raise UsageError(f"{base}: no results directories (no */{JOURNAL}) under it")
            meta = bool(glob.glob(glob_of(glob.escape(base), META)))
            plans = bool(glob.glob(glob_of(glob.escape(base), PLAN)))
        import duckdb

        self._duckdb = duckdb
        self.connection = duckdb.connect(":memory:")
        try:
            for statement in view_sql(base, meta=meta, plans=plans):
                self.connection.execute(statement)
        except duckdb.Error as exc:
            raise UsageError(f"{base}: cannot read the results there: {_first_line(exc)}") from None

    def query(self, sql: str) -> Table:
        """Run ``sql`` (any statement DuckDB takes) against the views; errors become UsageError."""
        try:
            cursor = self.connection.execute(sql)
            columns = tuple(d[0] for d in cursor.description or ())
            rows = cursor.fetchall() if cursor.description else []
        except self._duckdb.Error as exc:
            raise UsageError(f"query failed: {exc}") from None
        return Table(columns, rows)

    def close(self) -> None:
        self.connection.close()


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def trend_points(base: str, directory: str, scenario: str, limit: int) -> list[TrendPoint]:
    """The headline median of each case in the ``limit`` latest results directories of ``scenario``
    under ``base`` up to ``directory`` (its name), for the report's trend charts."""
    history = History(base)
    try:
        table = history.query(trend_sql(scenario, directory, limit))
    finally:
        history.close()
    reg = registry()
    points = []
    for directory_name, created, test_id, kind_name, params, median, n in table.rows:
        kind = reg.find(kind_name)
        try:
            values = json.loads(params) if params else {}
        except ValueError:
            values = {}
        text = kind.present.params_text(values) if kind is not None and isinstance(values, dict) else (params or "")
        points.append(TrendPoint(directory_name, created or "", test_id, kind_name, text, float(median), int(n)))
    return points
