"""The python3 sampler (gftpwb/shell/hostsampler.py): its pure parts (tcp_info unpacking,
netlink replies, ss's lines, the configuration) read back through the controller's parsers
(hypothesis); its tcp reading against real ``ss -tinp`` on the same live connections; and the one
start command under both samplers, forced either way, falling back to sh without python3."""

from __future__ import annotations

import ast
import contextlib
import os
import shlex
import shutil
import signal
import socket
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.polling import eventually
from support.processes import running
from support.sampler_readings import read_until
from support.sampler_readings import readings as sampler_readings

from gftpwb.core.monitors.model import Monitor
from gftpwb.core.monitors.plan import probes_by_host
from gftpwb.core.monitors.sampler import PYTHON, SH, Probe, python_config, sampler_command
from gftpwb.core.monitors.ss import TcpSocket, parse_ss
from gftpwb.shell import hostsampler as hs
from gftpwb.shell.monitors import host_program

NONCE = "n0"
u32 = st.integers(0, 2**32 - 1)
u64 = st.integers(0, 2**64 - 1)
# sizes of struct tcp_info in kernels over the years: 104 (2.6), 120, 160, 168 (4.9), 192, 232, 248 (6.x)
STRUCT_LENGTHS = (104, 120, 136, 160, 168, 192, 216, 232, 248)


def pack_tcp_info(values: dict[str, int], length: int) -> bytes:
    data = bytearray(length)
    for name, offset, form in hs.TCP_INFO_FIELDS:
        if offset + struct.calcsize(form) <= length:
            struct.pack_into(form, data, offset, values[name])
    return bytes(data)


def expected_socket(values: dict[str, int], length: int, key, owners: tuple[str, ...]) -> TcpSocket:
    """What ``ss`` shows of these tcp_info fields, as parse_ss reads it: a zero (or absent) field's
    item is not printed; rtt through ``%g`` (6 digits), delivery rate in bits per second."""
    fits = {name: value for name, offset, form in hs.TCP_INFO_FIELDS
            if offset + struct.calcsize(form) <= length for value in [values[name]]}
    rtt = fits.get("rtt", 0)
    return TcpSocket(*key, processes=tuple(dict.fromkeys(owners)),
                     cwnd=fits.get("snd_cwnd") or None,
                     rtt_ms=float("%g" % (rtt / 1000)) if rtt else None,
                     retrans_total=fits.get("total_retrans", 0) if fits.get("retrans") or fits.get("total_retrans")
                     else 0,
                     bytes_retrans=fits.get("bytes_retrans", 0), bytes_acked=fits.get("bytes_acked", 0),
                     bytes_received=fits.get("bytes_received", 0),
                     delivery_rate_bps=float("%.0f" % (fits["delivery_rate"] * 8.0)) if fits.get("delivery_rate")
                     else None)


tcp_infos = st.fixed_dictionaries({name: (u64 if form == "=Q" else u32) for name, _, form in hs.TCP_INFO_FIELDS})
comms = st.text(st.characters(min_codepoint=32, max_codepoint=126, exclude_characters='"\\)('), min_size=1,
                max_size=15)
v4 = st.ip_addresses(v=4).filter(lambda a: not a.is_unspecified)  # an established socket has an address
v6 = st.ip_addresses(v=6).filter(lambda a: not a.is_unspecified)


def text_of(address) -> str:
    """An address as ss prints it (inet_ntop: ``::ffff:0.0.0.0``, where ipaddress says ``::ffff:0:0``)."""
    return socket.inet_ntop(socket.AF_INET if address.version == 4 else socket.AF_INET6, address.packed)
ports = st.integers(1, 65535)


