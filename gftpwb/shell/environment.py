"""Collecting the environment of a scenario run (``meta.json``'s ``environment``): the host probe of
``hosts check``, run on every host the plan uses through that host's transport (this machine, or
over SSH), with the servers and addresses its runs talk to. What to probe and what the answers mean
is :mod:`gftpwb.core.environment`'s; this module runs the probes, all hosts at once, and never fails a
run: a host that does not answer is recorded with the reason."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from gftpwb import __version__
from gftpwb.core.environment import HostProbe, environment, probes
from gftpwb.core.hostcheck import ProbeFacts, parse_probe, probe_script
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import Transport
from gftpwb.shell.lab.wan import registered_links

PROBE_TIMEOUT_S = 30.0  # per host; banners have 10 s each inside the probe


async def probe_host(transport: Transport, probe: HostProbe, timeout_s: float = PROBE_TIMEOUT_S) -> ProbeFacts | str:
    """Run the probe on one host: its facts, or why there are none."""
    script = probe_script(probe.servers, probe.addresses)
    try:
        proc = await transport.start(["/bin/sh", "-c", script])
    except Exception as exc:  # a host that cannot be reached is recorded, never fatal
        return f"probe not started: {exc}"
    out = bytearray()
    try:
        async with asyncio.timeout(timeout_s):
            async for stream, data in proc.output():
                if stream == "stdout":
                    out += data
            await proc.wait()
    except TimeoutError:
        await proc.stop(1.0)
        return f"probe gave no answer within {timeout_s:g}s"
    except asyncio.CancelledError:  # Ctrl-C before the first run: leave nothing running
        await asyncio.shield(proc.stop(1.0))
        raise
    except Exception as exc:
        return f"probe failed: {exc}"
    return parse_probe(out.decode("utf-8", "replace"))


async def collect_environment(specs: Sequence[RunSpec], transport_for: Callable[[str], Transport]) -> dict[str, Any]:
    """The environment of every host ``specs`` run on (probed at once)."""
    started = time.monotonic()
    wanted = probes(specs)
    names = list(wanted)
    answers = await asyncio.gather(*(probe_host(transport_for(name), wanted[name]) for name in names))
    return environment(dict(zip(names, answers, strict=True)), version=__version__,
                       collected_at=datetime.now(UTC).isoformat(timespec="seconds"),
                       seconds=time.monotonic() - started, lab_links=registered_links(), wanted=wanted)
