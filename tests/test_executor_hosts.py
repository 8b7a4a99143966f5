"""The executor with SSH hosts (in-process server, fake guc): a group starts together on every host,
a host that fails only fails its own run, with the reason in the record and on the console."""

from __future__ import annotations

import io

from rich.console import Console
from support.polling import eventually_async

from gftpwb.core.bus import EventBus
from gftpwb.core.events import RunFinished, RunStarted
from gftpwb.core.specs import RunSpec
from gftpwb.shell.executor import Executor, batches
from gftpwb.shell.lab.gridftp import free_port
from gftpwb.shell.sinks.console import ConsoleSink
from gftpwb.shell.transports.hosts import HostTransports

ARGV = ("globus-url-copy", "-vb", "ftp://x/a", "ftp://y/b")


def spec(run_id: str, host: str, group: str = "", timeout: float | None = 30.0) -> RunSpec:
    return RunSpec(run_id=run_id, scenario="s", test_id=run_id.split("/")[0], case=0, repeat=0, kind="guc",
                   host=host, argv=ARGV, timeout_s=timeout, group=group, length_bytes=3 * 1048576)


def test_batches_group_consecutive_specs_of_one_group_only():
    specs = [spec("a/0@x", "x", "a/0"), spec("a/0@y", "y", "a/0"), spec("b/0", "local"), spec("c/0", "local"),
             spec("a/1@x", "x", "a/1"), spec("a/1@y", "y", "a/1")]
    assert [[s.run_id for s in b] for b in batches(specs)] == [
        ["a/0@x", "a/0@y"], ["b/0"], ["c/0"], ["a/1@x", "a/1@y"]]


async def test_a_group_starts_together_and_a_dead_host_fails_alone(fake_sshd, fake_guc, monkeypatch):
    monkeypatch.setenv("FAKE_GUC_STEP", "0.3")
    hosts = [fake_sshd.host("h1"), fake_sshd.host("h2"), fake_sshd.host("gone", port=free_port())]
    transports = HostTransports(hosts)
    attempts: list[str] = []
    connect = transports.pool._connect

    async def counting_connect(host):
        attempts.append(host.name)
        return await connect(host)

    transports.pool._connect = counting_connect
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    out = io.StringIO()
    bus.subscribe(ConsoleSink(Console(file=out, width=200), live=False))
    try:
        summary = await Executor(bus, transport_for=transports).run(
            [spec("t/0@h1", "h1", "t/0"), spec("t/0@h2", "h2", "t/0"), spec("t/0@gone", "gone", "t/0"),
             spec("u/0@h1", "h1")], results_dir="r", scenario="s")
    finally:
        await transports.close()
    order = [(type(e).__name__, getattr(e, "spec", None) or e.record) for e in events
             if isinstance(e, RunStarted | RunFinished)]
    names = [name for name, _ in order]
    assert names[:3] == ["RunStarted"] * 3 and names[3:6] == ["RunFinished"] * 3  # the group, together
    records = {e.record.run_id: e.record for e in events if isinstance(e, RunFinished)}
    a, b = records["t/0@h1"], records["t/0@h2"]
    assert a.status == b.status == "passed" and a.host == "h1" and b.host == "h2"
    assert a.started_at < b.ended_at and b.started_at < a.ended_at  # they ran at the same time
    gone = records["t/0@gone"]
    assert gone.status == "failed" and gone.error.startswith("host gone (bench@127.0.0.1:")
    assert "connection refused" in gone.error
    assert records["u/0@h1"].status == "passed"  # the next run went on
    assert sorted(attempts) == ["gone", "h1", "h2"]  # each host connected once: no retry of the dead one
    assert summary.counts == {"passed": 3, "failed": 1}
    console = out.getvalue()
    assert "FAILED t/0@gone  host gone (bench@127.0.0.1:" in console and "connection refused" in console


async def test_stop_interrupts_every_run_of_a_group(fake_sshd, fake_guc, monkeypatch, tmp_path):
    import asyncio

    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(tmp_path / "child.pid"))
    transports = HostTransports([fake_sshd.host("h1"), fake_sshd.host("h2")])
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, transport_for=transports, kill_grace_s=0.5)
    try:
        task = asyncio.create_task(executor.run([spec("t/0@h1", "h1", "t/0", None), spec("t/0@h2", "h2", "t/0", None),
                                                 spec("later/0", "h1")], results_dir="r", scenario="s"))
        # wrapper, watchdog, guc (x2 hosts); the sleep child too
        await eventually_async(lambda: len(fake_sshd.survivors()) >= 6, "guc and its child running on both hosts",
                               detail=fake_sshd.survivors)
        executor.stop()
        summary = await task
    finally:
        await transports.close()
    records = [e.record for e in events if isinstance(e, RunFinished)]
    assert sorted((r.run_id, r.status) for r in records) == [("t/0@h1", "interrupted"), ("t/0@h2", "interrupted")]
    assert summary.interrupted
    await eventually_async(lambda: fake_sshd.survivors() == [], "every process on the hosts gone",
                           detail=fake_sshd.survivors)
