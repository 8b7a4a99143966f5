"""Pausing Python's cyclic garbage collector while many objects are made at once.

Reading a journal of 100,000 records makes some three million objects that all live on: the
collector, started every 700 new objects, goes through the ever longer list of survivors again and
again, which made reading a journal take twice as long (and ``gftpwb report`` half its time). None
of them is part of a reference cycle, so nothing is lost by not looking for cycles meanwhile;
reference counting still frees everything as usual. The collector is the process's: a pause in one
thread (the TUI reads a directory in a worker) pauses it for all until the outermost pause ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic collection inside the ``with`` (nested uses and a collector already off are fine);
    the collector runs as before after it."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


@contextlib.contextmanager
def spared_from_gc() -> Iterator[None]:
    """Whatever is alive on entry (the records and summaries just read) is left out of the cyclic
    collections inside the ``with`` (``gc.freeze``), which then walk only what is made there (a
    report's pages and charts, collected as usual); on exit it is collected as before again."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
