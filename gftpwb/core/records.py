"""The result record: one per run, one JSON object per line of ``results.jsonl``.

Readers must accept records written by newer versions (unknown keys go to ``details``) and skip a
torn last line, which is what an interrupted append leaves behind.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections import Counter
from collections.abc import Callable
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
        """The record of a journal line or a tag log's ``GFTPWB_RECORD``; raises :class:`RecordError`
        when a field is missing or of the wrong type (every reader trusts the types afterwards)."""
        if not isinstance(data, dict):
            raise RecordError(f"a record is a JSON object, not {_json_type(data)}")
        known = _record_fields()
        if len(data) == len(known) and known.issuperset(data) and _fields_ok(data):
            # every field and nothing else, each of its type: a line as gftpwb writes them. Made
            # without __init__'s keyword matching (twice as fast); the same record, as nothing
            # runs after a dataclass's fields are set. Attribute by attribute, in the line's order
            # (the fields' own): the records share one table of keys, as __init__'s do, where
            # ``__dict__.update`` would give each its own dict (four times the memory).
            record = object.__new__(cls)
            for name, value in data.items():
                setattr(record, name, value)
            return record
        kwargs = {k: v for k, v in data.items() if k in known}
        extra = {k: v for k, v in data.items() if k not in known}
        missing = [name for name in _REQUIRED if name not in kwargs]
        if missing:
            raise RecordError(f"no {', '.join(missing)}")
        if not _fields_ok(kwargs):  # the one-pass check below; this one says what is wrong
            for name, value in kwargs.items():
                _check_field(name, value)
        if extra:
            kwargs["details"] = {**kwargs.get("details", {}), **extra}
        return cls(**kwargs)


@functools.cache
def _record_fields() -> frozenset[str]:
    """The record's field names (asked once: a report reads 100,000 records)."""
    return frozenset(f.name for f in fields(ResultRecord))


class RecordError(TypeError, ValueError):
    """A record (journal line, tag log record) with a missing field or one of the wrong type. Both a
    TypeError and a ValueError, so every reader that skipped unreadable records before skips it."""


_REQUIRED = ("scenario", "test_id", "run_id", "case", "repeat", "kind", "host", "argv", "status")
_TEXT = frozenset({"scenario", "test_id", "run_id", "kind", "host", "status", "started_at", "ended_at", "error",
                   "output", "comment", "engine", "taglog"})
_WHOLE = frozenset({"case", "repeat", "bytes", "exit_code"})  # bytes and exit_code may be null
_NUMBER = frozenset({"seconds", "rate_incl_setup_mib_s", "rate_guc_avg_mib_s"})  # null allowed


# What each field's value may be, by exact type, as JSON decoders give them: a record passes
# :func:`_fields_ok` in one pass over its fields (a report reads 100,000 records), and only one
# that does not is looked at field by field (:func:`_check_field`), which also accepts subclasses
# (a record built in Python) and says what is wrong.
_TYPES: dict[str, tuple[type, ...]] = {
    **{name: (str,) for name in _TEXT},
    "case": (int,), "repeat": (int,), "bytes": (int, type(None)), "exit_code": (int, type(None)),
    **{name: (float, int, type(None)) for name in _NUMBER},
    "argv": (list,), "params": (dict,), "details": (dict,),
}
_INF = float("inf")


def _fields_ok(kwargs: dict[str, Any]) -> bool:
    """Whether every field has a value of the type :func:`_check_field` accepts (True), or one may
    not (False: ask :func:`_check_field`)."""
    types = _TYPES
    for name, value in kwargs.items():
        kind = type(value)
        if kind not in types[name]:
            return False
        if kind is int:
            if value < 0 and name != "exit_code":
                return False
        elif kind is float:
            if not -_INF < value < _INF:  # also False for NaN
                return False
        elif kind is list:
            for arg in value:
                if type(arg) is not str:
                    return False
    return True


