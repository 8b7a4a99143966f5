"""GridFTP, XRootD and HTTP on the same path: each protocol's rate and efficiency side by side, what
gftpwb costs each tool, and what limits each. Everything runs the real commands against labs this
script starts in state directories of its own (free ports; the default lab is left alone) and stops.

1. **rates** (``--parts rates``): ``gftpwb run`` of scenarios/protocols.yaml (its tests as shipped,
   plus one: XRootD with its page checksums, XRootD 5's default, beside the scenario's XRootD without)
   * on the 400 Mbit/s link: 2 namespace hosts, each link shaped with tc tbf (``lab up --hosts 2
     --rate 400mbit --gridftp-on-hosts --xrootd``), h1 -> h2;
   * on loopback: the same tests with every end on this machine (127.0.0.1: the lab's GridFTP server
     and xrootd, iperf3 client and server here);
   then ``gftpwb report --json``'s "protocols on the same path" rows: median rate incl. set-up with its
   interval, efficiency against iperf3, compare's verdict against GridFTP.
2. **overhead** (``--parts overhead``), on loopback: per protocol and size, the tool under gftpwb
   (``gftpwb run`` of a one-test scenario, ``--runs`` runs: each run's time as its record says,
   gftpwb's clock from just before the tool starts to its exit) against the same argv run bare by
   this script (``--runs`` runs, timed around ``subprocess.run``), blocks alternating within each of
   ``--pairs`` pairs (bench/paired.py). Also the CPU of each block (this script's reaped children:
   gftpwb, the terminal relay and the tool; or the tool alone), per run. The 1 MiB copies are the
   tools' fixed costs (connection, handshake, exit); the large ones their streaming.
3. **tpc** (``--parts tpc``), on loopback: each tool's third-party copy between two paths of the same
   server, bare (GridFTP server to server, ``xrdcp --tpc only``, ``gfal-copy --copy-mode pull``), 1 MiB
   and ``--overhead-size``: the small copy's time is the fixed cost, the difference the streaming.

Usage: .venv/bin/python bench/protocols.py [--parts rates,overhead,tpc] [--repeat 5] [--streams 1,4]
       [--size 128M] [--pairs 8] [--runs 5] [--overhead-size 256M]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from paired import alternating, children_cpu, compare, loadavg

from gftpwb.shell.lab.gridftp import free_port

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "protocols.yaml"
GFTPWB = [sys.executable, "-m", "gftpwb"]
ENV = {**os.environ, "GFTPWB_NO_HISTORY": "1"}
PROTOCOLS = ("guc", "xrootd", "http")
CHECKSUMS_TEST = """\
  - id: xrootd-memory-checksums   # XRootD 5's default: a CRC32C per 4 KiB page
    kind: xrootd
    source: ${memory}/xc-src/
    target: root://${dst}:${xrootd_port}/${memory}/xc-dst/
    files: {size: "${size}", content: sparse}
    matrix: {streams: "${streams}"}
"""


def gftpwb(*args: str, lab: str, timeout: float = 3600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, timeout=timeout,
                          env={**ENV, "GFTPWB_LAB_DIR": lab}, cwd=lab)


def lab_up(lab: str, *extra: str) -> None:
    done = gftpwb("lab", "up", "--port", str(free_port()), "--xrootd", *extra, lab=lab, timeout=600)
    if done.returncode != 0:
        raise SystemExit(f"lab up failed: {done.stdout}{done.stderr}")


def lab_down(lab: str) -> None:
    gftpwb("lab", "down", lab=lab, timeout=600)


def lab_status(lab: str) -> dict:
    return json.loads(gftpwb("lab", "status", "--json", lab=lab).stdout)


# --- 1. rates -----------------------------------------------------------------------------------------


def shaped_scenario(directory: Path) -> Path:
    """The shipped scenario with the page-checksum test added after its XRootD memory test."""
    text = SCENARIO.read_text()
    anchor = "  - id: http-memory"
    path = directory / "protocols-shaped.yaml"
    path.write_text(text.replace(anchor, CHECKSUMS_TEST + anchor, 1))
    return path


def loopback_scenario(directory: Path, gridftp_port: int) -> Path:
    """The same tests with every end on this machine: no hosts, runs and iperf3 local, the lab's
    loopback GridFTP server's port."""
    text = shaped_scenario(directory).read_text()
    text = re.sub(r"^hosts:\n(?:  .*\n)+", "", text, flags=re.M)
    text = text.replace("  on: h1\n", "  on: local\n").replace("client: h1", "client: local")
    text = text.replace("server: h2", "server: local").replace(":2811", f":{gridftp_port}")
    path = directory / "protocols-loopback.yaml"
    path.write_text(text)
    return path


