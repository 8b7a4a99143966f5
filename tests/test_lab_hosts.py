"""End to end against the real lab: network namespaces with real sshd, real guc, real GridFTP server.

Guc runs from two namespace hosts at once, a host that is down, a timeout (no guc left in the
namespace), shell metacharacters in argv, paths and comments, a changed host key, a dropped
connection, a killed sshd (and the reconnect once it is back), Ctrl-C, a jump host and uploads.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import asyncssh
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.labhosts import (
    hosts_yaml,
    inventory,
    kill,
    netns_of,
    processes_in,
    sshd_pids,
    started_by_gftpwb,
)
from support.polling import eventually, eventually_async

from gftpwb.core.bus import EventBus
from gftpwb.core.events import RunFinished
from gftpwb.core.records import parse_journal
from gftpwb.core.specs import RunSpec
from gftpwb.shell.executor import Executor
from gftpwb.shell.transports.hosts import HostTransports
from gftpwb.shell.transports.ssh import SshError, SshPool

pytestmark = pytest.mark.real
GFTPWB = [sys.executable, "-m", "gftpwb"]


@pytest.fixture
def silent_server(netlab):
    """A TCP port on the controller's bridge address that accepts connections and never answers:
    guc waits there forever, which makes a run that only a timeout or a kill can end."""
    status = netlab.status()
    sock = socket.socket()
    sock.bind((status["controller_address"], 0))
    sock.listen(64)
    yield f"ftp://{status['controller_address']}:{sock.getsockname()[1]}/dev/zero"
    sock.close()


def scenario(tmp_path: Path, lab, body: str, **extra_hosts: str) -> Path:
    status = lab.status()
    path = tmp_path / "scenario.yaml"
    path.write_text(f"version: 1\nname: lab\n{hosts_yaml(lab, **extra_hosts)}" +
                    body.replace("CONTROLLER", status["controller_address"]))
    return path


def run_cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, timeout=timeout)


def records(results: Path) -> dict:
    found, problems = parse_journal((results / "results.jsonl").read_text())
    assert problems == []
    return {r.run_id: r for r in found}


def test_guc_runs_from_two_namespace_hosts_at_once(netlab, tmp_path):
    path = scenario(tmp_path, netlab, """\
tests:
  - id: fan
    kind: guc
    on: [h1, h2]
    source: ftp://CONTROLLER:2811/dev/zero
    target: file:///dev/null
    options: {length: 64M, parallel: 2}
    timeout: 60s
    repeat: 2
""")
    results = tmp_path / "results"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    got = records(results)
    assert sorted(got) == ["fan/0@h1", "fan/0@h2", "fan/1@h1", "fan/1@h2"]
    for run_id, record in got.items():
        assert record.status == "passed" and record.bytes == 64 * 1048576
        assert record.host == run_id.rsplit("@", 1)[1]
        assert (results / record.taglog).exists() and record.taglog.endswith(f"@{record.host}.log")
    # The two hosts' runs of one repeat overlapped: they were started together, not one after the other.
    for repeat in (0, 1):
        a, b = got[f"fan/{repeat}@h1"], got[f"fan/{repeat}@h2"]
        assert a.started_at < b.ended_at and b.started_at < a.ended_at
    assert "fan/0@h1" in out.stdout and "fan/0@h2" in out.stdout
    taglog = (results / got["fan/0@h2"].taglog).read_text()
    assert "<GFTPWB_HOST>\nh2\n</GFTPWB_HOST>" in taglog
    # meta.json describes every host used, probed over SSH: what it is and how it reaches the server
    controller = netlab.status()["controller_address"]
    env = json.loads((results / "meta.json").read_text())["environment"]
    assert sorted(env["hosts"]) == ["h1", "h2"] and env["gftpwb_version"]
    local_server = subprocess.run(["globus-gridftp-server", "-version"], capture_output=True, text=True)
    for name in ("h1", "h2"):
        host = env["hosts"][name]
        assert host["kernel"] == os.uname().release and host["cpu_count"] == os.cpu_count()
        assert host["cpu_model"] and host["guc"] and host["tcp"]["congestion_control"]
        assert host["tcp"]["rmem_max"] > 0 and len(host["tcp"]["tcp_rmem"]) == 3
        route = host["routes"][controller]
        assert route["ip"] == controller and route["dev"] not in (None, "lo") and route["mtu"] > 0
        server = host["servers"][f"ftp://{controller}:2811/"]
        assert "GridFTP Server" in server["banner"]
        assert server["version"] in (local_server.stdout + local_server.stderr)


def test_a_host_that_is_down_fails_only_its_runs_with_the_reason(netlab, tmp_path):
    status = netlab.status()
    dead = status["subnet"].rsplit(".", 1)[0] + ".250"  # on the lab's network, but nobody is there
    path = scenario(tmp_path, netlab, """\
