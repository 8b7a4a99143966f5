"""Probing hosts for ``gftpwb hosts check``: connect, run the probe script, sample the clock.

The pure half (probe script, parsing, buffer caps, clock maths, report) lives in
:mod:`gftpwb.core.hostcheck` and :mod:`gftpwb.core.clockoffset`; this module only moves bytes and reads clocks.
"""

from __future__ import annotations

import asyncio
import time

from gftpwb.core.clockoffset import ZERO
from gftpwb.core.hostcheck import ERROR, OK, PROBE_SCRIPT, HostReport, parse_probe
from gftpwb.core.scenario.model import LOCAL, Host
from gftpwb.shell.transports.local import LocalTransport
from gftpwb.shell.transports.ssh import SshError, SshPool, sample_clock


async def check_ssh_host(pool: SshPool, host: Host) -> HostReport:
    started = time.monotonic()
    transport = pool.transport(host.name)
    address = f"{host.address}:{host.port}"
    try:
        status, out, err = await transport.run_shell(PROBE_SCRIPT, timeout_s=host.connect_timeout_s + 20)
        facts = parse_probe(out.decode("utf-8", "replace"))
        if status != 0:
            return HostReport(host.name, address, ERROR, f"probe exited with status {status}: "
                              f"{err.decode('utf-8', 'replace').strip()[-300:]}", facts,
                              seconds=time.monotonic() - started)
        try:
            clock = await sample_clock(transport)
            error = ""
        except (SshError, ValueError, TimeoutError) as exc:
            clock, error = None, f"clock offset not measured: {exc}"
        return HostReport(host.name, address, OK if not error else ERROR, error, facts, clock,
                          seconds=time.monotonic() - started)
    except SshError as exc:
        return HostReport(host.name, address, exc.status, str(exc), seconds=time.monotonic() - started)


async def check_local() -> HostReport:
    started = time.monotonic()
    proc = await LocalTransport().start(["/bin/sh", "-c", PROBE_SCRIPT])
    out = b""
    async for stream, data in proc.output():
        if stream == "stdout":
            out += data
    await proc.wait()
    return HostReport(LOCAL, "-", OK, "", parse_probe(out.decode("utf-8", "replace")), ZERO,
                      seconds=time.monotonic() - started)


async def check_hosts(hosts: list[Host], *, include_local: bool = True, accept_new_host_keys: bool = False,
                      notify=None) -> list[HostReport]:
    """Check every host at once (the pool limits simultaneous handshakes); local first."""
    pool = SshPool(hosts, accept_new_host_keys=accept_new_host_keys, notify=notify)
    try:
        steps = [check_ssh_host(pool, h) for h in hosts]
        if include_local:
            steps.insert(0, check_local())
        return list(await asyncio.gather(*steps))
    finally:
        await pool.close()
