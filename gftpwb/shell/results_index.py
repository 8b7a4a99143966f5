"""Past results directories under a base folder, for browsing: what is there, and the records of one.

Listing reads only each directory's ``meta.json`` and counts the lines of its journal, so a base
with many large journals (records keep up to 64 KiB of guc output each) lists quickly; the records of
one directory are read when it is opened.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from gftpwb.core.errors import UsageError
from gftpwb.core.jsonlines import line_decoder
from gftpwb.core.monitors.summary import directory_monitors
from gftpwb.core.records import ResultRecord, latest_by_run
from gftpwb.core.summary import DirectorySummary, summarize_directory
from gftpwb.shell.sinks.expectations import read_checks
from gftpwb.shell.sinks.journal import JOURNAL_NAME, read_journal
from gftpwb.shell.sinks.monitors import SAMPLES_NAME, SUMMARIES_NAME, read_lines
from gftpwb.shell.sinks.samples import read_samples


@dataclass(frozen=True)
class ResultsDirInfo:
    path: str
    name: str
    scenario: str
    created_at: str  # from meta.json, ISO 8601 UTC ("" when unknown)
    planned: int | None
    records: int  # lines in results.jsonl (a resumed run's superseded records count too)


def _count_lines(path: str) -> int:
    try:
        with open(path, "rb") as handle:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
    except OSError:
        return 0


def list_results(base: str) -> list[ResultsDirInfo]:
    """Every gftpwb results directory directly under ``base``, newest first; a missing base is empty."""
    try:
        names = os.listdir(base)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for name in names:
        path = os.path.join(base, name)
        meta_path = os.path.join(path, "meta.json")
        journal = os.path.join(path, JOURNAL_NAME)
        if not os.path.isfile(meta_path) and not os.path.isfile(journal):
            continue
        meta: dict[str, object] = {}
        try:
            with open(meta_path, encoding="utf-8") as handle:
                loaded = json.load(handle)
            meta = loaded if isinstance(loaded, dict) else {}
        except (OSError, ValueError):
            pass
        planned = meta.get("runs")
        found.append(ResultsDirInfo(
            path=path, name=name, scenario=str(meta.get("scenario") or name.split("-", 1)[-1]),
            created_at=str(meta.get("created_at") or ""), planned=planned if isinstance(planned, int) else None,
            records=_count_lines(journal),
        ))
    return sorted(found, key=lambda info: (info.created_at, info.name), reverse=True)


def load_records(path: str) -> tuple[list[ResultRecord], list[str]]:
    """The latest record of every run in a results directory (in journal order), and any problems."""
    records, problems = read_journal(os.path.join(path, JOURNAL_NAME))
    return list(latest_by_run(records).values()), problems


def _read_json(path: str) -> object:
    """The JSON document in ``path`` (None when it cannot be read): plan.json of 100,000 runs is
    decoded by orjson, with json's answers (:mod:`gftpwb.core.jsonlines`)."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        return line_decoder(text)(text)
    except (OSError, ValueError):
        return None


def read_directory(path: str) -> DirectorySummary:
    """The summary of one results directory (journal, meta.json, plan.json, samples.jsonl, the
    monitors' files); raises UsageError when ``path`` is not one."""
    journal = os.path.join(path, JOURNAL_NAME)
    meta_path = os.path.join(path, "meta.json")
    if not os.path.isdir(path):
        raise UsageError(f"{path}: no such results directory")
    if not os.path.isfile(journal) and not os.path.isfile(meta_path):
        raise UsageError(f"{path}: not a gftpwb results directory (no {JOURNAL_NAME}, no meta.json)")
    records, problems = read_journal(journal)
    meta = _read_json(meta_path)
    plan = _read_json(os.path.join(path, "plan.json"))
    samples, sample_problems = read_samples(path)
    checks, check_problems = read_checks(path)
    return summarize_directory(
        path, records, meta=meta if isinstance(meta, dict) else {},
        plan=[s for s in plan if isinstance(s, dict)] if isinstance(plan, list) else [],
        samples=samples, checks=checks, problems=[*(f"{JOURNAL_NAME}: {p}" for p in problems),
                                                  *(f"samples.jsonl: {p}" for p in sample_problems), *check_problems],
        monitors=directory_monitors(read_lines(os.path.join(path, SAMPLES_NAME)),
                                    read_lines(os.path.join(path, SUMMARIES_NAME))))
