"""Put a working gfapi worker binary on a host: upload the C source and build it there, once.

Binaries live in ``<cache>/<build id>/`` on the host, where the build id hashes the source and the
compiler flags, so a changed worker is rebuilt and an unchanged one is reused (checked by running
it with ``--version``, which also proves its shared libraries load). The libgfapi build is tried
first; a host without libgfapi's headers or library gets a POSIX-only binary when the test does
not need libgfapi, and a clear message when it does. Everything runs through the transport as argv
lists, so the same code builds locally and, over SSH, on remote hosts.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import re
import secrets
from collections.abc import Callable, Sequence
from importlib import resources

from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.transport import StartError, Transport
from gftpwb.kinds.gfapi.job import WORKER_NAME

SOURCE_NAME = "gfapi_worker.c"
CFLAGS = ("-O2", "-Wall", "-Wextra", "-pthread")
GFAPI_DEFINE = "-DGFTPWB_WITH_GFAPI"
GFAPI_LIBS = ("-lgfapi",)
COMMAND_TIMEOUT_S = 180.0
VERSION_PREFIX = "gftpwb-gfapi-worker 1 "


class WorkerBuildError(Exception):
    """The worker cannot be built or run on a host; the message says what to install."""


def source_bytes() -> bytes:
    return resources.files("gftpwb.kinds.gfapi").joinpath("worker", SOURCE_NAME).read_bytes()


def build_id(source: bytes, cc: Sequence[str] = ("cc",)) -> str:
    digest = hashlib.sha256(source)
    digest.update("\0".join([*cc, *CFLAGS, GFAPI_DEFINE, *GFAPI_LIBS]).encode())
    return digest.hexdigest()[:16]


CACHE_SUBDIR = ".cache/gftpwb/workers"


def default_cache_dir(host: str) -> str | None:
    """Where binaries go on ``host``: ``$GFTPWB_WORKER_DIR`` (a path valid on every host, e.g. on a
    shared file system), else ~/.cache/gftpwb/workers - for this machine its own, for an SSH host
    None: the builder asks that host for its $HOME."""
    if os.environ.get("GFTPWB_WORKER_DIR"):
        return os.environ["GFTPWB_WORKER_DIR"]
    if host == LOCAL:
        return os.path.join(os.path.expanduser("~"), CACHE_SUBDIR)
    return None


async def run_command(transport: Transport, argv: Sequence[str], timeout: float = COMMAND_TIMEOUT_S) -> tuple[int, str]:
    """Run argv on the transport's host; (exit code, stdout+stderr). Raises StartError."""
    proc = await transport.start(list(argv))
    chunks: list[bytes] = []
    try:
        async with asyncio.timeout(timeout):
            async for _stream, data in proc.output():
                chunks.append(data)
            code = await proc.wait()
    except TimeoutError:
        await proc.stop()
        code = await proc.wait()
        chunks.append(f"\n(gftpwb: stopped after {timeout:g}s)".encode())
    except asyncio.CancelledError:
        await asyncio.shield(proc.stop())
        raise
    return code, b"".join(chunks).decode("utf-8", errors="replace")


MISSING_GFAPI = re.compile(r"glusterfs/api/glfs\.h|cannot find -lgfapi|-lgfapi: No such file", re.IGNORECASE)


def _first_error(output: str) -> str:
    for line in output.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[0] if lines else "no output"