def diag_message(family: int, src, dst, sport: int, dport: int, inode: int, info: bytes | None,
                 rqueue: int = 0, wqueue: int = 0) -> bytes:
    """One inet_diag_msg as the kernel sends it (nlmsghdr, the message, an INET_DIAG_INFO attribute)."""
    body = struct.pack("=BBBB", family, 1, 0, 0) + struct.pack(">HH16s16s", sport, dport, src.packed.ljust(16, b"\0"),
                                                               dst.packed.ljust(16, b"\0"))
    body += struct.pack("=IQ", 0, 0) + struct.pack("=IIIII", 0, rqueue, wqueue, 0, inode)
    if info is not None:
        attr = struct.pack("=HH", 4 + len(info), hs.INET_DIAG_INFO) + info
        body += attr + b"\0" * (-len(attr) % 4)
    return struct.pack("=IHHII", 16 + len(body), hs.TCPDIAG_GETSOCK, 2, 1, 0) + body


@settings(max_examples=300)
@given(tcp_infos, st.sampled_from(STRUCT_LENGTHS), st.one_of(st.tuples(v4, v4), st.tuples(v6, v6)), ports, ports,
       st.lists(comms, max_size=3), u32, u32)
def test_a_socket_of_a_dump_reads_back_as_ss_would_show_it(values, length, addresses, sport, dport, owners, rq, wq):
    """tcp_info of any kernel's length -> the sampler's lines -> parse_ss: the figures ss would give."""
    src, dst = addresses
    family = hs.AF_INET if src.version == 4 else hs.AF_INET6
    data = diag_message(family, src, dst, sport, dport, 77, pack_tcp_info(values, length), rq, wq)
    data += struct.pack("=IHHII", 20, hs.NLMSG_DONE, 2, 1, 0) + b"\0" * 4
    (found,), done = hs.parse_diag(data)
    assert done and found[4] == 77
    rqueue, wqueue, local, peer, _inode, info = found
    owner_entries = tuple((comm, 100 + i, 3 + i) for i, comm in enumerate(owners))
    lines = hs.socket_lines(rqueue, wqueue, local, peer, owner_entries, hs.info_items(info))
    (sock,) = parse_ss(lines)
    assert sock == expected_socket(values, length, (text_of(src), sport, text_of(dst), dport), tuple(owners))


@given(st.lists(st.tuples(st.one_of(st.tuples(v4, v4), st.tuples(v6, v6)), ports, ports), max_size=8),
       st.sets(ports, max_size=3), st.integers(1, 200))
def test_a_dump_in_chunks_keeps_every_socket_off_the_skipped_ports(sockets, skip, chunk):
    """Replies split across reads (whole messages per read, as netlink sends them), the done message last;
    sockets on a skipped port (either end) are left out, as ss's filter leaves them out."""
    messages = [diag_message(hs.AF_INET if a.version == 4 else hs.AF_INET6, a, b, sp, dp, i, None)
                for i, ((a, b), sp, dp) in enumerate(sockets)]
    messages.append(struct.pack("=IHHII", 20, hs.NLMSG_DONE, 2, 1, 0) + b"\0" * 4)
    found, done = [], False
    for start in range(0, len(messages), chunk):
        assert not done
        got, done = hs.parse_diag(b"".join(messages[start:start + chunk]), tuple(skip))
        found += got
    assert done
    assert [f[4] for f in found] == [i for i, (_, sp, dp) in enumerate(sockets) if sp not in skip and dp not in skip]


def test_an_error_reply_raises_with_its_errno():
    error = struct.pack("=IHHII", 36, hs.NLMSG_ERROR, 0, 1, 0) + struct.pack("=i", -22) + b"\0" * 16
    with pytest.raises(OSError) as caught:
        hs.parse_diag(error)
    assert caught.value.errno == 22


commands = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=12), min_size=1, max_size=4)
probes = st.lists(st.builds(lambda i, kind, iv, cmd, t, ports, owners: Probe(
    i, iv, kind, tuple(cmd) if kind == "command" else (), t, tuple(ports) if kind == "tcp" else (), owners),
    st.integers(0, 50), st.sampled_from(["cpu", "memory", "net", "disk", "tcp", "command"]), st.integers(1, 10**6),
    commands, st.floats(0.1, 1e4, allow_nan=False), st.lists(ports, max_size=3), st.booleans()), min_size=1,
    max_size=6)


