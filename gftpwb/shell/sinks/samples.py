"""``samples.jsonl``: every run's progress samples, one line per run beside the journal, written
when the run ends (see :mod:`gftpwb.core.samples` for the format). A bus subscriber like the journal;
a run that reported no progress (guc without -vb, a failed start) writes nothing.

Lines are appended without fsync: the journal is what ``--resume`` trusts; a crash loses at most the
samples of the run in flight, and a torn last line is skipped by the reader.
"""

from __future__ import annotations

import os

from gftpwb.core.events import Event, Progress, RunFinished, RunStarted, WorkerProgress
from gftpwb.core.samples import WHOLE, RunSampler, RunSamples, parse_samples

SAMPLES_NAME = "samples.jsonl"


class SamplesSink:
    """Collects Progress and WorkerProgress events per run; appends a run's line at its RunFinished."""

    def __init__(self, results_dir: str):
        self.path = os.path.join(results_dir, SAMPLES_NAME)
        self._runs: dict[str, RunSampler] = {}
        self.bytes_written = 0

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress):
            self._sampler(event.run_id).add(event.channel or WHOLE, event.elapsed_s, event.bytes)
        elif isinstance(event, WorkerProgress):
            if event.state in ("running", "done", "failed") and event.elapsed_s > 0:
                self._sampler(event.run_id).add(f"{event.host}/{event.thread}", event.elapsed_s, event.bytes,
                                                event.files)
        elif isinstance(event, RunStarted):
            self._runs[event.spec.run_id] = RunSampler(event.spec.run_id)
        elif isinstance(event, RunFinished):
            sampler = self._runs.pop(event.record.run_id, None)
            samples = sampler.finish() if sampler is not None else None
            if samples is not None:
                self._write(samples)

    def _sampler(self, run_id: str) -> RunSampler:
        sampler = self._runs.get(run_id)
        if sampler is None:
            sampler = self._runs[run_id] = RunSampler(run_id)
        return sampler

    def _write(self, samples: RunSamples) -> None:
        line = (samples.to_json() + "\n").encode("utf-8")
        with open(self.path, "ab") as handle:
            handle.write(line)
        self.bytes_written += len(line)


def read_samples(results_dir: str) -> tuple[dict[str, RunSamples], list[str]]:
    """The samples of a results directory by run id (the last line of a run id wins), and problems."""
    try:
        with open(os.path.join(results_dir, SAMPLES_NAME), encoding="utf-8", errors="replace") as handle:
            return parse_samples(handle.read())
    except FileNotFoundError:
        return {}, []
