"""The guc driver: argv for a planned guc run, and a run session that turns its output into results.

Pure: the executor owns processes and clocks and hands this module bytes, an exit status and the
measured wall time. Rates: ``rate_incl_setup`` is bytes over our own monotonic wall time from just
before guc starts to its exit (what tgftp reports, but not truncated to whole seconds);
``rate_guc_avg`` is guc's own last ``-vb`` average, which excludes connection set-up.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from gftpwb.core.output import Outcome
from gftpwb.core.rates import mib_per_s
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, bound_output
from gftpwb.core.units import format_duration, format_size_arg

from .markers import StripeTracker
from .model import GucOptions
from .options import OPTIONS_BY_NAME
from .output import GucOutputParser, ParsedItem, ProgressSample, TextLine

GUC = "globus-url-copy"
# guc times its -vb average in steps of 0.1 s, so the average of a transfer that took only a few
# steps is one of a few values (512 MiB reads 5120, 2560 or 1706.7 MiB/s: 1, 2 or 3 steps). Below
# QUANTISED_STEPS steps the error can pass 1/QUANTISED_STEPS (10 %), and the run's average is marked
# "quantised" and left out of statistics; the rate incl. set-up (our own clock, µs) has no such step.
GUC_STEP_S = 0.1
QUANTISED_STEPS = 10


def option_args(options: GucOptions) -> list[str]:
    """guc flags for the set options, in table order: ``-p 4 -tcp-bs 8M -len 4G``."""
    args: list[str] = []
    for name, value in options.set_options().items():
        option = OPTIONS_BY_NAME[name]
        if option.type == "flag":
            args.append(option.flag)
        elif option.type == "size":
            args.extend((option.flag, format_size_arg(int(value))))
        else:
            args.extend((option.flag, str(value)))
    return args


VERBOSE_FLAGS = ("-vb", "-verbose-perf")
# Flags that make guc use extended block mode (MODE E) on every data channel, checked with
# `globus-url-copy -dbg` against globus-gridftp-server 13 (tests/test_guc_mode_real.py).
EXTENDED_FLAGS = frozenset({"-p", "-parallel", "-fast", "-fast-data-channels", "-pp", "-pipeline", "-stripe",
                            "-striped"})
SERVER_SCHEMES = ("ftp", "gsiftp", "sshftp")
STREAM, EXTENDED = "stream", "extended"


def is_server_url(url: str) -> bool:
    """A URL guc reaches through a (Grid)FTP server, as opposed to a file on the machine guc runs on."""
    return url.partition("://")[0].lower() in SERVER_SCHEMES


def server_endpoints(*urls: str) -> tuple[str, ...]:
    """The servers among URLs, as ``scheme://host[:port]/`` (no path: what the environment probes)."""
    out: list[str] = []
    for url in urls:
        if is_server_url(url):
            scheme, _, rest = url.partition("://")
            base = f"{scheme.lower()}://{rest.split('/', 1)[0]}/"
            if base not in out:
                out.append(base)
    return tuple(out)


def third_party(source: str, target: str) -> bool:
    """Both ends are servers: guc steers a transfer between them and moves no data itself."""
    return is_server_url(source) and is_server_url(target)


def implies_extended(args: tuple[str, ...] | list[str]) -> bool:
    """guc arguments that switch it to extended block mode wherever it runs (``-p``, even ``-p 1``)."""
    return any(arg in EXTENDED_FLAGS for arg in args)


def mode_of(argv: tuple[str, ...] | list[str]) -> str:
    """The transfer mode a guc command line runs in: extended (MODE E) with ``-p``, ``-fast``,
    ``-pp`` or ``-stripe``, and, between two servers, with ``-vb`` too (guc then asks both servers for
    MODE E, to get performance markers); stream mode (guc sends no MODE command) otherwise."""
    args, ends = list(argv[1:-2]), list(argv[-2:])
    if implies_extended(args):
        return EXTENDED
    if len(ends) == 2 and third_party(*ends) and any(flag in args for flag in VERBOSE_FLAGS):
        return EXTENDED
    return STREAM


def vb_changes_mode(source: str, target: str, args: tuple[str, ...] | list[str]) -> bool:
    """Whether adding ``-vb`` would change the transfer mode: between two servers, in stream mode."""
    return third_party(source, target) and not implies_extended(args)


def adds_vb(source: str, target: str, args: tuple[str, ...], *, mode: str = "", add_vb: bool = True) -> bool:
    """Whether gftpwb puts ``-vb`` before ``args``: never when they have their own; where ``-vb``
    would change the transfer mode (between two servers, in stream mode) only when the test asks for
    extended mode (``mode: extended``, -vb then being what asks for it); elsewhere when the test lets
    gftpwb add it for live progress (``add_vb``, false for exact ``args`` unless said otherwise)."""
    if any(flag in args for flag in VERBOSE_FLAGS):
        return False
    if vb_changes_mode(source, target, args):
        return mode == EXTENDED
    return add_vb


