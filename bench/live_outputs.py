"""What the live outputs cost the controller: ``gftpwb run`` with the event stream (``--events jsonl``,
read line by line from its stdout and decoded, as a consumer would) and the Prometheus endpoint
(``--metrics``, scraped every ``--scrape`` seconds) on, against both off, paired.

The run is CPU-bound: ``--copies`` concurrent guc copies of a ``--length`` transfer from a GridFTP
server of the project's lab (started here, on a free port) to ``file:///dev/null``, ``--repeat``
times, with a cpu monitor at 0.5 s (its samples go through the outputs too), the whole bench pinned to
``--cpus`` so the server, guc, the controller and the scraper contend for the same CPUs.

Per run: the controller's own CPU seconds (user + system of every thread, the endpoint's included),
read once it has exited and before it is reaped (harness_stress.communicate_and_own_cpu), the lines
the stream carried, and the throughput (every byte over the run's wall time). On and off alternate
within each pair (on-off, off-on, ...); the paired 95 % interval of the change is what shows the cost
(bench/paired.py). Also measured alone: the encoder's cost per event and a scrape's cost, in-process.

Usage: .venv/bin/python bench/live_outputs.py [--pairs 10] [--copies 4] [--repeat 3] [--length 1G]
       [--cpus 1] [--scrape 1]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from harness_stress import communicate_and_own_cpu  # its /proc reading of an exited controller
from paired import HEADER, alternating, compare, loadavg, pin

from gftpwb.shell.lab.gridftp import GridftpLab, free_port

GFTPWB = [sys.executable, "-m", "gftpwb"]
SCENARIO = """\
version: 1
name: liveout
monitors:
  - {{id: load, type: cpu, on: local, interval: 0.5s}}
tests:
  - id: copies
    kind: guc
    source: {url}/dev/zero
    target: file:///dev/null
    options: {{length: {length}}}
    concurrency: {copies}
    repeat: {repeat}
    timeout: 300s
