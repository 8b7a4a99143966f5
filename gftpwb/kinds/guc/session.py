"""The session of one guc run: its output, as it streams in, turned into progress and results.

Pure: the executor owns processes and clocks and hands this module bytes, an exit status and the
measured wall time. Rates: ``rate_incl_setup`` is bytes over our own monotonic wall time from just
before guc starts to its exit (what tgftp reports, but not truncated to whole seconds);
``rate_guc_avg`` is guc's own last ``-vb`` average, which excludes connection set-up.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from gftpwb.core.output import Outcome
from gftpwb.core.rates import mib_per_s
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, bound_output
from gftpwb.core.units import format_duration

from .driver import GUC, quantised, summarize_error
from .markers import StripeTracker
from .output import GucOutputParser, ParsedItem, ProgressSample, TextLine

# guc -dbg's lines for every data buffer ("reading into data buffer 0x..., maximum length N", "data
# callback, no error, buffer 0x..., length N, offset=N, eof=false"): no phase is read from them.
DATA_DEBUG = ("debug: reading into data buffer", "debug: data callback")
_DATA_DEBUG_BYTES = tuple(prefix.encode() for prefix in DATA_DEBUG)
#: How long the controller lets guc's stderr gather after a chunk of nothing but per-buffer lines
#: before it reads again (see :meth:`GucRun.read_pause_s`). It bounds how late a line that arrives
#: in the data phase (the 226 that ends it, a performance marker) is read and timestamped.
DATA_DEBUG_PAUSE_S = 0.05
#: No pause when, at the rate the lines came since the last read, more than this would gather in the
#: pipe meanwhile (a pipe holds 64 KiB; a full one would stop guc). Above ~500 MiB/s the lines come
#: so fast that every read takes many of them anyway.
DATA_DEBUG_GATHER_MAX = 8192


def data_debug_only(data: bytes) -> bool:
    """Whether a chunk of guc's stderr is whole lines, every one a per-buffer ``-dbg`` line."""
    if not data.endswith(b"\n") or b"\r" in data:
        return False
    return all(line.startswith(_DATA_DEBUG_BYTES) for line in data[:-1].split(b"\n"))


FILE_START = "Source: "  # guc -vb's first line about each file it transfers