@given(probes)
def test_the_configuration_reads_back_in_the_program(items):
    nonce, parsed = hs.parse_config(python_config(items, NONCE))
    assert nonce == NONCE
    assert [(p.index, p.interval_cs, p.type, p.owners, p.timeout_s, p.skip_ports, p.command) for p in parsed] == [
        (p.index, p.interval_cs, p.type, p.owners, p.timeout_s, p.skip_ports, p.command) for p in items]


def test_the_program_is_a_standalone_python_3_4_program():
    """It runs on the hosts under their python3: standard library only, no syntax newer than 3.4 (no
    f-strings), and no ``socket``/``signal`` wrappers at start (they load enum: 7 ms a start)."""
    text = host_program()
    tree = ast.parse(text, feature_version=(3, 4))
    top = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            top |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0
            top.add((node.module or "").split(".")[0])
    assert top <= {"os", "struct", "sys", "time", "_signal", "_socket", "signal", "socket", "subprocess"}
    assert not any(isinstance(node, ast.JoinedStr) for node in ast.walk(tree))


# --- against the real ss ------------------------------------------------------------------------------

PEERS = textwrap.dedent("""\
    import socket, struct, time
    with open("/proc/self/comm", "w") as f:
        f.write("gftpwb-peers")
    def pair(family, host):
        server = socket.socket(family)
        server.bind((host, 0))
        server.listen(1)
        client = socket.create_connection((host, server.getsockname()[1]))
        return server, client, server.accept()[0]
    keep = []
    for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        for size in (1000, 3000000):
            server, client, peer = pair(family, host)
            client.sendall(b"x" * size)
            got = 0
            while got < size:
                got += len(peer.recv(1 << 20))
            keep += [server, client, peer]
    def unacked(sock):  # struct tcp_info's tcpi_unacked: sent and not yet acknowledged
        return struct.unpack_from("=I", sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 24)[0]
    while any(unacked(sock) for sock in keep[1::3]):  # the idle pairs' last acks are in: they stay still
        time.sleep(0.001)
    server, mover, sink = pair(socket.AF_INET6, "::1")
    print(server.getsockname()[1], flush=True)
    mover.setblocking(False)
    sink.setblocking(False)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        for call in (lambda: mover.send(b"y" * 65536), lambda: sink.recv(65536)):
            try:
                call()
            except BlockingIOError:
                pass
        time.sleep(0.001)
""")


def ss_sockets(probe: hs.Probe) -> dict:
    out = subprocess.run(hs.ss_argv(probe), capture_output=True, text=True, check=True).stdout
    return {s.key: s for s in parse_ss(out.splitlines())}


