"""The guc driver: argv for a planned guc run, what it says of the transfer mode, and how an error
reads. Pure. The run session that turns guc's output into results is :mod:`.session` (kept apart so
planning, which ``gftpwb validate`` does, never imports the output parsers).
"""

from __future__ import annotations

import re

from gftpwb.core.units import format_size_arg

from .model import GucOptions
from .options import OPTIONS_BY_NAME

GUC = "globus-url-copy"
# guc times its -vb average in steps of 0.1 s, so the average of a transfer that took only a few
# steps is one of a few values (512 MiB reads 5120, 2560 or 1706.7 MiB/s: 1, 2 or 3 steps). Below
# QUANTISED_STEPS steps the error can pass 1/QUANTISED_STEPS (10 %), and the run's average is marked
# "quantised" and left out of statistics; the rate incl. set-up (our own clock, µs) has no such step.
GUC_STEP_S = 0.1
QUANTISED_STEPS = 10


def quantised(moved: int | None, avg_mib_s: float | None) -> bool:
    """Whether guc's average covers fewer than QUANTISED_STEPS of its 0.1 s steps (the time it implies,
    bytes over average, is what guc measured in those steps): guc's output says so wherever it is read,
    in a run of gftpwb's or in a tag log tgftp wrote."""
    if not moved or not avg_mib_s:
        return False
    return moved / (avg_mib_s * 1048576) < GUC_STEP_S * QUANTISED_STEPS


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
