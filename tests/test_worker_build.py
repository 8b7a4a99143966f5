"""Building the worker on a host: once per source hash, POSIX-only without libgfapi, clear messages."""

import asyncio
import os
import stat
import textwrap

import pytest

from gftpwb.kinds.gfapi.run.worker_build import WORKER, WorkerBuilder, WorkerBuildError, source_bytes
from gftpwb.shell.transports.local import LocalTransport

pytestmark = pytest.mark.real


def ensure(builder: WorkerBuilder, *, need_gfapi: bool) -> str:
    return asyncio.run(builder.ensure(LocalTransport(), "h1", need_gfapi=need_gfapi))


def test_builds_once_per_source_and_reuses_the_binary(tmp_path):
    path = ensure(WorkerBuilder(lambda host: str(tmp_path)), need_gfapi=True)
    assert path == f"{tmp_path}/{WORKER.build_id()}/gfapi-worker"
    built = os.stat(path).st_mtime_ns
    # A new controller (no memory of the first) finds the binary by its hash and does not rebuild.
    again = ensure(WorkerBuilder(lambda host: str(tmp_path)), need_gfapi=False)
    assert again == path and os.stat(path).st_mtime_ns == built
    assert sorted(os.listdir(os.path.dirname(path))) == ["gfapi-worker", "gfapi_worker.c"]


def fake_cc(tmp_path, body: str) -> str:
    script = tmp_path / "cc-without-gfapi"
    script.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


HIDES_GFAPI = """\
    # A host without libglusterfs-dev: the libgfapi build fails as gcc reports it, the rest is real.
    for arg in "$@"; do
        if [ "$arg" = "-DGFTPWB_WITH_GFAPI" ]; then
            echo "gfapi_worker.c:43:10: fatal error: glusterfs/api/glfs.h: No such file or directory" >&2
            exit 1
        fi
    done
    exec cc "$@"
"""


def test_a_host_without_libgfapi_headers_gets_a_clear_message_and_posix_still_works(tmp_path):
    builder = WorkerBuilder(lambda host: str(tmp_path / "cache"), cc=[fake_cc(tmp_path, HIDES_GFAPI)])
    with pytest.raises(WorkerBuildError) as info:
        ensure(builder, need_gfapi=True)
    assert str(info.value) == (
        "host h1: libgfapi's headers or library are missing (gfapi_worker.c:43:10: fatal error: "
        "glusterfs/api/glfs.h: No such file or directory); install libglusterfs-dev (Debian/Ubuntu) or "
        "glusterfs-api-devel (RHEL/Fedora). POSIX mode (a test with directory: and no volume:) still works on "
        "this host")
    path = ensure(builder, need_gfapi=False)
    assert path.endswith("/gfapi-worker-posix")
    out = asyncio.run(_version(path))
    assert out == "gftpwb-gfapi-worker 1 posix\n"


async def _version(path: str) -> str:
    proc = await LocalTransport().start([path, "--version"])
    chunks = [data async for _stream, data in proc.output()]
    await proc.wait()
    return b"".join(chunks).decode()


def test_no_compiler(tmp_path):
    builder = WorkerBuilder(lambda host: str(tmp_path), cc=["/nonexistent/cc"])
    with pytest.raises(WorkerBuildError, match=r"host h1: no C compiler to build the worker .*install gcc"):
        ensure(builder, need_gfapi=False)


def test_the_source_compiles_without_warnings(tmp_path):
    path = tmp_path / "gfapi_worker.c"
    path.write_bytes(source_bytes())
    for extra in (["-DGFTPWB_WITH_GFAPI"], []):
        proc = asyncio.run(_compile(["cc", "-O2", "-Wall", "-Wextra", "-pthread", *extra, "-o",
                                     str(tmp_path / "w"), str(path), *(["-lgfapi"] if extra else [])]))
        assert proc == (0, ""), proc


async def _compile(argv: list[str]) -> tuple[int, str]:
    proc = await LocalTransport().start(argv)
    chunks = [data async for _stream, data in proc.output()]
    return await proc.wait(), b"".join(chunks).decode()


def test_where_the_cache_is(monkeypatch, tmp_path):
    from gftpwb.kinds.gfapi.run.worker_build import default_cache_dir

    monkeypatch.setenv("GFTPWB_WORKER_DIR", str(tmp_path))
    assert default_cache_dir("local") == default_cache_dir("h1") == str(tmp_path)
    monkeypatch.delenv("GFTPWB_WORKER_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "me"))
    assert default_cache_dir("local") == f"{tmp_path}/me/.cache/gftpwb/workers"
    assert default_cache_dir("h1") is None  # an SSH host is asked for its own $HOME

    async def ask() -> str:
        return await WorkerBuilder().cache_dir(LocalTransport(), "elsewhere")

    assert asyncio.run(ask()) == f"{tmp_path}/me/.cache/gftpwb/workers"  # printenv HOME, through the transport