class WorkerBuilder:
    """Finds or builds the worker on each host; remembers what it found for the session."""

    def __init__(self, cache_dir_for: Callable[[str], str | None] = default_cache_dir, cc: Sequence[str] = ("cc",)):
        self.cache_dir_for = cache_dir_for
        self.cc = tuple(cc)
        self.source = source_bytes()
        self.build_id = build_id(self.source, self.cc)
        self._known: dict[tuple[object, str, bool], str] = {}
        self._locks: dict[tuple[object, str], asyncio.Lock] = {}

    async def cache_dir(self, transport: Transport, host: str) -> str:
        """The cache directory on ``host``; an SSH host is asked for its $HOME (no shell needed)."""
        configured = self.cache_dir_for(host)
        if configured:
            return configured.rstrip("/")
        try:
            code, out = await run_command(transport, ["printenv", "HOME"], timeout=30)
        except StartError as exc:
            raise WorkerBuildError(f"host {host}: cannot reach it to find its home directory: {exc}") from None
        home = out.strip().splitlines()[-1] if out.strip() else ""
        if code != 0 or not home.startswith("/"):
            raise WorkerBuildError(f"host {host}: no usable $HOME ({home or 'unset'}) for the worker cache; set "
                                   "GFTPWB_WORKER_DIR to a directory valid on every host")
        return f"{home.rstrip('/')}/{CACHE_SUBDIR}"

    async def ensure(self, transport: Transport, host: str, *, need_gfapi: bool) -> str:
        """The path of a working worker binary on ``host``; raises WorkerBuildError."""
        memo = (id(transport), host, need_gfapi)
        if memo in self._known:
            return self._known[memo]
        directory = f"{await self.cache_dir(transport, host)}/{self.build_id}"
        # Hosts whose transports say they share their files (Slurm nodes with build: shared) build once.
        scope = getattr(transport, "build_scope", None) or id(transport)
        key = (scope, directory, need_gfapi)
        if key in self._known:
            return self._known[key]
        lock = self._locks.setdefault((scope, directory), asyncio.Lock())
        async with lock:  # hosts sharing a file system and a transport (local, namespaces) build once
            if key in self._known:
                return self._known[key]
            path = await self._find_or_build(transport, host, directory, need_gfapi)
        self._known[key] = self._known[memo] = path
        return path

    async def _works(self, transport: Transport, path: str, capability: str | None) -> bool:
        try:
            code, out = await run_command(transport, [path, "--version"], timeout=30)
        except StartError:
            return False
        return code == 0 and out.startswith(VERSION_PREFIX) and (capability is None or capability in out)

    async def _find_or_build(self, transport: Transport, host: str, directory: str, need_gfapi: bool) -> str:
        full = f"{directory}/{WORKER_NAME}"
        posix = f"{directory}/{WORKER_NAME}-posix"
        if await self._works(transport, full, "gfapi"):
            return full
        if not need_gfapi and await self._works(transport, posix, None):
            return posix
        source = f"{directory}/{SOURCE_NAME}"
        await self._upload(transport, host, source)
        code, out = await self._compile(transport, host, source, full, with_gfapi=True)
        if code == 0 and await self._works(transport, full, "gfapi"):
            return full
        missing = bool(MISSING_GFAPI.search(out))
        if need_gfapi:
            if missing:
                raise WorkerBuildError(
                    f"host {host}: libgfapi's headers or library are missing ({_first_error(out)}); install "
                    "libglusterfs-dev (Debian/Ubuntu) or glusterfs-api-devel (RHEL/Fedora). POSIX mode (a test "
                    "with directory: and no volume:) still works on this host")
            raise WorkerBuildError(f"host {host}: building the gfapi worker failed: {_first_error(out)}")
        code, out2 = await self._compile(transport, host, source, posix, with_gfapi=False)
        if code == 0 and await self._works(transport, posix, None):
            return posix
        raise WorkerBuildError(f"host {host}: building the worker failed: {_first_error(out2)}")

    async def _upload(self, transport: Transport, host: str, remote: str) -> None:
        local = resources.files("gftpwb.kinds.gfapi").joinpath("worker", SOURCE_NAME)
        with resources.as_file(local) as path:
            try:
                await transport.upload(str(path), remote)
            except OSError as exc:
                raise WorkerBuildError(f"host {host}: cannot upload the worker source to {remote}: "
                                       f"{exc.strerror or exc}") from None

    async def _compile(self, transport: Transport, host: str, source: str, target: str,
                       *, with_gfapi: bool) -> tuple[int, str]:
        tmp = f"{target}.tmp-{secrets.token_hex(4)}"
        argv = [*self.cc, *CFLAGS, *([GFAPI_DEFINE] if with_gfapi else []), "-o", tmp, source,
                *(GFAPI_LIBS if with_gfapi else ())]
        try:
            code, out = await run_command(transport, argv)
        except StartError as exc:
            raise WorkerBuildError(f"host {host}: no C compiler to build the worker ({exc}); install gcc "
                                   "(Debian: build-essential)") from None
        if code != 0:
            await run_command(transport, ["rm", "-f", tmp])
            return code, out
        code, mv_out = await run_command(transport, ["mv", "-f", tmp, target])
        return code, out + mv_out
