"""Run the real tgftp 0.7.0 / tgftp_log 0.2.0 and gftpwb side by side, and say where they differ.

Each tool runs in a directory of its own with the same inputs. ``globus-url-copy`` is a wrapper first
on PATH that logs its argv and execs the real one, so the suite sees every guc call each tool made.
Every log a tool leaves is read by the *real* tgftp_log, attribute by attribute, so what is compared
is exactly what an evaluation script would get. Values that differ between any two runs (times,
rates, progress figures, PIDs, the path a tool was started from) are normalised, and the parts that
must agree among themselves are checked instead (a rate against its own size and start/end times).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ATTRIBUTES = ("GSIFTP_TRANSFER_LOG_COMMENT", "GSIFTP_TRANSFER_COMMAND", "GSIFTP_TRANSFER_COMMAND_OUTPUT",
              "GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END", "GSIFTP_TRANSFER_ERROR", "GSIFTP_TRANSFER_RATE",
              "GSIFTP_TRANSFER_SIZE", "GSIFTP_TRANSFER_LIST", "TGFTP_COMMAND")
LOG_HEAD = b"<GSIFTP_TRANSFER_LOG_COMMENT>\n"
VENV_BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]
CASE_TIMEOUT_S = 240

WRAPPER = """#!/bin/bash
# globus-url-copy, recorded: append this call's argv (NUL-separated, \\1 ends a call), then run the real one.
# One printf, so one write: calls made at once (gftpwb's environment probe) no longer interleave.
format=$(printf '%%s\\\\0%.0s' "$@")
printf "${{format}}\\1" "$@" >> "$GFTPWB_COMPAT_ARGV_LOG"
exec {guc} "$@"
"""


def reference_dir() -> Path:
    """The real tgftp's directory; a relative GFTPWB_TGFTP_REFERENCE is taken from where pytest started
    (the tools run in directories of their own)."""
    return Path(os.environ["GFTPWB_TGFTP_REFERENCE"]).resolve()


@dataclass
class Lab:
    """What the cases need from the machine: the server URL, a refused URL, a source file, the wrapper."""

    url: str  # ftp://127.0.0.1:PORT of the lab's GridFTP server
    dead: str  # ftp://127.0.0.1:PORT with nothing listening
    data: Path  # a world-readable directory with small files the server can read
    wrapper_dir: Path

    def fill(self, text: str, tool: str = "tool") -> str:
        return (text.replace("@PWURL@", with_password(self.url)).replace("@PWDEAD@", with_password(self.dead))
                .replace("@URL@", self.url).replace("@DEAD@", self.dead)
                .replace("@DATA@", str(self.data)).replace("@TOOL@", f"tool-{tool}"))


PASSWORD = "s3cr3t"  # the lab's server lets anyone in as anonymous, whatever the password


def with_password(url: str) -> str:
    """``ftp://HOST:PORT`` as ``ftp://anonymous:s3cr3t@HOST:PORT``."""
    scheme, _, rest = url.partition("://")
    return f"{scheme}://anonymous:{PASSWORD}@{rest}"


def make_wrapper(directory: Path) -> Path:
    guc = shutil.which("globus-url-copy")
    assert guc is not None, "globus-url-copy is not installed"
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "globus-url-copy"
    script.write_text(WRAPPER.format(guc=shlex.quote(os.path.realpath(guc))))
    script.chmod(0o755)
    return directory


@dataclass
class Attr:
    """What the real tgftp_log said for one attribute of one log."""

    exit: int
    stdout: str
    stderr: str


@dataclass
class ToolRun:
    tool: str
    program: str  # the path the tool was started as ($0), replaced by "tgftp" when comparing ("" = none)
    workdir: Path
    exit: int = 0
    stdout: str = ""
    stderr: str = ""
    calls: list[list[str]] = field(default_factory=list)  # guc argv of every call, in order
    files: list[str] = field(default_factory=list)  # files the run left, relative to workdir
    logs: dict[str, dict[str, Attr]] = field(default_factory=dict)  # log name -> attribute -> tgftp_log's answer
    started: float = 0.0
    ended: float = 0.0
    log_root: Path | None = None  # where its logs are (a results directory for gftpwb run)