tests:
  - id: t
    kind: guc
    on: [h1, dead]
    source: ftp://CONTROLLER:2811/dev/zero
    target: file:///dev/null
    options: {length: 8M}
    timeout: 60s
""", dead=f"{{address: {dead}, user: root, connect_timeout: 2s, known_hosts: {json.dumps(status['known_hosts'])}}}")
    results = tmp_path / "results"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 1, out.stdout + out.stderr
    got = records(results)
    assert got["t/0@h1"].status == "passed"
    failed = got["t/0@dead"]
    assert failed.status == "failed" and failed.host == "dead"
    assert failed.error.startswith(f"host dead (root@{dead}:22): ")
    assert "no answer within 2s" in failed.error or "No route to host" in failed.error
    taglog = (results / failed.taglog).read_text()
    assert f"<GFTPWB_ERROR_DETAIL>\n{failed.error}\n" in taglog
    assert f"FAILED t/0@dead  host dead (root@{dead}:22)" in out.stdout


def test_timeout_kills_guc_in_the_namespace(netlab, tmp_path, silent_server):
    netns = netns_of(netlab, "h1")
    path = scenario(tmp_path, netlab, f"""\
tests:
  - id: hang
    kind: guc
    on: h1
    source: {silent_server}
    target: file:///dev/null
    timeout: 2s
""")
    results = tmp_path / "results"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 1, out.stdout + out.stderr
    record = records(results)["hang/0@h1"]
    assert record.status == "timeout"
    # guc was killed by the time the run was recorded; the wrapper and its watchdog follow within a second.
    assert [cmd for _, cmd in processes_in(netns) if "globus-url-copy" in cmd] == []
    eventually(lambda: started_by_gftpwb(netns) == [], f"nothing gftpwb started left in {netns}", timeout=5,
               detail=lambda: started_by_gftpwb(netns))


ARGV_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=24)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=st.lists(ARGV_TEXT, max_size=5), value=ARGV_TEXT)
def test_a_remote_process_receives_exactly_the_intended_argv_and_environment(netlab, args, value):
    host = inventory(netlab)["h1"]
    code = "import json, os, sys; print(json.dumps([sys.argv[1:], os.environ.get('GFTPWB_VALUE')]))"

    async def go():
        pool = SshPool([host])
        try:
            proc = await pool.transport("h1").start(["python3", "-c", code, *args], env={"GFTPWB_VALUE": value})
            out = b""
            async for stream, data in proc.output():
                if stream == "stdout":
                    out += data
            return json.loads(out), await proc.wait()
        finally:
            await pool.close()

    (got_args, got_value), status = asyncio.run(go())
    assert status == 0 and got_args == args and got_value == value


def test_shell_metacharacters_in_paths_and_comments_stay_data(netlab, tmp_path):
    target_dir = tmp_path / "out dir"
    target_dir.mkdir()
    name = "x;$(id)&$HOME;b"
    comment = "#it's \"quoted\"; $(touch pwned) `touch pwned` | rm -rf / && echo"
    path = scenario(tmp_path, netlab, f"""\
tests:
  - id: odd
    kind: guc
    on: h2
    source: ftp://CONTROLLER:2811/dev/zero
    target: {json.dumps("file://" + str(target_dir).replace(" ", "%20") + "/" + name)}
    options: {{length: 1M}}
    comment: {json.dumps(comment)}
    timeout: 60s
