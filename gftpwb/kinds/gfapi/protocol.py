"""The gfapi worker's line protocol (version 1), parsed sans-I/O: bytes in, typed messages out.

The worker (``gftpwb/kinds/gfapi/worker/gfapi_worker.c``) writes whole lines on stdout; fields are separated
by one space, counters are cumulative since the thread's start, times are nanoseconds::

    hello <protocol> <pid> <threads> <gfapi|posix> <workload> <thread-base>
    r <thread> <found-size>                 thread prepared (connected, directories made); the size of
                                            its first file as found (-1: none yet, as for seq-wr)
    ready <n>                               every thread prepared or failed; n are ready
    s <thread> <start-unix-ns>              the thread's measurement started (host clock)
    p <thread> <elapsed-ns> <files> <ios> <bytes>
    h <thread> <op> <count> <sum-ns> <max-ns> <bucket>:<n>[,<bucket>:<n>...]
                                            latency counts since the thread's last h line of op
    e <thread> <errno> <op> <message...>    why the thread failed (precedes its d line)
    d <thread> <ok|failed|stopped> <elapsed-ns> <files> <ios> <bytes>
    fatal <exit-code> <message...>          the process cannot go on (before any start)
    end <exit-code>                         every thread reported its d line; nothing follows

Commands on the worker's stdin: ``start <unix-ns>`` (0: now; otherwise sleep until that time of
the host clock), ``snap`` (report every thread now), ``stop`` (end at the next operation). End of
input before ``start`` aborts (exit 4); after it, it stops the run (the controller is gone).

Exit codes: 0 all threads ok, 1 some thread failed, 2 usage, 3 preparation failed (connect),
4 no start signal, 5 stopped.

stderr is free text (libgfapi's log at the requested trace level) and comes out as :class:`Text`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PROTOCOL_VERSION = 1
OPS = ("open", "read", "write", "fsync", "close", "unlink", "file")
EXIT_MEANINGS = {0: "all threads finished", 1: "some thread failed", 2: "bad worker arguments",
                 3: "preparation failed", 4: "no start signal (stdin closed)", 5: "stopped"}
MAX_LINE = 1 << 20  # a line longer than this is not the protocol: cut it and report it as text


@dataclass(frozen=True)
class Hello:
    protocol: int
    pid: int
    threads: int
    mode: str
    workload: str
    thread_base: int


@dataclass(frozen=True)
class ThreadReady:
    thread: int
    found_size: int = -1  # bytes of the thread's first file before the start; -1: none (seq-wr makes them)


@dataclass(frozen=True)
class ProcessReady:
    ready: int


@dataclass(frozen=True)
class ThreadStarted:
    thread: int
    start_unix_ns: int


@dataclass(frozen=True)
class Sample:
    thread: int
    elapsed_ns: int
    files: int
    ios: int
    bytes: int


@dataclass(frozen=True)
class HistogramDelta:
    thread: int
    op: str
    count: int
    sum_ns: int
    max_ns: int
    buckets: dict[int, int] = field(hash=False)


@dataclass(frozen=True)
class ThreadError:
    thread: int
    errno: int
    op: str
    message: str


@dataclass(frozen=True)
class ThreadDone:
    thread: int
    status: str  # ok, failed, stopped
    elapsed_ns: int
    files: int
    ios: int
    bytes: int


@dataclass(frozen=True)
class Fatal:
    exit_code: int
    message: str


@dataclass(frozen=True)
class End:
    exit_code: int


@dataclass(frozen=True)
class Text:
    """A line that is not protocol: stderr, or a malformed stdout line (``malformed`` says so)."""

    stream: str
    text: str
    malformed: bool = False


Message = (Hello | ThreadReady | ProcessReady | ThreadStarted | Sample | HistogramDelta | ThreadError | ThreadDone
           | Fatal | End | Text)


def _ints(fields: list[str], n: int) -> list[int]:
    if len(fields) != n:
        raise ValueError(f"expected {n} fields, got {len(fields)}")
    return [int(f) for f in fields]


def _buckets(text: str) -> dict[int, int]:
    out: dict[int, int] = {}
    for part in text.split(","):
        index, _, count = part.partition(":")
        out[int(index)] = out.get(int(index), 0) + int(count)
    return out


def parse_line(line: str) -> Message:
    """One stdout line (without its newline) as a message; anything unexpected becomes Text."""
    tag, _, rest = line.partition(" ")
    try:
        if tag == "p":
            t, elapsed, files, ios, nbytes = _ints(rest.split(" "), 5)
            return Sample(t, elapsed, files, ios, nbytes)
        if tag == "h":
            fields = rest.split(" ")
            if len(fields) != 6 or fields[1] not in OPS:
                raise ValueError("bad histogram line")
            t, count, sum_ns, max_ns = (int(fields[0]), int(fields[2]), int(fields[3]), int(fields[4]))
            return HistogramDelta(t, fields[1], count, sum_ns, max_ns, _buckets(fields[5]))
        if tag == "s":
            t, start = _ints(rest.split(" "), 2)
            return ThreadStarted(t, start)
        if tag == "d":
            fields = rest.split(" ")
            if len(fields) != 6 or fields[1] not in ("ok", "failed", "stopped"):
                raise ValueError("bad done line")
            t, elapsed, files, ios, nbytes = (int(fields[0]), *(int(f) for f in fields[2:]))
            return ThreadDone(t, fields[1], elapsed, files, ios, nbytes)
        if tag == "r":
            t, found = _ints(rest.split(" "), 2)
            return ThreadReady(t, found)
        if tag == "ready":
            (n,) = _ints(rest.split(" "), 1)
            return ProcessReady(n)
        if tag == "e":
            t, errno, op, message = rest.split(" ", 3)
            return ThreadError(int(t), int(errno), op, message)
        if tag == "hello":
            fields = rest.split(" ")
            if len(fields) != 6:
                raise ValueError("bad hello line")
            return Hello(int(fields[0]), int(fields[1]), int(fields[2]), fields[3], fields[4], int(fields[5]))
        if tag == "fatal":
            code, _, message = rest.partition(" ")
            return Fatal(int(code), message)
        if tag == "end":
            (code,) = _ints(rest.split(" "), 1)
            return End(code)
    except ValueError:
        pass
    return Text("stdout", line, malformed=True)


class WorkerStream:
    """Splits one worker process's output chunks into lines and parses them.

    Chunks may cut lines anywhere; stdout and stderr are buffered separately. ``close()`` returns
    what an unterminated last line held (a worker killed mid-write leaves one).
    """

    def __init__(self) -> None:
        self._pending: dict[str, bytes] = {"stdout": b"", "stderr": b""}

    def feed(self, stream: str, data: bytes) -> list[Message]:
        buf = self._pending.get(stream, b"") + data
        *lines, rest = buf.split(b"\n")
        out: list[Message] = []
        if len(rest) > MAX_LINE:
            lines.append(rest[:MAX_LINE])
            rest = b""
        self._pending[stream] = rest
        for raw in lines:
            out.append(self._message(stream, raw))
        return out

    def close(self) -> list[Message]:
        """What unterminated last lines held: a cut-off stdout line is never trusted as protocol."""
        out: list[Message] = []
        for stream, raw in self._pending.items():
            if raw:
                text = raw.decode("utf-8", errors="replace").rstrip("\r")
                out.append(Text(stream, text, malformed=stream == "stdout"))
        self._pending = {"stdout": b"", "stderr": b""}
        return out

    @staticmethod
    def _message(stream: str, raw: bytes) -> Message:
        text = raw.decode("utf-8", errors="replace").rstrip("\r")
        if stream != "stdout":
            return Text(stream, text)
        return parse_line(text)

