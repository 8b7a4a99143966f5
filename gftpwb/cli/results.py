"""``gftpwb results list|query|views``: the results history, DuckDB over the journals in place
(:mod:`gftpwb.shell.history`)."""

from __future__ import annotations

import argparse
import csv
import datetime
import decimal
import json
import sys
import uuid
from typing import Any

from rich.table import Table as RichTable

from gftpwb.core.errors import EXIT_OK
from gftpwb.core.history import LIST_SQL, view_sql
from gftpwb.shell.history import History, Table
from gftpwb.shell.sinks.console import plain_or_terminal_console


def plain(value: Any) -> Any:
    """A DuckDB value as JSON data: times as ISO 8601, decimals as numbers, JSON columns parsed."""
    if isinstance(value, datetime.datetime):
        return value.isoformat() + ("Z" if value.tzinfo is None else "")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, uuid.UUID | bytes):
        return str(value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    return value


def text(value: Any) -> str:
    value = plain(value)
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def print_table(table: Table, args: argparse.Namespace) -> None:
    if getattr(args, "json", False):
        rows = [dict(zip(table.columns, (plain(v) for v in row), strict=True)) for row in table.rows]
        sys.stdout.write(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
        return
    if getattr(args, "csv", False):
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows([text(v) for v in row] for row in table.rows)
        return
    console = plain_or_terminal_console()
    out = RichTable(title_justify="left")
    for column in table.columns:
        out.add_column(column, overflow="fold")
    for row in table.rows:
        out.add_row(*(text(v) for v in row))
    console.print(out)
    console.print(f"{len(table.rows)} row{'s' if len(table.rows) != 1 else ''}")


def _run(base: str, sql: str) -> Table:
    history = History(base)
    try:
        return history.query(sql)
    finally:
        history.close()


def cmd_list(args: argparse.Namespace) -> int:
    print_table(_run(args.results_base, LIST_SQL), args)
    return EXIT_OK


def cmd_query(args: argparse.Namespace) -> int:
    print_table(_run(args.results_base, args.sql), args)
    return EXIT_OK


def cmd_views(args: argparse.Namespace) -> int:
    sys.stdout.write("".join(f"{statement};\n" for statement in view_sql(args.results_base)))
    return EXIT_OK