def read_calls(path: Path) -> list[list[str]]:
    if not path.exists():
        return []
    calls = []
    for record in path.read_bytes().split(b"\x01"):
        if record:
            calls.append([arg.decode("utf-8", "surrogateescape") for arg in record.split(b"\0")[:-1]])
    return calls


def tool_env(lab: Lab, workdir: Path) -> dict[str, str]:
    ref_bin = str(reference_dir() / "bin")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GFTPWB_", "PYTEST"))}
    env.update({"PATH": os.pathsep.join([str(lab.wrapper_dir), ref_bin, env.get("PATH", "")]), "NO_COLOR": "1",
                "GFTPWB_COMPAT_ARGV_LOG": str(workdir.parent / f"{workdir.name}.argv"), "LC_ALL": "C.UTF-8",
                "TZ": "UTC", "COMPAT_NAME": "site1", "COMPAT_LEN": "8M"})
    return env


def run_tool(tool: str, argv: list[str], workdir: Path, lab: Lab, *, inputs: dict[str, bytes] | None = None,
             logs_in: str = "", stdin: bytes = b"", program: str | None = None, dirs: tuple[str, ...] = (),
             env: tuple[tuple[str, str], ...] = ()) -> ToolRun:
    """Run one tool in ``workdir`` (created with ``inputs`` and ``dirs``, ``env`` added to the
    environment), then read every log it left."""
    workdir.mkdir(parents=True)
    for name in dirs:
        (workdir / name).mkdir(parents=True, exist_ok=True)
    for name, content in (inputs or {}).items():
        (workdir / name).write_bytes(content)
    env = {**tool_env(lab, workdir), **dict(env)}
    run = ToolRun(tool, argv[0] if program is None else program, workdir, started=time.time())
    try:
        proc = subprocess.run(argv, cwd=workdir, env=env, input=stdin, capture_output=True, timeout=CASE_TIMEOUT_S)
        run.exit, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        run.exit, out, err = -999, exc.stdout or b"", (exc.stderr or b"") + b"\n[harness: timed out]"
    run.ended = time.time()
    run.stdout = out.decode("utf-8", "replace")
    run.stderr = err.decode("utf-8", "replace")
    run.calls = read_calls(Path(env["GFTPWB_COMPAT_ARGV_LOG"]))
    run.files = sorted(str(p.relative_to(workdir)) for p in workdir.rglob("*")
                       if p.is_file() and str(p.relative_to(workdir)) not in (inputs or {}))
    log_root = workdir / logs_in if logs_in else workdir
    run.log_root = log_root
    for path in sorted(log_root.rglob("*")):
        if path.is_file() and is_log(path.read_bytes()):
            run.logs[str(path.relative_to(log_root))] = read_log(path)
    return run


def is_log(data: bytes) -> bool:
    """A tag log: tgftp's starts with the comment tag; gftpwb's has its own tags first."""
    return data.startswith(LOG_HEAD) or (data.startswith(b"<GFTPWB_") and b"\n" + LOG_HEAD in data)


def tgftp_log(path: Path, attribute: str, cwd: Path | None = None, program: str | None = None) -> Attr:
    program = program or str(reference_dir() / "bin" / "tgftp_log")
    proc = subprocess.run([program, "-a", attribute, "-f", str(path)], capture_output=True, cwd=cwd)
    return Attr(proc.returncode, proc.stdout.decode("utf-8", "replace"), proc.stderr.decode("utf-8", "replace"))


def read_log(path: Path) -> dict[str, Attr]:
    return {attribute: tgftp_log(path, attribute) for attribute in ATTRIBUTES}