def run_rates(place: str, lab: str, scenario: Path, sets: Sequence[str], results: Path) -> list[dict]:
    t0 = time.monotonic()
    done = gftpwb("run", str(scenario), *sets, "--results", str(results), "--progress", "never", lab=lab)
    took = time.monotonic() - t0
    if done.returncode != 0:
        print(done.stdout[-4000:], done.stderr, file=sys.stderr)
        raise SystemExit(f"{place}: gftpwb run exited {done.returncode}")
    counts = re.findall(r"^(\d+ passed of \d+ planned)", done.stdout, flags=re.M)
    report = json.loads(gftpwb("report", str(results), "--json", lab=lab).stdout)
    rows = report["directories"][0]["tables"]["protocols"]
    print(f"\n{place}: {counts[-1] if counts else '?'} in {took / 60:.1f} min; load {loadavg()}")
    return rows


def rates_table(place: str, rows: list[dict]) -> None:
    print("\n| path | protocol | test | streams | medium | n | median MiB/s (95 % CI) | vs iperf3 | vs GridFTP |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ci = r["ci_median"]
        median = "-" if r["median_mib_s"] is None else f"{r['median_mib_s']:.1f}"
        if ci:
            median += f" [{ci[0]:.1f}, {ci[1]:.1f}]"
        eff = "-"
        if r["efficiency"] is not None:
            low, high = r["efficiency_ci"] or (None, None)
            eff = f"{100 * r['efficiency']:.0f} %" + (f" [{100 * low:.0f}, {100 * high:.0f}]" if low else "")
        verdict = r["vs_gridftp"] or ""
        if r["vs_gridftp_change_pct"] is not None:
            verdict += f" ({r['vs_gridftp_change_pct']:+.0f} %)"
        print(f"| {place} | {r['protocol']} | {r['test_id']} | {r['streams']} | {r['medium']} | {r['n']} | "
              f"{median} | {eff} | {verdict} |")


def part_rates(args: argparse.Namespace, work: Path) -> None:
    sets = ["--set", f"repeat={args.repeat}", "--set", f"streams=[{args.streams}]", "--set", f"size={args.size}"]
    shaped = str(work / "shaped-lab")
    os.makedirs(shaped)
    try:
        lab_up(shaped, "--hosts", "2", "--rate", "400mbit", "--gridftp-on-hosts")
        variables = gftpwb("lab", "status", "--vars", lab=shaped).stdout.replace("'", "").split()
        rows = run_rates("400 Mbit/s (tbf), h1 -> h2", shaped, shaped_scenario(work), [*variables, *sets],
                         work / "results-shaped")
        rates_table("400 Mbit/s", rows)
    finally:
        lab_down(shaped)
    loop = str(work / "loopback-lab")
    os.makedirs(loop)
    try:
        lab_up(loop)
        status = lab_status(loop)
        local = next(s for s in status["xrootd"]["servers"] if s["place"] == "local")
        port = int(status["gridftp"]["url"].rsplit(":", 1)[1])
        loop_sets = ["--set", "src=127.0.0.1", "--set", "dst=127.0.0.1", "--set", f"xrootd_port={local['root_port']}",
                     "--set", f"http_port={local['http_port']}", "--set", "memory=/dev/shm/gftpwb-bench-protocols",
                     "--set", "disk=/var/tmp/gftpwb-bench-protocols"]
        rows = run_rates("loopback", loop, loopback_scenario(work, port), [*loop_sets, *sets], work / "results-loop")
        rates_table("loopback", rows)
    finally:
        lab_down(loop)


# --- 2. overhead --------------------------------------------------------------------------------------

ONE_TEST = """\
version: 1
name: overhead
tests:
  - id: copy
    kind: {kind}
    source: {source}
    target: {target}
    repeat: {runs}
    timeout: 300s
{extra}"""


def overhead_scenario(work: Path, kind: str, size: int, runs: int, urls: dict[str, str]) -> Path:
    data = Path("/dev/shm/gftpwb-bench-overhead")
    source = data / f"src-{size}"
    if not source.exists():
        with open(source, "wb") as out:
            left = size
            while left:
                chunk = os.urandom(min(left, 1 << 20))
                out.write(chunk)
                left -= len(chunk)
    targets = {"guc": f"{urls['ftp']}{data}/dst-g", "xrootd": f"{urls['root']}/{data}/dst-x",
               "http": f"{urls['http']}{data}/dst-h"}
    source_url = f"file://{source}" if kind == "guc" else str(source)
    extra = "" if kind == "guc" else f"    length: {size}\n"  # a copy tool's rate needs the bytes it moves
    path = work / f"overhead-{kind}-{size}.yaml"
    path.write_text(ONE_TEST.format(kind=kind, source=source_url, target=targets[kind], runs=runs, extra=extra))
    return path


def under_gftpwb(lab: str, scenario: Path, work: Path) -> tuple[list[float], float, list[str]]:
    """Each run's seconds as its record says, the CPU of the whole invocation, the tool's argv."""
    results = Path(tempfile.mkdtemp(dir=work, prefix="r-"))
    cpu0 = children_cpu()
    done = gftpwb("run", str(scenario), "--results", str(results), "--progress", "never", lab=lab)
    cpu = children_cpu() - cpu0
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines() if line.strip()]
    runs = [r for r in records if r.get("run_id")]
    if done.returncode != 0 or not runs or any(r["status"] != "passed" for r in runs):
        raise SystemExit(f"{scenario.name}: {done.stdout[-2000:]}{done.stderr}")
    shutil.rmtree(results)
    return [r["seconds"] for r in runs], cpu, runs[0]["argv"]


