"""What parallel-libgfapi would have run, from the variables it was given. Pure.

parallel-libgfapi (github.com/bengland2/parallel-libgfapi) is a C worker configured only by ``GFAPI_*``
environment variables, and a bash launcher that starts it over ``ssh`` on every client of a list. Three
ways of running it read the variables differently, and each is modelled here as data
(:data:`LAUNCHERS`), from the code of each release:

* ``current``: the launcher ``parallel_gfapi_test.sh`` as committed (``PGFAPI_*`` variables). It
  *sets* most ``GFAPI_*`` variables itself (an exported ``GFAPI_LOAD`` is overwritten by
  ``PGFAPI_LOAD``'s value or ``seq-wr``), fixes ``GFAPI_IOREQ=4096``, sleeps 1 ms after every file
  by default (``PGFAPI_USEC_DELAY_PER_FILE=1000``), and passes only the variables on its ``ssh``
  command line to the workers (``GFAPI_PORT``, ``GFAPI_TRANSPORT``, ``GFAPI_TRCLVL``,
  ``GFAPI_FILES_PER_DIR`` and ``GFAPI_PREFIX`` never reach them).
* ``first-release``: the launcher as its first README describes it (``PSMF_THREADS``, ``PSMF_FILES``,
  ``PSMF_FUSE``, ``PSMF_TOPDIR``, ``PSMF_DIRECT``; its sample run also sets ``PSMF_LOAD``) with the
  parameters a user edited into the script's lines (``threads``, ``files``, ``filesize_kb``,
  ``recordsize_kb``, ``clientFile``, ``GFAPI_VOLNAME``, ``GFAPI_HOSTNAME``, ``GFAPI_LOAD``,
  ``MOUNTPOINT``, ``TOPDIR``); the first committed script read ``PGFAPI_THREADS`` etc., read as well.
  One single-threaded worker process per "thread".
* ``worker``: the worker run by itself (``GFAPI_*`` only, its own defaults), on one host or by hand
  on each client.

A launcher variable wins over an edited line of the script, as ``threads=${PGFAPI_THREADS:-4}`` does.
Numbers are read as the C worker's ``atoi`` read them (``4.5`` is 4, ``1M`` of a launcher's file
size became ``GFAPI_FSZ=1Mk``: 1 KB), with a warning wherever that is not what the text says.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from gftpwb.core.errors import Diagnostic

from .shellenv import Assignment, ShellEnv

CURRENT, FIRST_RELEASE, WORKER = "current", "first-release", "worker"
WORKLOADS = ("seq-wr", "seq-rd", "rnd-wr", "rnd-rd", "unlink", "seq-rdwrmix")
RANDOM = ("rnd-wr", "rnd-rd")
LAUNCHER_IOREQ = 4096  # both launchers export GFAPI_IOREQ=4096 for every run
_PREFIXES = ("GFAPI_", "PGFAPI_", "PSMF_")
_ATOI = re.compile(r"\s*([+-]?\d+)")
_ATOF = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")


@dataclass(frozen=True)
class Origin:
    """Where a value came from: a variable assigned at file:line:col, or a default (line 0)."""

    file: str
    line: int = 0
    column: int = 0
    variable: str = ""

    @property
    def is_default(self) -> bool:
        return not self.variable

    def diagnostic(self, message: str, severity: str = "warning") -> Diagnostic:
        return Diagnostic(self.file, self.line, self.column, message, severity=severity)

    def named(self, value: str) -> str:
        """``PGFAPI_FILES=500`` or ``the default 10240`` (for messages)."""
        return f"{self.variable}={value}" if self.variable else f"the default {value}"


@dataclass(frozen=True)
class Launcher:
    """How one way of running parallel-libgfapi reads its variables (see the module doc)."""

    name: str
    title: str
    #: setting -> (variables, first found wins; the default text, None when the value is required)
    sources: dict[str, tuple[tuple[str, ...], str | None]]
    #: settings the launcher fixes whatever the variables say
    fixed: dict[str, str] = field(default_factory=dict)
    #: worker variables the launcher sets itself -> what it uses instead (an assignment has no effect)
    overwritten: dict[str, str] = field(default_factory=dict)
    #: worker variables that never reach the workers (not on the launcher's ssh command line)
    not_passed: tuple[str, ...] = ()
    #: the launcher passes the file size as GFAPI_FSZ=<value>k
    file_size_in_kb: bool = True
    workloads: tuple[str, ...] = WORKLOADS
    usec_delay_default: int = 0

    def variables(self) -> set[str]:
        return {v for names, _ in self.sources.values() for v in names}


_NOT_PASSED = ("GFAPI_PORT", "GFAPI_TRANSPORT", "GFAPI_TRCLVL", "GFAPI_FILES_PER_DIR", "GFAPI_PREFIX", "DEBUG")
_GUN = "its own starting gun file, which every worker waits for"

LAUNCHERS: dict[str, Launcher] = {
    CURRENT: Launcher(
        CURRENT, "the launcher parallel_gfapi_test.sh (PGFAPI_* variables)",
        sources={
            "processes": (("PGFAPI_PROCESSES", "processes"), "4"),
            "threads": (("PGFAPI_THREADS_PER_PROC",), "1"),
            "files": (("PGFAPI_FILES", "files"), "10240"),
            "file_size": (("PGFAPI_FILESIZE", "filesize_kb"), "4"),
            "record_size": (("PGFAPI_RECORDSIZE", "recordsize_kb"), "64"),
            "clients_file": (("PGFAPI_CLIENTS", "clientFile"), "clients.list"),
            "workload": (("PGFAPI_LOAD",), "seq-wr"),
            "fuse": (("PGFAPI_FUSE",), "0"),
            "append": (("PGFAPI_APPEND",), "0"),
            "overwrite": (("PGFAPI_OVERWRITE",), "0"),
            "usec_delay": (("PGFAPI_USEC_DELAY_PER_FILE",), "1000"),
            "fsync": (("PGFAPI_FSYNC_AT_CLOSE",), "0"),
            "rdpct": (("PGFAPI_RDPCT",), "0"),
            "direct": (("PGFAPI_DIRECT",), "0"),
            "mountpoint": (("PGFAPI_MOUNTPOINT", "MOUNTPOINT"), "/mnt/gfapi"),
            "directory": (("PGFAPI_TOPDIR", "TOPDIR"), "/gfapi-test"),
            "volume": (("GFAPI_VOLNAME",), None),
            "server": (("GFAPI_HOSTNAME",), None),
            "external_start": (("PGFAPI_EXTERNAL_START",), ""),
            "program": (("PGFAPI_PROGRAM", "PROGRAM"), "gfapi_perf_test"),
            "logdir": (("PGFAPI_LOGDIR",), ""),
        },
        fixed={"io_requests": str(LAUNCHER_IOREQ), "port": "24007", "transport": "tcp", "trace_level": "0",
               "files_per_dir": "1000", "prefix": "f"},
        overwritten={
            "GFAPI_LOAD": "PGFAPI_LOAD (default seq-wr)", "GFAPI_FUSE": "PGFAPI_FUSE (default 0)",
            "GFAPI_APPEND": "PGFAPI_APPEND (default 0)", "GFAPI_OVERWRITE": "PGFAPI_OVERWRITE (default 0)",
            "GFAPI_USEC_DELAY_PER_FILE": "PGFAPI_USEC_DELAY_PER_FILE (default 1000)",
            "GFAPI_FSYNC_AT_CLOSE": "PGFAPI_FSYNC_AT_CLOSE (default 0)", "GFAPI_RDPCT": "PGFAPI_RDPCT (default 0)",
            "GFAPI_THREADS_PER_PROC": "PGFAPI_THREADS_PER_PROC (default 1)",
            "GFAPI_DIRECT": "PGFAPI_DIRECT (default 0)", "GFAPI_IOREQ": f"{LAUNCHER_IOREQ}, always",
            "GFAPI_RECSZ": "PGFAPI_RECORDSIZE (default 64)", "GFAPI_FSZ": "PGFAPI_FILESIZE (default 4) with a k",
            "GFAPI_FILES": "PGFAPI_FILES (default 10240)",
            "GFAPI_BASEDIR": "<PGFAPI_TOPDIR>/smf-gfapi-<client>.<NN> for each process",
            "GFAPI_STARTING_GUN": _GUN, "GFAPI_STARTING_GUN_TIMEOUT": "0.3 s per thread + 10 s",
        },
        not_passed=_NOT_PASSED, usec_delay_default=1000),
    FIRST_RELEASE: Launcher(
        FIRST_RELEASE, "the first release's launcher (PSMF_* variables and the script's edited lines)",
        sources={
            "processes": (("PSMF_THREADS", "PGFAPI_THREADS", "threads"), "4"),
            "files": (("PSMF_FILES", "PGFAPI_FILES", "files"), "16"),
            "file_size": (("filesize_kb",), "16384"),
            "record_size": (("recordsize_kb",), "64"),
            "clients_file": (("clientFile",), "clients.list"),
            "workload": (("PSMF_LOAD", "PGFAPI_LOAD", "GFAPI_LOAD"), "seq-wr"),
            "fuse": (("PSMF_FUSE", "PGFAPI_FUSE"), "0"),
            "direct": (("PSMF_DIRECT", "PGFAPI_DIRECT"), "0"),
            "mountpoint": (("MOUNTPOINT",), "/mnt/alu"),
            "directory": (("PSMF_TOPDIR", "PGFAPI_TOPDIR", "TOPDIR"), "/test"),
            "volume": (("GFAPI_VOLNAME",), None),
            "server": (("GFAPI_HOSTNAME",), None),
            "program": (("PER_THREAD_PROGRAM",), "/root/gfapi_perf_test"),
        },
        fixed={"threads": "1", "io_requests": str(LAUNCHER_IOREQ), "port": "24007", "transport": "tcp",
               "trace_level": "0", "files_per_dir": "1000", "prefix": "f", "append": "0", "overwrite": "0",
               "usec_delay": "0", "fsync": "0", "rdpct": "0"},
        overwritten={
            "GFAPI_FUSE": "PSMF_FUSE (default 0)", "GFAPI_DIRECT": "PSMF_DIRECT (default 0)",
            "GFAPI_IOREQ": f"{LAUNCHER_IOREQ}, always", "GFAPI_RECSZ": "the script's recordsize_kb (64)",
            "GFAPI_FSZ": "the script's filesize_kb (16384) with a k", "GFAPI_FILES": "PSMF_FILES (default 16)",
            "GFAPI_BASEDIR": "<TOPDIR>/smf-gfapi-<client>.<NN> for each process",
            "GFAPI_STARTING_GUN": _GUN, "GFAPI_STARTING_GUN_TIMEOUT": "0.3 s per thread + 10 s",
        },
        not_passed=(*_NOT_PASSED, "GFAPI_FSYNC_AT_CLOSE"),
        workloads=("seq-wr", "seq-rd", "rnd-wr", "rnd-rd", "unlink")),
    WORKER: Launcher(
        WORKER, "the worker run by itself (GFAPI_* variables)",
        sources={
            "threads": (("GFAPI_THREADS_PER_PROC",), "1"),
            "files": (("GFAPI_FILES",), "100"),
            "file_size": (("GFAPI_FSZ",), "1024K"),
            "record_size": (("GFAPI_RECSZ",), "64"),
            "workload": (("GFAPI_LOAD",), "seq-wr"),
            "io_requests": (("GFAPI_IOREQ",), "0"),
            "fuse": (("GFAPI_FUSE",), "0"),
            "append": (("GFAPI_APPEND",), "0"),
            "overwrite": (("GFAPI_OVERWRITE",), "0"),
            "usec_delay": (("GFAPI_USEC_DELAY_PER_FILE",), "0"),
            "fsync": (("GFAPI_FSYNC_AT_CLOSE",), "0"),
            "rdpct": (("GFAPI_RDPCT",), "0"),
            "direct": (("GFAPI_DIRECT",), "0"),
            "directory": (("GFAPI_BASEDIR",), "/tmp"),
            "volume": (("GFAPI_VOLNAME",), None),
            "server": (("GFAPI_HOSTNAME",), None),
            "port": (("GFAPI_PORT",), "24007"),
            "transport": (("GFAPI_TRANSPORT",), "tcp"),
            "trace_level": (("GFAPI_TRCLVL",), "0"),
            "files_per_dir": (("GFAPI_FILES_PER_DIR",), "1000"),
            "prefix": (("GFAPI_PREFIX",), "f"),
            "starting_gun": (("GFAPI_STARTING_GUN",), ""),
            "debug": (("DEBUG",), "0"),
        },
        fixed={"processes": "1"}, file_size_in_kb=False),
}
WORKER_VARIABLES = LAUNCHERS[WORKER].variables() | {"GFAPI_STARTING_GUN_TIMEOUT"}
KNOWN_VARIABLES = set().union(*(launcher.variables() for launcher in LAUNCHERS.values())) | WORKER_VARIABLES
_FIRST_RELEASE_MARKS = ("PSMF_", "PGFAPI_THREADS", "threads", "filesize_kb", "recordsize_kb")


@dataclass(frozen=True)
class Value:
    text: str
    origin: Origin


@dataclass
class ToolRun:
    """What parallel-libgfapi would have run (sizes in KB, as it counted them)."""

    launcher: Launcher
    values: dict[str, Value]
    processes: int = 1
    threads: int = 1
    files: int = 100
    file_size_kb: int = 1024
    record_size_kb: int = 64
    workload: str = "seq-wr"
    io_requests: int = 0
    rdpct: float = 0.0
    fuse: bool = False
    direct: bool = False
    fsync: bool = False
    append: bool = False
    overwrite: bool = False
    usec_delay: int = 0
    port: int = 24007
    transport: str = "tcp"
    trace_level: int = 0
    files_per_dir: int = 1000
    volume: str = ""
    server: str = ""
    directory: str = ""  # in the volume (libgfapi) or on the hosts (FUSE mode)

    def origin(self, setting: str) -> Origin:
        return self.values[setting].origin


@dataclass
class Resolved:
    run: ToolRun | None
    warnings: list[Diagnostic]
    errors: list[Diagnostic]


def choose_launcher(env: ShellEnv, clients_given: bool) -> str:
    """Which way of running the variables belong to: the first release when a PSMF_* variable (or a
    line only its script had) is set, the launcher when a PGFAPI_* one is or a client list is given,
    else the worker by itself."""
    names = {a.name for a in env.assignments}
    if any(n.startswith("PSMF_") or n in _FIRST_RELEASE_MARKS for n in names):
        return FIRST_RELEASE
    if clients_given or any(n.startswith("PGFAPI_") or n in ("processes", "clientFile") for n in names):
        return CURRENT
    return WORKER


def atoi(text: str) -> int:
    """C's atoi: leading blanks, a sign, digits; 0 when there are none."""
    match = _ATOI.match(text)
    return int(match.group(1)) if match else 0


