"""The SSH transport against an in-process asyncssh server that runs commands for real (see
tests/support/sshserver.py): streaming, exact argv, kills, stdin, uploads, host keys, login and connection
faults. The same paths run against real sshd in network namespaces in test_lab_hosts.py."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time

import asyncssh
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.polling import eventually_async
from support.processes import running

from gftpwb.core.transport import ProcessLost, StartError
from gftpwb.shell.transports.ssh import SshError, SshLimits, SshPool

PRINT_ARGV = [sys.executable, "-c", "import json, os, sys; print(json.dumps([sys.argv[1:], os.getcwd()]))"]


async def collect(proc):
    out = {"stdout": b"", "stderr": b""}
    async for stream, data in proc.output():
        out[stream] += data
    return out, await proc.wait()


@pytest.fixture
async def pool(fake_sshd):
    pools = []

    def make(**kwargs):
        hosts = kwargs.pop("hosts", None) or [fake_sshd.host()]
        p = SshPool(hosts, **kwargs)
        pools.append(p)
        return p

    yield make
    for p in pools:
        await p.close()


async def test_output_streams_as_it_arrives_and_exit_status_comes_back(pool):
    transport = pool().transport("h1")
    script = ("import sys, time\nfor i in range(3):\n    sys.stdout.write(f' {i} bytes\\r'); sys.stdout.flush(); "
              "time.sleep(0.4)\nsys.stderr.write('done\\n'); sys.exit(3)")
    proc = await transport.start([sys.executable, "-c", script])
    chunks = []
    async for stream, data in proc.output():
        chunks.append((time.monotonic(), stream, data))
    assert await proc.wait() == 3
    stdout = [c for c in chunks if c[1] == "stdout"]
    assert b"".join(c[2] for c in stdout) == b" 0 bytes\r 1 bytes\r 2 bytes\r"
    assert len(stdout) >= 2, "progress must arrive in pieces, not at exit"
    assert chunks[-1][0] - stdout[0][0] > 0.5, "the first \\r-ended piece arrived long before the end"
    assert b"".join(c[2] for c in chunks if c[1] == "stderr") == b"done\n"  # the pgid marker is not output


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(args=st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                             max_size=20), max_size=5))
async def test_remote_process_receives_exactly_the_intended_argv(fake_sshd, args):
    p = SshPool([fake_sshd.host()])
    try:
        proc = await p.transport("h1").start([*PRINT_ARGV, *args])
        out, status = await collect(proc)
    finally:
        await p.close()
    assert status == 0, out
    assert json.loads(out["stdout"])[0] == args


async def test_environment_and_directory_with_shell_metacharacters(pool, fake_sshd, tmp_path):
    odd = tmp_path / "dir with $(touch pwned) ; `x` 'q' \"d\""
    odd.mkdir()
    host = fake_sshd.host(env=(("GFTPWB_T", "$HOME; rm -rf / `id`"),), workdir=str(odd))
    transport = pool(hosts=[host]).transport("h1")
    argv = [sys.executable, "-c", "import os, sys; print(os.environ['GFTPWB_T']); print(os.environ['X']); "
            "print(os.getcwd())"]
    proc = await transport.start(argv, env={"X": "a|b&c>d"})
    out, status = await collect(proc)
    assert status == 0
    assert out["stdout"].decode().splitlines() == ["$HOME; rm -rf / `id`", "a|b&c>d", str(odd)]
    assert not (tmp_path / "pwned").exists() and not os.path.exists("pwned")


async def test_missing_program_and_directory_are_start_errors(pool, fake_sshd):
    transport = pool().transport("h1")
    with pytest.raises(StartError, match="no-such-program-gftpwb: command not found"):
        await transport.start(["no-such-program-gftpwb"])
    with pytest.raises(StartError, match="cannot change to directory /no/such/dir"):
        await transport.start(["true"], cwd="/no/such/dir")
    proc = await transport.start(["true"])  # the connection is still good
    assert (await collect(proc))[1] == 0


async def test_stop_kills_the_remote_process_group(pool, fake_sshd, tmp_path):
    transport = pool().transport("h1")
    pidfile = tmp_path / "child.pid"
    script = (f"sleep 1000 & echo $! > {pidfile}; echo started; wait")
    proc = await transport.start(["sh", "-c", script])
    async for _stream, data in proc.output():
        if b"started" in data:
            break
    child = int(pidfile.read_text())
    os.kill(child, 0)
    await proc.stop(grace=0.5)
    assert await proc.wait() != 0
    await eventually_async(lambda: not running(child), "the remote command's child killed")
    # the wrapper's watchdog notices its child is gone within a second
    await eventually_async(lambda: fake_sshd.survivors() == [], "the wrapper and its watchdog gone",
                           detail=fake_sshd.survivors)


async def test_stdin_reaches_the_remote_process(pool):
    transport = pool().transport("h1")
    proc = await transport.start(["sh", "-c", "read line; echo got:$line; cat"], stdin=True)
    await proc.write(b"go\n")
    await proc.write(b"rest")
    await proc.close_stdin()
    out, status = await collect(proc)
    assert (out["stdout"], status) == (b"got:go\nrest", 0)


async def test_upload_is_atomic_keeps_the_mode_and_skips_identical_files(pool, tmp_path):
    transport = pool().transport("h1")
    local = tmp_path / "worker"
    local.write_bytes(b"#!/bin/sh\necho hi\n")
    local.chmod(0o755)
    remote = tmp_path / "remote" / "sub" / "worker"
    assert await transport.upload(str(local), str(remote)) is True
    assert remote.read_bytes() == local.read_bytes() and remote.stat().st_mode & 0o777 == 0o755
    assert await transport.upload(str(local), str(remote)) is False  # same hash: not copied
    local.write_bytes(b"#!/bin/sh\necho changed\n")
    assert await transport.upload(str(local), str(remote)) is True
    assert remote.read_bytes() == local.read_bytes()
    assert sorted(os.listdir(remote.parent)) == ["worker"]  # no temporary file left behind


async def test_a_changed_host_key_is_refused_with_a_clear_message(pool, fake_sshd, tmp_path):
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    known = tmp_path / "other_known_hosts"
    known.write_text(f"[127.0.0.1]:{fake_sshd.port} {other}\n")
    transport = pool(hosts=[fake_sshd.host(known_hosts=str(known))], accept_new_host_keys=True).transport("h1")
    with pytest.raises(SshError, match="HOST KEY MISMATCH") as info:
        await transport.start(["true"])
    assert info.value.status == "host-key" and str(known) in str(info.value)
    assert known.read_text().count("\n") == 1  # trust on first use never replaces a listed key


async def test_unknown_host_is_refused_unless_new_keys_are_accepted(pool, fake_sshd, tmp_path):
    known = tmp_path / "fresh" / "known_hosts"
    host = fake_sshd.host(known_hosts=str(known))
    with pytest.raises(SshError, match=r"not listed in .*--accept-new-host-keys") as info:
        await pool(hosts=[host]).transport("h1").start(["true"])
    assert info.value.status == "host-key"
    notes = []
    transport = pool(hosts=[host], accept_new_host_keys=True, notify=notes.append).transport("h1")
    assert (await collect(await transport.start(["true"])))[1] == 0
    assert len(notes) == 1 and "accepted new host key" in notes[0] and str(known) in notes[0]
    assert f"[127.0.0.1]:{fake_sshd.port} ssh-ed25519 " in known.read_text()
    # Now it is known: a strict pool connects, and nothing more is written.
    assert (await collect(await pool(hosts=[host]).transport("h1").start(["true"])))[1] == 0
    assert known.read_text().count("\n") == 1


async def test_refused_login_and_unreachable_host(pool, fake_sshd, tmp_path):
    stranger = tmp_path / "stranger"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(str(stranger))
    with pytest.raises(SshError, match="login refused for bench") as info:
        await pool(hosts=[fake_sshd.host(identity=str(stranger))]).transport("h1").start(["true"])
    assert info.value.status == "auth-failed"
    from gftpwb.shell.lab.gridftp import free_port

    closed = free_port()
    with pytest.raises(SshError, match=f"host h1 \\(bench@127.0.0.1:{closed}\\): connection refused") as info:
        await pool(hosts=[fake_sshd.host(port=closed)]).transport("h1").start(["true"])
    assert info.value.status == "unreachable"


async def test_dropped_connection_fails_the_process_and_the_next_start_reconnects(pool, fake_sshd):
    transport = pool().transport("h1")
    proc = await transport.start(["sh", "-c", "echo up; sleep 1000"])
    with pytest.raises(ProcessLost, match=r"host h1 .*connection lost while sh ran"):
        async for _stream, data in proc.output():
            if b"up" in data:
                fake_sshd.drop_connections()
    before = fake_sshd.accepted
    proc = await transport.start(["echo", "back"])
    out, status = await collect(proc)
    assert (out["stdout"], status) == (b"back\n", 0)
    assert fake_sshd.accepted == before + 1


async def test_more_than_eight_channels_open_a_second_connection(pool, fake_sshd):
    transport = pool(limits=SshLimits(channels_per_connection=8)).transport("h1")
    procs = [await transport.start(["cat"], stdin=True) for _ in range(12)]
    assert fake_sshd.accepted == 2
    for proc in procs:
        await proc.close_stdin()
    assert [status for _, status in await asyncio.gather(*(collect(p) for p in procs))] == [0] * 12
    again = await transport.start(["true"])  # slots were given back: no third connection
    await collect(again)
    assert fake_sshd.accepted == 2


async def test_pool_close_stops_processes_still_running(fake_sshd):
    p = SshPool([fake_sshd.host()])
    await p.transport("h1").start(["sleep", "1000"])
    await p.close(grace_s=0.5)
    await eventually_async(lambda: fake_sshd.survivors() == [], "every process of the pool gone",
                           detail=fake_sshd.survivors)


async def test_a_start_cancelled_midway_leaves_nothing_running(pool, fake_sshd):
    """Ctrl-C can land while a remote command is starting; whatever phase it hits, the command must
    not survive (the in-process server has no watchdog to save us: its sessions never end)."""
    transport = pool().transport("h1")
    # The cancel lands after 0, 1, 2, 4... turns of the event loop (each a step of the start: connect, exec
    # request, waiting for the wrapper's marker), until a start has completed before its cancel: every
    # phase, on a fast machine as on a loaded one.
    turns, completed = 0, False
    while not completed:
        task = asyncio.create_task(transport.start(["sleep", "1000"]))
        for _ in range(turns):
            await asyncio.sleep(0)  # one turn of the loop, not a wait for time
        completed = task.done()
        task.cancel()
        turns = turns * 2 or 1
        assert turns < 1 << 24, "a start never completed"
        try:
            proc = await task
        except asyncio.CancelledError:
            continue
        await proc.stop(grace=0.2)  # it had started before the cancel arrived: stop it the normal way
    await eventually_async(lambda: fake_sshd.survivors() == [], "every started command gone",
                           detail=fake_sshd.survivors)


async def test_a_jump_host_is_used_and_its_failure_is_named(pool, fake_sshd):
    from gftpwb.shell.lab.gridftp import free_port

    hosts = [fake_sshd.host("j"), fake_sshd.host("x", jump="j")]
    transport = pool(hosts=hosts).transport("x")
    proc = await transport.start(["echo", "through"])
    assert (await collect(proc))[0]["stdout"] == b"through\n"
    assert fake_sshd.accepted == 2  # one connection to the jump host, one tunnelled through it
    dead = [fake_sshd.host("j", port=free_port()), fake_sshd.host("x", jump="j")]
    with pytest.raises(SshError, match=r"^host x \(.*\): cannot reach its jump host: host j \(.*connection refused"):
        await pool(hosts=dead).transport("x").start(["true"])


async def test_a_host_without_user_logs_in_as_the_local_user(pool, fake_sshd):
    """As OpenSSH: no ``user:`` in the inventory means the local login name (this once crashed with a
    TypeError inside asyncssh, because None is not asyncssh's "use the default")."""
    import getpass

    transport = pool(hosts=[fake_sshd.host(user="")]).transport("h1")
    proc = await transport.start(["true"])
    assert (await collect(proc))[1] == 0
    conn = next(iter(fake_sshd.connections))
    assert conn.get_extra_info("username") == getpass.getuser()
