"""Put a working gfapi worker binary on a host: built from its C source there, once
(:mod:`gftpwb.shell.cbuild`, the build cache every C program of gftpwb shares).

The libgfapi build is tried first; a host without libgfapi's headers or library gets a POSIX-only
binary when the test does not need libgfapi, and a clear message when it does.
"""

from __future__ import annotations

import re

from gftpwb.core.transport import Transport
from gftpwb.kinds.gfapi.job import WORKER_NAME
from gftpwb.shell.cbuild import (
    CFLAGS,
    BuildError,
    CProgram,
    ProgramBuilder,
    default_cache_dir,
    first_error,
)

SOURCE_NAME = "gfapi_worker.c"
GFAPI_DEFINE = "-DGFTPWB_WITH_GFAPI"
GFAPI_LIBS = ("-lgfapi",)
VERSION_PREFIX = "gftpwb-gfapi-worker 1 "
WORKER = CProgram(package="gftpwb.kinds.gfapi", folder="worker", source=SOURCE_NAME, binary=WORKER_NAME,
                  version_prefix=VERSION_PREFIX, label="the worker", id_flags=(GFAPI_DEFINE, *GFAPI_LIBS))
WorkerBuildError = BuildError
__all__ = ["CFLAGS", "WorkerBuildError", "WorkerBuilder", "default_cache_dir", "source_bytes"]


def source_bytes() -> bytes:
    return WORKER.source_bytes()


MISSING_GFAPI = re.compile(r"glusterfs/api/glfs\.h|cannot find -lgfapi|-lgfapi: No such file", re.IGNORECASE)


class WorkerBuilder(ProgramBuilder):
    """Finds or builds the worker on each host, with libgfapi when it can and must."""

    def __init__(self, cache_dir_for=default_cache_dir, cc=("cc",)):
        super().__init__(WORKER, cache_dir_for, cc)

    async def ensure(self, transport: Transport, host: str, variant: object = None, *, need_gfapi: bool = False) -> str:
        """The path of a working worker binary on ``host``; raises WorkerBuildError."""
        return await super().ensure(transport, host, bool(need_gfapi or variant))

    async def find_or_build(self, transport: Transport, host: str, directory: str, variant: object) -> str:
        need_gfapi = bool(variant)
        full = f"{directory}/{WORKER_NAME}"
        posix = f"{directory}/{WORKER_NAME}-posix"
        if await self.works(transport, full, "gfapi"):
            return full
        if not need_gfapi and await self.works(transport, posix):
            return posix
        source = f"{directory}/{SOURCE_NAME}"
        await self.upload(transport, host, source)
        code, out = await self.compile(transport, host, source, full, (GFAPI_DEFINE,), GFAPI_LIBS)
        if code == 0 and await self.works(transport, full, "gfapi"):
            return full
        missing = bool(MISSING_GFAPI.search(out))
        if need_gfapi:
            if missing:
                raise WorkerBuildError(
                    f"host {host}: libgfapi's headers or library are missing ({first_error(out)}); install "
                    "libglusterfs-dev (Debian/Ubuntu) or glusterfs-api-devel (RHEL/Fedora). POSIX mode (a test "
                    "with directory: and no volume:) still works on this host")
            raise WorkerBuildError(f"host {host}: building the gfapi worker failed: {first_error(out)}")
        code, out2 = await self.compile(transport, host, source, posix)
        if code == 0 and await self.works(transport, posix):
            return posix
        raise WorkerBuildError(f"host {host}: building the worker failed: {first_error(out2)}")
