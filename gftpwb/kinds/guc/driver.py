"""The guc driver: argv for a planned guc run, and a run session that turns its output into results.

Pure: the executor owns processes and clocks and hands this module bytes, an exit status and the
measured wall time. Rates: ``rate_incl_setup`` is bytes over our own monotonic wall time from just
before guc starts to its exit (what tgftp reports, but not truncated to whole seconds);
``rate_guc_avg`` is guc's own last ``-vb`` average, which excludes connection set-up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from gftpwb.core.output import Outcome
from gftpwb.core.rates import mib_per_s
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, bound_output
from gftpwb.core.units import format_duration, format_size_arg

from .model import GucOptions
from .options import OPTIONS_BY_NAME
from .output import GucOutputParser, ParsedItem, ProgressSample, TextLine

GUC = "globus-url-copy"


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


def build_argv(source: str, target: str, options: GucOptions, extra_args: tuple[str, ...] = (), *,
               add_vb: bool = True) -> tuple[str, ...]:
    """``globus-url-copy [-vb] <options> <extra args> SOURCE TARGET``; ``-vb`` gives live progress."""
    verbose = ["-vb"] if add_vb and not any(flag in extra_args for flag in VERBOSE_FLAGS) else []
    return (GUC, *verbose, *option_args(options), *extra_args, source, target)


def exact_argv(source: str, target: str, args: tuple[str, ...], *, add_vb: bool = False) -> tuple[str, ...]:
    """``globus-url-copy <args> SOURCE TARGET`` with the parameters exactly as given (``-vb`` first only
    when asked for and not already there)."""
    verbose = ["-vb"] if add_vb and not any(flag in args for flag in VERBOSE_FLAGS) else []
    return (GUC, *verbose, *args, source, target)


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


@dataclass
class GucRun:
    """State of one guc run while its output streams in."""

    length_bytes: int | None = None
    parser: GucOutputParser = field(default_factory=GucOutputParser)
    last_progress: ProgressSample | None = None
    stderr_lines: list[str] = field(default_factory=list)
    captured: list[str] = field(default_factory=list)

    def feed(self, stream: str, data: bytes) -> list[ParsedItem]:
        self.captured.append(data.decode("utf-8", errors="replace"))
        return self._track(self.parser.feed(stream, data))

    def close(self) -> list[ParsedItem]:
        return self._track(self.parser.close())

    def _track(self, items: list[ParsedItem]) -> list[ParsedItem]:
        for item in items:
            if isinstance(item, ProgressSample):
                self.last_progress = item
            elif isinstance(item, TextLine) and item.stream == "stderr":
                self.stderr_lines.append(item.text)
        return items

    def outcome(self, exit_code: int | None, wall_seconds: float, *, timed_out: bool = False,
                interrupted: bool = False, timeout_s: float | None = None, start_error: str = "") -> Outcome:
        """Decide status, bytes and rates once the process has ended (or could not start)."""
        output = bound_output("".join(self.captured))
        guc_avg = self.last_progress.avg_mib_s if self.last_progress else None
        moved = self.last_progress.bytes if self.last_progress else None
        if start_error:
            return Outcome(FAILED, None, None, None, start_error, output)
        if interrupted:
            return Outcome(INTERRUPTED, moved, None, guc_avg, "interrupted by the user (Ctrl-C); guc was stopped",
                           output)
        if timed_out:
            limit = format_duration(timeout_s) if timeout_s else "its time limit"
            return Outcome(TIMEOUT, moved, None, guc_avg,
                           f"timed out after {limit}; guc and its process group were killed", output)
        if exit_code != 0:
            detail = summarize_error(self.stderr_lines) or f"{GUC} exited with status {exit_code}"
            return Outcome(FAILED, moved, None, guc_avg, detail, output)
        nbytes = self.length_bytes if self.length_bytes is not None else moved
        return Outcome(PASSED, nbytes, mib_per_s(nbytes, wall_seconds), guc_avg, "", output)
