"""parallel-libgfapi's result files, read: the per-process logs and ``result.csv``. Pure.

The launcher sends each worker process's output to ``<logdir>/<client>.t<NN>.log`` (NN from 01),
then makes ``result.csv`` of them with ``awk``: a header ``elapsed-sec MBps Files-per-sec
I/O-rq-per-sec`` and one space-separated row per log (no client or process column), the *last*
``elapsed time``, ``throughput``, ``file rate`` and ``IOPS`` of the log, i.e. its ``aggregate:``
block. Its printed totals were sums of those rows over the rows with a third field.

A worker log holds a header (``GLUSTER:`` and ``WORKLOAD:`` blocks: volume, transport, server, port,
FUSE, workload, threads per process, base directory, file size and count, record size, files per
directory, fsync, O_DIRECT, delay per file), timestamped ready and starting-gun lines, and results:

* the current worker: a ``thread   N:`` block per thread then an ``aggregate:`` block (earliest
  start to latest end of the process's threads, counters summed); a field is printed only when it
  is not zero, and ``file rate`` is left out under 10 files (which shifted ``IOPS`` into the
  Files-per-sec column of ``result.csv``);
* the first release: one unlabelled block (``file transfers  = N`` ...), whose ``file rate`` was 0
  whenever the process did more than 10 files (a bug fixed in the next commit).

A process that printed no results (a worker that stopped: a bad setting, the starting gun's timeout,
a failed system call, ``ssh`` that could not connect) has the line that says why as its error.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from datetime import datetime

RESULT_HEADER = "elapsed-sec MBps Files-per-sec I/O-rq-per-sec"
LOG_NAME = re.compile(r"^(?P<client>.+)\.t(?P<n>\d+)\.log$")
_FIELD = re.compile(r"^(?:thread\s+(?P<thread>\d+):|(?P<aggregate>aggregate):)?\s*"
                    r"(?P<key>files written|files read|files done|file transfers|fraction of reads|"
                    r"I/O \(record\) transfers|total bytes|elapsed time|throughput|file rate|IOPS)\s*=\s*"
                    r"(?P<value>[-+0-9.eE]+|nan|inf|-nan)")
_BLOCK_START = re.compile(r"^(?:thread\s+(?P<thread>\d+):|(?P<aggregate>aggregate):)")
_HEADER = (
    ("volume", re.compile(r"^\s+volume=(.*)$")), ("transport", re.compile(r"^\s+transport=(.*)$")),
    ("server", re.compile(r"^\s+host=(.*)$")), ("port", re.compile(r"^\s+port=(\d+)")),
    ("fuse", re.compile(r"^\s+fuse\?(\w+)")), ("trace_level", re.compile(r"^\s+trace level=(\d+)")),
    ("workload", re.compile(r"^\s+type = (\S+)")), ("threads", re.compile(r"^\s+threads/proc = (\d+)")),
    ("base_directory", re.compile(r"^\s+base directory = (.*?)\s*$")), ("prefix", re.compile(r"^\s+prefix=(.*)$")),
    ("file_size_kb", re.compile(r"^\s+file size = (\d+) KB")), ("files", re.compile(r"^\s+file count = (\d+)")),
    ("record_size_kb", re.compile(r"^\s+record size = (\d+) KB")),
    ("files_per_dir", re.compile(r"^\s+files/dir=(\d+)")), ("fsync", re.compile(r"^\s+fsync-at-close\? (\w+)")),
    ("direct", re.compile(r"^\s+forcing use of direct I/O")),
    ("usec_delay", re.compile(r"^\s+sleeping (\d+) microsec after each file")),
    ("rdpct", re.compile(r"^\s+percent reads =\s*([0-9.]+)")),
    ("append", re.compile(r"^\s+using O_APPEND flag")), ("overwrite", re.compile(r"^\s+overwriting existing files")),
    ("truncated_record_kb", re.compile(r"^\s+truncating record size \d+ KB to file size (\d+) KB")),
    ("io_requests", re.compile(r"^\s+random read/write requests = (\d+)")),
)
# ctime(3) as the worker's now_str() printed it: "Mon Mar 24 14:55:09 2014"
_TIMESTAMP = re.compile(r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) "
                        r"[ \d]\d \d\d:\d\d:\d\d \d{4}\b")
_ERROR = re.compile(r"ERROR|errno \(|usage:|you must define|invalid workload|too large|cannot be used|"
                    r"failed|cancelled|return code|ssh:|Permission denied|Connection refused|not found|"
                    r"command not found|No such file", re.IGNORECASE)


@dataclass
class ResultBlock:
    """One block of results: a thread's (``thread`` >= 0), a process's aggregate (-1), or the first
    release's one block (-1)."""

    thread: int
    line: int
    values: dict[str, float] = field(default_factory=dict)

    def count(self, key: str) -> int:
        return int(self.values.get(key, 0))

    @property
    def files(self) -> int:
        if "file transfers" in self.values:
            return self.count("file transfers")
        return self.count("files done") or self.count("files written") + self.count("files read")


