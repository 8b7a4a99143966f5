"""Monitors on namespace hosts over the real sshd (the netlab fixture) during real guc copies: one
sampler per host, samples on the runs' time line with the hosts' clock offsets, per-run summaries
that see the transfers' traffic and data connections; no sampler left in any namespace after the
run, after Ctrl-C, or after the controller is killed (the remote wrapper's watchdog)."""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import textwrap
from datetime import datetime
from pathlib import Path

import pytest
from support.labhosts import netns_of, processes_in
from support.polling import eventually

from gftpwb.shell.sinks.monitors import SAMPLES_NAME, SUMMARIES_NAME, read_lines

pytestmark = pytest.mark.real
GFTPWB = [sys.executable, "-m", "gftpwb"]


def utc(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def samplers_in(netns: str) -> list[tuple[int, str]]:
    return [(pid, cmd) for pid, cmd in processes_in(netns) if "gftpwb-sampler" in cmd]


def sampler_program(pid: int) -> str:
    """The program of a sampler process (``/usr/bin/python3`` or ``/bin/sh``); "" for another process
    (the remote wrapper's arguments name the sampler too)."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return ""
    return argv[0].decode() if b"gftpwb-sampler" in argv[:6] and b"gftpwb-wrap" not in argv else ""


def local_samplers(parent: int) -> list[int]:
    """This machine's samplers started by the gftpwb process ``parent``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
        except OSError:
            continue
        if fields[1] == str(parent) and fields[0] != "Z" and b"gftpwb-sampler" in cmdline:
            found.append(int(entry))
    return found


def scenario(netlab, source: str, *, length: str = "1G", copies: int = 2) -> str:
    return textwrap.dedent(f"""\
        version: 1
        name: mon
        hosts: {{include: "{netlab.state_dir}/hosts.yaml"}}
        monitors:
          - {{id: load, type: cpu, on: [local, h1, h2], interval: 0.5s}}
          - {{id: nic, type: net, on: [h1, h2], interval: 0.5s}}
          - {{id: tcp, type: tcp, on: h1, interval: 0.25s}}
          - {{id: backlog, type: command, on: h2, command: [cat, /proc/sys/net/core/somaxconn]}}
        tests:
          - id: fan
            kind: guc
            on: [h1, h2]
            concurrency: {copies}
            source: {source}
            target: file:///dev/null
            options: {{length: {length}}}
            timeout: 120s
    """)


def test_monitors_on_namespace_hosts_see_the_runs_and_leave_nothing(netlab, tmp_path):
    status = netlab.status()
    path = tmp_path / "mon.yaml"
    path.write_text(scenario(netlab, f"{status['gridftp']['url']}/dev/zero"))
    results = tmp_path / "r"
    out = subprocess.run([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                         capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "warning" not in out.stdout, out.stdout
    lines = read_lines(str(results / SAMPLES_NAME))
    started = {x["host"]: x for x in lines if x["event"] == "sampler-started"}
    assert sorted(started) == ["h1", "h2", "local"]  # one sampler per host, all its monitors in it
    assert started["h1"]["monitors"] == ["load", "nic", "tcp"] and started["h2"]["monitors"] == [
        "load", "nic", "backlog"]
    assert all(abs(started[h]["clock_offset_s"]) < 0.5 for h in ("h1", "h2"))  # namespaces share this clock
    assert sorted(x["host"] for x in lines if x["event"] == "sampler-ended" and "reason" not in x) == [
        "h1", "h2", "local"]
    samples = [x for x in lines if x["event"] == "sample"]
    assert not [x for x in samples if "error" in x]
    seen = {(x["monitor"], x["host"]) for x in samples}
    assert seen == {("load", "local"), ("load", "h1"), ("load", "h2"), ("nic", "h1"), ("nic", "h2"), ("tcp", "h1"),
                    ("backlog", "h2")}
    somaxconn = int(subprocess.run(["ip", "netns", "exec", netns_of(netlab, "h2"), "cat",
                                    "/proc/sys/net/core/somaxconn"], capture_output=True, text=True).stdout)
    assert {x["values"]["value"] for x in samples if x["monitor"] == "backlog"} == {somaxconn}

    runs = {r["run_id"]: r for r in read_lines(str(results / "results.jsonl"))}
    summaries = {s["run_id"]: s for s in read_lines(str(results / SUMMARIES_NAME))}
    assert sorted(summaries) == sorted(runs) and len(runs) == 4
    for run_id, summary in summaries.items():
        record = runs[run_id]
        assert record["status"] == "passed"
        assert utc(summary["started_at"]) - 0.05 <= utc(record["started_at"]) < utc(record["ended_at"]) <= \
            utc(summary["ended_at"]) + 0.05
        host = record["host"]
        traffic = summary["monitors"]["nic"][host]
        # 2 x 1 GiB crossed this host's link during its runs; loopback saw none of it
        assert max(v["max"] for k, v in traffic.items() if k.endswith(".rx_mib_s") and not k.startswith("lo.")) > 10
        assert all(v["max"] < 1 for k, v in traffic.items() if k.startswith("lo.") and k.endswith("_mib_s"))
        assert summary["monitors"]["load"][host]["busy_pct"]["n"] >= 1
    tcp = [summaries[r]["monitors"]["tcp"]["h1"] for r in summaries if r.endswith("@h1")]
    assert max(t["connections"]["max"] for t in tcp) >= 2  # both copies' data connections, not the control ones
    for ns in (netns_of(netlab, "h1"), netns_of(netlab, "h2")):
        assert samplers_in(ns) == []


@pytest.mark.parametrize("sampler", ["python", "sh"])
def test_ctrl_c_and_a_killed_controller_leave_no_sampler_anywhere(netlab, tmp_path, monkeypatch, sampler):
    """Ctrl-C: the samplers stop with the run (exit 130). SIGKILL of gftpwb itself: nobody stops them,
    yet the remote wrapper's watchdog ends the namespace hosts' samplers with the SSH session and the
    local one exits when its parent is gone. Both samplers (``GFTPWB_SAMPLER``), each seen running
    as itself everywhere."""
    monkeypatch.setenv("GFTPWB_SAMPLER", sampler)
    program = "/usr/bin/python3" if sampler == "python" else "/bin/sh"
    status = netlab.status()
    silent = __import__("socket").socket()
    silent.bind((status["controller_address"], 0))
    silent.listen(64)
    namespaces = [netns_of(netlab, "h1"), netns_of(netlab, "h2")]
    path = tmp_path / "mon.yaml"
    path.write_text(scenario(netlab, f"ftp://{status['controller_address']}:{silent.getsockname()[1]}/dev/zero",
                             copies=1))
    try:
        for how in (signal.SIGINT, signal.SIGKILL):
            results = tmp_path / how.name
            proc = subprocess.Popen([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                def running(proc: subprocess.Popen = proc) -> bool:
                    return bool(all(samplers_in(ns) for ns in namespaces) and local_samplers(proc.pid)
                                and all(any(c.startswith("globus-url-copy") for _, c in processes_in(ns))
                                        for ns in namespaces))

                eventually(running, "the samplers on every host and guc running", timeout=60)
                (local,) = local_samplers(proc.pid)
                for ns in namespaces:  # the sampler itself (not the wrapper, whose arguments name it too; the sh
                    # sampler's command substitutions are short-lived copies of it, also /bin/sh)
                    assert {sampler_program(pid) for pid, _ in samplers_in(ns) if sampler_program(pid)} == {program}
                assert sampler_program(local) == program
                proc.send_signal(how)
                stdout, stderr = proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
            if how == signal.SIGINT:
                assert proc.returncode == 130, stdout + stderr
                assert "Traceback" not in stderr
                ended = [x["host"] for x in read_lines(str(results / SAMPLES_NAME)) if x["event"] == "sampler-ended"]
                assert sorted(ended) == ["h1", "h2", "local"]
                assert len(read_lines(str(results / SUMMARIES_NAME))) == 2  # the interrupted runs' summaries
            for ns in namespaces:
                eventually(lambda ns=ns: samplers_in(ns) == [], f"the samplers in {ns} gone after {how.name}",
                           timeout=15, detail=lambda ns=ns: samplers_in(ns))
            eventually(lambda local=local: not running(local), f"the local sampler gone after {how.name}", timeout=5)
    finally:
        silent.close()


def retrans_segs(netns: str) -> int:
    """The namespace's TCP segments retransmitted so far (/proc/net/snmp, Tcp: RetransSegs)."""
    text = subprocess.run(["ip", "netns", "exec", netns, "cat", "/proc/net/snmp"], capture_output=True,
                          text=True, check=True).stdout
    names, values = [line.split() for line in text.splitlines() if line.startswith("Tcp:")][:2]
    return int(values[names.index("RetransSegs")])


def test_the_tcp_monitor_sees_the_retransmissions_of_a_lossy_path(netlab, tmp_path):
    """guc on h1 sends to a GridFTP server on h3 through the lab's bridge, whose port towards h3 is
    shaped by a tbf with a tiny queue: the bridge drops segments (a loss on the path, not in the
    sender's own queue, which TCP would not retransmit). The tcp monitor on h1 reads the data
    connections' retransmissions, cwnd, rtt and delivery rate; what it counts is more than nothing
    and no more than h1's kernel counted in all (RetransSegs; connections that end between two
    readings lose their last retransmissions, the ssh session's count only in the kernel's)."""
    from gftpwb.shell.lab.gridftp import free_port

    status = netlab.status()
    h3 = next(h for h in status["hosts"] if h["name"] == "h3")
    h1_ns = netns_of(netlab, "h1")
    port = free_port()
    server = subprocess.Popen(
        ["ip", "netns", "exec", h3["netns"], "globus-gridftp-server", "-aa", "-anonymous-user", "nobody", "-p",
         str(port), "-control-interface", h3["address"], "-data-interface", h3["address"], "-s"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    shape = ["dev", h3["veth_controller"], "root"]
    try:
        subprocess.run(["tc", "qdisc", "replace", *shape, "tbf", "rate", "100mbit", "burst", "16kb", "limit", "30kb"],
                       check=True)
        path = tmp_path / "loss.yaml"
        path.write_text(textwrap.dedent(f"""\
            version: 1
            name: loss
            hosts: {{include: "{netlab.state_dir}/hosts.yaml"}}
            monitors:
              - {{id: tcp, type: tcp, on: h1, interval: 0.25s}}
            tests:
              - id: send
                kind: guc
                on: h1
                source: file:///dev/zero
                target: ftp://{h3["address"]}:{port}/dev/null
                options: {{length: 24M, parallel: 2}}
                timeout: 60s
        """))
        eventually(lambda: subprocess.run(["ip", "netns", "exec", h3["netns"], "ss", "-ltn", f"sport = :{port}"],
                                          capture_output=True, text=True).stdout.count("LISTEN") == 1,
                   f"the server listening on port {port} in {h3['netns']}", timeout=15)
        before = retrans_segs(h1_ns)
        results = tmp_path / "r"
        out = subprocess.run([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                             capture_output=True, text=True, timeout=120)
        kernel = retrans_segs(h1_ns) - before
    finally:
        subprocess.run(["tc", "qdisc", "del", *shape], check=False, capture_output=True)
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    assert out.returncode == 0, out.stdout + out.stderr
    samples = [x for x in read_lines(str(results / SAMPLES_NAME)) if x["event"] == "sample"]
    assert samples and not [x for x in samples if "error" in x]
    busy = [x["values"] for x in samples if x["values"]["connections"] > 0]
    assert max(v["connections"] for v in busy) == 2  # the two parallel data streams, not the control one
    counted = sum(x["values"].get("retrans_s", 0) * x["span_s"] for x in samples)
    assert 0 < round(counted) <= kernel, (counted, kernel)
    assert all(v["cwnd_mean"] >= 1 and v["rtt_ms_mean"] > 0 for v in busy)
    # delivery rate: the kernel's estimate over the last round trip, so single readings jump above the
    # shaped 100 Mbit/s (bursts); the typical reading is near it, far below the unshaped Gbit/s
    assert 10 < statistics.median(v["delivery_mbit_s"] for v in busy) < 250
    (summary,) = read_lines(str(results / SUMMARIES_NAME))
    assert summary["monitors"]["tcp"]["h1"]["retrans_s"]["max"] > 0