def test_the_tcp_reading_matches_real_ss_on_the_same_connections():
    """Live loopback connections of a process named gftpwb-peers, IPv4 and IPv6: 4 idle pairs (their
    tcp_info does not move: every figure must equal ss's) and one pair moving data (same sockets and
    owners; cwnd, rtt and delivery rate read a moment apart, so only present on both)."""
    peers = subprocess.Popen([sys.executable, "-c", PEERS], stdout=subprocess.PIPE, text=True)
    try:
        port = int(peers.stdout.readline())  # type: ignore[union-attr]  # once the idle pairs' last acks are in
        probe = hs.Probe(0, 100, "tcp", True, 1.0, (2811,), ())
        diag = hs.Diag(probe)
        status, text = diag.read()
        theirs = ss_sockets(probe)
        assert status == 0
        ours = {s.key: s for s in parse_ss(text.splitlines())}
        mine = {k for k, s in ours.items() if s.processes == ("gftpwb-peers",)}
        assert len(mine) == 10 and {k[0] for k in mine} == {"127.0.0.1", "::1"}
        assert {k for k, s in theirs.items() if s.processes == ("gftpwb-peers",)} == mine
        moving = {k for k in mine if port in (k[1], k[3]) and k[0] == "::1"}
        assert len(moving) == 2
        for key in mine - moving:
            assert ours[key] == theirs[key]
        for key in moving:
            a, b = ours[key], theirs[key]
            assert (a.processes, a.cwnd is None, a.rtt_ms is None) == (b.processes, b.cwnd is None, b.rtt_ms is None)
        assert diag.owners is not None and diag.owners.scans == 1
        owners = diag.owners

        def read_of_the_same_sockets() -> bool:
            """A read that finds no socket the last one did not (the machine is shared: others open
            sockets meanwhile); their owners are known, so /proc is not looked at again."""
            known, scans = set(owners.by_inode), owners.scans
            diag.read()
            if not set(owners.by_inode) <= known:
                return False
            assert owners.scans == scans, "the owners of the same sockets were looked up again"
            return True

        eventually(read_of_the_same_sockets, "a read of the same sockets")
        scans = owners.scans
        with socket.create_server(("127.0.0.1", 0)) as server, \
                socket.create_connection(server.getsockname()) as client, server.accept()[0]:
            _, text = diag.read()  # a new socket: /proc is looked at again, and its owner found
            assert owners.scans == scans + 1
            key = ("127.0.0.1", client.getsockname()[1], "127.0.0.1", server.getsockname()[1])
            me = {s.key: s for s in parse_ss(text.splitlines())}[key]
            assert me.processes == (Path(f"/proc/{os.getpid()}/comm").read_text().strip(),)
        skipping = hs.Diag(hs.Probe(0, 100, "tcp", False, 1.0, (port,), ()))  # as ss's filter, no owners
        left = parse_ss(skipping.read()[1].splitlines())
        assert {s.key for s in left} >= mine - moving and not {s.key for s in left} & moving
        assert all(s.processes == () for s in left) and skipping.owners is None
    finally:
        peers.kill()
        peers.wait()


# --- the start command, both samplers ---------------------------------------------------------------


def start(monitors: list[Monitor], mode: str, prefix: tuple[str, ...] = (), **popen
          ) -> tuple[subprocess.Popen, list]:
    probes = probes_by_host(monitors)["local"]
    argv = [*prefix, *sampler_command([p for _, p in probes], NONCE, host_program(), mode)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **popen)
    return proc, probes


def readings(out: bytes, monitors: list[Monitor], probes: list) -> dict[str, list]:
    return sampler_readings(out, NONCE, monitors, probes)