def build_argv(source: str, target: str, options: GucOptions, extra_args: tuple[str, ...] = (), *,
               mode: str = "", add_vb: bool = True, debug: bool = False) -> tuple[str, ...]:
    """``globus-url-copy [-vb] [-dbg] <options> <extra args> SOURCE TARGET``.

    ``-vb`` gives live progress, and is added only where it leaves the transfer mode alone: between
    two servers it would switch guc from stream mode to MODE E, so there it is added only when the
    transfer is in extended mode anyway (``-p`` and friends) or the test asks for it (``mode:
    extended``); otherwise the run has no live progress, only its elapsed time. ``add_vb=False``
    (the test's ``add_vb: false``) adds it nowhere except for ``mode: extended``. ``debug`` adds ``-dbg``
    (the control conversation, with the servers' performance markers: per-stripe progress).
    """
    args = (*option_args(options), *extra_args)
    add = adds_vb(source, target, args, mode=mode, add_vb=add_vb)
    dbg = ["-dbg"] if debug and "-dbg" not in extra_args else []
    return (GUC, *(["-vb"] if add else []), *dbg, *args, source, target)


def with_debug(argv: tuple[str, ...]) -> tuple[str, ...]:
    """argv with ``-dbg`` (the control conversation on stderr), which a traced run reads its phases
    from (:mod:`gftpwb.kinds.guc.phases`); it changes neither the mode nor what is transferred."""
    if "-dbg" in argv or "-debugftp" in argv:
        return argv
    at = 2 if len(argv) > 1 and argv[1] in VERBOSE_FLAGS else 1
    return (*argv[:at], "-dbg", *argv[at:])


def run_details(argv: tuple[str, ...]) -> dict[str, object]:
    """What a guc run's record says of its transfer (from its command line): ``mode`` (stream or
    extended) and ``live_progress`` (whether guc reports progress, ``-vb``; without it a run has
    only its elapsed time)."""
    return {"mode": mode_of(argv), "live_progress": any(flag in argv[1:-2] for flag in VERBOSE_FLAGS)}


def exact_argv(source: str, target: str, args: tuple[str, ...], *, add_vb: bool = False,
               mode: str = "") -> tuple[str, ...]:
    """``globus-url-copy <args> SOURCE TARGET`` with the parameters exactly as given; ``-vb`` first only
    when the test asks for it (:func:`adds_vb`), as tgftp-derived tests never do."""
    add = adds_vb(source, target, args, mode=mode, add_vb=add_vb)
    return (GUC, *(["-vb"] if add else []), *args, source, target)


def vb_added(argv: tuple[str, ...], given: tuple[str, ...]) -> bool:
    """Did gftpwb put ``-vb`` into ``argv`` (the user's own arguments being ``given``)?"""
    return "-vb" in argv[1:2] and not any(flag in given for flag in VERBOSE_FLAGS)


def unbuffered(argv: tuple[str, ...]) -> tuple[str, ...]:
    """argv that makes guc write its progress as it happens.

    guc prints through stdio, which is block-buffered on a pipe: without this, a run's ``-vb`` lines
    arrive only when guc exits. ``stdbuf -o0`` (coreutils) unbuffers stdout of a dynamically linked
    program, locally and over SSH alike. Records keep the plain guc argv.
    """
    return ("stdbuf", "-o0", *argv)


_REPLY_PREFIX = re.compile(r"^\d{3}[- ]")


def summarize_error(stderr_lines: list[str]) -> str:
    """guc's error report from its first ``error:`` line on, most specific line first.

    guc nests the server's reply (``500-...`` lines) inside its own message; we drop the reply codes
    and the ``500 End.`` trailer, and put the first "Unable to ..." line first because it names what
    failed (the address, the file), so a one-line summary (first and last line) reads well.
    """
    start = next((i for i, line in enumerate(stderr_lines) if line.lstrip().startswith("error:")), 0)
    seen: list[str] = []
    for line in stderr_lines[start:]:
        text = line.strip()
        if text.startswith("error:"):
            text = text[len("error:"):].strip()
        while _REPLY_PREFIX.match(text):
            text = text[4:].strip()
        if text and text not in seen and text != "End.":
            seen.append(text)
    specific = next((line for line in seen if "Unable to" in line), None)
    if specific is not None and seen[0] != specific:
        seen.remove(specific)
        seen.insert(0, specific)
    return "\n".join(seen[:20])


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


def quantised(moved: int | None, avg_mib_s: float | None) -> bool:
    """Whether guc's average covers fewer than QUANTISED_STEPS of its 0.1 s steps (the time it implies,
    bytes over average, is what guc measured in those steps)."""
    if not moved or not avg_mib_s:
        return False
    return moved / (avg_mib_s * 1048576) < GUC_STEP_S * QUANTISED_STEPS
