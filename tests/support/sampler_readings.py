"""Shared by the sampler tests: a sampler's whole output read back as each monitor's figures."""

from __future__ import annotations

from gftpwb.core.monitors.model import Monitor
from gftpwb.core.monitors.readers import reader_for
from gftpwb.core.monitors.sampler import ClockLine, SamplerStream


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
