"""Runs a nap: ``sleep`` through the run context's transport, judged by a tiny session; and a
consumer that lists every nap in ``naps.txt`` of the results directory."""

from __future__ import annotations

import os

from gftpwb.core.events import Event, RunFinished
from gftpwb.core.output import Outcome, TextLine
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.shell.context import RunContext
from gftpwb.shell.runners import run_process


class NapSession:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def feed(self, stream: str, data: bytes) -> list[TextLine]:
        text = data.decode(errors="replace")
        self.lines.append(text)
        return [TextLine(stream, line) for line in text.splitlines() if line.strip()]

    def close(self) -> list[TextLine]:
        return []

    def outcome(self, exit_code, wall_seconds, *, timed_out=False, interrupted=False, timeout_s=None,
                start_error=""):
        if interrupted:
            return Outcome(INTERRUPTED, None, None, None, "interrupted", "".join(self.lines))
        if timed_out:
            return Outcome(TIMEOUT, None, None, None, "timed out", "".join(self.lines))
        if start_error or exit_code != 0:
            return Outcome(FAILED, None, None, None, start_error or f"sleep exited with {exit_code}",
                           "".join(self.lines))
        return Outcome(PASSED, None, None, None, "", "".join(self.lines))


async def run(ctx: RunContext, spec: RunSpec) -> ResultRecord:
    return await run_process(ctx, spec, NapSession())


class NapLog:
    """A consumer of events: one line per finished nap in ``<results dir>/naps.txt``."""

    def __init__(self, results_dir: str):
        self.path = os.path.join(results_dir, "naps.txt")

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished) and event.record.kind == "nap":
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(f"{event.record.run_id} {event.record.status}\n")
