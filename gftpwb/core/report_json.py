"""``gftpwb report --json``: the summary of results directories as one JSON document, like
``iperf3 -J`` or ``fio --output-format=json``. Pure.

The document follows ``schemas/report.schema.json``; ``version`` changes only when a reader would
have to change (a key removed or its meaning changed); new keys may appear within a version.
Version 2 made each directory's ``tables`` required: the report sections' tables as
numbers (:class:`~gftpwb.core.registry.ReportData`: guc's efficiency, disk vs memory, stripes).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from .harness.aggregate import concurrent_aggregates
from .report import section_data
from .samples import gaps, stalls
from .summary import SUMMARY_VERSION, CaseSummary, DirectorySummary, FigureStats, RunRow

SCHEMA_ID = "https://gftpwb.invalid/schemas/report.schema.json"


def _round(value: Any) -> Any:
    """Floats to 6 significant decimals past the point where it matters (µs, 1e-6 MiB/s): stable text."""
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_round(v) for v in value]
    return value


_PLAIN_TYPES = frozenset({str, int, bool, type(None)})


def _round_value(value: Any) -> Any:
    """:func:`_round` of one value, the common ones (a float, text, a number, null) without a call."""
    kind = type(value)
    if kind is float:
        return round(value, 6)
    if kind in _PLAIN_TYPES:
        return value
    return _round(value)


def figure_data(stats: FigureStats) -> dict[str, Any]:
    f = stats.figure
    return {"key": f.key, "label": f.label, "unit": f.unit, "higher_is_better": f.higher_is_better,
            "stats": stats.stats.to_dict() if stats.stats is not None else None, "excluded": dict(stats.excluded)}


def samples_data(summary: DirectorySummary, run_id: str) -> dict[str, Any] | None:
    samples = summary.samples.get(run_id)
    if samples is None:
        return None
    whole = samples.series.get("")
    return {"series": len(samples.series), "points": samples.points,
            "stalls": [list(s) for s in stalls(whole)] if whole else [],
            "gaps": [list(g) for g in gaps(whole)] if whole else []}


def run_data(summary: DirectorySummary, run: RunRow) -> dict[str, Any]:
    """One run of the document, already as :func:`_round` leaves it (a report has 100,000 runs:
    they are rounded as they are made, not walked again)."""
    samples = samples_data(summary, run.run_id) if summary.samples else None
    row = {"run_id": run.run_id, "repeat": run.repeat, "host": run.host, "status": run.status,
           "warmup": run.warmup, "counted": run.counted, "outlier": list(run.outlier),
           "values": {k: _round_value(v) for k, v in run.values.items()},
           "excluded": _round(dict(run.excluded)), "facts": {k: _round_value(v) for k, v in run.facts.items()},
           "seconds": _round_value(run.seconds), "bytes": _round_value(run.bytes),
           "started_at": _round_value(run.started_at), "engine": _round_value(run.engine),
           "error": _round_value(run.error), "samples": samples if samples is None else _round(samples)}
    if summary.monitors is not None:
        row.update(_round(monitors_of_run(summary, run.run_id)))
    return row


def monitors_of_run(summary: DirectorySummary, run_id: str) -> dict[str, Any]:
    """``{"monitors": figures}`` of a run the monitors summarised (monitor -> host -> figure -> mean,
    min, max, n), nothing for the others: results without monitors keep their document."""
    figures = summary.monitors.runs.get(run_id) if summary.monitors is not None else None
    return {"monitors": figures} if figures is not None else {}


def directory_monitors_data(summary: DirectorySummary) -> dict[str, Any]:
    m = summary.monitors
    if m is None:
        return {}
    return {"monitors": {"samples": m.samples, "types": dict(m.types), "figures": m.figures}}


def case_data(summary: DirectorySummary, case: CaseSummary, *, with_runs: bool = True) -> dict[str, Any]:
    return {"test_id": case.test_id, "case": case.case, "kind": case.kind, "test_kind": case.test_kind,
            "params": dict(case.params), "params_text": case.params_text, "engine": case.engine,
            "runs_total": case.total, "passed": case.passed, "warmups": case.warmups, "statuses": case.statuses,
            "figures": [figure_data(f) for f in case.figures],
            "runs": [run_data(summary, r) for r in case.runs] if with_runs else None}


def directory_data(summary: DirectorySummary, *, with_runs: bool = True) -> dict[str, Any]:
    meta = summary.meta
    return {"path": summary.path, "scenario": summary.scenario, "created_at": summary.created_at,
            "planned": summary.planned, "counts": dict(sorted(summary.counts.items())),
            "not_run": list(summary.not_run), "problems": list(summary.problems),
            "gftpwb_version": meta.get("gftpwb_version"), "command": meta.get("command"),
            "environment": meta.get("environment"),
            "expectations": [c.to_dict() for c in summary.checks],
            "cases": [case_data(summary, c, with_runs=with_runs) for c in summary.cases],
            "tables": {data.name: list(data.rows) for data in section_data(summary)},
            "concurrent": [asdict(item) for item in concurrent_aggregates(summary.records)],
            **directory_monitors_data(summary)}


def report_data(summaries: Sequence[DirectorySummary], generator: str) -> dict[str, Any]:
    """The whole document; ``generator`` names the gftpwb that wrote it (``gftpwb 0.1.0``)."""
    return _document(summaries, generator)


def _document(summaries: Sequence[DirectorySummary], generator: str, *, with_runs: bool = True) -> dict[str, Any]:
    """The document, each case's runs made (``with_runs``) or left for the caller to write."""
    directories = [directory_data(s, with_runs=with_runs) for s in summaries]
    # the runs (rounded as they were made, :func:`run_data`) are kept out of the walk that rounds
    # the rest, and put back last in each case, where :func:`case_data` has them
    runs = [[case.pop("runs") for case in directory["cases"]] for directory in directories]
    doc = _round({"$schema": SCHEMA_ID, "version": SUMMARY_VERSION, "generator": generator,
                  "directories": directories})
    for directory, held in zip(doc["directories"], runs, strict=True):
        for case, rows in zip(directory["cases"], held, strict=True):
            case["runs"] = rows
    return doc