@dataclass
class WorkerLog:
    name: str
    client: str  # from the launcher's log name ("" for a worker run by itself)
    process: int  # 0-based (the launcher's NN - 1)
    text: str
    header: dict[str, str] = field(default_factory=dict)
    header_lines: dict[str, int] = field(default_factory=dict)
    threads: list[ResultBlock] = field(default_factory=list)
    aggregate: ResultBlock | None = None
    first_release: bool = False
    error: str = ""
    error_line: int = 0
    timestamps: list[datetime] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.aggregate is not None and not self.error

    def last_value(self, key: str) -> str:
        """What the launcher's awk took from this log for ``key``: the field after '=' of the last line
        naming it ("" when none does)."""
        value = ""
        pattern = {"elapsed time": (r"elapsed time", 3), "throughput": (r"throughput", 2),
                   "file rate": (r"file rate", 3), "IOPS": (r"IOPS", 2)}[key]
        for line in self.text.split("\n"):
            if re.search(pattern[0], line):
                words = line.split()
                value = words[pattern[1]] if len(words) > pattern[1] else ""
        return value


def split_log_name(name: str) -> tuple[str, int] | None:
    """(client, 0-based process) of a launcher log name ``<client>.t<NN>.log``."""
    match = LOG_NAME.match(name)
    if match is None or int(match.group("n")) < 1:
        return None
    return match.group("client"), int(match.group("n")) - 1


def parse_worker_log(text: str, name: str) -> WorkerLog:
    """A worker's output (see the module doc)."""
    split = split_log_name(name)
    log = WorkerLog(name=name, client=split[0] if split else "", process=split[1] if split else 0, text=text)
    current: ResultBlock | None = None
    for number, line in enumerate(text.replace("\r\n", "\n").split("\n"), start=1):
        for stamp in _TIMESTAMP.findall(line):
            with contextlib.suppress(ValueError):  # a 31st of February: not a time
                log.timestamps.append(datetime.strptime(" ".join(stamp.split()), "%a %b %d %H:%M:%S %Y"))
        started = _BLOCK_START.match(line)
        if started:
            thread = -1 if started.group("aggregate") else int(started.group("thread"))
            current = ResultBlock(thread, number)
            if thread >= 0:
                log.threads.append(current)
            else:
                log.aggregate = current
        field_match = _FIELD.match(line)
        if field_match:
            if current is None:  # the first release: one block, no label
                current = ResultBlock(-1, number)
                log.aggregate = current
                log.first_release = True
            try:
                current.values[field_match.group("key")] = float(field_match.group("value"))
            except ValueError:
                current.values[field_match.group("key")] = float("nan")
            continue
        if current is None:
            for key, pattern in _HEADER:
                match = pattern.match(line)
                if match and key not in log.header:
                    log.header[key] = match.group(1) if match.groups() else "1"
                    log.header_lines[key] = number
                    break
            else:
                if not log.error and _ERROR.search(line) and "signaling ready" not in line:
                    log.error, log.error_line = " ".join(line.split()), number
        elif _ERROR.search(line) and not log.error:
            log.error, log.error_line = " ".join(line.split()), number
    if log.aggregate is None and not log.error:
        lines = [ln.strip() for ln in text.split("\n") if ln.strip()]
        log.error = ("the worker printed no results" + (f"; its last line: {lines[-1]}" if lines else
                                                         " (the log is empty)"))
        log.error_line = len(text.split("\n")) if lines else 0
    return log