""")
    results = tmp_path / "results"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    out = subprocess.run([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                         capture_output=True, text=True, cwd=cwd, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    record = records(results)["odd/0@h2"]
    assert record.comment == comment and record.argv[-1].endswith("/" + name)
    assert (target_dir / name).stat().st_size == 1048576  # the file guc wrote has exactly that name
    assert not any(p.name == "pwned" for p in tmp_path.rglob("*")) and not Path("/root/pwned").exists()
    taglog = (results / record.taglog).read_text()
    assert f"<GSIFTP_TRANSFER_LOG_COMMENT>\n{comment}\n</GSIFTP_TRANSFER_LOG_COMMENT>" in taglog


def test_a_changed_host_key_is_refused_with_a_clear_message(netlab, tmp_path):
    status = netlab.status()
    h1 = status["hosts"][0]
    forged = tmp_path / "known_hosts"
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    forged.write_text(f"{h1['address']} {other}\n")
    path = tmp_path / "s.yaml"
    path.write_text(f"""version: 1
name: forged
hosts:
  h1: {{address: {h1['address']}, user: root, identity: {json.dumps(status['identity'])}, known_hosts: {forged}}}
tests:
  - {{id: t, kind: guc, on: h1, source: ftp://{status['controller_address']}:2811/dev/zero, target: file:///dev/null,
      options: {{length: 1M}}, timeout: 30s}}
