"""The local transport's read pause (``Process.read_pause``), with real child processes: several small
writes are read as one chunk, nothing is lost or reordered, and a pause ends when the process exits
(guc's per-buffer ``-dbg`` lines of a traced transfer are read this way: docs/benchmarks/tracing.md)."""

import asyncio
import sys

from gftpwb.shell.transports.local import LocalTransport

WRITER = """
import os, sys, time
for i in range(8):
    os.write(2, b"line %d\\n" % i)
    time.sleep(0.02)
os.write(1, b"out\\n")
"""


async def _read(argv: list[str], pause: float) -> list[tuple[str, bytes]]:
    proc = await LocalTransport().start(argv)
    proc.read_pause = (lambda stream, data: pause) if pause else None
    chunks = [chunk async for chunk in proc.output()]
    assert await proc.wait() == 0
    return chunks


def test_small_writes_gather_during_a_pause_and_nothing_is_lost():
    plain = asyncio.run(_read([sys.executable, "-c", WRITER], 0.0))
    paused = asyncio.run(_read([sys.executable, "-c", WRITER], 0.5))
    for chunks in (plain, paused):
        assert b"".join(data for name, data in chunks if name == "stderr") == b"".join(
            b"line %d\n" % i for i in range(8))
        assert b"".join(data for name, data in chunks if name == "stdout") == b"out\n"
    stderr_reads = [data for name, data in paused if name == "stderr"]
    # the first write is read at once, the other seven (written within 0.16 s) after the 0.5 s pause
    assert len(stderr_reads) < len([data for name, data in plain if name == "stderr"])
    assert stderr_reads[0] == b"line 0\n" and len(stderr_reads) <= 3


def test_a_pause_ends_when_the_process_exits():
    """A pause far longer than the test may take: only the process's exit can end it."""
    async def main() -> list[tuple[str, bytes]]:
        return await asyncio.wait_for(_read([sys.executable, "-c", "import os; os.write(2, b'x\\n')"], 3600.0), 60)

    assert asyncio.run(main()) == [("stderr", b"x\n")]
