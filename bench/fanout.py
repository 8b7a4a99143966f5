"""Fan-out over SSH: start a trivial command on N hosts x M processes at once, and measure
  * time to start all: from the first start() call until every remote process has reported its
    process group (i.e. it runs), on the controller's monotonic clock;
  * spread of actual start times: max - min of the wall-clock time each process read when it began
    (the trivial command is ``date +%s.%N``, exec'd directly by the wrapper: no shell, no start-up
    files), converted to controller time with each host's clock offset
    (namespace hosts share this kernel's clock, so the offset is ~0, but the code path is the real one).

Each configuration runs cold (a new connection pool: handshakes included) and warm (connections
already open), ``--repeats`` times each, side by side in one invocation; the table gives medians and
ranges. The hosts are namespace hosts of a private lab (``gftpwb lab up --hosts N`` code), made and
removed by this script. Usage: .venv/bin/python bench/fanout.py [--hosts 4] [--repeats 5] [--procs 1,4,16]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time

from gftpwb.core.clockoffset import to_controller_time
from gftpwb.core.scenario.model import Host
from gftpwb.shell.lab.netlab import NetLab
from gftpwb.shell.transports.ssh import SshPool, sample_clock

PROBE = ["date", "+%s.%N"]


def inventory(lab: NetLab, count: int) -> list[Host]:
    status = lab.status()
    assert status is not None
    return [Host(name=h["name"], address=h["address"], user="root", identity=status["identity"],
                 known_hosts=status["known_hosts"]) for h in status["hosts"][:count]]


async def fan_out(pool: SshPool, hosts: list[Host], procs: int, offsets: dict) -> tuple[float, float]:
    """(seconds until all started, spread of their start times in seconds)."""
    t0 = time.monotonic()
    started = await asyncio.gather(*(pool.transport(h.name).start(PROBE) for h in hosts for _ in range(procs)))
    all_started = time.monotonic() - t0
    stamps = []
    for process, host in zip(started, [h for h in hosts for _ in range(procs)], strict=True):
        out = b""
        async for stream, data in process.output():
            if stream == "stdout":
                out += data
        await process.wait()
        stamps.append(to_controller_time(float(out.decode().strip().replace(",", ".")), offsets[host.name]))
    return all_started, max(stamps) - min(stamps)


async def measure(lab: NetLab, host_counts: list[int], proc_counts: list[int], repeats: int) -> list[tuple]:
    rows = []
    all_hosts = inventory(lab, max(host_counts))
    clock_pool = SshPool(all_hosts)
    offsets = {h.name: await sample_clock(clock_pool.transport(h.name)) for h in all_hosts}
    await clock_pool.close()
    for n in host_counts:
        hosts = all_hosts[:n]
        for m in proc_counts:
            cold_start, cold_spread, warm_start, warm_spread = [], [], [], []
            for _ in range(repeats):
                pool = SshPool(hosts)
                try:
                    s, d = await fan_out(pool, hosts, m, offsets)  # cold: handshakes included
                    cold_start.append(s)
                    cold_spread.append(d)
                    s, d = await fan_out(pool, hosts, m, offsets)  # warm: connections reused
                    warm_start.append(s)
                    warm_spread.append(d)
                finally:
                    await pool.close()
            rows.append((n, m, cold_start, cold_spread, warm_start, warm_spread))
    return rows


def ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.0f} ({min(values) * 1000:.0f}-{max(values) * 1000:.0f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=4, help="lab size (largest N)")
    parser.add_argument("--procs", default="1,4,16", help="process counts per host (M)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    host_counts = sorted({1, *([2] if args.hosts >= 2 else []), args.hosts})
    proc_counts = [int(p) for p in args.procs.split(",")]
    with tempfile.TemporaryDirectory(prefix="gftpwb-fanout-") as state:
        lab = NetLab(state)
        lab.up(args.hosts)
        try:
            rows = asyncio.run(measure(lab, host_counts, proc_counts, args.repeats))
        finally:
            lab.down()
    print(f"| hosts N | procs/host M | processes | cold: all started, ms | cold: start spread, ms "
          f"| warm: all started, ms | warm: start spread, ms |  (median (min-max) of {args.repeats})")
    print("|---|---|---|---|---|---|---|")
    for n, m, cs, cd, ws, wd in rows:
        print(f"| {n} | {m} | {n * m} | {ms(cs)} | {ms(cd)} | {ms(ws)} | {ms(wd)} |")


if __name__ == "__main__":
    main()