def bare(argv: Sequence[str], runs: int) -> tuple[list[float], float]:
    """The tool alone, ``runs`` times: each run's wall time, and the CPU of all of them."""
    out, cpu0 = [], children_cpu()
    for _ in range(runs):
        t0 = time.monotonic()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
        out.append(time.monotonic() - t0)
        if done.returncode != 0:
            raise SystemExit(f"{argv[0]} failed: {done.stderr[-500:]!r}")
    return out, children_cpu() - cpu0


def part_overhead(args: argparse.Namespace, work: Path) -> None:
    from gftpwb.core.units import parse_size

    lab = str(work / "overhead-lab")
    os.makedirs(lab)
    os.makedirs("/dev/shm/gftpwb-bench-overhead", mode=0o777, exist_ok=True)
    os.chmod("/dev/shm/gftpwb-bench-overhead", 0o777)  # xrootd writes as nobody
    rows = []
    try:
        lab_up(lab)
        status = lab_status(lab)
        local = next(s for s in status["xrootd"]["servers"] if s["place"] == "local")
        urls = {"ftp": status["gridftp"]["url"], "root": local["root_url"].rstrip("/"),
                "http": local["http_url"].rstrip("/")}
        for size in (1 << 20, parse_size(args.overhead_size)):
            for kind in PROTOCOLS:
                scenario = overhead_scenario(work, kind, size, args.runs, urls)
                g_wall, b_wall, g_cpu, b_cpu, argv = [], [], [], [], []
                for _, order in alternating(args.pairs, "gftpwb", "bare"):
                    for side in order:
                        if side == "gftpwb":
                            seconds, cpu, argv = under_gftpwb(lab, scenario, work)
                            g_wall.append(statistics.fmean(seconds))
                            g_cpu.append(cpu / args.runs)
                        else:
                            seconds, cpu = bare(argv or under_gftpwb(lab, scenario, work)[2], args.runs)
                            b_wall.append(statistics.fmean(seconds))
                            b_cpu.append(cpu / args.runs)
                change = compare(g_wall, b_wall)
                rows.append((kind, size, statistics.median(b_wall), statistics.median(g_wall), change,
                             statistics.median(b_cpu), statistics.median(g_cpu), " ".join(argv)))
                print(f"  {kind} {size}: done, load {loadavg()}", file=sys.stderr)
    finally:
        lab_down(lab)
        shutil.rmtree("/dev/shm/gftpwb-bench-overhead", ignore_errors=True)
    print(f"\noverhead on loopback: {args.pairs} pairs of {args.runs} runs each; load {loadavg()}")
    print("\n| tool | size | bare: s per run (median) | under gftpwb | paired change of the time, mean [95 % CI] "
          "| Wilcoxon p | CPU s per run, bare | under gftpwb (incl. its start-up / runs) |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, size, bare_s, g_s, change, b_cpu, g_cpu, _ in rows:
        print(f"| {kind} | {size >> 20} MiB | {bare_s:.3f} | {g_s:.3f} | {change.paired:+.1f} % "
              f"[{change.paired_low:+.1f}, {change.paired_high:+.1f}] | {change.wilcoxon_p:.3f} | {b_cpu:.3f} | "
              f"{g_cpu:.3f} |")
    print("\nargv (the same bare and under gftpwb; under gftpwb xrdcp and gfal-copy run with a terminal "
          "as stdout, through a python3 relay, for their progress):")
    for kind, size, *_, argv in rows:
        print(f"  {kind} {size >> 20} MiB: {argv}")


# --- 3. third-party copies: fixed cost and streaming ------------------------------------------------------


def tpc_argv(kind: str, urls: dict[str, str], source: str, target: str) -> list[str]:
    if kind == "guc":  # server to server in stream mode, as the scenario's GridFTP third-party copy
        return ["globus-url-copy", f"{urls['ftp']}{source}", f"{urls['ftp']}{target}"]
    if kind == "xrootd":
        return ["xrdcp", "-f", "--tpc", "only", f"{urls['root']}/{source}", f"{urls['root']}/{target}"]
    return ["env", "GFAL_PYTHONBIN=/usr/bin/python3", "gfal-copy", "-f", "--copy-mode", "pull",
            f"{urls['http']}{source}", f"{urls['http']}{target}"]


def part_tpc(args: argparse.Namespace, work: Path) -> None:
    """Each tool's third-party copy between two paths of the same loopback server, bare, 1 MiB and the
    large size: the time of the small one is the fixed cost, the difference the streaming rate."""
    from gftpwb.core.units import parse_size

    lab = str(work / "tpc-lab")
    os.makedirs(lab)
    data = Path("/dev/shm/gftpwb-bench-tpc")
    os.makedirs(data, mode=0o777, exist_ok=True)
    os.chmod(data, 0o777)
    sizes = (1 << 20, parse_size(args.overhead_size))
    rows = []
    try:
        lab_up(lab)
        status = lab_status(lab)
        local = next(s for s in status["xrootd"]["servers"] if s["place"] == "local")
        urls = {"ftp": status["gridftp"]["url"], "root": local["root_url"].rstrip("/"),
                "http": local["http_url"].rstrip("/")}
        for size in sizes:
            source = data / f"src-{size}"
            with open(source, "wb") as out:
                out.write(os.urandom(size))
            os.chmod(source, 0o644)
        for kind in PROTOCOLS:
            times = {}
            for size in sizes:
                argv = tpc_argv(kind, urls, str(data / f"src-{size}"), str(data / f"dst-{kind}-{size}"))
                times[size] = bare(argv, args.runs * 2)[0]
            small, large = statistics.median(times[sizes[0]]), statistics.median(times[sizes[1]])
            rate = (sizes[1] - sizes[0]) / 1048576 / (large - small) if large > small else float("nan")
            rows.append((kind, small, large, sizes[1] / 1048576 / large, rate))
    finally:
        lab_down(lab)
        shutil.rmtree(data, ignore_errors=True)
    print(f"\nthird-party copies on loopback, bare tools, {args.runs * 2} runs of each; load {loadavg()}")
    print(f"\n| tool | 1 MiB: s (median) | {sizes[1] >> 20} MiB: s | rate incl. set-up, MiB/s | "
          "streaming rate (difference), MiB/s |")
    print("|---|---|---|---|---|")
    for kind, small, large, whole, rate in rows:
        print(f"| {kind} | {small:.2f} | {large:.2f} | {whole:.0f} | {rate:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--parts", default="rates,overhead,tpc")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--streams", default="1, 4", help="the scenario's stream counts, comma separated")
    parser.add_argument("--size", default="128M")
    parser.add_argument("--pairs", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--overhead-size", default="256M")
    args = parser.parse_args()
    parts = args.parts.split(",")
    print(f"bench/protocols.py {' '.join(sys.argv[1:])}; load {loadavg()}")
    with tempfile.TemporaryDirectory(prefix="gftpwb-bench-protocols-") as tmp:
        work = Path(tmp)
        if "rates" in parts:
            part_rates(args, work)
        if "overhead" in parts:
            part_overhead(args, work)
        if "tpc" in parts:
            part_tpc(args, work)


if __name__ == "__main__":
    main()
