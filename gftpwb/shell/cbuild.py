"""Put a working binary of one of gftpwb's C programs on a host: upload its source and build it there, once.

gftpwb ships some programs as C source (the gfapi worker, the lab's delay line) because they must
run at speeds Python cannot, on hosts whose libraries it does not know in advance. Binaries live in
``<cache>/<build id>/`` on the host, where the build id hashes the source and the compiler flags,
so a changed program is rebuilt and an unchanged one is reused (checked by running it with
``--version``, which also proves its shared libraries load). Everything runs through a transport as
argv lists, so the same code builds locally and, over SSH, on remote hosts.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources

from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.transport import StartError, Transport

CFLAGS = ("-O2", "-Wall", "-Wextra", "-pthread")
COMMAND_TIMEOUT_S = 180.0
CACHE_SUBDIR = ".cache/gftpwb/workers"


class BuildError(Exception):
    """A program cannot be built or run on a host; the message says what to install."""


@dataclass(frozen=True)
class CProgram:
    """One of gftpwb's C programs: where its source is packaged and what its binary answers."""

    package: str  # the package whose folder ``folder`` holds the source
    folder: str
    source: str
    binary: str
    version_prefix: str  # ``binary --version`` starts with it
    label: str  # how messages name it: "the worker", "the delay line"
    id_flags: tuple[str, ...] = ()  # flags of every variant, part of the build id

    def source_bytes(self) -> bytes:
        return resources.files(self.package).joinpath(self.folder, self.source).read_bytes()

    def build_id(self, cc: Sequence[str] = ("cc",)) -> str:
        digest = hashlib.sha256(self.source_bytes())
        digest.update("\0".join([*cc, *CFLAGS, *self.id_flags]).encode())
        return digest.hexdigest()[:16]


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


def first_error(output: str) -> str:
    """The line of a compiler's output worth showing: the first that says error, else the first."""
    for line in output.splitlines():
        if "error" in line.lower():
            return line.strip()
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[0] if lines else "no output"


class ProgramBuilder:
    """Finds or builds one program on each host; remembers what it found for the session."""

    def __init__(self, program: CProgram, cache_dir_for: Callable[[str], str | None] = default_cache_dir,
                 cc: Sequence[str] = ("cc",)):
        self.program = program
        self.cache_dir_for = cache_dir_for
        self.cc = tuple(cc)
        self.build_id = program.build_id(self.cc)
        self._known: dict[tuple[object, ...], str] = {}
        self._locks: dict[tuple[object, str], asyncio.Lock] = {}

    async def cache_dir(self, transport: Transport, host: str) -> str:
        """The cache directory on ``host``; an SSH host is asked for its $HOME (no shell needed)."""
        configured = self.cache_dir_for(host)
        if configured:
            return configured.rstrip("/")
        try:
            code, out = await run_command(transport, ["printenv", "HOME"], timeout=30)
        except StartError as exc:
            raise BuildError(f"host {host}: cannot reach it to find its home directory: {exc}") from None
        home = out.strip().splitlines()[-1] if out.strip() else ""
        if code != 0 or not home.startswith("/"):
            raise BuildError(f"host {host}: no usable $HOME ({home or 'unset'}) for the build cache of "
                             f"{self.program.label}; set GFTPWB_WORKER_DIR to a directory valid on every host")
        return f"{home.rstrip('/')}/{CACHE_SUBDIR}"

    async def ensure(self, transport: Transport, host: str, variant: object = None) -> str:
        """The path of a working binary on ``host``; raises BuildError. ``variant`` tells apart the
        builds a subclass makes of one source (:meth:`find_or_build` decides what it means)."""
        memo = (id(transport), host, variant)
        if memo in self._known:
            return self._known[memo]
        directory = f"{await self.cache_dir(transport, host)}/{self.build_id}"
        # Hosts whose transports say they share their files (Slurm nodes with build: shared) build once.
        scope = getattr(transport, "build_scope", None) or id(transport)
        key = (scope, directory, variant)
        if key in self._known:
            return self._known[key]
        lock = self._locks.setdefault((scope, directory), asyncio.Lock())
        async with lock:  # hosts sharing a file system and a transport (local, namespaces) build once
            if key in self._known:
                return self._known[key]
            path = await self.find_or_build(transport, host, directory, variant)
        self._known[key] = self._known[memo] = path
        return path

    async def find_or_build(self, transport: Transport, host: str, directory: str, variant: object) -> str:
        """One variant, no libraries: the binary in ``directory``, built when missing or broken."""
        path = f"{directory}/{self.program.binary}"
        if await self.works(transport, path):
            return path
        source = f"{directory}/{self.program.source}"
        await self.upload(transport, host, source)
        code, out = await self.compile(transport, host, source, path)
        if code == 0 and await self.works(transport, path):
            return path
        raise BuildError(f"host {host}: building {self.program.label} failed: {first_error(out)}")

    async def works(self, transport: Transport, path: str, capability: str | None = None) -> bool:
        try:
            code, out = await run_command(transport, [path, "--version"], timeout=30)
        except StartError:
            return False
        return code == 0 and out.startswith(self.program.version_prefix) and (capability is None or capability in out)

    async def upload(self, transport: Transport, host: str, remote: str) -> None:
        local = resources.files(self.program.package).joinpath(self.program.folder, self.program.source)
        with resources.as_file(local) as path:
            try:
                await transport.upload(str(path), remote)
            except OSError as exc:
                raise BuildError(f"host {host}: cannot upload the source of {self.program.label} to {remote}: "
                                 f"{exc.strerror or exc}") from None

    async def compile(self, transport: Transport, host: str, source: str, target: str,
                      flags: Sequence[str] = (), libs: Sequence[str] = ()) -> tuple[int, str]:
        tmp = f"{target}.tmp-{secrets.token_hex(4)}"
        argv = [*self.cc, *CFLAGS, *flags, "-o", tmp, source, *libs]
        try:
            code, out = await run_command(transport, argv)
        except StartError as exc:
            raise BuildError(f"host {host}: no C compiler to build {self.program.label} ({exc}); install gcc "
                             "(Debian: build-essential)") from None
        if code != 0:
            await run_command(transport, ["rm", "-f", tmp])
            return code, out
        code, mv_out = await run_command(transport, ["mv", "-f", tmp, target])
        return code, out + mv_out
