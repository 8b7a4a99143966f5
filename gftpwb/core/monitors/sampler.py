"""The sampler: one long-lived POSIX sh process per host that reads every monitor of that host at
its interval and streams the raw readings; and the parser of that stream. Pure (text in, text out).

Why sh and raw text: every Linux host has /bin/sh and /proc, not necessarily Python; and parsing on
the controller (:mod:`.procfs`, :mod:`.ss`, :mod:`.numbers`) keeps the sampler small and its
parsers testable. The script reads /proc files with the ``read`` builtin or ``cat`` and forks only
for ``sleep``, ``cat``, ``ss`` and user commands, so its own load stays small (BENCHMARKS.md).

Its clock is ``/proc/uptime`` (hundredths of a second, read without a fork, never stepped): the
first line pairs it with the host's wall clock (``date +%s.%N``), so the controller converts every
reading to its own time (:mod:`.timeline`).

The stream (every marker carries a per-start nonce, so output of a user command cannot fake one)::

    @gftpwb-clock NONCE UPTIME_CS_BEFORE EPOCH UPTIME_CS_AFTER
    @gftpwb-s NONCE INDEX UPTIME_CS          (a reading of monitor INDEX starts)
    ...raw lines...
    @gftpwb-e NONCE INDEX STATUS             (it ends; STATUS is the exit status of the reading)

Every scenario value reaches the script through :func:`shlex.quote`; nothing is pasted unquoted.
The sampler exits when its parent goes (the controller, or on a remote host the wrapper whose
watchdog also kills it with the sshd session), on SIGTERM, and when its output pipe closes.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from .model import COMMAND, CPU, DISK, MEMORY, NET, TCP

SAMPLER_NAME = "gftpwb-sampler"  # $0 of the sampler's shell: how people (and tests) find it in ps
CLOCK = "@gftpwb-clock"
START = "@gftpwb-s"
END = "@gftpwb-e"


@dataclass(frozen=True)
class Probe:
    """One monitor as the sampler runs it: how often (hundredths of a second) and what it reads."""

    index: int
    interval_cs: int
    type: str
    command: tuple[str, ...] = ()  # command monitors: the argv
    timeout_s: float = 1.0  # command monitors: stopped after this long
    skip_ports: tuple[int, ...] = ()  # tcp monitors: connections on these ports are left out by ss
    owners: bool = True  # tcp monitors: ask ss for the owning processes (-p: it reads every /proc/PID/fd)


# Monitors whose output grows with the host (a line per connection, a user command's): streamed to
# stdout as the program writes it. Gathering it in a variable costs dash a pass per byte, three times
# (it reads a command substitution 128 bytes at a time): +3 ms/s with 64 copies' ~90 KiB of ss -i.
STREAMED = frozenset({TCP, COMMAND})


def reading_code(probe: Probe) -> str:
    """The sh commands of one raw reading of ``probe``: for a streamed type, the program writing to
    stdout; otherwise commands that leave the reading in ``$o`` (small: a /proc file, or builtins
    only for cpu). Either way its exit status ends in ``$s``."""
    if probe.type == CPU:  # builtins only: no fork
        return 'o=; read -r l </proc/stat && read -r m </proc/loadavg && o="$l$nl$m"; s=$?'
    if probe.type in STREAMED:
        return f"{{ {_program_code(probe)}; }}; s=$?"
    return f"o=$({_program_code(probe)}); s=$?"


def _program_code(probe: Probe) -> str:
    """The program of a reading that is not made of builtins, its stderr with its output."""
    if probe.type == MEMORY:
        return "cat /proc/meminfo"
    if probe.type == NET:
        return "cat /proc/net/dev"
    if probe.type == DISK:
        return "cat /proc/diskstats"
    if probe.type == TCP:
        argv = ["ss", "-tinp" if probe.owners else "-tin", "state", "established"]
        if probe.skip_ports:
            ports = " or ".join(f"sport = :{p} or dport = :{p}" for p in probe.skip_ports)
            argv.append(f"not ( {ports} )")
        return shlex.join(argv) + " 2>&1"
    if probe.type == COMMAND:
        argv = shlex.join(probe.command)
        limit = f"{max(probe.timeout_s, 0.1):.2f}"
        return (f'if [ -n "$to" ]; then timeout --foreground -k 1 {limit} {argv} </dev/null 2>&1; '
                f"else {argv} </dev/null 2>&1; fi")
    raise ValueError(f"unknown monitor type {probe.type!r}")


def sampler_script(probes: Sequence[Probe], nonce: str) -> str:
    """The whole sampler for one host: ``sh -c SCRIPT gftpwb-sampler``.

    What a round (the monitors due at one wake-up) reads is gathered in ``$r`` and printed with one
    ``printf`` (one write, so one wake-up of the controller, or one SSH packet) before a streamed
    reading and at the end of the round, instead of one write per marker and line. ``timeout`` is
    looked for only when a command monitor needs it (the check costs two programs started)."""
    if not probes:
        raise ValueError("a sampler needs at least one monitor")
    if not nonce.isalnum():
        raise ValueError("the nonce must be letters and digits")
    lines = [
        "trap 'exit 0' TERM INT HUP",
        "up() { read -r u _ </proc/uptime || exit 3; u=${u%.*}${u#*.}; }",
        "p=$PPID",
        "nl='",
        "'",
        "to=",
    ]
    if any(probe.type == COMMAND for probe in probes):
        lines.append("if command -v timeout >/dev/null 2>&1 && timeout --foreground 5 true </dev/null >/dev/null "
                     "2>&1; then to=1; fi")
    lines += [
        "up; a=$u; e=$(date +%s.%N 2>/dev/null); up",
        f'r="{CLOCK} {nonce} $a $e $u$nl"',
        *(f"n{probe.index}=$u" for probe in probes),
        "while :; do",
    ]
    for probe in probes:
        i = probe.index
        if probe.type in STREAMED:  # what is gathered goes out with the start marker, in one write
            reading = [f"printf '%s' \"$r{START} {nonce} {i} $t$nl\"; r=", reading_code(probe),
                       f'r="$nl{END} {nonce} {i} $s$nl"']
        else:
            reading = [reading_code(probe), f'r="$r{START} {nonce} {i} $t$nl$o$nl{END} {nonce} {i} $s$nl"']
        lines += [
            "  up",
            f'  if [ "$u" -ge "$n{i}" ]; then',
            "    t=$u",
            *(f"    {line}" for line in reading),
            f"    n{i}=$((n{i} + {probe.interval_cs})); [ \"$n{i}\" -gt \"$u\" ] || n{i}=$((u + {probe.interval_cs}))",
            "  fi",
        ]
    first = probes[0].index
    lines += [
        "  if [ -n \"$r\" ]; then printf '%s' \"$r\"; r=; fi",
        '  kill -0 "$p" 2>/dev/null || exit 0',
        "  up",
        f"  w=$((n{first} - u))",
        *(f'  [ $((n{probe.index} - u)) -lt "$w" ] && w=$((n{probe.index} - u))' for probe in probes[1:]),
        '  if [ "$w" -gt 0 ]; then sleep "$((w / 100)).$((w % 100 / 10))$((w % 10))"; fi',
        "done",
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class ClockLine:
    """The sampler's first line: its uptime clock (hundredths of a second) before and after reading
    the host's wall clock (``epoch``, seconds; None when ``date`` could not give it)."""

    before_cs: int
    epoch: float | None
    after_cs: int