def run_many(jobs: list, workers: int = 6) -> list:
    """Run (callable, args...) tuples concurrently; results in the same order."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(job[0], *job[1:]) for job in jobs]
        return [f.result() for f in futures]


# --- normalising ------------------------------------------------------------------------------------

_PROGRESS_RUN = re.compile(r"( *\d+ bytes +[\d.]+ MB/sec avg +[\d.]+ MB/sec inst\r?)+\n?")
_DEFAULT_LOG = re.compile(r"\d{8}_\d\d:\d\dh_\d+_testgftp\.sh\.log")
_TRANSFER_LIST = re.compile(r"\d+_transferList")
_DOTS = re.compile(r"^\.*(?= Test #)", re.M)
_RATE_LINE = re.compile(r"^\d* MB/s$", re.M)
_STAMP = re.compile(r"^\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d$")
_DEBUG_NUMBERS = re.compile(r"\d+")


def normalise(text: str, run: ToolRun) -> str:
    """Take out what differs between any two runs: the program path, dirs, PIDs, progress figures."""
    if run.program:
        text = text.replace(run.program, "tgftp")
    if run.log_root is not None:
        text = text.replace(str(run.log_root), "<DIR>")
    text = text.replace(str(run.workdir), "<DIR>").replace(f"tool-{run.tool}", "tool-X")
    text = _DEFAULT_LOG.sub("<DEFAULT-LOG>", text)
    text = _TRANSFER_LIST.sub("<PID>_transferList", text)
    # Whether guc prints a progress line at all for a short third-party transfer depends on a race
    # (a perf marker arriving before the end), so progress lines and the newline guc ends them with
    # are taken out.
    text = _PROGRESS_RUN.sub("", text)
    return text.replace("\r", "\n")


def normalise_screen(text: str, run: ToolRun) -> str:
    text = _DOTS.sub("", normalise(text, run))  # tgftp prints a dot every 0.5 s while the child runs
    return _RATE_LINE.sub("<rate>", text)


def screen_rates(text: str) -> list[str]:
    return _RATE_LINE.findall(text.replace("\r", "\n"))


def tgftp_rate(size: str, start: str, end: str) -> str | None:
    """tgftp 0.7.0's rate from its own SIZE, START and END tags (whole seconds, integer division), or None
    when the SIZE text alone cannot tell (its number went through bash arithmetic in forms this check does
    not model; both tools' RATE values are then compared as they are)."""
    import calendar

    def epoch(stamp: str) -> int:
        return calendar.timegm(time.strptime(stamp.strip(), "%Y-%m-%d_%H:%M:%S"))  # tools run with TZ=UTC

    try:
        number, unit = size.split()
        elapsed = (epoch(end) - epoch(start)) or 1
    except ValueError:
        return None
    if re.fullmatch(r"0[0-7]+", number):
        value = int(number, 8)  # bash reads a leading 0 as octal
    elif re.fullmatch(r"[1-9]\d*|0", number):
        value = int(number)
    else:
        return None
    factor = {"GB": (1024, 1), "MB": (1, 1), "KB": (1, 1024), "B": (1, 1024 * 1024)}[unit]
    return f"{value * factor[0] // (elapsed * factor[1])} MB/s"


# --- comparing ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Difference:
    case: str
    path: str  # the tool path compared against tgftp: dropin, gftpwb-tgftp, run, import
    aspect: str  # exit, stdout, stderr, argv, files, logs, tag:<LOG>:<ATTRIBUTE>, rate:<LOG>, rates
    theirs: object  # tgftp's (normalised) value
    ours: object  # gftpwb's

    def __str__(self) -> str:
        return f"{self.case} [{self.path}] {self.aspect}: tgftp {self.theirs!r} != gftpwb {self.ours!r}"


def _check_log(run: ToolRun, name: str, attrs: dict[str, Attr], problems: list[str]) -> dict[str, Attr]:
    """Check what must hold inside one log, and return its attributes normalised for comparing."""
    out: dict[str, Attr] = {}
    for attribute, value in attrs.items():
        stdout = normalise(value.stdout, run)
        stdout = stdout.rstrip("\n") + "\n" if stdout.strip("\n") else ""  # as tgftp_log's $(...) does
        stderr = normalise(value.stderr, run)
        if attribute in ("GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END") and value.stdout:
            if not _STAMP.match(value.stdout.strip()):
                problems.append(f"{name}: {attribute} {value.stdout!r} is not YYYY-mm-dd_HH:MM:SS")
            stdout = "<time>\n"
        if attribute == "GSIFTP_TRANSFER_RATE" and re.fullmatch(r"-?\d+ MB/s\n", value.stdout):
            size, start, end = (attrs[a].stdout for a in ("GSIFTP_TRANSFER_SIZE", "GSIFTP_TRANSFER_START",
                                                           "GSIFTP_TRANSFER_END"))
            expected = tgftp_rate(size, start, end)
            if expected is not None and value.stdout.strip() != expected:
                problems.append(f"{run.tool} {name}: RATE {value.stdout.strip()!r} is not tgftp's formula on its "
                                f"SIZE {size.strip()!r} and START/END ({expected!r})")
            stdout = "<rate>\n"
        if attribute == "GSIFTP_TRANSFER_COMMAND_OUTPUT" and "debug:" in stdout:
            stdout = _DEBUG_NUMBERS.sub("N", stdout)
        out[attribute] = Attr(value.exit, stdout, stderr)
    return out


def compare(case: str, path: str, ref: ToolRun, ours: ToolRun, aspects: tuple[str, ...]) -> list[Difference]:
    diffs: list[Difference] = []

    def diff(aspect: str, a: object, b: object) -> None:
        if a != b:
            diffs.append(Difference(case, path, aspect, a, b))

    if "exit" in aspects:
        diff("exit", ref.exit, ours.exit)
    if "stdout" in aspects:
        diff("stdout", normalise_screen(ref.stdout, ref), normalise_screen(ours.stdout, ours))
    if "stderr" in aspects:
        diff("stderr", _stderr_lines(ref.stderr, ref), _stderr_lines(ours.stderr, ours))
    if "argv" in aspects:
        diff("argv", [[normalise(a, ref) for a in call] for call in ref.calls],
             [[normalise(a, ours) for a in call] for call in ours.calls])
    if "files" in aspects:
        diff("files", [normalise(f, ref) for f in ref.files], [normalise(f, ours) for f in ours.files])
    if "logs" in aspects:
        ref_logs = {normalise(k, ref): v for k, v in ref.logs.items()}
        our_logs = {normalise(k, ours): v for k, v in ours.logs.items()}
        diff("logs", sorted(ref_logs), sorted(our_logs))
        for name in sorted(set(ref_logs) & set(our_logs)):
            problems: list[str] = []
            a = _check_log(ref, name, ref_logs[name], problems)
            b = _check_log(ours, name, our_logs[name], problems)
            for problem in problems:
                diffs.append(Difference(case, path, f"rate:{name}", "tgftp's formula", problem))
            for attribute in ATTRIBUTES:
                diff(f"tag:{name}:{attribute}", a[attribute], b[attribute])
    if "rates" in aspects:
        # the rate on the screen is the rate in the log
        for run in (ref, ours):
            logged = [v["GSIFTP_TRANSFER_RATE"].stdout.strip() for v in run.logs.values()
                      if v["GSIFTP_TRANSFER_RATE"].stdout.strip()]
            if run.logs and sorted(r.strip() for r in screen_rates(run.stdout)) != sorted(logged):
                diffs.append(Difference(case, path, "rates", f"{run.tool}: screen == logs",
                                        f"screen {screen_rates(run.stdout)} != logs {logged}"))
    return diffs


_GFTPWB_LINE = re.compile(r"^(gftpwb: |.*:\d+:\d+: (warning|error): )")
_BASH_NOISE = re.compile(r"^(<DIR>/)?[^ ]*tgftp(_log)?: (eval: )?line \d+: ")


def _stderr_lines(text: str, run: ToolRun) -> list[str]:
    """stderr without gftpwb's own extra lines (its warnings) and without bash's noise from tgftp."""
    lines = normalise(text, run).split("\n")
    return [line for line in lines if not _GFTPWB_LINE.match(line) and not _BASH_NOISE.match(line)]
