"""The results history as SQL views over the journals, read in place by DuckDB. Pure: this module
writes the SQL; :mod:`gftpwb.shell.history` runs it.

``results.jsonl`` stays the source of truth: nothing is imported or copied, each query reads the
journals (``<base>/*/results.jsonl``) and the ``meta.json`` files where they lie, on this disk, on
shared storage, or in object storage that DuckDB reads (``s3://bucket/results``, with httpfs). The
views, and their documented columns (:data:`COLUMNS`):

* ``records``: every line of every journal (a resumed run's interrupted record too);
* ``runs``: the latest record of each run id of each directory, what reports count;
* ``figures``: one row per run and figure of its kind (guc: rate incl. set-up, guc avg; gfapi:
  files/s, MiB/s, IOPS), with whether it counts in the statistics; generated from the kinds'
  :attr:`~gftpwb.core.registry.Report.figures`, so a plug-in's figures are there too;
* ``directories``: one row per results directory: scenario, when, planned and recorded runs.

The view SQL is the same whoever runs it: ``gftpwb results views`` prints it for the DuckDB
command line (on another machine, against object storage).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the registry is imported when a view is made: `--help` prints COLUMNS without it
    from .registry import Figure, Kind

JOURNAL = "results.jsonl"
META = "meta.json"

# Columns of the journal read from JSON, and their DuckDB types. The captured ``output`` is left out
# (up to 64 KiB a record): queries stay fast; read_json the journal directly to search it.
_RECORD_COLUMNS = {
    "scenario": "VARCHAR", "test_id": "VARCHAR", "run_id": "VARCHAR", "case": "BIGINT", "repeat": "BIGINT",
    "kind": "VARCHAR", "host": "VARCHAR", "argv": "VARCHAR[]", "status": "VARCHAR", "params": "JSON",
    "started_at": "VARCHAR", "ended_at": "VARCHAR", "seconds": "DOUBLE", "bytes": "BIGINT",
    "rate_incl_setup_mib_s": "DOUBLE", "rate_guc_avg_mib_s": "DOUBLE", "exit_code": "BIGINT", "error": "VARCHAR",
    "comment": "VARCHAR", "engine": "VARCHAR", "taglog": "VARCHAR", "details": "JSON",
}
_META_COLUMNS = {"scenario": "VARCHAR", "created_at": "VARCHAR", "runs": "BIGINT", "gftpwb_version": "VARCHAR",
                 "controller": "VARCHAR", "imported": "BOOLEAN"}
PLAN = "plan.json"
# Columns of plan.json's specs: where each planned run went (its end points, engine, size), which the
# records repeat only in argv. The auto-tune's warm start reads them (gftpwb.kinds.autotune.warmhistory).
_PLAN_COLUMNS = {"run_id": "VARCHAR", "test_id": "VARCHAR", "kind": "VARCHAR", "engine": "VARCHAR",
                 "source": "VARCHAR", "target": "VARCHAR", "length_bytes": "BIGINT", "host": "VARCHAR"}

#: view -> column -> what it holds (README and ``gftpwb results query --help`` print these).
COLUMNS: dict[str, dict[str, str]] = {
    "records": {
        "directory": "the results directory's name (<UTC>-<scenario>)",
        "path": "the journal's path as read",
        "line": "position of the record in its journal (1 = first)",
        "scenario, test_id, run_id, case, repeat, kind, host, argv, status, engine, taglog, comment, error":
            "as in the record",
        "params, details": "JSON (query with ->> or json_extract: details->>'mode')",
        "started_at, ended_at": "TIMESTAMP in UTC (NULL when the record has none)",
        "seconds, bytes, rate_incl_setup_mib_s, rate_guc_avg_mib_s, exit_code": "as in the record",
        "warmup": "BOOLEAN: a warm-up run (not counted)",
        "counted": "BOOLEAN: passed and not a warm-up (what statistics take)",
    },
    "runs": {"(the columns of records)": "the latest record of each run id of each directory"},
    "figures": {
        "directory, scenario, test_id, run_id, case, repeat, kind, host, status, params, started_at": "of the run",
        "figure": "the figure's key (rate_incl_setup_mib_s, rate_guc_avg_mib_s, files_s, mib_s, iops, ...)",
        "label, unit": "how reports name it, and its unit",
        "headline": "BOOLEAN: the kind's headline figure (its first)",
        "value": "DOUBLE: the run's value (NULL: it has none)",
        "excluded": "why the value is left out of statistics (quantised), else NULL",
        "counted": "BOOLEAN: passed, not a warm-up, has a value and not excluded",
    },
    "plans": {
        "directory": "the results directory's name",
        "run_id, test_id, kind, engine, source, target, length_bytes, host": "of each planned run (plan.json)",
    },
    "directories": {
        "directory, path": "the results directory's name and the path of its journal",
        "scenario": "from meta.json (else the records')",
        "created_at": "TIMESTAMP (UTC) from meta.json (else the first record's start)",
        "planned": "runs the plan had (meta.json), NULL for imported results",
        "gftpwb_version, controller": "from meta.json",
        "records": "lines in the journal",
        "runs, passed, failed, timeout, interrupted, skipped": "latest records by status (every run id, an "
                                                               "auto-tune's transfers too)",
    },
}


def quote(text: str) -> str:
    """A SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def glob_of(base: str, name: str) -> str:
    """``<base>/*/<name>``: every results directory directly under ``base`` (a path or a URL)."""
    return f"{base.rstrip('/')}/*/{name}"


