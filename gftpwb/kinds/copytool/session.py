"""The run session of a copy tool: its output in, progress and an outcome out. Pure.

Rates, as for guc: ``rate_incl_setup`` is the bytes over gftpwb's own monotonic time from just before
the tool starts to its exit (connection set-up included), ``rate_guc_avg`` the tool's own last average
where it reports one (xrdcp: bytes over whole seconds since it started: quantised, so an average over
fewer than ten steps is marked and left out of the statistics, as guc's is; gfal-copy reports none)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.output import Outcome, ParsedItem, ProgressSample, TextLine
from gftpwb.core.rates import mib_per_s
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, bound_output
from gftpwb.core.units import format_duration

from .tool import Tool

QUANTISED_STEPS = 10


@dataclass
class CopyRun:
    """One run of a copy tool while its output streams in."""

    tool: Tool
    length_bytes: int | None = None
    parser: Any = None
    last_progress: ProgressSample | None = None
    lines: list[str] = field(default_factory=list)
    captured: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.parser is None:
            self.parser = self.tool.parser()

    def feed(self, stream: str, data: bytes) -> Sequence[ParsedItem]:
        self.captured.append(data.decode("utf-8", errors="replace"))
        return self._track(self.parser.feed(stream, data))

    def close(self) -> Sequence[ParsedItem]:
        return self._track(self.parser.close())

    def _track(self, items: Sequence[ParsedItem]) -> list[ParsedItem]:
        for item in items:
            if isinstance(item, ProgressSample):
                self.last_progress = item
            elif isinstance(item, TextLine):
                self.lines.append(item.text)
        return list(items)

    def outcome(self, exit_code: int | None, wall_seconds: float, *, timed_out: bool = False,
                interrupted: bool = False, timeout_s: float | None = None, start_error: str = "") -> Outcome:
        output = bound_output("".join(self.captured))
        own = self.last_progress.avg_mib_s if self.last_progress else None
        moved = self.last_progress.bytes if self.last_progress else None
        program = self.tool.program
        if start_error:
            return Outcome(FAILED, None, None, None, start_error, output)
        if interrupted:
            return Outcome(INTERRUPTED, moved, None, own, f"interrupted by the user (Ctrl-C); {program} was stopped",
                           output)
        if timed_out:
            limit = format_duration(timeout_s) if timeout_s else "its time limit"
            return Outcome(TIMEOUT, moved, None, own, f"timed out after {limit}; {program} and its process group were "
                                                      "killed", output)
        if exit_code != 0:
            detail = self.tool.summarize_error(self.lines) or f"{program} exited with status {exit_code}"
            return Outcome(FAILED, moved, None, own, detail, output)
        nbytes = self.length_bytes if self.length_bytes is not None else moved
        details: dict[str, Any] = {}
        if own and nbytes and self.tool.own_rate_step_s and (
                nbytes / (own * 1048576) < self.tool.own_rate_step_s * QUANTISED_STEPS):
            details["guc_avg_quantised"] = True
        return Outcome(PASSED, nbytes, mib_per_s(nbytes, wall_seconds) if nbytes else None, own, "", output, details)