def program_of(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()


@pytest.mark.parametrize("mode", [PYTHON, SH])
def test_either_sampler_reads_every_monitor_and_stops_quietly(mode):
    """Every type read and parsed, command monitors with their exit status and timeout (124), the
    process found by its name, SIGTERM: exit 0 and nothing on stderr."""
    monitors = [Monitor("c", "cpu", interval_s=0.2), Monitor("m", "memory"), Monitor("n", "net"),
                Monitor("d", "disk"), Monitor("t", "tcp"),
                Monitor("q", "command", command=("sh", "-c", "echo depth=3; echo 7")),
                Monitor("bad", "command", command=("sh", "-c", "echo nope; exit 2")),
                Monitor("slow", "command", command=("sleep", "5"))]
    proc, probes = start(monitors, mode)
    try:
        eventually(lambda: b"\0gftpwb-sampler\0" in Path(f"/proc/{proc.pid}/cmdline").read_bytes(),
                   "the sampler named gftpwb-sampler")
        # the boot sh carries the name too, before it execs python3: wait for the exec, not only the name
        expected = "/usr/bin/python3" if mode == PYTHON else "/bin/sh"  # the system's first
        eventually(lambda: program_of(proc.pid) == expected, f"the sampler running under {expected}")
        # rounds of every monitor, the slow command stopped at its 1 s
        head = read_until(proc, NONCE, monitors, {**{m.id: 1 for m in monitors}, "c": 2})
        proc.terminate()
        rest, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    got = readings(head + rest, monitors, probes)
    assert len(got["c"]) >= 2 and got["m"]  # the slow command holds a round for its 1 s
    assert all(not f.error for key in ("c", "m", "n", "d", "t", "q") for f in got[key])
    assert "busy_pct" in got["c"][-1].values and got["q"][0].values == {"depth": 3.0, "value": 7.0}
    assert got["bad"][0].error == "exit status 2: nope"
    assert got["slow"][0].error == "the command took longer than its interval and was stopped"
    assert proc.returncode == 0 and err == b""


@pytest.mark.parametrize("mode", [PYTHON, SH])
def test_either_sampler_ends_with_its_parent_and_with_its_reader(mode, tmp_path):
    """The parent goes (SIGKILL: nobody stops the sampler): it exits, at its next round. Its reader closes
    the pipe: it exits at its next write, without a word on stderr."""
    monitors = [Monitor("c", "cpu", interval_s=0.1), Monitor("t", "tcp", interval_s=0.1)]
    argv = sampler_command([p for _, p in probes_by_host(monitors)["local"]], NONCE, host_program(), mode)
    pidfile = tmp_path / "pid"
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""\
        import subprocess, sys, time
        proc = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
        open(sys.argv[1], "w").write(str(proc.pid))
        time.sleep(60)
        """), str(pidfile), *argv], start_new_session=True)
    try:
        eventually(lambda: pidfile.exists() and pidfile.read_text(), "the sampler's pid from its parent")
        pid = int(pidfile.read_text())
        eventually(lambda: b"gftpwb-sampler" in Path(f"/proc/{pid}/cmdline").read_bytes(),
                   "the sampler named gftpwb-sampler")
        parent.kill()
        parent.wait()
        eventually(lambda: not running(pid), "the sampler gone with its parent")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(parent.pid, signal.SIGKILL)
    proc, _ = start(monitors, mode)
    os.read(proc.stdout.fileno(), 65536)  # type: ignore[union-attr]
    proc.stdout.close()  # type: ignore[union-attr]
    assert proc.wait(timeout=60) in (0, -signal.SIGPIPE)  # python3 exits 0; the sh dies of SIGPIPE
    assert proc.stderr.read() == b""  # type: ignore[union-attr]


def test_without_python3_the_same_command_runs_the_sh_sampler(tmp_path):
    """``auto`` on a host without python3 (/usr/bin/python3 hidden in a mount namespace of its own, and
    no python3 on PATH): the sh loop; ``python`` forced there: a clear error, status 127; a python3
    that cannot take the configuration becomes the sh sampler."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("cat", "ss", "sleep", "date", "timeout", "mount"):
        (bindir / tool).symlink_to(subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True,
                                                  text=True, check=True).stdout.strip())
    empty = tmp_path / "empty"
    empty.write_text("")
    hide = (shutil.which("unshare") or "unshare", "--mount", "/bin/sh", "-c",
            'mount --bind "$1" /usr/bin/python3 && shift && exec "$@"', "hide", str(empty))
    env = {**os.environ, "PATH": str(bindir)}
    monitors = [Monitor("c", "cpu", interval_s=0.2), Monitor("t", "tcp", interval_s=0.2)]
    proc, probes = start(monitors, "auto", hide, env=env)
    try:
        head = read_until(proc, NONCE, monitors, {"c": 1, "t": 1})  # sampling: past any exec
        assert program_of(proc.pid) == "/bin/sh"
        proc.terminate()
        rest, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    got = readings(head + rest, monitors, probes)
    assert got["c"] and got["t"] and not any(f.error for fs in got.values() for f in fs) and err == b""
    proc, _ = start(monitors, PYTHON, hide, env=env)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 127 and out == b"" and b"python3 not found" in err

    argv = sampler_command([p for _, p in probes], NONCE, host_program(), "auto")
    argv[-1] = "not a configuration"
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        head = read_until(proc, NONCE, monitors, {"c": 1, "t": 1})  # sampling: past any exec
        assert program_of(proc.pid) == "/bin/sh"  # python3 exec'd the sh loop: same process, same parent
        proc.terminate()
        rest, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert readings(head + rest, monitors, probes)["t"]
    assert err.decode().splitlines() == [
        "gftpwb-sampler: python3 cannot sample here (bad nonce); the sh sampler runs"]


