"""Shared by the sampler tests: a sampler's output read as it comes until enough readings are in, and
its whole output read back as each monitor's figures."""

from __future__ import annotations

import os
import select
import subprocess
from collections import Counter

from gftpwb.core.monitors.model import Monitor
from gftpwb.core.monitors.readers import reader_for
from gftpwb.core.monitors.sampler import ClockLine, Reading, SamplerStream
from support.polling import eventually


def readings(out: bytes, nonce: str, monitors: list[Monitor], probes: list) -> dict[str, list]:
    """monitor id -> the figures of its readings in ``out`` (the clock line first, with an epoch);
    ``probes`` as :func:`gftpwb.core.monitors.plan.probes_by_host` pairs them with their monitors."""
    items = SamplerStream(nonce).feed(out)
    assert isinstance(items[0], ClockLine) and items[0].epoch is not None
    readers = {p.index: reader_for(m) for m, p in probes}
    got: dict[str, list] = {}
    for item in items[1:]:
        got.setdefault(monitors[item.index].id, []).append(readers[item.index].read(item))
    return got


def counts(out: bytes, nonce: str, monitors: list[Monitor]) -> Counter:
    """monitor id -> how many whole readings of it ``out`` holds (a reading still being written is not one)."""
    return Counter(monitors[item.index].id for item in SamplerStream(nonce).feed(out) if isinstance(item, Reading))


def read_until(proc: subprocess.Popen, nonce: str, monitors: list[Monitor], at_least: dict[str, int]) -> bytes:
    """What the sampler ``proc`` wrote on stdout, read as it comes until each monitor id of ``at_least``
    has that many whole readings: the event a test waits for instead of a sampling window. Fails if the
    sampler ends first, or never gets there (naming the counts it saw)."""
    fd = proc.stdout.fileno()  # type: ignore[union-attr]
    out = bytearray()
    ended = False

    def enough() -> bool:
        nonlocal ended
        while not ended and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            ended = not chunk
            out.extend(chunk)
        seen = counts(bytes(out), nonce, monitors)
        if all(seen[key] >= n for key, n in at_least.items()):
            return True
        assert not ended, f"the sampler ended (status {proc.wait()}) before {at_least}: {dict(seen)}"
        return False

    eventually(enough, f"readings {at_least}", detail=lambda: dict(counts(bytes(out), nonce, monitors)))
    return bytes(out)
