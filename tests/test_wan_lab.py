"""The lab's WAN links, end to end: namespace hosts joined by the delay line, with real TCP, real guc
and real GridFTP servers. The RTT lab up reports is the one asked (within 10 %) and the one a
connection sees; a guc transfer crosses the line and its meta.json names the link; a running link's
rate and delay change (``gftpwb lab link``); loss drops what was asked and the line counts it; lab
down leaves no process, device, namespace, route or record behind."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest
from support.labhosts import hosts_yaml
from support.polling import eventually

from gftpwb.shell.lab.gridftp import free_port
from gftpwb.shell.lab.wan import REGISTRY_DIR

pytestmark = [pytest.mark.real, pytest.mark.slow]
GFTPWB = [sys.executable, "-m", "gftpwb"]

CONNECT_TIMES = """\
import socket, sys, time
for _ in range(int(sys.argv[3])):
    s = socket.socket(); t = time.perf_counter(); s.connect((sys.argv[1], int(sys.argv[2])))
    print(time.perf_counter() - t); s.close()
"""


DATAGRAMS = """\
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b"x" * 100, (sys.argv[1], 9))
"""


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, timeout=timeout)


def link_of(lab) -> dict:
    status = lab.status()
    assert status is not None and len(status["links"]) == 1
    return status["links"][0]


def connect_rtt_ms(netns: str, address: str, count: int = 7) -> float:
    """The median TCP handshake time from inside a namespace: one round trip each."""
    out = subprocess.run(["ip", "netns", "exec", netns, sys.executable, "-c", CONNECT_TIMES, address, "22",
                          str(count)], capture_output=True, text=True, check=True)
    return statistics.median(float(x) for x in out.stdout.split()) * 1000


def within(value: float, asked: float, share: float = 0.10) -> bool:
    return abs(value - asked) <= share * asked


def test_the_rtt_lab_up_reports_is_the_one_asked_and_the_one_tcp_sees(wanlab):
    link = link_of(wanlab)
    assert link["settings"]["rtt_ms"] == 60.0 and link["line_running"]
    # The line runs ahead of the machine's load (real-time priority), with segmentation offload (no loss).
    assert link["line"]["realtime"] is True and link["line"]["offload"] is True
    assert within(link["rtt_measured_ms"], 60.0), link["rtt_measured_ms"]
    a, b = link["ends"]
    # The hosts talk over the line: each routes the other's address through the TUN device ...
    route = subprocess.run(["ip", "-n", a["netns"], "route", "get", b["address"]], capture_output=True, text=True)
    assert f"dev {a['device']}" in route.stdout, route.stdout
    # ... and an independent measurement from either end sees the asked round trip.
    assert within(connect_rtt_ms(a["netns"], b["address"]), 60.0)
    assert within(connect_rtt_ms(b["netns"], a["address"]), 60.0)
    # The controller's links stay fast: its route to a host is the bridge, no delay line on it.
    status = wanlab.status()
    route = subprocess.run(["ip", "route", "get", a["address"]], capture_output=True, text=True).stdout
    assert f"dev {status['bridge']}" in route


def scenario(tmp_path: Path, lab, body: str) -> Path:
    path = tmp_path / "scenario.yaml"
    path.write_text(f"version: 1\nname: wan\n{hosts_yaml(lab)}" + body)
    return path


def delivered(lab) -> int:
    line = link_of(lab)["line"]
    return line["a_to_b"]["delivered_bytes"] + line["b_to_a"]["delivered_bytes"]


def test_a_guc_transfer_crosses_the_line_and_meta_json_names_the_link(wanlab, tmp_path):
    link = link_of(wanlab)
    h2 = link["ends"][1]["address"]
    before = delivered(wanlab)
    path = scenario(tmp_path, wanlab, f"""\
tests:
  - id: across
    kind: guc
    on: h1
    source: ftp://{h2}:2811/dev/zero
    target: file:///dev/null
    options: {{length: 64M, parallel: 4}}
    timeout: 120s
