"""A results directory's trace as data: ``trace.jsonl`` records and the per-I/O events of the binary files
it indexes, on one clock (Unix ns of the controller). Pure: the caller reads the files."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .iofmt import FormatError, IoEvent, decode


@dataclass(frozen=True)
class IoRecord:
    """One I/O of a worker thread, placed on the controller's clock."""

    run: str
    host: str
    process: int
    thread: int
    op: str
    ts: int  # Unix ns, controller clock
    dur: int  # ns
    bytes: int
    error: bool = False


@dataclass
class Trace:
    records: list[dict[str, Any]] = field(default_factory=list)
    io: list[IoRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    every: dict[str, int] = field(default_factory=dict)  # per I/O file: its sampling

    @property
    def empty(self) -> bool:
        return not self.records and not self.io


def parse_records(text: str) -> tuple[list[dict[str, Any]], list[str]]:
    """trace.jsonl's records (meta lines left out); a line that is no JSON object is a problem (a torn
    last line after a crash), never a failure."""
    records: list[dict[str, Any]] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            problems.append(f"trace.jsonl line {number}: not JSON (skipped)")
            continue
        if not isinstance(record, dict) or "type" not in record:
            problems.append(f"trace.jsonl line {number}: not a trace record (skipped)")
        elif record["type"] != "meta":
            records.append(record)
    return records, problems


def io_records(index: dict[str, Any], data: bytes) -> tuple[list[IoRecord], int]:
    """The I/O events of one stored binary file (``index``: its ``iofile`` record) on the controller's
    clock, and the file's sampling (one event in N); raises FormatError."""
    header, events = decode(data)
    offset = int(index.get("clock_offset_ns", 0))
    run, host, process = str(index.get("run", "")), str(index.get("host", "")), int(index.get("process", 0))
    out = [IoRecord(run, host, process, e.thread, e.op_name, header.unix_ns(e.start_ns) - offset, e.duration_ns,
                    e.bytes, bool(e.flags & 1))
           for e in events if _is_io(e)]
    levels = [IoRecord(run, host, process, -1, "level", header.unix_ns(e.start_ns) - offset, 0, e.bytes)
              for e in events if not _is_io(e)]
    return out + levels, header.every


def _is_io(event: IoEvent) -> bool:
    return event.op_name != "level"


def load_trace(text: str, read_binary: Callable[[str], bytes]) -> Trace:
    """The whole trace: ``text`` of trace.jsonl, ``read_binary(path)`` the bytes of an indexed file
    (relative path; OSError is reported as a problem)."""
    records, problems = parse_records(text)
    trace = Trace(records=[r for r in records if r["type"] != "iofile"], problems=problems)
    for index in (r for r in records if r["type"] == "iofile"):
        path = str(index.get("path", ""))
        try:
            events, every = io_records(index, read_binary(path))
        except OSError as exc:
            trace.problems.append(f"{path}: {exc.strerror or exc}")
            continue
        except FormatError as exc:
            trace.problems.append(f"{path}: {exc}")
            continue
        trace.io.extend(events)
        trace.every[path] = every
    trace.records.sort(key=lambda r: r.get("ts", 0))
    trace.io.sort(key=lambda e: e.ts)
    return trace