def atof(text: str) -> float:
    match = _ATOF.match(text)
    return float(match.group(1)) if match else 0.0


def worker_size_kb(text: str) -> int | None:
    """The worker's GFAPI_FSZ in KB: atoi of the text, times the unit of its last character when that
    is a letter (K, M, G, T); None when that letter is another one (the worker stopped)."""
    value = atoi(text)
    if text and text[-1].isalpha():
        factor = {"K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}.get(text[-1].upper())
        if factor is None:
            return None
        value *= factor
    return value


class _Resolver:
    def __init__(self, env: ShellEnv, filename: str, launcher: Launcher):
        self.env, self.filename, self.launcher = env, filename, launcher
        self.warnings: list[Diagnostic] = []
        self.errors: list[Diagnostic] = []
        self.values: dict[str, Value] = {}

    def warn(self, origin: Origin, message: str) -> None:
        self.warnings.append(origin.diagnostic(message))

    def error(self, origin: Origin, message: str) -> None:
        self.errors.append(origin.diagnostic(message, "error"))

    def at(self, a: Assignment) -> Origin:
        return Origin(self.filename, a.line, a.value_column, a.name)

    def value(self, setting: str) -> Value:
        if setting in self.values:
            return self.values[setting]
        launcher = self.launcher
        if setting in launcher.fixed:
            found = Value(launcher.fixed[setting], Origin(self.filename))
        else:
            names, default = launcher.sources.get(setting, ((), ""))
            found = None
            for name in names:
                a = self.env.last(name)
                if a is not None:
                    if a.unknown:
                        self.error(self.at(a), f"{name}: {a.unknown}; write its value")
                    found = Value(a.value, self.at(a))
                    break
            if found is None:
                if default is None:
                    self.error(Origin(self.filename), f"{' or '.join(names)} is not set: parallel-libgfapi "
                                                      "needs it (the Gluster volume and a server of it)")
                    default = ""
                found = Value(default, Origin(self.filename))
        self.values[setting] = found
        return found

    def number(self, setting: str, minimum: int, what: str) -> int:
        v = self.value(setting)
        number = atoi(v.text)
        if v.text.strip() != str(number) and not v.origin.is_default:
            self.warn(v.origin, f"{v.origin.named(v.text)} is not a whole number: parallel-libgfapi read it as "
                                f"{number} (C's atoi), and so does the scenario")
        if number < minimum:
            self.error(v.origin, f"{v.origin.named(v.text)}: {what} must be at least {minimum}")
        return number

    def flag(self, setting: str) -> bool:
        v = self.value(setting)
        number = atoi(v.text)
        if v.text.strip() not in ("0", "1") and not v.origin.is_default:
            self.warn(v.origin, f"{v.origin.named(v.text)} is not 0 or 1: parallel-libgfapi read it as {number} "
                                f"({'on' if number else 'off'})")
        return number != 0


def resolve(env: ShellEnv, filename: str, launcher_name: str) -> Resolved:
    """The run parallel-libgfapi would have made of ``env`` (read from ``filename``) with the launcher
    ``launcher_name``; warnings for variables it ignored or read otherwise than written, errors for
    what it could not have run."""
    launcher = LAUNCHERS[launcher_name]
    r = _Resolver(env, filename, launcher)
    _unused_variables(r)
    run = ToolRun(launcher=launcher, values=r.values)
    run.volume = r.value("volume").text
    run.server = r.value("server").text
    run.processes = r.number("processes", 1, "processes per client")
    run.threads = r.number("threads", 1, "threads per process")
    run.files = r.number("files", 1, "files per thread")
    run.file_size_kb = _file_size(r)
    run.record_size_kb = _record_size(r)
    run.workload = _workload(r)
    run.io_requests = r.number("io_requests", 0, "GFAPI_IOREQ")
    rdpct = r.value("rdpct")
    run.rdpct = atof(rdpct.text)
    run.fuse = r.flag("fuse")
    run.direct = r.flag("direct")
    run.fsync = r.flag("fsync")
    run.append = r.flag("append")
    run.overwrite = r.flag("overwrite")
    run.usec_delay = r.number("usec_delay", 0, "the delay per file")
    run.port = r.number("port", 1, "the port")
    run.transport = r.value("transport").text
    run.trace_level = r.number("trace_level", 0, "the trace level")
    run.files_per_dir = r.number("files_per_dir", 1, "files per directory")
    run.directory = _directory(r, run)
    for noted in ("external_start", "starting_gun", "debug"):  # no equivalent: the scenario says so
        r.value(noted)
    r.value("clients_file")  # where the launcher looked for its client list
    if run.append and run.overwrite:
        r.error(r.value("overwrite").origin, "GFAPI_APPEND and GFAPI_OVERWRITE together: the worker refused to run "
                                             "('cannot be used in the same test')")
    if run.transport not in ("tcp", "rdma", "unix"):
        r.error(r.value("transport").origin, f"GFAPI_TRANSPORT={run.transport}: gftpwb knows tcp, rdma and unix")
    return Resolved(None if r.errors else run, r.warnings, r.errors)


def _unused_variables(r: _Resolver) -> None:
    """Warn about each variable the chosen launcher never reads, or overwrites before the workers see it."""
    launcher = r.launcher
    used = launcher.variables()
    for a in r.env.assignments:
        name = a.name
        if name in used or not (name.startswith(_PREFIXES) or name in KNOWN_VARIABLES):
            continue
        if name in launcher.overwritten:
            r.warn(r.at(a), f"{name} has no effect: {launcher.title} sets it from {launcher.overwritten[name]}")
        elif name in launcher.not_passed:
            r.warn(r.at(a), f"{name} never reached the workers: {launcher.title} passes only the variables on its "
                            "ssh command line, so they used the worker's default (and so does the scenario)")
        elif name in KNOWN_VARIABLES:
            readers = [other.name for other in LAUNCHERS.values() if name in other.variables()]
            r.warn(r.at(a), f"{name} is not read by {launcher.title} (only by: {', '.join(readers)}); ignored "
                            "(choose another with --launcher)")
        elif name.startswith(_PREFIXES):
            close = difflib.get_close_matches(name, sorted(KNOWN_VARIABLES), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            r.warn(r.at(a), f"{name} is not a variable parallel-libgfapi reads; ignored{hint}")


def _file_size(r: _Resolver) -> int:
    v = r.value("file_size")
    text = v.text.strip()
    if r.launcher.file_size_in_kb:
        passed = f"{text}k"  # the launcher's GFAPI_FSZ=${filesize_kb}k
        kb = worker_size_kb(passed) or 0
        if text != str(kb) and not v.origin.is_default:
            r.warn(v.origin, f"{v.origin.named(v.text)}: the launcher passed GFAPI_FSZ={passed}, which the worker "
                             f"read as {kb} KB; the scenario uses {kb} KB too (write the size in KB)")
    else:
        found = worker_size_kb(text)
        if found is None:
            r.error(v.origin, f"{v.origin.named(v.text)}: the worker accepted only the suffixes K, M, G and T "
                              "and stopped")
            return 1
        kb = found
        if not re.fullmatch(r"\d+[KkMmGgTt]?", text) and not v.origin.is_default:
            r.warn(v.origin, f"{v.origin.named(v.text)}: the worker read it as {kb} KB, and so does the scenario")
    if kb < 1:
        r.error(v.origin, f"{v.origin.named(v.text)}: the file size must be at least 1 KB")
    return kb


def _record_size(r: _Resolver) -> int:
    kb = r.number("record_size", 1, "the record size (KB)")
    v = r.value("record_size")
    if re.fullmatch(r"\s*\d+\s*[A-Za-z]+\s*", v.text) and not v.origin.is_default:
        r.warn(v.origin, f"{v.origin.named(v.text)}: the record size is a number of KB; its unit was ignored "
                         f"({kb} KB)")
    return kb


def _workload(r: _Resolver) -> str:
    v = r.value("workload")
    if v.text not in r.launcher.workloads:
        r.error(v.origin, f"{v.origin.named(v.text)} is not a workload {r.launcher.title} knew "
                          f"({', '.join(r.launcher.workloads)}); its worker stopped with 'invalid workload type'")
    return v.text


def normal_directory(text: str) -> str:
    """A directory as the scenario writes it: one slash between names, none at the end, absolute."""
    directory = re.sub("/+", "/", text)
    if len(directory) > 1:
        directory = directory.rstrip("/")
    return directory if directory.startswith("/") else "/" + directory


def _directory(r: _Resolver, run: ToolRun) -> str:
    """The test's directory: in the volume (libgfapi), or the FUSE mount's path on every host."""
    v = r.value("directory")
    directory = v.text
    if run.fuse and r.launcher.name != WORKER:
        directory = r.value("mountpoint").text + directory  # the launcher's ${MOUNTPOINT}$d
    if not directory.startswith("/"):
        where = ("libgfapi took it from the volume's root" if not run.fuse
                 else "the worker took it from its working directory")
        r.warn(v.origin, f"{v.origin.named(v.text)} is a relative path: {where}; the scenario uses "
                         f"{normal_directory(directory)}")
    return normal_directory(directory)