def _columns(columns: dict[str, str]) -> str:
    return "{" + ", ".join(f'"{name}": {quote(kind)}' for name, kind in columns.items()) + "}"


def json_path(path: Sequence[str]) -> str:
    return "$." + ".".join(f'"{step}"' for step in path)


def _figure_expression(figure: Figure) -> str:
    """The figure's value in a ``runs`` row: a column of the record, or a path into its JSON."""
    if len(figure.path) == 1 and figure.path[0] in _RECORD_COLUMNS:
        return f'"{figure.path[0]}"'
    if figure.path[0] == "details":
        return f"TRY_CAST(json_extract(details, {quote(json_path(figure.path[1:]))}) AS DOUBLE)"
    return "NULL"


def _record_value(path: Sequence[str]) -> str | None:
    """A path of the record as SQL over a ``runs`` row (None: not one the view can read)."""
    if len(path) == 1 and path[0] in _RECORD_COLUMNS:
        return f'"{path[0]}"'
    if len(path) > 1 and path[0] == "details":
        return f"json_extract(details, {quote(json_path(path[1:]))})"
    return None


def _excluded_expression(figure: Figure) -> str:
    """Why a value is left out, as :meth:`gftpwb.core.registry.Figure.excluded` says it."""
    whens = []
    flag = _record_value(figure.excluded_by) if figure.excluded_by else None
    if flag is not None:
        whens.append(f"WHEN TRY_CAST({flag} AS BOOLEAN) THEN {quote(figure.excluded_reason)}")
    value = _figure_expression(figure)
    for rule in figure.exclusions:
        at = _record_value(rule.path)
        if at is None:
            continue
        test = (f"TRY_CAST({at} AS BOOLEAN)" if rule.above is None
                else f"TRY_CAST({at} AS DOUBLE) > {float(rule.above)!r}")
        whens.append(f"WHEN {value} IS NOT NULL AND {test} THEN {quote(rule.reason)}")
    return f"CASE {' '.join(whens)} END" if whens else "NULL"


def _figure_select(kind: Kind, figure: Figure, headline: bool) -> str:
    value = _figure_expression(figure)
    excluded = _excluded_expression(figure)
    return ("SELECT directory, scenario, test_id, run_id, \"case\", \"repeat\", kind, host, status, params, "
            f"started_at, {quote(figure.key)} AS figure, {quote(figure.label)} AS label, {quote(figure.unit)} AS unit, "
            f"{'TRUE' if headline else 'FALSE'} AS headline, {value} AS value, {excluded} AS excluded, "
            f"(counted AND {value} IS NOT NULL AND {excluded} IS NULL) AS counted "
            f"FROM runs WHERE kind = {quote(kind.name)}")