@dataclass(frozen=True)
class ResultRow:
    line: int
    fields: tuple[str, str, str, str]  # elapsed-sec, MBps, Files-per-sec, I/O-rq-per-sec ("" when not printed)


@dataclass
class ResultCsv:
    rows: list[ResultRow]
    problems: list[tuple[int, str]]  # (line, message): read all the same, as the launcher's awk did
    errors: list[tuple[int, int, str]] = field(default_factory=list)  # (line, column, message): not readable


def parse_result_csv(text: str) -> ResultCsv:
    """``result.csv`` as the launcher wrote it: awk's ``print t, mbs, fps, iops`` puts exactly one space
    between the four fields, so an empty field (not printed by the worker) shows as two spaces.

    A file that is not that is an error at its line and column (``errors``), never rows of a failed
    run: another header, a field that is no number (``1.2 3.4 abc 500.0``), or no row at all (a
    header alone holds no results)."""
    rows: list[ResultRow] = []
    problems: list[tuple[int, str]] = []
    errors: list[tuple[int, int, str]] = []
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != RESULT_HEADER:
        errors.append((1, 1, f"not parallel-libgfapi's result.csv: the first line is not '{RESULT_HEADER}'"))
        return ResultCsv(rows, problems, errors)
    for number, line in enumerate(lines[1:], start=2):
        if not line:  # the file's end; a row of blanks is a worker's that printed no results
            continue
        if not line.strip() and len(line.split(" ")) != 4:
            continue
        fields = line.split(" ")
        if len(fields) != 4:  # edited by hand, or written otherwise: read it as awk's next step did
            fields = [*line.split(), "", "", "", ""][:4]
            problems.append((number, "not four fields separated by single spaces; read by blanks"))
        for column, name, value in _columns(line, fields):
            if value and not _is_number(value):
                errors.append((number, column, f"{name} '{value}' is not a number"))
        rows.append(ResultRow(number, (fields[0], fields[1], fields[2], fields[3])))
    if not rows and not errors:
        errors.append((len([ln for ln in lines if ln.strip()]) or 1, 1,
                       "no result rows under the header: the run this file comes from printed no results"))
    return ResultCsv(rows, problems, errors)


_COLUMN_NAMES = RESULT_HEADER.split()


def _columns(line: str, fields: list[str]) -> list[tuple[int, str, str]]:
    """(1-based column, header name, text) of each of a row's four fields as found in ``line``."""
    out, at = [], 0
    for name, value in zip(_COLUMN_NAMES, fields, strict=True):
        found = line.find(value, at) if value else at
        out.append((found + 1, name, value))
        at = found + len(value)
    return out


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def tool_totals(rows: list[tuple[str, str, str, str]]) -> dict[str, float | int]:
    """The totals parallel-libgfapi printed, as its awk computed them: fields split by blanks (an empty
    field collapses, so a missing file rate moves IOPS into its place), rows with a third field summed."""
    done = 0
    mbs = fps = iops = 0.0
    for row in rows:
        words = " ".join(row).split()
        if len(words) >= 3:
            done += 1
            mbs += _number(words[1])
            fps += _number(words[2])
            iops += _number(words[3]) if len(words) > 3 else 0.0
    return {"threads_finished": done, "threads": len(rows), "transfer_rate_mb_s": round(mbs, 2),
            "file_rate_files_s": round(fps, 2), "iops": round(iops, 2)}


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0
