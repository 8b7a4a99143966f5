"""Read net.core.rmem_max / wmem_max on both ends of a transfer, before an auto-tune.

The values are read with a command (``cat`` of the two /proc/sys files) through the executor's
transport for the end's host, so a remote end is read over SSH like any remote run. Which host an
end is: a loopback address is the host guc runs on (the tune's ``on``); an address or name of an
inventory host is that host; this machine's own names are ``local``; a ``file://`` URL is the host
guc runs on. For any other end the reason it cannot be read is reported instead.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Callable
from urllib.parse import urlsplit

from gftpwb.core.registry import registry
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.transport import StartError
from gftpwb.kinds.autotune.caps import SYSCTL_FILES, EndCaps, parse_caps
from gftpwb.shell.context import RunContext

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


def is_local_address(name: str) -> bool:
    """Whether ``name`` (an address or a resolvable name) is an address of this machine: binding a
    socket to it succeeds only for local addresses (a lab bridge address counts, too)."""
    try:
        infos = socket.getaddrinfo(name, None, type=socket.SOCK_DGRAM)
    except OSError:
        return False
    for family, kind, proto, _, address in infos:
        try:
            with socket.socket(family, kind, proto) as probe:
                probe.bind((address[0], 0))
            return True
        except OSError:
            continue
    return False


LOOPBACK = frozenset({"localhost", "::1", "ip6-localhost"})


def host_resolver(client_host: str, url_hosts: dict[str, str] | None = None) -> Callable[[str], str | None]:
    """A function from a URL's host name to the executor host that can read its kernel settings."""
    inventory = dict(url_hosts or {})

    def host_of(name: str) -> str | None:
        if name.startswith("127.") or name in LOOPBACK:
            return client_host  # loopback is the machine guc runs on
        if name in inventory:
            return inventory[name]
        if name in local_names() or is_local_address(name):
            return "local"
        return None

    return host_of


def local_host_of(name: str) -> str | None:
    """The resolver for a tune run from this machine with no inventory."""
    return host_resolver("local")(name)


async def read_end(ctx: RunContext, end: str, url: str, client_host: str,
                   host_of: Callable[[str], str | None] = local_host_of) -> EndCaps:
    name = url_host(url)
    host = client_host if name is None else host_of(name)
    label = name or f"{client_host} (file:// end)"
    if host is None:
        return EndCaps(end, label, error="not this machine, and no host of the scenario's inventory has this "
                                         "address or name")
    try:
        proc = await ctx.transport_for(host).start(["cat", *SYSCTL_FILES])
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
        await proc.stop(ctx.kill_grace_s)
        return EndCaps(end, label, error=f"no answer within {READ_TIMEOUT_S:g}s")
    except asyncio.CancelledError:
        await asyncio.shield(proc.stop(ctx.kill_grace_s))
        raise
    if code != 0:
        detail = b"".join(errors).decode(errors="replace").strip().splitlines()
        return EndCaps(end, label, error=detail[0] if detail else f"cat exited with status {code}")
    try:
        rmem, wmem = parse_caps(b"".join(chunks).decode(errors="replace"))
    except ValueError as exc:
        return EndCaps(end, label, error=str(exc))
    return EndCaps(end, label, rmem, wmem)


async def read_path_caps(ctx: RunContext, spec: RunSpec,
                         host_of: Callable[[str], str | None] | None = None) -> tuple[EndCaps, EndCaps]:
    """The caps of the source and target ends of ``spec``'s transfers (on another engine: the ones it
    models)."""
    host_of = host_of or host_resolver(spec.host, spec.params.get("url_hosts"))
    if spec.engine != REAL_ENGINE:
        engine = registry().engine(spec.engine)
        cap = engine.buffer_cap(spec)
        where = f"{engine.label} link"
        if cap is None:
            ends = [EndCaps(e, where, error="the link model sets no buffer_cap") for e in ("source", "target")]
        else:
            ends = [EndCaps(e, where, cap, cap) for e in ("source", "target")]
        return ends[0], ends[1]
    source = await read_end(ctx, "source", spec.source, spec.host, host_of)
    target = await read_end(ctx, "target", spec.target, spec.host, host_of)
    return source, target
