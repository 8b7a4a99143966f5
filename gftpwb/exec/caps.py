"""Read net.core.rmem_max / wmem_max on both ends of a transfer, before an auto-tune.

The values are read with a command (``cat`` of the two /proc/sys files) through the executor's
transport for the end's host, so the same code reads a remote end once the host inventory (SSH,
issue 4) maps URL hosts to hosts: pass ``host_of`` to :func:`read_path_caps`. Until then an end is
readable when it is this machine (a loopback or local address, or a ``file://`` URL, which guc
reads or writes on the host it runs on); for any other end the reason is reported instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from ..autotune.caps import SYSCTL_FILES, EndCaps, parse_caps
from ..simlink import LinkModel
from ..specs import RunSpec
from .executor import Executor
from .transport import StartError

READ_TIMEOUT_S = 15.0


def url_host(url: str) -> str | None:
    """The host of a URL, or None for a local path or file:// URL."""
    if url.startswith(("/", "file:")):
        return None
    return urlsplit(url).hostname


def local_names() -> set[str]:
    names = {"localhost", "127.0.0.1", "::1", "ip6-localhost"}
    with contextlib.suppress(OSError):
        names.add(socket.gethostname())
        names.add(socket.getfqdn())
        for info in socket.getaddrinfo(socket.gethostname(), None):
            names.add(str(info[4][0]))
    return names


def local_host_of(name: str) -> str | None:
    """The executor host that can read ``name``'s kernel settings: "local" for this machine."""
    if name.startswith("127.") or name in local_names():
        return "local"
    return None


async def read_end(executor: Executor, end: str, url: str, client_host: str,
                   host_of: Callable[[str], str | None] = local_host_of) -> EndCaps:
    name = url_host(url)
    host = client_host if name is None else host_of(name)
    label = name or f"{client_host} (file:// end)"
    if host is None:
        return EndCaps(end, label, error="not this machine, and no SSH host for it in the scenario")
    try:
        proc = await executor.transport_for(host).start(["cat", *SYSCTL_FILES])
    except StartError as exc:
        return EndCaps(end, label, error=str(exc))
    chunks: list[bytes] = []
    errors: list[bytes] = []
    try:
        async with asyncio.timeout(READ_TIMEOUT_S):
            async for stream, data in proc.output():
                (chunks if stream == "stdout" else errors).append(data)
            code = await proc.wait()
    except TimeoutError:
        await proc.stop(executor.kill_grace_s)
        return EndCaps(end, label, error=f"no answer within {READ_TIMEOUT_S:g}s")
    except asyncio.CancelledError:
        await asyncio.shield(proc.stop(executor.kill_grace_s))
        raise
    if code != 0:
        detail = b"".join(errors).decode(errors="replace").strip().splitlines()
        return EndCaps(end, label, error=detail[0] if detail else f"cat exited with status {code}")
    try:
        rmem, wmem = parse_caps(b"".join(chunks).decode(errors="replace"))
    except ValueError as exc:
        return EndCaps(end, label, error=str(exc))
    return EndCaps(end, label, rmem, wmem)


async def read_path_caps(executor: Executor, spec: RunSpec,
                         host_of: Callable[[str], str | None] = local_host_of) -> tuple[EndCaps, EndCaps]:
    """The caps of the source and target ends of ``spec``'s transfers (simulated: the link's)."""
    if spec.engine == "simulated":
        link = spec.link or LinkModel()
        cap = link.buffer_cap
        if cap is None:
            ends = [EndCaps(e, "SIMULATED link", error="the link model sets no buffer_cap")
                    for e in ("source", "target")]
        else:
            ends = [EndCaps(e, "SIMULATED link", cap, cap) for e in ("source", "target")]
        return ends[0], ends[1]
    source = await read_end(executor, "source", spec.source, spec.host, host_of)
    target = await read_end(executor, "target", spec.target, spec.host, host_of)
    return source, target