@dataclass(frozen=True)
class Reading:
    """One raw reading of monitor ``index``, taken at ``uptime_cs``; ``status`` is its exit status."""

    index: int
    uptime_cs: int
    lines: tuple[str, ...]
    status: int


class SamplerStream:
    """Turns the sampler's stdout, in chunks of any size, into :class:`ClockLine` and
    :class:`Reading` items (sans-I/O, like h11: ``feed(bytes) -> items``). Lines outside a
    reading, and readings cut short by the end of the stream, are dropped."""

    def __init__(self, nonce: str):
        self._clock = f"{CLOCK} {nonce} "
        self._start = f"{START} {nonce} "
        self._end = f"{END} {nonce} "
        self._buffer = b""
        self._open: tuple[int, int] | None = None
        self._lines: list[str] = []
        self.stray = 0  # lines that belonged to no reading

    def feed(self, data: bytes) -> list[ClockLine | Reading]:
        self._buffer += data
        *complete, self._buffer = self._buffer.split(b"\n")
        out: list[ClockLine | Reading] = []
        for raw in complete:
            item = self._line(raw.decode("utf-8", "replace").rstrip("\r"))
            if item is not None:
                out.append(item)
        return out

    def _line(self, line: str) -> ClockLine | Reading | None:
        if line.startswith(self._start):
            fields = line[len(self._start):].split()
            if len(fields) == 2 and all(_digits(f) for f in fields):
                if self._open is not None:
                    self.stray += len(self._lines)
                self._open, self._lines = (int(fields[0]), int(fields[1])), []
                return None
        if line.startswith(self._end) and self._open is not None:
            fields = line[len(self._end):].split()
            if len(fields) == 2 and _digits(fields[0]) and int(fields[0]) == self._open[0]:
                status = int(fields[1]) if _digits(fields[1]) else -1
                reading = Reading(self._open[0], self._open[1], tuple(x for x in self._lines if x.strip()), status)
                self._open, self._lines = None, []
                return reading
        if line.startswith(self._clock):
            return parse_clock_line(line[len(self._clock):])
        if self._open is not None:
            self._lines.append(line)
        elif line.strip():
            self.stray += 1
        return None


def parse_clock_line(text: str) -> ClockLine | None:
    """``BEFORE_CS EPOCH AFTER_CS`` (EPOCH as ``date +%s.%N`` prints it, possibly empty or with a
    literal ``N`` where ``date`` knows no %N)."""
    fields = text.split()
    if len(fields) not in (2, 3) or not (_digits(fields[0]) and _digits(fields[-1])):
        return None
    epoch: float | None = None
    if len(fields) == 3:
        whole, _, fraction = fields[1].partition(".")
        if _digits(whole):
            epoch = float(whole + ("." + fraction if _digits(fraction) else ""))
    return ClockLine(int(fields[0]), epoch, int(fields[-1]))


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()