""")
    results = tmp_path / "results"
    out = cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    record = json.loads((results / "results.jsonl").read_text().splitlines()[-1])
    assert record["status"] == "passed" and record["bytes"] == 64 * 1048576
    # Every byte came through the line (it counts what it delivered, both ways).
    assert delivered(wanlab) - before >= 64 * 1048576
    assert link_of(wanlab)["dropped"] == {"loss": 0, "full": 0, "write": 0, "behind": 0}
    meta = json.loads((results / "meta.json").read_text())
    [named] = meta["environment"]["links"]
    assert named["name"] == "h1-h2" and named["settings"]["rtt_ms"] == 60.0
    assert named["rtt_measured_ms"] == link["rtt_measured_ms"] and "delay line" in named["how"]
    assert meta["environment"]["hosts"]["h1"]["routes"][h2]["dev"] == link["ends"][0]["device"]


def qdisc(end: dict) -> str:
    return subprocess.run(["ip", "netns", "exec", end["netns"], "tc", "qdisc", "show", "dev", end["device"]],
                          capture_output=True, text=True).stdout


def test_lab_link_changes_a_running_link_without_restarting_the_line(wanlab):
    state_dir = wanlab.state_dir
    pid = link_of(wanlab)["line_pid"]
    try:
        out = cli("lab", "link", "--state-dir", state_dir, "--rate", "500mbit")
        assert out.returncode == 0, out.stderr
        assert "rate 500mbit" in out.stdout
        link = link_of(wanlab)
        assert link["settings"]["rate"] == "500mbit" and link["line_pid"] == pid and link["line_running"]
        # tbf on both ends, its queue the bandwidth-delay product (500 Mbit/s x 60 ms = 3.75 MB)
        assert link["settings"]["queue_bytes"] == 3750000
        for end in link["ends"]:
            assert "tbf" in qdisc(end) and "rate 500Mbit" in qdisc(end)
        out = cli("lab", "link", "--state-dir", state_dir, "--rtt", "100ms", "--pair", "h1-h2", "--json")
        assert out.returncode == 0, out.stderr
        [changed] = json.loads(out.stdout)
        assert changed["settings"]["rtt_ms"] == 100.0 and within(changed["rtt_measured_ms"], 100.0)
        assert within(connect_rtt_ms(changed["ends"][0]["netns"], changed["ends"][1]["address"]), 100.0)
        assert [c["settings"]["rate"] for c in changed["changes"]][-2:] == ["500mbit", "500mbit"]
    finally:
        out = cli("lab", "link", "--state-dir", state_dir, "--rate", "none", "--rtt", "60ms")
        assert out.returncode == 0, out.stderr
    link = link_of(wanlab)
    assert link["line_pid"] == pid and within(link["rtt_measured_ms"], 60.0)
    assert all("tbf" not in qdisc(end) for end in link["ends"])


def test_the_line_drops_what_the_loss_asks_and_counts_it(tmp_path):
    from gftpwb.core.wanlink import LinkSettings, plan_links
    from gftpwb.shell.lab.netlab import NetLab

    lab = NetLab(str(tmp_path / "lab"))
    try:
        lab.up(2, links=plan_links(["h1", "h2"], LinkSettings(rtt_s=0.002, loss=0.05), {}))
        link = link_of(lab)
        assert link["settings"]["offload"] is False  # with loss every segment crosses on its own
        a, b = link["ends"]
        before = link["line"]["a_to_b"]["packets"]
        subprocess.run(["ip", "netns", "exec", a["netns"], sys.executable, "-c", DATAGRAMS, b["address"], "2000"],
                       check=True)
        line = eventually(lambda: (s := link_of(lab)["line"])["a_to_b"]["packets"] >= before + 2000 and s,
                          "the line to have read 2000 datagrams")
        packets = line["a_to_b"]["packets"]
        lost = line["a_to_b"]["dropped"]["loss"]
        # Independent drops at p = 0.05: the count is binomial; 5 standard deviations either side.
        spread = 5 * (packets * 0.05 * 0.95) ** 0.5
        assert abs(lost - packets * 0.05) <= spread, (lost, packets)
        assert link_of(lab)["dropped"]["full"] == link_of(lab)["dropped"]["write"] == 0
    finally:
        lab.down()


def running(pid: int) -> bool:
    """A process that has not exited (a zombie has: it waits only for init to reap it)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def leftovers(prefix: str, pid: int | None, subnet: str) -> list[str]:
    found = []
    if pid is not None and running(pid):
        found.append(f"process {pid}")
    netns = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    found += [f"namespace {line.split()[0]}" for line in netns.splitlines() if line.startswith(prefix)]
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    found += [f"device {line.split(':')[1].strip()}" for line in links.splitlines() if f" {prefix}-" in line]
    routes = subprocess.run(["ip", "route", "show", "table", "all"], capture_output=True, text=True).stdout
    found += [f"route {line}" for line in routes.splitlines() if subnet.rsplit(".", 1)[0] + "." in line]
    if os.path.exists(os.path.join(REGISTRY_DIR, f"{prefix}.json")):
        found.append("registry record")
    return found