def _json_type(value: Any) -> str:
    names = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
             dict: "an object", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _check_field(name: str, value: Any) -> None:
    nullable = name not in ("case", "repeat")
    if value is None and nullable and (name in _WHOLE or name in _NUMBER):
        return
    if name in _TEXT:
        ok = isinstance(value, str)
        want = "a string"
    elif name in _WHOLE:
        ok = isinstance(value, int) and not isinstance(value, bool) and (value >= 0 or name == "exit_code")
        want = "a whole number" + ("" if name == "exit_code" else " of 0 or more")
    elif name in _NUMBER:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        want = "a finite number"
    elif name == "argv":
        ok = isinstance(value, list) and all(isinstance(a, str) for a in value)
        want = "an array of strings"
    else:  # params, details
        ok = isinstance(value, dict)
        want = "an object"
    if not ok:
        raise RecordError(f"{name} is {_json_type(value)}" + ("" if _json_type(value) == "null" else
                                                               f" ({str(value)[:40]})") + f", not {want}")


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


def parse_journal(text: str, check: Callable[[ResultRecord], str | None] | None = None, *,
                  check_all: Callable[[list[ResultRecord]], list[str | None]] | None = None,
                  ) -> tuple[list[ResultRecord], list[str]]:
    """Parse ``results.jsonl`` text into records, returning (records, problems).

    A last line without its newline is a torn write and is skipped with a note; any other bad line
    is reported as a problem with its line number and skipped too, so one damaged line never loses
    the rest of a journal. ``check`` says why a record that parsed cannot be reported (its kind cannot
    read its details: :func:`gftpwb.core.recordcheck.unreadable`); such records are skipped too.
    ``check_all`` does the same for all the records at once (:func:`gftpwb.core.recordcheck.
    unreadable_all`, which is much faster on a long journal), its answers in the records' order.
    """
    from .gcpause import paused_gc

    with paused_gc():
        return _parse_journal(text, check, check_all)


def _parse_journal(text: str, check: Callable[[ResultRecord], str | None] | None,
                   check_all: Callable[[list[ResultRecord]], list[str | None]] | None,
                   ) -> tuple[list[ResultRecord], list[str]]:
    from .jsonlines import line_decoder

    parsed: list[tuple[int, ResultRecord]] = []
    problems: list[tuple[int, str]] = []
    lines = text.split("\n")
    torn = lines[-1] != ""
    loads = line_decoder(text)
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = loads(line)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            record = ResultRecord.from_dict(data)
            why = check(record) if check is not None else None
            if why:
                problems.append((number, f"line {number}: record of {record.run_id} skipped: {why}"))
                continue
            parsed.append((number, record))
        except (ValueError, TypeError) as exc:
            if torn and number == len(lines):
                problems.append((number, f"line {number}: torn last record skipped (an interrupted write)"))
            else:
                problems.append((number, f"line {number}: unreadable record skipped ({exc})"))
    if check_all is not None and parsed:
        verdicts = check_all([record for _, record in parsed])
        for (number, record), why in zip(parsed, verdicts, strict=True):
            if why:
                problems.append((number, f"line {number}: record of {record.run_id} skipped: {why}"))
        parsed = [item for item, why in zip(parsed, verdicts, strict=True) if not why]
        problems.sort(key=lambda item: item[0])  # one problem a line: in the order of the lines, as ever
    return [record for _, record in parsed], [problem for _, problem in problems]


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
    violations: int = 0  # thresholds (expect:) not met, over the tests that ended
    stopped_by: str = ""

    @classmethod
    def of(cls, records: list[ResultRecord], *, planned: int, interrupted: bool, results_dir: str,
           violations: int = 0, stopped_by: str = "") -> Summary:
        counts = Counter(r.status for r in records)
        return cls(total=planned, counts=dict(counts), interrupted=interrupted, results_dir=results_dir,
                   violations=violations, stopped_by=stopped_by if interrupted else "")

    @property
    def all_passed(self) -> bool:
        return self.counts.get(PASSED, 0) == self.total and not self.interrupted
