"""Our gfapi worker against fio's gfapi engine: the same small-file workload on the same volume, side by side.

Each round runs, in alternating order, on fresh directories of one GlusterFS volume:
  * gftpwb, one process with T threads sharing one libgfapi connection (processes: 1, threads: T);
  * gftpwb, T processes of one thread, one connection each (processes: T, threads: 1);
  * fio --ioengine=gfapi with T jobs as threads (one connection per job, fio's own design);
each writing F files of S bytes per thread in R-byte records (create, write, close), then reading
them back. Rates are MiB/s over each tool's own measured window (ours: first thread start to last
thread end; fio: its group-reported bandwidth), connection set-up excluded on both sides. The
ratio column is the median of the per-round ratios to fio.

By default the volume is a throw-away one made with the project's lab code (fio leaves its files
behind), removed at the end. Usage:
  .venv/bin/python bench/gfapi_vs_fio.py [--rounds 7] [--threads 4] [--files 1000] [--file-size 64K]
                                         [--record-size 64K] [--volume V --server ADDR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import tempfile
import textwrap

from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import RunFinished
from gftpwb.core.plan import plan
from gftpwb.core.units import parse_size
from gftpwb.kinds.gfapi.run.runner import GfapiRunner
from gftpwb.shell.executor import Executor
from gftpwb.shell.lab.gluster import GlusterLab

MIB = 1024 * 1024


def run_ours(volume: str, server: str, directory: str, workload: str, processes: int, threads: int, args) -> dict:
    scenario = load_scenario_text("version: 1\nname: vsfio\ntests:\n" + textwrap.indent(textwrap.dedent(f"""\
        - id: t
          kind: gfapi
          volume: {{name: {volume}, server: {server}}}
          directory: {directory}
          workload: {workload}
          processes: {processes}
          threads: {threads}
          files: {args.files}
          file_size: {args.file_size}
          record_size: {args.record_size}
          timeout: 10m
        """), "  "), "vsfio.yaml")
    bus, records = EventBus(), []
    bus.subscribe(lambda e: records.append(e.record) if isinstance(e, RunFinished) else None)
    asyncio.run(Executor(bus, runners={"gfapi": GfapiRunner()}).run(plan(scenario), results_dir="-",
                                                                     scenario="vsfio"))
    (record,) = records
    if record.status != "passed":
        raise SystemExit(f"gftpwb run failed: {record.error}")
    return record.details["gfapi"]["cluster"]


def run_fio(volume: str, server: str, directory: str, rw: str, args) -> float:
    size = parse_size(args.file_size) * args.files
    argv = ["fio", "--name=w", "--ioengine=gfapi", f"--volume={volume}", f"--brick={server}", f"--rw={rw}",
            f"--bs={args.record_size}", f"--size={size}", f"--nrfiles={args.files}", f"--numjobs={args.threads}",
            "--thread", "--group_reporting", "--openfiles=1", "--file_service_type=sequential",
            f"--filename_format={directory.lstrip('/')}/local/t00$jobnum/f$filenum", "--output-format=json"]
    if rw == "write":
        argv.append("--create_on_open=1")
    out = subprocess.run(argv, capture_output=True, text=True, check=True)
    data = json.loads(out.stdout[out.stdout.index("{"):])
    job = data["jobs"][0]
    if job.get("error") or job[rw]["io_bytes"] != size * args.threads:
        raise SystemExit(f"fio did not do the work: {out.stdout[:2000]}")
    return job[rw]["bw_bytes"] / MIB


def make_dirs(volume: str, server: str, directory: str, args) -> None:
    """fio cannot make directories inside a volume: let our worker make t000..t00N (zero files)."""
    scenario = load_scenario_text("version: 1\nname: mk\ntests:\n" + textwrap.indent(textwrap.dedent(f"""\
        - id: mk
          kind: gfapi
          volume: {{name: {volume}, server: {server}}}
          directory: {directory}
          threads: {args.threads}
          files: 1
          file_size: 1
        """), "  "), "mk.yaml")
    asyncio.run(Executor(EventBus(), runners={"gfapi": GfapiRunner()}).run(plan(scenario), results_dir="-",
                                                                            scenario="mk"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--file-size", default="64K")
    parser.add_argument("--record-size", default="64K")
    parser.add_argument("--volume")
    parser.add_argument("--server")
    args = parser.parse_args()
    if args.threads > 10:
        raise SystemExit("--threads at most 10 (fio's file names are t00<job>)")
    with tempfile.TemporaryDirectory() as state:
        lab = None
        if not args.volume:
            lab = GlusterLab(state)
            status = lab.up()
            args.volume, args.server = status.volume, status.address
        try:
            results = measure(args)
        finally:
            if lab is not None:
                lab.down()
    t = args.threads
    names = {"ours-1xT": f"gftpwb 1 process x {t} threads", "ours-Tx1": f"gftpwb {t} processes x 1 thread",
             "fio": f"fio gfapi, {t} jobs (threads)"}
    print(f"Workload: {t} threads x {args.files} files x {args.file_size} in {args.record_size} records, "
          f"{args.rounds} rounds.\n")
    print("| tool | seq write MiB/s median (min-max) | vs fio | seq read MiB/s median (min-max) | vs fio |")
    print("|---|---|---|---|---|")
    for key, label in names.items():
        cells = []
        for phase in ("write", "read"):
            rates = [r[key][phase] for r in results]
            ratio = statistics.median(r[key][phase] / r["fio"][phase] for r in results)
            cells.append(f"{statistics.median(rates):.1f} ({min(rates):.1f}-{max(rates):.1f})")
            cells.append("1.00" if key == "fio" else f"{ratio:.2f}")
        print(f"| {label} | " + " | ".join(cells) + " |")


def one_round(args, rnd: int) -> dict[str, dict[str, float]]:
    """Every tool once, on fresh directories; the order alternates between rounds to cancel drift."""
    base = f"/bench-vs-fio/r{rnd}"
    steps = [("ours-1xT", 1, args.threads), ("ours-Tx1", args.threads, 1), ("fio", 0, 0)]
    row: dict[str, dict[str, float]] = {}
    for key, processes, threads in steps if rnd % 2 == 0 else reversed(steps):
        directory = f"{base}/{key}"
        if key == "fio":
            make_dirs(args.volume, args.server, directory, args)
            row[key] = {phase: run_fio(args.volume, args.server, directory, phase, args) for phase in ("write", "read")}
        else:
            row[key] = {phase: run_ours(args.volume, args.server, directory, workload, processes, threads, args)
                        ["last_done"]["mib_s"] for phase, workload in (("write", "seq-wr"), ("read", "seq-rd"))}
    return row


def measure(args) -> list[dict]:
    results = []
    for rnd in range(args.rounds):
        row = one_round(args, rnd)
        print(f"round {rnd}: " + ", ".join(f"{k} {v['write']:.1f}/{v['read']:.1f}" for k, v in row.items()),
              flush=True)
        results.append(row)
    return results


if __name__ == "__main__":
    main()