""")
    results = tmp_path / "results"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never", "--accept-new-host-keys")
    assert out.returncode == 1
    record = records(results)["t/0@h1"]
    assert record.status == "failed"
    assert f"host h1 (root@{h1['address']}:22): HOST KEY MISMATCH" in record.error and str(forged) in record.error
    assert "HOST KEY MISMATCH" in out.stdout
    assert forged.read_text() == f"{h1['address']} {other}\n"  # never rewritten
    check = run_cli("hosts", "check", str(path), "--json", "--only", "h1")
    assert check.returncode == 1
    assert json.loads(check.stdout)["hosts"][0]["status"] == "host-key"


def test_hosts_check_reports_tools_clock_and_buffer_caps(netlab, tmp_path):
    status = netlab.status()
    fresh = tmp_path / "fresh_known_hosts"
    h3 = status["hosts"][2]
    path = scenario(tmp_path, netlab, "tests:\n  - {id: t, kind: guc, source: ftp://a/b, target: ftp://a/c}\n",
                    new=f"{{address: {h3['address']}, user: root, identity: {json.dumps(status['identity'])}, "
                        f"known_hosts: {fresh}}}")
    strict = run_cli("hosts", "check", str(path), "--json")
    assert strict.returncode == 1
    by_name = {h["host"]: h for h in json.loads(strict.stdout)["hosts"]}
    assert by_name["new"]["status"] == "host-key" and "--accept-new-host-keys" in by_name["new"]["error"]
    out = run_cli("hosts", "check", str(path), "--json", "--accept-new-host-keys")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "accepted new host key of host new" in out.stderr
    assert fresh.read_text().startswith(f"{h3['address']} ssh-ed25519 ")
    local_guc = subprocess.run(["globus-url-copy", "-version"], capture_output=True, text=True)
    version = (local_guc.stdout + local_guc.stderr).strip().split(":")[-1].strip()
    caps = [int(x) for x in Path("/proc/sys/net/ipv4/tcp_rmem").read_text().split()]
    reports = {h["host"]: h for h in json.loads(out.stdout)["hosts"]}
    assert set(reports) == {"local", "h1", "h2", "h3", "new"}
    for name in ("h1", "h2", "h3", "new"):
        report = reports[name]
        assert report["status"] == "ok" and report["reachable"] and report["authenticated"]
        assert report["guc_version"] == version
        assert report["gcc"] is not None and report["gcc"].startswith("gcc")
        assert abs(report["clock"]["offset_s"]) <= report["clock"]["uncertainty_s"] + 0.05  # same kernel clock
        assert report["tcp_buffers"]["tcp_rmem"] == caps  # namespaces of this kernel
    table = run_cli("hosts", "check", str(path), "--only", "h1,local")
    assert table.returncode == 0 and "h1" in table.stdout and "clock offset" in table.stdout


def _spec(run_id: str, host: str, argv: tuple[str, ...], group: str = "", timeout: float | None = 60.0) -> RunSpec:
    return RunSpec(run_id=run_id, scenario="faults", test_id=run_id.split("/")[0], case=0, repeat=0, kind="guc",
                   host=host, argv=argv, timeout_s=timeout, group=group)


def _guc(source: str, *extra: str) -> tuple[str, ...]:
    return ("globus-url-copy", "-vb", *extra, source, "file:///dev/null")


async def _run_specs(transports: HostTransports, specs: list[RunSpec], during=None):
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, transport_for=transports, kill_grace_s=1.0)
    task = asyncio.create_task(executor.run(specs, results_dir="r", scenario="faults"))
    if during is not None:
        await during(events)
    await task
    return {e.record.run_id: e.record for e in events if isinstance(e, RunFinished)}, events


async def _until_running(netns: str, events: list, count: int = 1) -> None:
    await eventually_async(lambda: len([c for _, c in processes_in(netns) if c.startswith("globus-url-copy")]) >= count,
                           f"{count} guc running in {netns}", timeout=30)


def test_dropped_connection_fails_only_that_hosts_run_and_the_next_run_reconnects(netlab, silent_server):
    h2_ns = netns_of(netlab, "h2")
    ok = _guc(f"ftp://{netlab.status()['controller_address']}:2811/dev/zero", "-len", "256M")

    async def go():
        transports = HostTransports(list(inventory(netlab).values()))
        try:
            async def drop(events):
                await _until_running(h2_ns, events)
                kill(sshd_pids(netlab, "h2")[1])  # the per-connection sshd: the connection drops

            got, _ = await _run_specs(transports, [_spec("g/0@h1", "h1", ok, "g/0"),
                                                   _spec("g/0@h2", "h2", _guc(silent_server), "g/0")], drop)
            again, _ = await _run_specs(transports, [_spec("next/0@h2", "h2", _guc(silent_server, "-len", "1M"),
                                                           timeout=2.0)])
            return got, again
        finally:
            await transports.close()

    got, again = asyncio.run(go())
    assert got["g/0@h1"].status == "passed"
    lost = got["g/0@h2"]
    assert lost.status == "failed" and lost.error.startswith("host h2 (root@") and "connection lost" in lost.error
    # The watchdog in h2 noticed its sshd session was gone and killed what gftpwb started there.
    eventually(lambda: started_by_gftpwb(h2_ns) == [], "the watchdog in h2 killing what gftpwb started", timeout=8,
               detail=lambda: started_by_gftpwb(h2_ns))
    assert again["next/0@h2"].status == "timeout"  # it connected again and ran (until its time limit)
    eventually(lambda: started_by_gftpwb(h2_ns) == [], "nothing gftpwb started left in h2", timeout=5,
               detail=lambda: started_by_gftpwb(h2_ns))


def test_killed_sshd_fails_the_host_until_it_is_back(netlab, silent_server):
    h3_ns = netns_of(netlab, "h3")
    good = _guc(f"ftp://{netlab.status()['controller_address']}:2811/dev/zero", "-len", "1M")

    async def go():
        transports = HostTransports(list(inventory(netlab).values()))
        try:
            async def kill_sshd(events):
                await _until_running(h3_ns, events)
                listener, sessions = sshd_pids(netlab, "h3")
                kill([listener, *sessions])

            first, _ = await _run_specs(transports, [_spec("k/0@h3", "h3", _guc(silent_server))], kill_sshd)
            down, _ = await _run_specs(transports, [_spec("k/1@h1", "h1", good, "k/1"),
                                                    _spec("k/1@h3", "h3", good, "k/1")])
            netlab.restart_sshd("h3")
            back, _ = await _run_specs(transports, [_spec("k/2@h3", "h3", good)])
            return first, down, back
        finally:
            await transports.close()

    try:
        first, down, back = asyncio.run(go())
    finally:
        netlab.restart_sshd("h3")
    assert first["k/0@h3"].status == "failed" and "connection lost" in first["k/0@h3"].error
    assert down["k/1@h1"].status == "passed"
    assert down["k/1@h3"].status == "failed" and "connection refused" in down["k/1@h3"].error
    assert back["k/2@h3"].status == "passed"
    eventually(lambda: started_by_gftpwb(h3_ns) == [], "nothing gftpwb started left in h3", timeout=8,
               detail=lambda: started_by_gftpwb(h3_ns))


def test_ctrl_c_stops_every_remote_process(netlab, tmp_path, silent_server):
    path = scenario(tmp_path, netlab, f"""\
