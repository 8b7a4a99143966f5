"""The lab's delay line, its own cost: what it carries at 60 ms without drops of its own, what it adds
at 0 ms, and the same figures for a Python line (why the line is C).

Everything runs on a lab this script starts in a state directory of its own (free port, 3 namespace
hosts; the default lab is left alone) and takes down at the end:

* h1-h2 is a WAN link (``lab up --link h1-h2:rtt=60ms``), h3 has none: h1 -> h3 is the bridge's veths,
  the same hosts' path without a line.
* **throughput** (``--parts throughput``): iperf3 from h1 to h2 (impl ``none``: from h1 to h3, the
  same two TCP ends with no line and no delay, what this machine's CPUs give them), ``--streams`` streams (8 and 1),
  ``--seconds`` long after 2 omitted, at each of ``--rates`` (``none``: unshaped; else the link's tbf
  rate, set with ``NetLab.change_links``), for each line implementation, rounds alternating (C, Python,
  Python, C, ...). Per run: iperf3's receiver rate, its retransmits and mean RTT, and the line's own
  counters over the run: packets, drops by cause (``full``, ``write``; ``behind``: the TUN queue's drops
  from the kernel) and how late it sent packets, its CPU seconds, and the machine's load average.
* **latency** (``--parts latency``): the link at 0 ms; a 1-byte TCP ping-pong (TCP_NODELAY,
  ``--pings`` round trips) from h1 to h2 (through the line) and from h1 to h3 (no line), alternating,
  ``--rounds`` times: the median round trip of each and the difference, the line's added delay.

The Python line is the lab notes' prototype made equal to the C one where it matters: the same TUN
devices, segmentation offload, real-time priority (``chrt -f 1``), a deque per direction with due
times (one thread for both directions: Python's threads would share one interpreter lock).
It is bench code only, started in place of the C line (which the lab starts again afterwards).

Usage: .venv/bin/python bench/delayline.py [--parts throughput,latency] [--impls c,python]
       [--rates none,5gbit] [--streams 8,1] [--seconds 10] [--rounds 3] [--pings 2000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from paired import CLK_TCK, loadavg

from gftpwb.core.wanlink import LinkSettings
from gftpwb.shell.lab.gridftp import kill_group
from gftpwb.shell.lab.netlab import NetLab

IPERF_PORT = 5299
ECHO_PORT = 5298

PY_LINE = r'''
import collections, ctypes, fcntl, os, selectors, struct, sys, time
netns_a, dev_a, netns_b, dev_b, delay, offload = sys.argv[1:7]
delay, offload = float(delay), offload == "1"
libc = ctypes.CDLL(None, use_errno=True)
def open_tun(netns, dev):
    home = os.open("/proc/self/ns/net", os.O_RDONLY)
    there = os.open(f"/run/netns/{netns}", os.O_RDONLY)
    assert libc.setns(there, 0x40000000) == 0
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", dev.encode(), 0x0001 | 0x1000 | (0x4000 if offload else 0)))
    fcntl.ioctl(fd, 0x400454d0, 7 if offload else 0)
    assert libc.setns(home, 0x40000000) == 0
    return fd
a, b = open_tun(netns_a, dev_a), open_tun(netns_b, dev_b)
queues = {a: collections.deque(), b: collections.deque()}
peer = {a: b, b: a}
sel = selectors.DefaultSelector()
sel.register(a, selectors.EVENT_READ)
sel.register(b, selectors.EVENT_READ)
while True:
    now = time.monotonic()
    wait = None
    for fd, q in queues.items():
        while q and q[0][0] <= now:
            os.write(peer[fd], q.popleft()[1])
        if q:
            left = q[0][0] - now
            wait = left if wait is None else min(wait, left)
    for key, _ in sel.select(wait):
        q = queues[key.fd]
        for _ in range(64):
            try:
                packet = os.read(key.fd, 65600)
            except BlockingIOError:
                break
            q.append((time.monotonic() + delay, packet))
'''

ECHO_SERVER = r'''
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(4)
while True:
    c, _ = s.accept(); c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while (d := c.recv(64)):
        c.sendall(d)
    c.close()
'''

PING = r'''
import socket, statistics, sys, time
s = socket.create_connection((sys.argv[1], int(sys.argv[2]))); s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
out = []
for _ in range(int(sys.argv[3])):
    t = time.perf_counter(); s.sendall(b"x"); s.recv(64); out.append(time.perf_counter() - t)
print(statistics.median(out) * 1e6)
'''


def ns(netns: str, *argv: str) -> list[str]:
    return ["ip", "netns", "exec", netns, *argv]


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def proc_cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


class Bench:
    def __init__(self, state_dir: str):
        self.state_dir = state_dir
        self.lab = NetLab(state_dir)
        self.links = {("h1", "h2"): LinkSettings(rtt_s=0.060)}
        self.python_line: subprocess.Popen | None = None

    def up(self) -> None:
        self.lab.up(3, links=self.links)

    def down(self) -> None:
        self.stop_python()
        self.lab.down()

    def link(self) -> dict:
        status = self.lab.status()
        assert status is not None
        return status["links"][0]

    def host(self, name: str) -> dict:
        status = self.lab.status()
        assert status is not None
        return next(h for h in status["hosts"] if h["name"] == name)

    def use(self, impl: str) -> int:
        """Put ``impl``'s line on the link, with the link's current settings; the pid that forwards."""
        self.stop_python()
        link = self.link()
        if impl == "c":
            if not link["line_running"]:
                self.lab.up(3, links=self.links)  # the lab starts its C line again
            return self.link()["line_pid"]
        if link["line_running"]:
            kill_group(link["line_pid"])
        a, b = link["ends"]
        settings = LinkSettings.from_dict(link["settings"])
        self.python_line = subprocess.Popen(  # at the C line's real-time priority, so only the language differs
            ["chrt", "-f", "1", sys.executable, "-c", PY_LINE, a["netns"], a["device"], b["netns"], b["device"],
             str(settings.rtt_s / 2), "1" if settings.offload else "0"], start_new_session=True)
        for _ in range(200):  # attached once the devices carry a connection
            if self.handshake():
                break
            time.sleep(0.05)
        return self.python_line.pid

    def handshake(self) -> bool:
        h1, h2 = self.host("h1"), self.host("h2")
        return subprocess.run(ns(h1["netns"], "bash", "-c", f"exec 3<>/dev/tcp/{h2['address']}/22"),
                              capture_output=True, timeout=30).returncode == 0

    def stop_python(self) -> None:
        if self.python_line is not None:
            os.killpg(self.python_line.pid, signal.SIGTERM)
            self.python_line.wait()
            self.python_line = None

    def counters(self) -> dict:
        """The line's counters and the devices' drops (the C line's; the Python line counts nothing,
        so its drops are the TUN queue's, which the kernel counts either way)."""
        link = self.lab.wan.status(next(iter(self.lab.load().links)))  # type: ignore[union-attr]
        line = link["line"] or {}
        out = {"behind": sum(d["tun_queue_dropped"] or 0 for d in link["devices"].values()),
               "shaper": sum(d["shaper_dropped"] or 0 for d in link["devices"].values())}
        if link["line_running"]:
            for key in ("packets", "delivered"):
                out[key] = sum(line[d][key] for d in ("a_to_b", "b_to_a"))
            for cause in ("loss", "full", "write"):
                out[cause] = sum(line[d]["dropped"][cause] for d in ("a_to_b", "b_to_a"))
            out["late_us_mean"] = line["a_to_b"]["late_us_mean"]
        return out

    def iperf(self, streams: int, seconds: int, target: str = "h2") -> dict:
        h1, h2 = self.host("h1"), self.host(target)
        server = subprocess.Popen(ns(h2["netns"], "iperf3", "-s", "-B", h2["address"], "-p", str(IPERF_PORT)),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            for _ in range(200):
                if subprocess.run(ns(h2["netns"], "ss", "-Hltn", f"sport = :{IPERF_PORT}"), capture_output=True,
                                  text=True).stdout.strip():
                    break
                time.sleep(0.05)
            out = subprocess.run(ns(h1["netns"], "iperf3", "-c", h2["address"], "-p", str(IPERF_PORT), "-P",
                                    str(streams), "-t", str(seconds), "-O", "2", "-J"),
                                 capture_output=True, text=True, timeout=seconds + 60)
        finally:
            with_timeout(server)
        end = json.loads(out.stdout)["end"]
        rtts = [s["sender"].get("mean_rtt") for s in end["streams"] if s["sender"].get("mean_rtt")]
        return {"gbit_s": end["sum_received"]["bits_per_second"] / 1e9,
                "retransmits": end["sum_sent"].get("retransmits"),
                "mean_rtt_ms": statistics.median(rtts) / 1000 if rtts else None}

    def throughput(self, impl: str, rate: str, streams: int, seconds: int) -> dict:
        if impl == "none":  # what the two ends' TCP reach on this machine with no line (h1 -> h3, veths)
            load0 = loadavg()
            return {"part": "throughput", "impl": impl, "rate": "none", "streams": streams, "seconds": seconds,
                    **self.iperf(streams, seconds, "h3"), "line": {"behind": 0}, "line_cpu_share": 0.0,
                    "load_before": load0, "load_after": loadavg(), "uptime": uptime()}
        self.use("c")
        self.lab.change_links({"rate": rate})
        pid = self.use(impl)
        before, cpu0, load0 = self.counters(), proc_cpu(pid), loadavg()
        t0 = time.monotonic()
        result = self.iperf(streams, seconds)
        wall = time.monotonic() - t0
        after, cpu1 = self.counters(), proc_cpu(pid)
        delta = {k: after[k] - before[k] for k in after if k in before and k != "late_us_mean"}
        return {"part": "throughput", "impl": impl, "rate": rate, "streams": streams, "seconds": seconds,
                **result, "line": delta, "late_us_mean_total": after.get("late_us_mean"),
                "line_cpu_share": (cpu1 - cpu0) / wall, "load_before": load0, "load_after": loadavg(),
                "uptime": uptime()}

    def latency(self, impl: str, pings: int) -> dict:
        self.use("c")
        self.lab.change_links({"rate": "none", "rtt": "0ms"})
        self.use(impl)
        h1 = self.host("h1")
        out = {"part": "latency", "impl": impl, "pings": pings, "uptime": uptime()}
        for target in ("h2", "h3"):
            host = self.host(target)
            server = subprocess.Popen(ns(host["netns"], sys.executable, "-c", ECHO_SERVER, host["address"],
                                         str(ECHO_PORT)), start_new_session=True)
            try:
                for _ in range(100):
                    ping = subprocess.run(ns(h1["netns"], sys.executable, "-c", PING, host["address"], str(ECHO_PORT),
                                             str(pings)), capture_output=True, text=True)
                    if ping.returncode == 0:
                        break
                    time.sleep(0.05)
                out[f"rtt_us_{target}"] = float(ping.stdout)
            finally:
                with_timeout(server)
        out["added_us"] = out["rtt_us_h2"] - out["rtt_us_h3"]
        self.use("c")
        self.lab.change_links({"rtt": "60ms"})
        return out


def with_timeout(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
    proc.wait(timeout=10)


def summary(rows: list[dict]) -> None:
    print("\nthroughput (medians over rounds): impl rate streams  Gbit/s  retransmits  RTT ms  own drops  "
          "behind  line CPU")
    keys = sorted({(r["impl"], r["rate"], r["streams"]) for r in rows if r["part"] == "throughput"})
    for impl, rate, streams in keys:
        group = [r for r in rows if r["part"] == "throughput" and (r["impl"], r["rate"], r["streams"]) ==
                 (impl, rate, streams)]
        own = [r["line"].get("full", 0) + r["line"].get("write", 0) + r["line"]["behind"] for r in group]
        print(f"  {impl:<6} {rate:<6} {streams:>2}  {statistics.median(r['gbit_s'] for r in group):6.2f} "
              f"[{min(r['gbit_s'] for r in group):.2f}-{max(r['gbit_s'] for r in group):.2f}]  "
              f"{statistics.median(r['retransmits'] or 0 for r in group):>9}  "
              f"{statistics.median(r['mean_rtt_ms'] or 0 for r in group):6.1f}  {max(own):>9}  "
              f"{max(r['line']['behind'] for r in group):>6}  "
              f"{statistics.median(r['line_cpu_share'] for r in group):.2f}  n={len(group)}")
    lat = [r for r in rows if r["part"] == "latency"]
    for impl in sorted({r["impl"] for r in lat}):
        group = [r for r in lat if r["impl"] == impl]
        print(f"latency {impl}: through the line {statistics.median(r['rtt_us_h2'] for r in group):.1f} us, "
              f"no line {statistics.median(r['rtt_us_h3'] for r in group):.1f} us, added "
              f"{statistics.median(r['added_us'] for r in group):.1f} us "
              f"[{min(r['added_us'] for r in group):.1f}, {max(r['added_us'] for r in group):.1f}] n={len(group)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--parts", default="throughput,latency")
    parser.add_argument("--impls", default="c,python")
    parser.add_argument("--rates", default="none,5gbit")
    parser.add_argument("--streams", default="8,1")
    parser.add_argument("--seconds", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pings", type=int, default=2000)
    parser.add_argument("--json", help="append every row as a JSON line to this file")
    args = parser.parse_args()
    impls = args.impls.split(",")
    rows: list[dict] = []
    bench = Bench(tempfile.mkdtemp(prefix="gftpwb-bench-delayline-"))
    print(f"lab in {bench.state_dir}; {uptime()}", flush=True)
    try:
        bench.up()
        for round_ in range(args.rounds):
            order = impls if round_ % 2 == 0 else impls[::-1]
            for impl in order:
                if "throughput" in args.parts:
                    for rate in (args.rates.split(",") if impl != "none" else ["none"]):
                        for streams in (int(s) for s in args.streams.split(",")):
                            rows.append(bench.throughput(impl, rate, streams, args.seconds))
                            print(json.dumps(rows[-1]), flush=True)
                if "latency" in args.parts and impl != "none":
                    rows.append(bench.latency(impl, args.pings))
                    print(json.dumps(rows[-1]), flush=True)
    finally:
        bench.down()
    if args.json:
        with open(args.json, "a") as handle:
            handle.writelines(json.dumps(r) + "\n" for r in rows)
    summary(rows)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
