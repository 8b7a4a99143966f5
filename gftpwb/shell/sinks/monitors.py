"""The monitors' files in the results directory:

* ``monitors.jsonl``: one line per sample (``"event": "sample"``: monitor, type, host, ``utc``,
  ``t`` on the controller's monotonic clock, ``span_s``, ``values`` or ``error``), and one when a
  host's sampler starts (with the clock offset applied to its samples) or ends;
* ``monitor-summaries.jsonl``: one line per run, beside its record in ``results.jsonl``: the run's
  ``started_at``/``ended_at`` on the same time line and ``monitors[monitor][host][figure]`` =
  ``{mean, min, max, n}`` during the run.

Samples are written as they come, not fsync'd (a crash may cut the last ones short: readers skip a
torn line); summaries are fsync'd like records. A resumed run appends to both.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from gftpwb.core.events import Event, MonitorSample, MonitorSummary, SamplerEnded, SamplerStarted

from ..context import utc_now_iso
from .journal import JournalFile

SAMPLES_NAME = "monitors.jsonl"
SUMMARIES_NAME = "monitor-summaries.jsonl"


@dataclass(frozen=True)
class _Line:
    data: dict[str, Any]

    def to_json(self) -> str:
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))


def sample_line(event: MonitorSample) -> dict[str, Any]:
    line: dict[str, Any] = {"event": "sample", "monitor": event.monitor, "type": event.type, "host": event.host,
                            "utc": event.utc, "t": round(event.sampled_t, 6), "span_s": round(event.span_s, 3)}
    if event.error:
        line["error"] = event.error
    else:
        line["values"] = event.values
    return line


class MonitorFiles:
    """A bus subscriber writing the monitors' events to the two files (made on first use)."""

    def __init__(self, directory: str):
        self.samples_path = os.path.join(directory, SAMPLES_NAME)
        self.summaries_path = os.path.join(directory, SUMMARIES_NAME)
        self._samples: JournalFile | None = None
        self._summaries: JournalFile | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, MonitorSample):
            self._sample_file().append(_Line(sample_line(event)))
        elif isinstance(event, MonitorSummary):
            if self._summaries is None:
                self._summaries = JournalFile(self.summaries_path)
            self._summaries.append(_Line({"run_id": event.run_id, "started_at": event.started_utc,
                                          "ended_at": event.ended_utc, "monitors": event.figures}))
        elif isinstance(event, SamplerStarted):
            self._sample_file().append(_Line({
                "event": "sampler-started", "host": event.host, "utc": utc_now_iso(), "monitors": list(event.monitors),
                "clock_offset_s": event.clock_offset_s, "clock_uncertainty_s": event.clock_uncertainty_s}))
        elif isinstance(event, SamplerEnded):
            self._sample_file().append(_Line({"event": "sampler-ended", "host": event.host, "utc": utc_now_iso(),
                                              **({"reason": event.reason} if event.reason else {})}))

    def _sample_file(self) -> JournalFile:
        if self._samples is None:
            self._samples = JournalFile(self.samples_path, fsync=False)
        return self._samples

    def close(self) -> None:
        for handle in (self._samples, self._summaries):
            if handle is not None:
                handle.close()


def read_lines(path: str) -> list[dict[str, Any]]:
    """The JSON lines of a monitors file (a missing file has none; a torn line is skipped)."""
    out = []
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    item = json.loads(line)
                except ValueError:
                    continue
                if isinstance(item, dict):
                    out.append(item)
    except FileNotFoundError:
        return []
    return out