def test_lab_up_with_rtt_says_the_rtt_it_made_and_lab_down_leaves_nothing(tmp_path):
    state_dir = str(tmp_path / "lab")
    port = str(free_port())
    out = cli("lab", "up", "--state-dir", state_dir, "--port", port, "--hosts", "3", "--rtt", "80ms",
              "--link", "h1-h3:rtt=40ms,rate=200mbit")
    try:
        assert out.returncode == 0, out.stdout + out.stderr
        status = json.loads(cli("lab", "status", "--state-dir", state_dir, "--json").stdout)["hosts"]
        links = {link["name"]: link for link in status["links"]}
        assert sorted(links) == ["h1-h2", "h1-h3", "h2-h3"]
        for name, asked in (("h1-h2", 80.0), ("h2-h3", 80.0), ("h1-h3", 40.0)):
            measured = links[name]["rtt_measured_ms"]
            assert within(measured, asked), (name, measured)
            assert f"wan {name}" in out.stdout and f"measured RTT {measured:g} ms" in out.stdout
        assert links["h1-h3"]["settings"]["rate"] == "200mbit" and links["h1-h2"]["settings"]["rate"] == ""
        pids = [link["line_pid"] for link in links.values()]
        assert all(pids) and len(set(pids)) == 3
        assert os.path.exists(os.path.join(REGISTRY_DIR, f"{status['prefix']}.json"))
    finally:
        down = cli("lab", "down", "--state-dir", state_dir)
    assert down.returncode == 0, down.stderr
    for pid in pids:
        assert leftovers(status["prefix"], pid, status["subnet"]) == []


def test_a_line_that_died_is_started_again_by_lab_up(tmp_path):
    from gftpwb.core.wanlink import LinkSettings, plan_links
    from gftpwb.shell.lab.gridftp import kill_group
    from gftpwb.shell.lab.netlab import NetLab

    lab = NetLab(str(tmp_path / "lab"))
    links = plan_links(["h1", "h2"], LinkSettings(rtt_s=0.060), {})
    try:
        lab.up(2, links=links)
        dead = link_of(lab)["line_pid"]
        kill_group(dead)
        eventually(lambda: not link_of(lab)["line_running"], "the line to be gone")
        lab.up(2, links=links)
        link = link_of(lab)
        assert link["line_running"] and link["line_pid"] != dead
        a, b = link["ends"]
        assert within(connect_rtt_ms(a["netns"], b["address"]), 60.0)
    finally:
        lab.down()


@pytest.mark.parametrize(("args", "message"), [
    (["--rtt", "60ms"], "WAN links (--rtt, --loss, --jitter, --link) join namespace hosts: give --hosts N"),
    (["--hosts", "1", "--rtt", "60ms"], "WAN links join two hosts: give --hosts 2 or more"),
    (["--hosts", "2", "--loss", "150%"], "bad loss '150%': a share below 100 %"),
    (["--hosts", "2", "--rtt", "60"], None),  # seconds: 60 s is too long
    (["--hosts", "2", "--rtt", "60ms", "--rate", "fast"], "bad rate 'fast': use a tc rate such as 400mbit"),
    (["--hosts", "2", "--link", "h1-h9:rtt=1ms"], "--link h1-h9: the lab has no host h9 (hosts: h1, h2)"),
    (["--hosts", "2", "--link", "h1-h2:delay=1ms"], "bad link setting 'delay=1ms'"),
    (["--hosts", "2", "--rtt", "2ms", "--jitter", "5ms"], "jitter 5 ms is more than the one-way delay (1 ms)"),
    (["--hosts", "2", "--mtu", "1500"], "--mtu is the WAN links' MTU: give --rtt, --loss, --jitter or --link too"),
])
def test_wan_mistakes_are_usage_errors_before_anything_starts(tmp_path, args, message):
    out = cli("lab", "up", "--state-dir", str(tmp_path / "lab"), "--port", str(free_port()), *args)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    assert (message or "longer than 10 s") in out.stderr
    assert not (tmp_path / "lab" / "hosts.json").exists()


def test_lab_link_on_a_lab_without_wan_links_says_how_to_make_one(tmp_path):
    out = cli("lab", "link", "--state-dir", str(tmp_path), "--rate", "500mbit")
    assert out.returncode == 4 and "Traceback" not in out.stderr
    assert "the lab has no WAN links; make them with gftpwb lab up --hosts N --rtt 60ms" in out.stderr
    out = cli("lab", "link", "--state-dir", str(tmp_path))
    assert out.returncode == 2 and "say what to change: --rate, --rtt" in out.stderr