def view_sql(base: str, *, meta: bool = True, plans: bool = True) -> list[str]:
    """The statements that create the views over the results directories under ``base``; ``meta``,
    ``plans``: whether there are meta.json or plan.json files to read (DuckDB refuses a glob that
    matches nothing; without plan.json files the plans view is empty)."""
    journals = quote(glob_of(base, JOURNAL))
    records = (
        "CREATE OR REPLACE VIEW records AS SELECT "
        "regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS directory, filename AS path, "
        "CAST(ordinality - min(ordinality) OVER (PARTITION BY filename) + 1 AS BIGINT) AS line, "
        "scenario, test_id, run_id, \"case\", \"repeat\", kind, host, argv, status, params, "
        "TRY_CAST(NULLIF(started_at, '') AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS started_at, "
        "TRY_CAST(NULLIF(ended_at, '') AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS ended_at, seconds, bytes, "
        "rate_incl_setup_mib_s, rate_guc_avg_mib_s, exit_code, error, comment, engine, taglog, details, "
        "coalesce(TRY_CAST(json_extract(details, '$.warmup') AS BOOLEAN), FALSE) AS warmup, "
        "(status = 'passed' AND NOT coalesce(TRY_CAST(json_extract(details, '$.warmup') AS BOOLEAN), FALSE)) "
        "AS counted "
        f"FROM read_json({journals}, format = 'newline_delimited', filename = true, ignore_errors = true, "
        f"columns = {_columns(_RECORD_COLUMNS)}) WITH ORDINALITY WHERE run_id IS NOT NULL"
    )
    runs = ("CREATE OR REPLACE VIEW runs AS SELECT * EXCLUDE (latest) FROM (SELECT *, row_number() OVER "
            "(PARTITION BY path, run_id ORDER BY line DESC) = 1 AS latest FROM records) WHERE latest")
    from .registry import registry

    selects = [_figure_select(kind, figure, i == 0) for kind in registry().kinds()
               for i, figure in enumerate(kind.report.figures)]
    figures = "CREATE OR REPLACE VIEW figures AS " + " UNION ALL ".join(selects)
    counts = ("SELECT directory, any_value(path) AS path, any_value(scenario) AS r_scenario, min(started_at) AS first, "
              "count(*) AS runs, " + ", ".join(f"count(*) FILTER (WHERE status = {quote(s)}) AS {s}"
                                              for s in ("passed", "failed", "timeout", "interrupted", "skipped"))
              + " FROM runs GROUP BY directory")
    lines = "SELECT directory, count(*) AS records FROM records GROUP BY directory"
    if meta:
        metas = (f"SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS directory, * EXCLUDE (filename) FROM "
                 f"read_json({quote(glob_of(base, META))}, format = 'auto', filename = true, ignore_errors = true, "
                 f"columns = {_columns(_META_COLUMNS)})")
        directories = (
            "CREATE OR REPLACE VIEW directories AS SELECT c.directory, c.path, coalesce(m.scenario, c.r_scenario) "
            "AS scenario, coalesce(TRY_CAST(NULLIF(m.created_at, '') AS TIMESTAMPTZ) AT TIME ZONE 'UTC', c.first) "
            "AS created_at, "
            "m.runs AS planned, m.gftpwb_version, m.controller, l.records, c.runs, c.passed, c.failed, c.timeout, "
            f"c.interrupted, c.skipped FROM ({counts}) c JOIN ({lines}) l USING (directory) "
            f"LEFT JOIN ({metas}) m USING (directory)")
    else:
        directories = (
            "CREATE OR REPLACE VIEW directories AS SELECT c.directory, c.path, c.r_scenario AS scenario, "
            "c.first AS created_at, CAST(NULL AS BIGINT) AS planned, CAST(NULL AS VARCHAR) AS gftpwb_version, "
            "CAST(NULL AS VARCHAR) AS controller, l.records, c.runs, c.passed, c.failed, c.timeout, c.interrupted, "
            f"c.skipped FROM ({counts}) c JOIN ({lines}) l USING (directory)")
    if plans:
        plan_view = (
            "CREATE OR REPLACE VIEW plans AS SELECT regexp_extract(filename, '([^/]+)/[^/]+$', 1) AS directory, "
            f"{', '.join(_PLAN_COLUMNS)} FROM read_json({quote(glob_of(base, PLAN))}, format = 'array', "
            f"filename = true, ignore_errors = true, columns = {_columns(_PLAN_COLUMNS)})")
    else:
        plan_view = ("CREATE OR REPLACE VIEW plans AS SELECT CAST(NULL AS VARCHAR) AS directory, "
                     + ", ".join(f"CAST(NULL AS {kind}) AS {name}" for name, kind in _PLAN_COLUMNS.items())
                     + " WHERE FALSE")
    return [records, runs, figures, directories, plan_view]


LIST_SQL = ("SELECT directory, scenario, strftime(created_at, '%Y-%m-%dT%H:%M:%SZ') AS created, "
            "planned, runs, passed, failed + timeout AS failed, interrupted, skipped FROM directories "
            "ORDER BY created_at DESC NULLS LAST, directory DESC")


def trend_sql(scenario: str, until: str, limit: int) -> str:
    """Each case's headline median in the ``limit`` latest directories of ``scenario`` created no later
    than the directory ``until`` (its name), that one included."""
    return (
        "WITH chosen AS (SELECT directory, created_at FROM directories WHERE scenario = " + quote(scenario)
        + " AND created_at <= (SELECT created_at FROM directories WHERE directory = " + quote(until) + ") "
        f"ORDER BY created_at DESC, directory DESC LIMIT {int(limit)}) "
        "SELECT f.directory, strftime(c.created_at, '%Y-%m-%dT%H:%M:%SZ') AS created, f.test_id, "
        "f.kind, CAST(f.params AS VARCHAR) AS params, median(f.value) AS median, count(*) AS n "
        "FROM figures f JOIN chosen c USING (directory) WHERE f.headline AND f.counted "
        "GROUP BY ALL ORDER BY created, f.directory, f.test_id, params"
    )
