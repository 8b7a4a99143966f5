"""Start skew of gfapi runs: how far apart the threads' measured starts are, for hosts x processes x threads.

Runs real workers through the real runner (the start protocol is the same for libgfapi and POSIX
mode; POSIX on a temporary directory keeps glfs_init's seconds out of the loop) with a tiny
workload, and reports the skew each run recorded (latest minus earliest thread start, all threads
of all processes of all hosts). Stand-in hosts are worker processes on this machine under their
own host names, as in the tests. Two start modes:

* ``lead``: the common instant is set ``start_lead`` ahead and every thread sleeps until it
  (clock_nanosleep on the host's realtime clock) - the default;
* ``now``: ``start_lead: 0``, each worker starts when its ``start`` line arrives.

With ``--netlab N`` the hosts are real: N network-namespace hosts made by the project's lab (own
sshd, reached over SSH, clock offsets measured per run) and a throw-away GlusterFS volume of the lab.

Usage: .venv/bin/python bench/gfapi_start_skew.py [--runs 10] [--lead 100ms] [--volume V --server ADDR]
       .venv/bin/python bench/gfapi_start_skew.py --netlab 3 [--runs 10]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import statistics
import tempfile
import textwrap

from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import RunFinished
from gftpwb.core.plan import plan
from gftpwb.core.scenario.model import Host
from gftpwb.kinds.gfapi.job import GfapiJob
from gftpwb.kinds.gfapi.run.runner import GfapiRunner
from gftpwb.shell.executor import Executor
from gftpwb.shell.lab.gluster import GlusterLab
from gftpwb.shell.lab.netlab import NetLab
from gftpwb.shell.transports.hosts import HostTransports

LAYOUTS = ((1, 1, 4), (1, 1, 16), (1, 4, 1), (1, 4, 4), (2, 1, 4), (2, 2, 4), (4, 1, 4), (4, 2, 4))


def specs(target: str, hosts: int, processes: int, threads: int, lead: str, runs: int, names=None):
    scenario = load_scenario_text("version: 1\nname: skew\ntests:\n" + textwrap.indent(textwrap.dedent(f"""\
        - id: s
          kind: gfapi
          {target}
          workload: seq-wr
          processes: {processes}
          threads: {threads}
          files: 5
          file_size: 4K
          start_lead: {lead}
          repeat: {runs}
        """), "  "), "skew.yaml")
    names = names or [f"h{i + 1}" for i in range(hosts)]
    return [dataclasses.replace(s, params=GfapiJob.from_params({**s.params, "hosts": names}).to_params(),
                                host=names[0]) for s in plan(scenario)]


async def measure(all_specs, inventory=None) -> list:
    bus, records = EventBus(), []
    bus.subscribe(lambda e: records.append(e.record) if isinstance(e, RunFinished) else None)
    transports = HostTransports(inventory or [])
    try:
        await Executor(bus, transport_for=transports if inventory else None,
                       runners={"gfapi": GfapiRunner()}).run(all_specs, results_dir="-", scenario="skew")
    finally:
        await transports.close()
    return records


def lab_inventory(lab: NetLab) -> list[Host]:
    status = lab.status()
    return [Host(name=h["name"], address=h["address"], user="root", identity=status["identity"],
                 known_hosts=status["known_hosts"]) for h in status["hosts"]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--lead", default="100ms")
    parser.add_argument("--volume", help="libgfapi mode on this volume (default: POSIX mode on a temporary directory)")
    parser.add_argument("--server", help="the volume's server address")
    parser.add_argument("--netlab", type=int, default=0, metavar="N",
                        help="real hosts: N namespace hosts over SSH and a lab volume")
    args = parser.parse_args()
    print("| hosts x processes x threads | threads | mode | runs | median skew ms | p90 | max |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        labs = []
        inventory = None
        layouts = LAYOUTS
        if args.netlab:
            net, gluster = NetLab(f"{tmp}/lab"), GlusterLab(f"{tmp}/lab")
            labs = [gluster, net]
            net.up(args.netlab)
            status = gluster.up()
            args.volume, args.server = status.volume, status.address
            inventory = lab_inventory(net)
            layouts = tuple((h, p, t) for h in range(1, args.netlab + 1) for p, t in ((1, 4), (1, 16), (2, 4)))
        try:
            target = f"volume: {{name: {args.volume}, server: {args.server}}}" if args.volume else f"directory: {tmp}"
            for hosts, processes, threads in layouts:
                names = [h.name for h in inventory][:hosts] if inventory else None
                for mode, lead in (("lead " + args.lead, args.lead), ("now", "0")):
                    records = asyncio.run(measure(specs(target, hosts, processes, threads, lead, args.runs, names),
                                                  inventory))
                    report(hosts, processes, threads, mode, records, args.runs)
        finally:
            for lab in labs:
                lab.down()


def report(hosts: int, processes: int, threads: int, mode: str, records: list, runs: int) -> None:
    skews = sorted(r.details["gfapi"]["start_skew_ms"] for r in records if r.status == "passed")
    if not skews:
        errors = {r.error.splitlines()[0] for r in records if r.error}
        print(f"| {hosts}x{processes}x{threads} | - | {mode} | 0/{runs} | - | - | - |  {errors}")
        return
    p90 = skews[min(len(skews) - 1, int(0.9 * len(skews)))]
    print(f"| {hosts}x{processes}x{threads} | {hosts * processes * threads} | {mode} | {len(skews)}/{runs} | "
          f"{statistics.median(skews):.2f} | {p90:.2f} | {max(skews):.2f} |", flush=True)


if __name__ == "__main__":
    main()
