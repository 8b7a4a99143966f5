"""How far tgftp's whole-second rate is from a precise one, on the same real transfers.

Runs real memory-to-memory guc transfers against a private loopback GridFTP server (started with the
project's lab code on a free port), and for each run compares three figures:
  * gftpwb's rate including set-up: bytes / monotonic wall time (what tgftp means to report),
  * guc's own average (excludes connection set-up; quantised by 0.1 s timestamps),
  * tgftp 0.7.0's rate for the same start and end times: whole seconds, integer division.
Prints a Markdown table for docs/benchmarks/. Usage: .venv/bin/python bench/rate_accuracy.py [--runs N]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from datetime import datetime

from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import RunFinished
from gftpwb.core.plan import plan
from gftpwb.shell.executor import Executor
from gftpwb.shell.lab.gridftp import GridftpLab, free_port
from gftpwb.tgftp.model import rate_text

SIZES = ("256M", "1G", "4G")


def epoch(iso: str) -> int:
    return int(datetime.fromisoformat(iso).timestamp())  # `date +%s`: whole seconds


def tgftp_rate(nbytes: int, started_at: str, ended_at: str) -> int:
    """The rate tgftp 0.7.0 would have reported for a run, in its integer "MB/s" (its tag log's)."""
    return int(rate_text(str(nbytes), epoch(started_at), epoch(ended_at)))


async def measure(url: str, runs: int) -> list:
    tests = "\n".join(f"  - {{id: s{size}, kind: guc, options: {{length: {size}, parallel: 4}}, repeat: {runs}}}"
                      for size in SIZES)
    scenario = load_scenario_text(f"version: 1\nname: bench\ndefaults: {{source: {url}/dev/zero, "
                                  f"target: {url}/dev/null, timeout: 120s}}\ntests:\n{tests}\n", "bench.yaml")
    bus, records = EventBus(), []
    bus.subscribe(lambda e: records.append(e.record) if isinstance(e, RunFinished) else None)
    await Executor(bus).run(plan(scenario), results_dir="-", scenario="bench")
    return records


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        lab = GridftpLab(state)
        status = lab.up(port=free_port())
        try:
            records = asyncio.run(measure(status.url, args.runs))
        finally:
            lab.down()
    print("| length | runs | median gftpwb MiB/s | median guc avg MiB/s | tgftp error vs gftpwb: median | min | max |")
    print("|---|---|---|---|---|---|---|")
    for size in SIZES:
        group = [r for r in records if r.test_id == f"s{size}" and r.status == "passed"]
        ours = [r.rate_incl_setup_mib_s for r in group]
        guc = [r.rate_guc_avg_mib_s for r in group if r.rate_guc_avg_mib_s is not None]
        errors = [(tgftp_rate(r.bytes, r.started_at, r.ended_at) - r.rate_incl_setup_mib_s)
                  / r.rate_incl_setup_mib_s * 100 for r in group]
        print(f"| {size} | {len(group)}/{args.runs} | {statistics.median(ours):.0f} | "
              f"{statistics.median(guc):.0f} | {statistics.median(errors):+.0f} % | {min(errors):+.0f} % | "
              f"{max(errors):+.0f} % |")


if __name__ == "__main__":
    main()
