"""The round-trip time to a transfer's ends, measured where its transfers start: the shortest of a
few TCP connects to each end's host and port (one SYN, one SYN-ACK: one round trip, the cost GridFTP
pays for its control and data connections; the shortest, as ping's minimum, because waiting for a
busy CPU or a queue only ever adds to a connect, and a loaded machine must not make a path look
new), by ``python3 -E -S -c`` on the tune's host through its transport, so a remote client host
measures its own path. An end that cannot be reached, a host
without python3, or a local file end gives no figure; the warm start then compares paths without it.
"""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

from gftpwb.core.transport import StartError
from gftpwb.shell.context import RunContext

CONNECTS = 5
PROBE_TIMEOUT_S = 15.0

# Runs on the tune's host under whatever python3 it has (kept to Python 3.4: old hosts).
PROGRAM = """\
import socket, sys, time
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
times = []
for _ in range(n):
    t0 = time.perf_counter()
    try:
        s = socket.create_connection((host, port), timeout=5)
    except OSError as e:
        sys.stderr.write("connect: %s\\n" % e)
        sys.exit(1)
    times.append(time.perf_counter() - t0)
    s.close()
print("%.9f" % min(times))
"""


def host_port(url: str, default_ports: dict[str, int]) -> tuple[str, int] | None:
    """The host and port a transfer connects to, or None for a local file end."""
    if not url or url.startswith(("/", "file:")):
        return None
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        return None
    port = port if port is not None else default_ports.get(parts.scheme.lower())
    if not parts.hostname or port is None:
        return None
    return parts.hostname, port


async def connect_rtt(ctx: RunContext, host: str, end: tuple[str, int]) -> tuple[float | None, str]:
    """The shortest connect time from ``host`` to ``end`` (seconds), or None and why not."""
    argv = ["python3", "-E", "-S", "-c", PROGRAM, end[0], str(end[1]), str(CONNECTS)]
    try:
        proc = await ctx.transport_for(host).start(argv)
    except StartError as exc:
        return None, str(exc)
    out: list[bytes] = []
    err: list[bytes] = []
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            async for stream, data in proc.output():
                (out if stream == "stdout" else err).append(data)
            code = await proc.wait()
    except TimeoutError:
        await proc.stop(ctx.kill_grace_s)
        return None, f"no answer within {PROBE_TIMEOUT_S:g}s"
    except asyncio.CancelledError:
        await asyncio.shield(proc.stop(ctx.kill_grace_s))
        raise
    if code != 0:
        lines = b"".join(err).decode(errors="replace").strip().splitlines()
        return None, lines[-1] if lines else f"exit status {code}"
    try:
        return float(b"".join(out).decode().strip()), ""
    except ValueError:
        return None, "unreadable answer"


async def path_rtt(ctx: RunContext, host: str, urls: tuple[str, str],
                   default_ports: dict[str, int]) -> tuple[float | None, list[str]]:
    """The larger RTT of the two ends (the slower one sets the pace), and a note per end that failed."""
    rtts, notes = [], []
    seen: dict[tuple[str, int], float | None] = {}
    for url in urls:
        end = host_port(url, default_ports)
        if end is None:
            continue
        if end not in seen:
            value, why = await connect_rtt(ctx, host, end)
            seen[end] = value
            if value is None:
                notes.append(f"RTT to {end[0]}:{end[1]} not measured: {why}")
        if seen[end] is not None:
            rtts.append(seen[end])
    return (max(rtts) if rtts else None), notes
