"""The executor against a fake guc: live progress, timeouts kill the whole group, Ctrl-C records the
run in flight. (The same paths run against the real server in test_real_gridftp.py.)"""

import asyncio
import time

import pytest
from support.polling import eventually, eventually_async
from support.processes import running

from gftpwb.core.bus import EventBus
from gftpwb.core.events import OutputLine, Progress, RunFinished, RunStarted, ScenarioFinished, ScenarioStarted
from gftpwb.core.specs import RunSpec
from gftpwb.shell.executor import Executor


def spec(run_id="a/0", timeout=None, length=None, argv=("globus-url-copy", "-vb", "ftp://x/a", "ftp://y/b")):
    return RunSpec(run_id=run_id, scenario="s", test_id="a", case=0, repeat=int(run_id[-1]), kind="guc",
                   host="local", argv=argv, timeout_s=timeout, length_bytes=length)


def collect():
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    return bus, events


async def test_progress_streams_while_guc_runs(fake_guc, monkeypatch):
    monkeypatch.setenv("FAKE_GUC_STEP", "0.3")
    bus, events = collect()
    summary = await Executor(bus).run([spec(length=3 * 1048576)], results_dir="r", scenario="s")
    assert summary.all_passed
    kinds = [type(e) for e in events]
    assert kinds[0] is ScenarioStarted and kinds[1] is RunStarted and kinds[-1] is ScenarioFinished
    progress = [e for e in events if isinstance(e, Progress)]
    assert [p.bytes for p in progress] == [1048576, 2097152, 3145728]
    (finished,) = [e for e in events if isinstance(e, RunFinished)]
    # The first sample arrived long before guc exited: streamed, not collected at the end.
    assert progress[0].elapsed_s < finished.record.seconds - 0.5
    assert finished.record.rate_guc_avg_mib_s == 300.0
    assert finished.record.rate_incl_setup_mib_s == pytest.approx(3 / finished.record.seconds)
    assert any(isinstance(e, OutputLine) and e.text.startswith("Source:") for e in events)


async def test_failure_is_a_result_not_an_exception(fake_guc, monkeypatch):
    monkeypatch.setenv("FAKE_GUC_MODE", "fail")
    bus, events = collect()
    summary = await Executor(bus).run([spec()], results_dir="r", scenario="s")
    (record,) = [e.record for e in events if isinstance(e, RunFinished)]
    assert record.status == "failed" and record.exit_code == 1
    assert record.error.startswith("globus_xio: Unable to connect to 127.0.0.1:1")
    assert summary.counts == {"failed": 1}


async def test_timeout_kills_the_process_group(fake_guc, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    child_file = tmp_path / "child.pid"
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(child_file))
    bus, events = collect()
    started = time.monotonic()
    await Executor(bus, kill_grace_s=1.0).run([spec(timeout=1.0)], results_dir="r", scenario="s")
    assert time.monotonic() - started < 5
    (record,) = [e.record for e in events if isinstance(e, RunFinished)]
    assert record.status == "timeout"
    assert record.bytes == 1048576  # what guc reported before it was killed
    child = int(child_file.read_text())
    eventually(lambda: not running(child), "the child of guc killed with it at the timeout")


async def test_stop_records_the_run_in_flight_as_interrupted_and_runs_nothing_more(fake_guc, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    child_file = tmp_path / "child.pid"
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(child_file))
    bus, events = collect()
    executor = Executor(bus, kill_grace_s=1.0)

    async def stop_once_the_child_exists() -> None:
        # Stop only after the fake guc has started its child: a fixed delay lost that race on a loaded machine.
        await eventually_async(lambda: child_file.exists() and child_file.read_text().strip(), "guc's child started")
        executor.stop()

    stoppers: list[asyncio.Task] = []
    bus.subscribe(lambda e: stoppers.append(asyncio.get_running_loop().create_task(stop_once_the_child_exists()))
                  if isinstance(e, RunStarted) else None)
    summary = await executor.run([spec("a/0"), spec("a/1")], results_dir="r", scenario="s")
    records = [e.record for e in events if isinstance(e, RunFinished)]
    assert [(r.run_id, r.status) for r in records] == [("a/0", "interrupted")]
    assert summary.interrupted and summary.counts == {"interrupted": 1} and summary.total == 2
    child = int(child_file.read_text())
    eventually(lambda: not running(child), "the child of guc killed with it at the stop")


async def test_missing_program_fails_the_run_with_a_clear_reason():
    bus, events = collect()
    await Executor(bus, unbuffer=False).run([spec(argv=("no-such-guc-binary", "x", "y"))], results_dir="r",
                                             scenario="s")
    (record,) = [e.record for e in events if isinstance(e, RunFinished)]
    assert (record.status, record.error) == ("failed", "no-such-guc-binary: command not found")


async def test_done_runs_are_skipped(fake_guc):
    bus, events = collect()
    await Executor(bus).run([spec("a/0"), spec("a/1")], results_dir="r", scenario="s", done=frozenset({"a/0"}))
    assert [e.record.run_id for e in events if isinstance(e, RunFinished)] == ["a/1"]


async def test_local_transport_stdin_and_upload(tmp_path):
    from gftpwb.shell.transports.local import LocalTransport

    transport = LocalTransport()
    proc = await transport.start(["sh", "-c", "read line; echo got:$line"], stdin=True)
    await proc.write(b"GO\n")
    await proc.close_stdin()
    chunks = [data async for _, data in proc.output()]
    assert await proc.wait() == 0 and b"".join(chunks) == b"got:GO\n"

    source = tmp_path / "worker.c"
    source.write_text("int main(void) { return 0; }\n")
    target = tmp_path / "remote" / "worker.c"
    assert await transport.upload(str(source), str(target)) is True
    assert target.read_text() == source.read_text()
    assert await transport.upload(str(source), str(target)) is False  # same content: skipped


async def test_a_missing_program_behind_stdbuf_is_named_not_stdbuf():
    from gftpwb.core.transport import StartError
    from gftpwb.shell.transports.local import LocalTransport

    with pytest.raises(StartError, match=r"^no-such-guc-binary: command not found$"):
        await LocalTransport().start(["stdbuf", "-o0", "no-such-guc-binary", "x"])


async def test_local_children_carry_the_watchdog_token(tmp_path):
    from gftpwb.shell.transports import watchdog
    from gftpwb.shell.transports.local import LocalTransport, owner_env

    token = owner_env()[watchdog.ENV_NAME]
    proc = await LocalTransport().start(["sleep", "30"])
    try:
        # /proc shows the new environment once exec is through
        await eventually_async(lambda: proc.pid in watchdog.owned_pids(token), "the watchdog's token in the process")
        assert owner_env()[watchdog.ENV_NAME] == token  # one watchdog per gftpwb process
    finally:
        await proc.stop(0.5)
    assert proc.pid not in watchdog.owned_pids(token)
