"""The result record: one per run, one JSON object per line of ``results.jsonl``.

Readers must accept records written by newer versions (unknown keys go to ``details``) and skip a
torn last line, which is what an interrupted append leaves behind.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from typing import Any

PASSED = "passed"
FAILED = "failed"
TIMEOUT = "timeout"
INTERRUPTED = "interrupted"
SKIPPED = "skipped"
STATUSES = (PASSED, FAILED, TIMEOUT, INTERRUPTED, SKIPPED)
# A record in one of these states is final: --resume does not run that run again.
FINAL_STATUSES = frozenset({PASSED, FAILED, TIMEOUT, SKIPPED})

OUTPUT_LIMIT = 64 * 1024  # characters of captured output kept per run (head and tail)

# What stopped a scenario run (``Summary.stopped_by``, ``details["interrupted_by"]`` of the run in flight).
STOPPED_BY_TEXT = {
    "SIGINT": "interrupted by the user (Ctrl-C)",
    "SIGTERM": "interrupted by SIGTERM",
    "SIGHUP": "interrupted by SIGHUP (the terminal or SSH session went away)",
    "write-failure": "interrupted: results could not be written",
}
_USER_INTERRUPT = re.compile(r"interrupted by the user(?: \(Ctrl-C\))?")


@dataclass
class ResultRecord:
    scenario: str
    test_id: str
    run_id: str
    case: int
    repeat: int
    kind: str
    host: str
    argv: list[str]
    status: str
    params: dict[str, Any] = field(default_factory=dict)
    started_at: str = ""
    ended_at: str = ""
    seconds: float | None = None
    bytes: int | None = None
    rate_incl_setup_mib_s: float | None = None
    rate_guc_avg_mib_s: float | None = None
    exit_code: int | None = None
    error: str = ""
    output: str = ""
    comment: str = ""
    engine: str = "real"
    taglog: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == PASSED

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ResultRecord:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in data.items() if k in known}
        extra = {k: v for k, v in data.items() if k not in known}
        if extra:
            kwargs["details"] = {**kwargs.get("details", {}), **extra}
        return cls(**kwargs)


def attribute_interruption(record: ResultRecord, stopped_by: str) -> None:
    """Say in an interrupted record what stopped it: runners write "interrupted by the user (Ctrl-C)"
    without knowing the signal; the executor, which does, names it here (SIGTERM, SIGHUP)."""
    if not stopped_by:
        return
    record.details["interrupted_by"] = stopped_by
    text = STOPPED_BY_TEXT.get(stopped_by, f"interrupted by {stopped_by}")
    if _USER_INTERRUPT.search(record.error):
        record.error = _USER_INTERRUPT.sub(text, record.error, count=1)
    elif not record.error:
        record.error = text
    elif stopped_by != "SIGINT":  # a runner's own wording ("stopped during its delay"): add the cause
        record.error = f"{record.error} ({text})"


def bound_output(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """Keep the head and the tail of long output, with a marker saying how much was dropped."""
    if len(text) <= limit:
        return text
    half = limit // 2
    dropped = len(text) - 2 * half
    return f"{text[:half]}\n[... {dropped} characters elided by gftpwb ...]\n{text[-half:]}"


def parse_journal(text: str) -> tuple[list[ResultRecord], list[str]]:
    """Parse ``results.jsonl`` text into records, returning (records, problems).

    A last line without its newline is a torn write and is skipped with a note; any other bad line
    is reported as a problem with its line number and skipped too, so one damaged line never loses
    the rest of a journal.
    """
    records: list[ResultRecord] = []
    problems: list[str] = []
    lines = text.split("\n")
    torn = lines[-1] != ""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            records.append(ResultRecord.from_dict(data))
        except (ValueError, TypeError) as exc:
            if torn and number == len(lines):
                problems.append(f"line {number}: torn last record skipped (an interrupted write)")
            else:
                problems.append(f"line {number}: unreadable record skipped ({exc})")
    return records, problems


def latest_by_run(records: list[ResultRecord]) -> dict[str, ResultRecord]:
    """The last record for each run id: a resumed run's new record supersedes its interrupted one."""
    latest: dict[str, ResultRecord] = {}
    for record in records:
        latest[record.run_id] = record
    return latest


@dataclass(frozen=True)
class Summary:
    """Counts by status for a scenario run; ``interrupted`` says it was stopped before its end, and
    ``stopped_by`` by what (a signal name such as ``SIGTERM``, or "" for a front end's own stop)."""

    total: int
    counts: dict[str, int]
    interrupted: bool = False
    results_dir: str = ""
    stopped_by: str = ""

    @classmethod
    def of(cls, records: list[ResultRecord], *, planned: int, interrupted: bool, results_dir: str,
           stopped_by: str = "") -> Summary:
        counts = Counter(r.status for r in records)
        return cls(total=planned, counts=dict(counts), interrupted=interrupted, results_dir=results_dir,
                   stopped_by=stopped_by if interrupted else "")

    @property
    def all_passed(self) -> bool:
        return self.counts.get(PASSED, 0) == self.total and not self.interrupted