def test_gftpwb_sampler_chooses_the_sampler_and_a_wrong_value_is_a_warning(monkeypatch):
    from gftpwb.shell.monitors import SAMPLER_ENV, sampler_mode

    for value, mode in (("", "auto"), ("Python", PYTHON), (" sh ", SH), ("auto", "auto")):
        monkeypatch.setenv(SAMPLER_ENV, value)
        assert sampler_mode() == (mode, "")
    monkeypatch.setenv(SAMPLER_ENV, "perl")
    assert sampler_mode() == ("auto", "GFTPWB_SAMPLER='perl' is not one of auto, python, sh; using auto")
    with pytest.raises(ValueError):
        sampler_command([Probe(0, 100, "cpu")], NONCE, "", "perl")
    assert sampler_command([Probe(0, 100, "cpu")], NONCE, "ignored", SH)[-2:] == ["", ""]  # sh: no program sent


def test_a_kernel_that_refuses_the_dump_gets_the_per_family_one_then_ss(monkeypatch, capsys):
    """The compatible request refused (here: sent with a type the kernel does not know, as a kernel
    without it would answer): the per-family requests, same sockets. Netlink refused altogether (a
    sandbox): ``ss`` itself, as the sh sampler runs it, and one line on stderr saying so."""
    with socket.create_server(("127.0.0.1", 0)) as server, \
            socket.create_connection(server.getsockname()) as client, server.accept()[0]:
        key = ("127.0.0.1", client.getsockname()[1], "127.0.0.1", server.getsockname()[1])
        probe = hs.Probe(0, 100, "tcp", True, 1.0, (2811,), ())
        request = hs.diag_request

        def unknown_compat(family=None, sequence=1):  # nlmsg_type 30 for the compatible request
            data = request(family, sequence)
            return data if family is not None else data[:4] + struct.pack("=H", 30) + data[6:]

        monkeypatch.setattr(hs, "diag_request", unknown_compat)
        diag = hs.Diag(probe)
        status, text = diag.read()
        assert status == 0 and diag.families == [hs.AF_INET, hs.AF_INET6]
        assert key in {s.key for s in parse_ss(text.splitlines())}
        assert capsys.readouterr().err == ""

        class Refused:
            SOCK_RAW = 3

            @staticmethod
            def socket(*args):
                raise PermissionError(1, "Operation not permitted")

        monkeypatch.setattr(hs, "sockets", Refused)
        diag = hs.Diag(probe)
        status, text = diag.read()
        assert status == 0 and diag.families is None
        assert key in {s.key for s in parse_ss(text.splitlines())} and "Recv-Q" in text  # ss's own output
        assert capsys.readouterr().err == (
            "gftpwb-sampler: sock_diag refused ([Errno 1] Operation not permitted); the tcp monitor runs ss\n")


@pytest.mark.parametrize(("owners", "ports"), [(True, ()), (False, (2811, 50000))])
def test_the_program_keeps_the_cores_markers_and_ss_command(owners, ports):
    """hostsampler.py runs on the hosts and cannot import gftpwb, so it carries copies of the stream's
    markers, the timeout status and the ss command it falls back to: a change on one side only would
    make the controller drop every reading, or the two samplers read different sockets."""
    from gftpwb.core.monitors import sampler as core
    from gftpwb.core.monitors.readers import TIMEOUT_STATUS

    assert (hs.CLOCK, hs.START, hs.END, hs.NAME, hs.TIMEOUT_STATUS) == (
        core.CLOCK, core.START, core.END, core.SAMPLER_NAME, TIMEOUT_STATUS)
    sh_reading = core.reading_code(Probe(0, 100, "tcp", skip_ports=ports, owners=owners))
    assert f"{{ {shlex.join(hs.ss_argv(hs.Probe(0, 100, 'tcp', owners, 1.0, ports, ())))} 2>&1; }}" in sh_reading
