"""Read the two results directories of ``gftpwb compare A B`` at the same time, one in a forked child.

Reading a directory of 100,000 records is CPU work (parsing, the read-back checks, each case's
statistics) that takes a few seconds, and compare read A, then B. On a machine with two cores or
more the child reads B while this process reads A: the wall time is about that of one directory
(the CPU time is the same, the child's counted in this process's rusage once it is reaped).

What comes back from the child is what compare reads of a directory
(:func:`gftpwb.core.compare.for_comparison`: its cases' statistics, not every run), pickled through
a pipe. Errors keep their order: A's first (the child is stopped), then B's, with the same messages
as reading them in turn. Where a child cannot be forked (no ``os.fork``, threads running, one CPU)
or its answer cannot be read, the directories are read in turn, as before.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading

from gftpwb.core.compare import for_comparison
from gftpwb.core.summary import DirectorySummary
from gftpwb.shell.results_index import read_directory


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _can_fork() -> bool:
    """Forking is safe only with no other thread (one could hold a lock the child needs)."""
    return hasattr(os, "fork") and threading.active_count() == 1 and _cpus() >= 2


def _child(path: str, out: int) -> None:
    """In the child: read ``path``, write (outcome, value) pickled to ``out``, end without clean-up."""
    code = 0
    try:
        try:
            payload: tuple[str, object] = ("ok", for_comparison(read_directory(path)))
        except Exception as exc:  # sent back to be raised where it would have been
            payload = ("error", exc)
        try:
            data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # an exception that cannot be pickled: the parent reads B itself
            data = pickle.dumps(("again", None))
        with os.fdopen(out, "wb") as pipe:
            pipe.write(data)
    except BaseException:  # nothing may run on in a forked child
        code = 1
    finally:
        os._exit(code)


_pending: list[int] = []


def reap_children() -> None:
    """Wait for the children :func:`read_for_comparison` left ending (call before the process ends)."""
    while _pending:
        pid = _pending.pop()
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def read_for_comparison(path_a: str, path_b: str) -> tuple[DirectorySummary, DirectorySummary]:
    """The summaries of A (whole) and B (what compare reads of it), read at the same time."""
    if not _can_fork():
        return read_directory(path_a), for_comparison(read_directory(path_b))
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its work is checked by what the parent gets)
        os.close(readable)
        _child(path_b, writable)
    os.close(writable)
    try:
        a = read_directory(path_a)
    except BaseException:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
        os.close(readable)
        os.waitpid(pid, 0)
        raise
    with os.fdopen(readable, "rb") as pipe:
        data = pipe.read()  # all of it once the child closes its end, before it ends
    # A child that has read 100,000 records takes a few tenths of a second to end (its memory
    # unmapped): the comparison goes on meanwhile, and the child is reaped by reap_children (its CPU
    # time counts in this process's rusage once reaped).
    _pending.append(pid)
    try:
        outcome, value = pickle.loads(data)
    except Exception:  # the child died or wrote nothing readable: read B here
        outcome, value = "again", None
    if outcome == "ok":
        return a, value  # type: ignore[return-value]
    if outcome == "error":
        raise value  # type: ignore[misc]
    return a, for_comparison(read_directory(path_b))