def report_json(summaries: Sequence[DirectorySummary], generator: str) -> str:
    """The document as text: indented down to the cases, each run on one line. The runs are most of
    a large report (100,000 of them) and json's C encoder writes them only without indentation;
    one line per run also reads well with grep and diff. Each run's line is written straight from
    the run (:mod:`gftpwb.core.report_json_runs`), not from its dict."""
    from .report_json_runs import RunLines

    data = _document(summaries, generator, with_runs=False)
    encode = _row_encoder()

    def general(summary: DirectorySummary, run: RunRow) -> str:  # a run RunLines does not write itself
        return encode(run_data(summary, run))

    runs: list[tuple[RunLines, tuple[RunRow, ...]]] = []
    for summary, directory in zip(summaries, data["directories"], strict=True):
        lines = RunLines(summary, general)
        for case, case_summary in zip(directory["cases"], summary.cases, strict=True):
            runs.append((lines, case_summary.runs))
            case["runs"] = f"{_PLACEHOLDER}{len(runs) - 1}"
    text = json.dumps(data, indent=1, ensure_ascii=False)

    def rows(match: re.Match[str]) -> str:
        indent = match["indent"]
        lines, listed = runs[int(match["index"])]
        if not listed:
            return f'{indent}"runs": []'
        line = lines.line
        inner = ",\n".join(f"{indent} {line(run)}" for run in listed)
        return f'{indent}"runs": [\n{inner}\n{indent}]'

    return _RUNS.sub(rows, text) + "\n"


def _row_encoder() -> Any:
    """``json.dumps(row, ensure_ascii=False)`` without making an encoder for each of 100,000 rows:
    json's C encoder, made once with the arguments ``json.dumps`` gives it (json's own when the C
    encoder is not there)."""
    from json import encoder

    make = encoder.c_make_encoder
    if make is None:  # pragma: no cover - CPython has it
        return lambda row: json.dumps(row, ensure_ascii=False)
    plain = json.JSONEncoder(ensure_ascii=False)
    chunks = make({}, plain.default, encoder.encode_basestring, None, plain.key_separator, plain.item_separator,
                  False, False, True)
    return lambda row: "".join(chunks(row, 0))


_PLACEHOLDER = "@@gftpwb-report-runs-"
_RUNS = re.compile(rf'^(?P<indent> *)"runs": "{_PLACEHOLDER}(?P<index>\d+)"', re.M)
