"""``trace.jsonl``: the run-level trace of traced runs (spans, marks, samples, the index of binary I/O
traces), beside the journal. A bus subscriber like the journal and the samples sink; it writes
nothing, and creates no file, for a scenario run without a traced run.

The records (:mod:`gftpwb.core.trace.builder`) of a run are kept in memory while it runs and
appended when it finishes (between runs, so writing never competes with a measurement), without
fsync: the journal stays the source of truth, a crash loses at most the trace of the run in flight,
and readers skip a torn last line.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

from gftpwb.core.events import Event, IoTrace, RunFinished
from gftpwb.core.registry import registry
from gftpwb.core.trace.builder import TraceBuilder, meta_record
from gftpwb.core.trace.iofmt import FormatError, count_events
from gftpwb.core.trace.records import TRACE_DIR, TRACE_NAME
from gftpwb.core.trace.stream import blob_header, line

from ..files import atomic_write_bytes
from ..tracestream import TraceStream


def safe_name(run_id: str) -> str:
    """A run id as one file name component (``loop1/t[0]/2#1@h1`` -> ``loop1_t[0]_2#1@h1``)."""
    return run_id.replace("/", "_").replace(os.sep, "_")


class TraceSink:
    """Keeps traced runs' records and writes them at each run's end; with a ``stream`` (``--trace-to``)
    also sends every record to a collector as soon as it is made, and the I/O files once fetched."""

    def __init__(self, results_dir: str, stream: TraceStream | None = None):
        self.results_dir = results_dir
        self.stream = stream
        self.path = os.path.join(results_dir, TRACE_NAME)
        # Unix time minus monotonic time, read once: events carry monotonic seconds.
        self.builder = TraceBuilder(time.time_ns() - time.monotonic_ns(), registry().phase_reader)
        self._pending: list[dict[str, Any]] = []
        self._started = os.path.exists(self.path)  # a resumed run appends to the trace of the earlier attempt
        self.bytes_written = 0
        self.records_written = 0
        if stream is not None:
            stream.send(line(meta_record(self.builder.wall_offset_ns)))

    def __call__(self, event: Event) -> None:
        if not self.builder.runs and not hasattr(event, "spec"):
            return  # nothing traced in flight: the common case costs one check
        if isinstance(event, IoTrace):
            self._store(event)
            return
        records = self.builder.feed(event)
        if records:
            self._pending.extend(records)
            if self.stream is not None:
                self.stream.send(b"".join(line(r) for r in records))
        if isinstance(event, RunFinished) and self._pending:
            self.flush()

    def _store(self, event: IoTrace) -> None:
        """Keep a worker's binary I/O trace under ``trace/`` and index it in trace.jsonl."""
        relative = os.path.join(TRACE_DIR, safe_name(event.run_id), f"{event.host}-p{event.process}.bin")
        target = os.path.join(self.results_dir, relative)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        atomic_write_bytes(target, event.data)
        try:
            events = count_events(event.data)  # from the block headers: no event is decoded here
        except FormatError:
            events = 0  # kept as it came; `trace summary` and the exports say what is wrong with it
        index = self.builder.iofile(event.run_id, event.host, event.process, relative.replace(os.sep, "/"), events,
                                    len(event.data), event.clock_offset_ns, event.t)
        self._pending.append(index)
        if self.stream is not None:
            self.stream.send(blob_header(index["path"], len(event.data)) + event.data + line(index))

    def flush(self) -> None:
        if not self._pending:
            return
        if not self._started:
            self._pending.insert(0, meta_record(self.builder.wall_offset_ns))
            self._started = True
        data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in self._pending).encode("utf-8")
        with open(self.path, "ab") as handle:
            handle.write(data)
        self.bytes_written += len(data)
        self.records_written += len(self._pending)
        self._pending.clear()

    def close(self) -> None:
        self.flush()
        if self.stream is not None:
            self.stream.close()
