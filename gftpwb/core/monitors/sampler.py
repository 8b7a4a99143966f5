"""The sampler: one long-lived process per host that reads every monitor of that host at its
interval and streams the raw readings; the command that starts it; and the parser of that stream.
Pure (text in, text out).

Two samplers write the same stream, and one command starts either (:func:`sampler_command`):

* **python3** where the host has it (``exec python3 -E -S -c PROGRAM ...``): the program of
  :mod:`gftpwb.shell.hostsampler`, passed as text. It reads /proc itself, does a tcp reading with
  one NETLINK_SOCK_DIAG dump and writes the lines ``ss -tinp`` would, and sleeps without a fork:
  a fraction of the sh sampler's CPU (docs/benchmarks/monitors.md).
* **POSIX sh** otherwise (:func:`sampler_script`): every Linux host has /bin/sh and /proc. It reads
  /proc files with the ``read`` builtin or ``cat``, and forks ``sleep``, ``cat``, ``ss`` and user
  commands.

``GFTPWB_SAMPLER`` (``auto``, ``python``, ``sh``; read by :mod:`gftpwb.shell.monitors`) forces one.
Either way the parsing stays on the controller (:mod:`.procfs`, :mod:`.ss`, :mod:`.numbers`), so
the samplers stay small and the parsers testable.

Its clock is the host's uptime (``/proc/uptime``, or CLOCK_BOOTTIME, the same clock, under python3;
hundredths of a second, never stepped): the first line pairs it with the host's wall clock, so the
controller converts every reading to its own time (:mod:`.timeline`).

The stream (every marker carries a per-start nonce, so output of a user command cannot fake one)::

    @gftpwb-clock NONCE UPTIME_CS_BEFORE EPOCH UPTIME_CS_AFTER
    @gftpwb-s NONCE INDEX UPTIME_CS          (a reading of monitor INDEX starts)
    ...raw lines...
    @gftpwb-e NONCE INDEX STATUS             (it ends; STATUS is the exit status of the reading)

Every scenario value reaches the sh script through :func:`shlex.quote`, and the python3 program
as hex-encoded arguments of its configuration; nothing is pasted unquoted. The sampler exits when
its parent goes (the controller, or on a remote host the wrapper whose watchdog also kills it with
the sshd session), on SIGTERM, and when its output pipe closes. Either is found by
``gftpwb-sampler`` in its command line.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from .model import COMMAND, CPU, DISK, MEMORY, NET, TCP

SAMPLER_NAME = "gftpwb-sampler"  # an argument of either sampler: how people (and tests) find it in ps
AUTO, PYTHON, SH = "auto", "python", "sh"  # which sampler: python3 where the host has it, or one of the two
SAMPLERS = (AUTO, PYTHON, SH)
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
    owners: bool = True  # tcp monitors: the owning processes (ss -p; the python3 sampler looks them up)


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
    """The whole sh sampler for one host (``sh -c SCRIPT gftpwb-sampler``, or the ``eval`` of
    :data:`BOOT`).

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


# The command that starts a sampler: ``sh -c BOOT gftpwb-sampler MODE SH_LOOP PROGRAM CONFIG``. It
# becomes python3 (exec: the same process, so the same parent and process group) unless the mode is
# sh or the host has no python3; else it runs the sh loop. The system's /usr/bin/python3 comes first:
# a version manager's python3 on PATH may be a shim script (pyenv's costs 50 ms of CPU a start, more
# than the sampler then saves in a minute). -E -S: no PYTHON* variables, no site (a third of a
# start). python3 gets the sh loop too, to become it if it cannot sample.
BOOT = """\
if [ "$1" != sh ]; then
  py=/usr/bin/python3
  [ -x "$py" ] || py=python3
  if command -v "$py" >/dev/null 2>&1; then exec "$py" -E -S -c "$3" "$0" "$1" "$PPID" "$4" "$2"; fi
  if [ "$1" = python ]; then echo "python3 not found (GFTPWB_SAMPLER=python)" >&2; exit 127; fi
fi
eval "$2"
"""


def python_config(probes: Sequence[Probe], nonce: str) -> str:
    """The python3 sampler's configuration (``hostsampler.parse_config`` reads it): the nonce, then
    one line per probe, every command argument hex-encoded (no quoting to get wrong)."""
    if not nonce.isalnum():
        raise ValueError("the nonce must be letters and digits")
    lines = [nonce]
    for probe in probes:
        ports = ",".join(str(p) for p in probe.skip_ports) or "-"
        lines.append(" ".join([str(probe.index), str(probe.interval_cs), probe.type, "1" if probe.owners else "0",
                               repr(float(probe.timeout_s)), ports, *(a.encode().hex() for a in probe.command)]))
    return "\n".join(lines) + "\n"


def sampler_command(probes: Sequence[Probe], nonce: str, program: str, mode: str = AUTO) -> list[str]:
    """The argv that starts the sampler of one host: python3 running ``program`` (the text of
    :mod:`gftpwb.shell.hostsampler`) where the host has python3 and ``mode`` allows it, else the sh
    loop of :func:`sampler_script`. ``mode`` :data:`SH` leaves the program out."""
    if mode not in SAMPLERS:
        raise ValueError(f"the sampler is one of {', '.join(SAMPLERS)}, not {mode!r}")
    loop = sampler_script(probes, nonce)
    if mode == SH:
        return ["/bin/sh", "-c", BOOT, SAMPLER_NAME, SH, loop, "", ""]
    return ["/bin/sh", "-c", BOOT, SAMPLER_NAME, mode, loop, program, python_config(probes, nonce)]


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