@dataclass
class GucRun:
    """State of one guc run while its output streams in."""

    length_bytes: int | None = None
    parser: GucOutputParser = field(default_factory=GucOutputParser)
    last_progress: ProgressSample | None = None
    stderr_lines: list[str] = field(default_factory=list)
    captured: list[str] = field(default_factory=list)
    #: Read the servers' performance markers (``-dbg``) as per-stripe progress: set for striped
    #: transfers (a connection test's ``-dbg`` shows a marker of its single stripe too: not wanted).
    per_stripe: bool = False
    stripes: StripeTracker = field(default_factory=StripeTracker)
    #: Set when gftpwb added ``-dbg`` for a trace: guc then prints two lines per data buffer (about
    #: 8 per MiB), each of which would become an OutputLine event through the whole bus and double the
    #: controller's CPU per GiB (docs/benchmarks/tracing.md). The trace reads only the control
    #: conversation, so those lines are kept in the record's output but not published.
    quiet_data_debug: bool = False
    #: A multi-file transfer (``-r``, ``-f``): guc's byte count starts again at 0 with every file, after
    #: the file's ``Source:`` line. The earlier files' bytes are added, so the run's progress (live
    #: views, samples, the bytes of a stopped run) counts the whole transfer and a new file is not a stall.
    files_done_bytes: int = 0
    _file_bytes: int = 0
    #: The clock of :meth:`read_pause_s` (monotonic seconds; a test gives its own).
    clock: Callable[[], float] = time.monotonic
    _data_read_at: float | None = None  # when the last chunk of per-buffer lines was read (read_pause_s)

    def feed(self, stream: str, data: bytes) -> list[ParsedItem]:
        # kept byte for byte (the record sets undecodable bytes aside; tag logs write them back as
        # they came): a chunk may end inside a character, so "replace" here would spoil even UTF-8
        text = data.decode("utf-8", errors="surrogateescape")
        self.captured.append(text)
        if (self.quiet_data_debug and stream == "stderr" and data_debug_only(data)
                and self.parser.between_lines(stream)):
            # The common chunk of a traced transfer with a local file: per-buffer lines only, none
            # published and none a phase. Kept as the parser would keep them, without parsing them.
            lines = text.split("\n")[:-1]
            self.stderr_lines.extend(line.rstrip() for line in lines)
            if self.per_stripe:
                for line in lines:
                    self.stripes.feed_line(line)
            return []
        return self._track(self.parser.feed(stream, data))

    def read_pause_s(self, stream: str, data: bytes) -> float:
        """How long to let output gather after ``data`` before reading again (a hint for the transport).

        A traced transfer with a local file prints two ``-dbg`` lines per data buffer, each in its own
        pipe write, and every one would wake the controller (about 4 times per MiB: most of the CPU
        the trace costs, docs/benchmarks/tracing.md). None of them is published or read for a phase, so after a
        chunk of only those lines the controller waits :data:`DATA_DEBUG_PAUSE_S` and reads what
        gathered at once. Anything else (a reply, a marker, the last buffer's ``eof=true``) ends
        the pauses, so the phases around the data are read as before; the transport ends a pause
        early when the process exits, so the run's time is not lengthened.
        """
        if not self.quiet_data_debug or stream != "stderr":
            return 0.0
        if b"eof=true" in data or not data_debug_only(data):
            self._data_read_at = None
            return 0.0
        now = self.clock()
        last, self._data_read_at = self._data_read_at, now
        if last is None or len(data) / max(now - last, 1e-6) * DATA_DEBUG_PAUSE_S > DATA_DEBUG_GATHER_MAX:
            return 0.0
        return DATA_DEBUG_PAUSE_S

    def close(self) -> list[ParsedItem]:
        return self._track(self.parser.close())

    def _track(self, items: list[ParsedItem]) -> list[ParsedItem]:
        out: list[ParsedItem] = []
        for item in items:
            if isinstance(item, ProgressSample) and item.channel is None:
                self._file_bytes = item.bytes
                if self.files_done_bytes:
                    item = replace(item, bytes=self.files_done_bytes + item.bytes)
                self.last_progress = item
            elif isinstance(item, TextLine) and item.stream == "stdout" and item.text.startswith(FILE_START):
                self.files_done_bytes += self._file_bytes  # the file before it is done: its last count
                self._file_bytes = 0
            out.append(item)
            if isinstance(item, TextLine) and item.stream == "stderr":
                self.stderr_lines.append(item.text)
                if self.quiet_data_debug and item.text.startswith(DATA_DEBUG):
                    out.pop()
                if self.per_stripe:
                    out.extend(self.stripes.feed_line(item.text))  # -dbg: per-stripe performance markers
        return out

    def outcome(self, exit_code: int | None, wall_seconds: float, *, timed_out: bool = False,
                interrupted: bool = False, timeout_s: float | None = None, start_error: str = "") -> Outcome:
        """Decide status, bytes and rates once the process has ended (or could not start)."""
        output = bound_output("".join(self.captured))
        stripes = self.stripes.summary()
        details = {"stripes": stripes} if stripes else {}
        guc_avg = self.last_progress.avg_mib_s if self.last_progress else None
        moved = self.last_progress.bytes if self.last_progress else None
        if start_error:
            return Outcome(FAILED, None, None, None, start_error, output, details)
        if interrupted:
            return Outcome(INTERRUPTED, moved, None, guc_avg, "interrupted by the user (Ctrl-C); guc was stopped",
                           output, details)
        if timed_out:
            limit = format_duration(timeout_s) if timeout_s else "its time limit"
            return Outcome(TIMEOUT, moved, None, guc_avg,
                           f"timed out after {limit}; guc and its process group were killed", output, details)
        if exit_code != 0:
            detail = summarize_error(self.stderr_lines) or f"{GUC} exited with status {exit_code}"
            return Outcome(FAILED, moved, None, guc_avg, detail, output, details)
        nbytes = self.length_bytes if self.length_bytes is not None else moved
        if quantised(moved, guc_avg):
            details["guc_avg_quantised"] = True
        return Outcome(PASSED, nbytes, mib_per_s(nbytes, wall_seconds), guc_avg, "", output, details)
