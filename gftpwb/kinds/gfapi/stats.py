"""Results of a gfapi run: per thread, per process, per host and for the whole cluster. Pure.

Aggregates are never sums of rates over different intervals (parallel-libgfapi's result totals
were): each group's rate is its work divided by one window on one clock, the controller's, to
which every thread's start is corrected with its host's clock offset.

* **last done**: all the work, over the window from the group's first thread start to its last
  thread end;
* **first done** (stonewalled): the work every thread had done when the group's first thread
  finished all of its files, over the window from the first start to that moment, with the
  percentage of the requested work done by then. Counters at that instant are interpolated
  between the thread's progress samples, which the controller requests from every worker the
  moment the first thread finishes, so they are at most that message's latency apart.
* **start skew**: latest minus earliest thread start.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .latency import Histogram

MIB = 1024 * 1024
NS = 1_000_000_000


@dataclass
class ThreadResult:
    """What one worker thread did, as the controller saw it."""

    host: str
    process: int
    thread: int
    status: str  # ok, failed, stopped, or not-started (its process never got going)
    error: str = ""
    start_ns: int | None = None  # controller clock (Unix ns): the host's report minus its clock offset
    host_start_ns: int | None = None  # the start as the host's clock read it
    elapsed_ns: int = 0
    files: int = 0
    ios: int = 0
    bytes: int = 0
    samples: list[tuple[int, int, int, int]] = field(default_factory=list)  # (elapsed_ns, files, ios, bytes)
    latency: dict[str, Histogram] = field(default_factory=dict)
    requested_files: int = 0
    requested_ios: int = 0
    requested_bytes: int = 0

    @property
    def end_ns(self) -> int | None:
        return None if self.start_ns is None else self.start_ns + self.elapsed_ns

    def counters_at(self, at_ns: int) -> tuple[float, float, float]:
        """(files, ios, bytes) done at controller time ``at_ns``, interpolated between samples."""
        if self.start_ns is None or at_ns <= self.start_ns:
            return (0.0, 0.0, 0.0)
        rel = at_ns - self.start_ns
        if rel >= self.elapsed_ns:
            return (float(self.files), float(self.ios), float(self.bytes))
        points = [(0, 0, 0, 0), *sorted(s for s in self.samples if 0 < s[0] < self.elapsed_ns),
                  (self.elapsed_ns, self.files, self.ios, self.bytes)]
        i = bisect_right([p[0] for p in points], rel)
        (e0, *c0), (e1, *c1) = points[i - 1], points[i]
        f = (rel - e0) / (e1 - e0) if e1 > e0 else 1.0
        return tuple(a + (b - a) * f for a, b in zip(c0, c1, strict=True))


def rates(files: float, ios: float, nbytes: float, window_ns: int, *, moves_data: bool = True) -> dict[str, Any]:
    """Counters over a window and their rates. An operation that moves no data (unlink) has files/s
    only: its MiB/s and IOPS are None, not 0, which would read as a measured standstill."""
    seconds = window_ns / NS
    per_s = (lambda v: round(v / seconds, 3)) if seconds > 0 else (lambda v: None)
    return {"seconds": round(seconds, 6), "files": round(files, 1), "ios": round(ios, 1), "bytes": round(nbytes),
            "mib_s": per_s(nbytes / MIB) if moves_data else None, "files_s": per_s(files),
            "iops": per_s(ios) if moves_data else None}


def moves_data(threads: Iterable[ThreadResult]) -> bool:
    """Whether the work asked of these threads reads or writes data (every workload but unlink)."""
    return any(t.requested_bytes or t.requested_ios for t in threads)


def latency_summary(histograms: Iterable[dict[str, Histogram]]) -> dict[str, Histogram]:
    merged: dict[str, Histogram] = {}
    for per_op in histograms:
        for op, h in per_op.items():
            merged.setdefault(op, Histogram()).merge(h)
    return {op: h for op, h in merged.items() if h.count}


def group_stats(threads: list[ThreadResult]) -> dict[str, Any]:
    """Counters, first-done and last-done rates and latency of a group of threads."""
    started = [t for t in threads if t.start_ns is not None]
    totals = (sum(t.files for t in threads), sum(t.ios for t in threads), sum(t.bytes for t in threads))
    requested = (sum(t.requested_files for t in threads), sum(t.requested_ios for t in threads),
                 sum(t.requested_bytes for t in threads))
    out: dict[str, Any] = {
        "threads": len(threads), "ok": sum(t.status == "ok" for t in threads),
        "files": totals[0], "ios": totals[1], "bytes": totals[2],
        "requested": {"files": requested[0], "ios": requested[1], "bytes": requested[2]},
        "start_skew_ms": None, "first_done": None, "last_done": None,
        "latency": {op: h.summary_us() for op, h in sorted(latency_summary(t.latency for t in threads).items())},
    }
    if not started:
        return out
    t0 = min(t.start_ns for t in started)
    out["start_skew_ms"] = round((max(t.start_ns for t in started) - t0) / 1e6, 3)
    tn = max(t.end_ns for t in started)
    data = moves_data(threads)
    out["last_done"] = rates(*totals, tn - t0, moves_data=data)
    finished = [t for t in started if t.status == "ok"]
    if finished:
        t1 = min(t.end_ns for t in finished)
        at = [t.counters_at(t1) for t in started]
        done = tuple(sum(c[i] for c in at) for i in range(3))
        first = rates(*done, t1 - t0, moves_data=data)
        if requested[2]:
            first["pct_done"] = round(100 * done[2] / requested[2], 2)
        elif requested[0]:
            first["pct_done"] = round(100 * done[0] / requested[0], 2)
        else:
            first["pct_done"] = None
        out["first_done"] = first
    return out


def thread_ranges(labels: Iterable[int]) -> str:
    """'0-3, 6': thread numbers as ranges."""
    ordered = sorted(set(labels))
    parts: list[str] = []
    i = 0
    while i < len(ordered):
        j = i
        while j + 1 < len(ordered) and ordered[j + 1] == ordered[j] + 1:
            j += 1
        parts.append(str(ordered[i]) if i == j else f"{ordered[i]}-{ordered[j]}")
        i = j + 1
    return ", ".join(parts)


def partial(threads: list[ThreadResult]) -> dict[str, Any] | None:
    """What a run that did not pass still measured: the threads that finished (their own figures, over
    their own window: first start to last end of those threads only), which hosts and threads they are,
    and which failed (none, when the run went wrong only after every thread finished: a connection
    lost at the end). None when no thread finished. The runner asks for it only for a run that did
    not pass.

    Why apart from the cluster's figures: those count every thread's work until it stopped, over a window
    that ends wherever the failed threads' last report was; the survivors' are a result of their own,
    as a run on fewer hosts would have given, and say so (``spans``)."""
    ok = [t for t in threads if t.status == "ok"]
    if not ok:
        return None
    hosts = sorted({t.host for t in threads})
    failed = {h: [t.thread for t in threads if t.host == h and t.status != "ok"] for h in hosts}
    failed = {h: labels for h, labels in failed.items() if labels}
    whole = [h for h in hosts if h not in failed]
    some = [h for h in hosts if h in failed and any(t.host == h and t.status == "ok" for t in threads)]
    spans = f"{len(ok)} of {len(threads)} threads: " + ", ".join(
        [*whole, *(f"{h} (threads {thread_ranges(t.thread for t in ok if t.host == h)})" for h in some)])
    return {"spans": spans, "threads_ok": len(ok), "threads": len(threads), "hosts_ok": whole,
            "hosts_failed": sorted(failed),
            "failed_threads": {h: thread_ranges(labels) for h, labels in failed.items()},
            "survivors": group_stats(ok)}


def summarize(threads: list[ThreadResult]) -> dict[str, Any]:
    """Everything a gfapi record keeps in ``details["gfapi"]`` about the threads' work."""
    started = [t.start_ns for t in threads if t.start_ns is not None]
    t0 = min(started) if started else None
    cluster = group_stats(threads)
    first_done_at = None
    finished = [t.end_ns for t in threads if t.status == "ok" and t.end_ns is not None]
    if finished:
        first_done_at = min(finished)
    per_thread = []
    for t in sorted(threads, key=lambda t: (t.host, t.thread)):
        row: dict[str, Any] = {
            "host": t.host, "process": t.process, "thread": t.thread, "status": t.status, "error": t.error,
            "start_offset_ms": None if t.start_ns is None or t0 is None else round((t.start_ns - t0) / 1e6, 3),
            "start_unix_ns": t.start_ns, "host_start_unix_ns": t.host_start_ns,
            **rates(t.files, t.ios, t.bytes, t.elapsed_ns, moves_data=moves_data([t])),
            "requested": {"files": t.requested_files, "ios": t.requested_ios, "bytes": t.requested_bytes},
            "latency": {op: h.summary_us() for op, h in sorted(t.latency.items()) if h.count},
        }
        row["files"], row["ios"], row["bytes"] = t.files, t.ios, t.bytes
        if first_done_at is not None:
            f, i, b = t.counters_at(first_done_at)
            row["at_first_done"] = {"files": round(f, 1), "ios": round(i, 1), "bytes": round(b)}
        per_thread.append(row)
    hosts: dict[str, list[ThreadResult]] = {}
    processes: dict[tuple[str, int], list[ThreadResult]] = {}
    for t in threads:
        hosts.setdefault(t.host, []).append(t)
        processes.setdefault((t.host, t.process), []).append(t)
    per_process = []
    for (host, process), group in sorted(processes.items()):
        stats = group_stats(group)
        per_process.append({"host": host, "process": process, "threads": len(group),
                            "status": "ok" if all(t.status == "ok" for t in group) else "failed",
                            "files": stats["files"], "ios": stats["ios"], "bytes": stats["bytes"],
                            "last_done": stats["last_done"]})
    return {
        "start_skew_ms": cluster["start_skew_ms"],
        "cluster": cluster,
        "hosts": {host: group_stats(group) for host, group in sorted(hosts.items())},
        "processes": per_process,
        "threads": per_thread,
        "latency_histograms": {op: h.to_json()
                               for op, h in sorted(latency_summary(t.latency for t in threads).items())},
    }