tests:
  - id: forever
    kind: guc
    on: [h1, h2]
    source: {silent_server}
    target: file:///dev/null
""")
    results = tmp_path / "results"
    namespaces = [netns_of(netlab, "h1"), netns_of(netlab, "h2")]
    proc = subprocess.Popen([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # the transfers, not the environment probe's guc (it reads the server's banner first)
        eventually(lambda: all(any(c.startswith("globus-url-copy") and "/dev/zero" in c
                                   for _, c in processes_in(ns)) for ns in namespaces),
                   "the transfers running on h1 and h2", timeout=30)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stdout + stderr
    got = records(results)
    assert {got["forever/0@h1"].status, got["forever/0@h2"].status} == {"interrupted"}
    for ns in namespaces:
        assert [c for _, c in processes_in(ns) if "globus-url-copy" in c] == []
        eventually(lambda ns=ns: started_by_gftpwb(ns) == [], f"nothing gftpwb started left in {ns}", timeout=5,
                   detail=lambda ns=ns: started_by_gftpwb(ns))


def test_jump_host_and_upload(netlab, tmp_path):
    hosts = inventory(netlab, h2={"jump": "h1"})
    h1_address = hosts["h1"].address
    worker = tmp_path / "worker.sh"
    worker.write_text("#!/bin/sh\necho \"from $SSH_CONNECTION\"\n")
    worker.chmod(0o755)
    remote = tmp_path / "remote" / "bin" / "worker.sh"

    async def go():
        pool = SshPool(list(hosts.values()))
        try:
            transport = pool.transport("h2")
            copied = [await transport.upload(str(worker), str(remote)) for _ in range(2)]
            proc = await transport.start([str(remote)])
            out = b""
            async for stream, data in proc.output():
                out += data if stream == "stdout" else b""
            return copied, out.decode(), await proc.wait()
        finally:
            await pool.close()

    copied, out, status = asyncio.run(go())
    assert copied == [True, False] and status == 0
    assert out.startswith(f"from {h1_address} "), out  # h2's sshd saw the connection come from h1


def test_unknown_identity_is_refused_login(netlab, tmp_path):
    stranger = tmp_path / "stranger"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(stranger))
    hosts = inventory(netlab, h1={"identity": str(stranger)})

    async def go():
        pool = SshPool([hosts["h1"]])
        try:
            await pool.transport("h1").start(["true"])
        finally:
            await pool.close()

    with pytest.raises(SshError, match="login refused for root") as info:
        asyncio.run(go())
    assert info.value.status == "auth-failed"


def test_lab_up_status_and_down_make_and_remove_exactly_their_own_things(tmp_path):
    state = tmp_path / "lab"
    from gftpwb.shell.lab.gridftp import free_port

    env = {**os.environ, "GFTPWB_LAB_DIR": str(state)}
    up = subprocess.run([*GFTPWB, "lab", "up", "--port", str(free_port()), "--hosts", "2", "--rate", "100mbit",
                         "--gridftp-on-hosts"], capture_output=True, text=True, env=env, timeout=120)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        status = json.loads(subprocess.run([*GFTPWB, "lab", "status", "--json"], capture_output=True, text=True,
                                           env=env).stdout)["hosts"]
        assert [h["name"] for h in status["hosts"]] == ["h1", "h2"]
        assert all(h["sshd_running"] and h["gridftp_running"] for h in status["hosts"])
        for h in status["hosts"]:
            assert h["netns"].startswith(status["prefix"]) and h["controller_address"] == status["controller_address"]
            qdisc = subprocess.run(["tc", "qdisc", "show", "dev", h["veth_controller"]], capture_output=True,
                                   text=True).stdout
            assert "tbf" in qdisc and "100Mbit" in qdisc
        # A guc from h1 to h2's own GridFTP server, through the shaped links.
        h1, h2 = status["hosts"]
        guc = subprocess.run(["ip", "netns", "exec", h1["netns"], "globus-url-copy", "-len", "1M",
                              f"{h2['gridftp_url']}/dev/zero", "file:///dev/null"], capture_output=True, text=True,
                             timeout=60)
        assert guc.returncode == 0, guc.stderr
        again = subprocess.run([*GFTPWB, "lab", "up", "--hosts", "3"], capture_output=True, text=True, env=env)
        assert again.returncode == 4 and "lab down" in again.stderr
    finally:
        down = subprocess.run([*GFTPWB, "lab", "down"], capture_output=True, text=True, env=env, timeout=120)
    assert down.returncode == 0, down.stderr
    after_ns = set(subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split())
    assert not any(n.startswith(status["prefix"]) for n in after_ns)
    for h in status["hosts"]:
        assert subprocess.run(["ip", "link", "show", h["veth_controller"]], capture_output=True).returncode != 0
    assert subprocess.run(["ip", "link", "show", status["bridge"]], capture_output=True).returncode != 0


def test_bad_lab_requests_are_usage_errors_and_make_nothing(tmp_path):
    from support.clihelp import gftpwb

    env = {"GFTPWB_LAB_DIR": str(tmp_path / "lab")}
    for args, message in ((["--hosts", "-1"], "--hosts must be between 1 and 200"),
                          (["--hosts", "2", "--rate", "fast"], "bad --rate 'fast'"),
                          (["--rate", "1gbit"], "--hosts must be between 1 and 200")):
        out = gftpwb("lab", "up", *args, env=env)
        assert out.returncode == 2 and out.stderr.startswith(f"gftpwb: {message}"), out.stderr
        assert "Traceback" not in out.stderr
    assert not (tmp_path / "lab" / "gridftp.pid").exists()  # refused before the loopback server started
    from gftpwb.core.errors import UsageError
    from gftpwb.shell.lab.netlab import NetLab

    lab = NetLab(str(tmp_path / "lab2"))
    for kwargs, message in (({"count": 0}, "--hosts must be between"), ({"count": 1, "rate": "fast"}, "bad --rate")):
        with pytest.raises(UsageError, match=message):
            lab.up(**kwargs)
    assert lab.load() is None and not (tmp_path / "lab2" / "hosts.json").exists()


def test_pre_post_comment_commands_and_connection_tests_run_on_the_remote_host(netlab, tmp_path):
    """tgftp's per-test commands and connection tests run on the test's host over SSH:
    the commands' output shows the namespace's own address, not the controller's."""
    h1 = next(h for h in netlab.status()["hosts"] if h["name"] == "h1")
    dead_port = socket.socket()
    dead_port.bind(("127.0.0.1", 0))
    dead = dead_port.getsockname()[1]
    dead_port.close()
    path = scenario(tmp_path, netlab, f"""\
tests:
  - id: remote-commands
    kind: guc
    on: h1
    source: ftp://CONTROLLER:2811/dev/zero
    target: file:///dev/null
    options: {{length: 16M}}
    timeout: 60s
    pre: [ip, "-4", -o, addr, show]
    comment_command: {{run: "ip -4 -o addr show | grep -c 'inet '", shell: true}}
    post: [sh, -c, 'echo post-ran-on-$(ip -4 -o addr show | grep -v " lo " | grep -o "inet [0-9.]*")']
  - id: reach
    kind: connection-test
    on: h2
    source: ftp://CONTROLLER:2811/dev/zero
    target: ftp://CONTROLLER:2811/dev/null
  - id: unreachable
    kind: connection-test
    on: h2
    source: ftp://CONTROLLER:{dead}/dev/zero
    target: ftp://CONTROLLER:2811/dev/null
""")
    results = tmp_path / "results"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 1, out.stdout + out.stderr  # the unreachable connection test fails
    got = records(results)
    remote = got["remote-commands/0@h1"]
    assert remote.status == "passed" and remote.host == "h1"
    commands = remote.details["commands"]
    assert h1["address"] in commands["pre"]["stdout"]
    assert commands["post"]["stdout"].strip() == f"post-ran-on-inet {h1['address']}"
    assert remote.comment.strip().isdigit()  # the comment command's output became the comment
    assert got["reach/0@h2"].status == "passed"
    failed = got["unreachable/0@h2"]
    assert failed.status == "failed" and "connect" in failed.error.splitlines()[0].lower()