"""


@dataclass
class Trial:
    on: bool
    own_cpu_s: float = 0.0
    lines: int = 0
    scrapes: int = 0
    bytes: int = 0
    wall_s: float = 0.0

    @property
    def throughput_mib_s(self) -> float:
        return self.bytes / 1048576 / self.wall_s


def scrape_until(url: str, stop: threading.Event, every: float, count: list[int]) -> None:
    while not stop.wait(every):
        try:
            with urllib.request.urlopen(url, timeout=5) as answer:
                answer.read()
            count[0] += 1
        except OSError:
            pass  # not listening yet, or already gone


def run_trial(scenario: Path, results: Path, on: bool, scrape_every: float) -> Trial:
    trial = Trial(on)
    argv = [*GFTPWB, "run", str(scenario), "--results", str(results), "--progress", "never"]
    port = free_port()
    if on:
        argv += ["--events", "jsonl", "--metrics", f"127.0.0.1:{port}"]
    stop, scrapes = threading.Event(), [0]
    scraper = threading.Thread(target=scrape_until, args=(f"http://127.0.0.1:{port}/metrics", stop, scrape_every,
                                                          scrapes), daemon=True)
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if on:
        scraper.start()
    stdout, stderr, trial.own_cpu_s, _ = communicate_and_own_cpu(proc)
    trial.wall_s = time.monotonic() - started
    stop.set()
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}):\n{stdout[-3000:]}\n{stderr[-3000:]}")
    if on:
        trial.lines = sum(1 for line in stdout.splitlines() if json.loads(line))
        trial.scrapes = scrapes[0]
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    trial.bytes = sum(r["bytes"] or 0 for r in records)
    return trial


def in_process_costs() -> tuple[float, float]:
    """Microseconds per event line (a progress sample) and milliseconds per scrape of a run of 64 cases."""
    from datetime import UTC, datetime

    from prometheus_client.exposition import generate_latest

    from gftpwb.core.event_stream import EventEncoder
    from gftpwb.core.events import Progress, RunFinished, RunStarted
    from gftpwb.core.records import ResultRecord
    from gftpwb.core.specs import RunSpec
    from gftpwb.shell.metrics import MetricsSink

    encoder = EventEncoder(time.monotonic(), datetime.now(UTC))
    event = Progress(run_id="copies[0]/0#1", bytes=123456789, rate_avg_mib_s=812.5, rate_inst_mib_s=799.25,
                     elapsed_s=2.5, length_bytes=1 << 30)
    n = 100_000
    t0 = time.perf_counter()
    for _ in range(n):
        encoder.line(event)
    per_line_us = (time.perf_counter() - t0) / n * 1e6
    sink = MetricsSink()
    for case in range(64):
        spec = RunSpec(run_id=f"t[{case}]/0", scenario="s", test_id="t", case=case, repeat=0, kind="guc",
                       host="local", argv=("globus-url-copy",), params={"parallel": case})
        sink(RunStarted(spec=spec, argv=spec.argv, started_at=""))
        sink(RunFinished(record=ResultRecord(scenario="s", test_id="t", run_id=spec.run_id, case=case, repeat=0,
                                             kind="guc", host="local", argv=[], status="passed", seconds=1.0,
                                             bytes=1 << 30, rate_incl_setup_mib_s=1024.0,
                                             ended_at="2026-11-27T12:00:00+00:00", params={"parallel": case})))
    m = 200
    t0 = time.perf_counter()
    for _ in range(m):
        generate_latest(sink.registry)
    per_scrape_ms = (time.perf_counter() - t0) / m * 1e3
    return per_line_us, per_scrape_ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--copies", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--length", default="1G")
    parser.add_argument("--cpus", default="1", help="CPU set for the whole bench (taskset -c syntax; '' for all)")
    parser.add_argument("--scrape", type=float, default=1.0, help="seconds between scrapes of --metrics")
    args = parser.parse_args()
    cpus = pin(args.cpus) if args.cpus else "all"
    per_line_us, per_scrape_ms = in_process_costs()
    print(f"in-process: {per_line_us:.1f} µs per event line (a progress sample), {per_scrape_ms:.2f} ms per scrape "
          "of 64 cases")
    with tempfile.TemporaryDirectory(prefix="gftpwb-liveout-") as tmp:
        work = Path(tmp)
        lab = GridftpLab(str(work / "lab"))
        status = lab.up(port=free_port())
        try:
            scenario = work / "liveout.yaml"
            scenario.write_text(textwrap.dedent(SCENARIO.format(url=status.url, length=args.length,
                                                                copies=args.copies, repeat=args.repeat)))
            trials: dict[bool, list[Trial]] = {True: [], False: []}
            print(f"CPUs {cpus}, load {loadavg()}; {args.pairs} pairs of {args.repeat} x {args.copies} copies of "
                  f"{args.length}")
            for i, order in alternating(args.pairs, "on", "off"):
                for mode in order:
                    on = mode == "on"
                    trial = run_trial(scenario, work / f"r{i}-{mode}", on, args.scrape)
                    trials[on].append(trial)
                    print(f"  pair {i + 1} {mode:>3}: controller {trial.own_cpu_s:.2f} s CPU, "
                          f"{trial.throughput_mib_s:.0f} MiB/s, {trial.lines} lines, {trial.scrapes} scrapes",
                          flush=True)
        finally:
            lab.down()
    on, off = trials[True], trials[False]
    print(f"load after: {loadavg()}")
    lines, scrapes = statistics.median(t.lines for t in on), statistics.median(t.scrapes for t in on)
    print(f"controller CPU, on {statistics.median(t.own_cpu_s for t in on):.3f} s, off "
          f"{statistics.median(t.own_cpu_s for t in off):.3f} s (medians); lines per run {lines:.0f}, scrapes per "
          f"run {scrapes:.0f}")
    print("| figure " + HEADER[0])
    print("|---" + HEADER[1])
    print("| controller CPU | " + compare([t.own_cpu_s for t in on], [t.own_cpu_s for t in off]).row() + " |")
    print("| throughput | " + compare([t.throughput_mib_s for t in on], [t.throughput_mib_s for t in off]).row()
          + " |")


if __name__ == "__main__":
    main()
