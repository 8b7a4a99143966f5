"""Fast tests through the public transport seam: the scripted transport plays guc, a hung program,
a missing one and remote hosts, and the real executor, runners and session do the rest."""

from __future__ import annotations

import asyncio

import pytest

from gftpwb.core.bus import EventBus
from gftpwb.core.clockoffset import ClockOffset
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import Progress, RunFinished, RunStarted
from gftpwb.core.plan import plan
from gftpwb.core.transport import StartError
from gftpwb.kinds.autotune.run.caps import read_end
from gftpwb.shell.executor import Executor
from gftpwb.shell.transports.scripted import Call, Script, ScriptedTransport

PROGRESS = "".join(f" {n * 1048576:12d} bytes {100.0 * n:12.2f} MB/sec avg {90.0:12.2f} MB/sec inst\r"
                   for n in (1, 2, 3))


def scenario(body: str, hosts: str = ""):
    return load_scenario_text(f"version: 1\nname: s\n{hosts}defaults:\n  source: ftp://src/dev/zero\n"
                              f"  target: ftp://dst/dev/null\ntests:\n{body}", "s.yaml")


def run(specs, transports: dict[str, ScriptedTransport], **executor_options):
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, transport_for=lambda host: transports[host], unbuffer=False, **executor_options)
    summary = asyncio.run(executor.run(specs, results_dir="r", scenario="s"))
    return summary, events, [e.record for e in events if isinstance(e, RunFinished)]


def guc(call: Call) -> Script:
    if "fail" in " ".join(call.argv):
        return Script.of(stderr="error: globus_xio: Unable to connect to src:2811\n", exit_code=1)
    return Script.of(stdout=PROGRESS + "\n")


def test_a_guc_run_reads_progress_and_records_bytes_and_rates():
    local = ScriptedTransport(guc)
    specs = plan(scenario("  - {id: t, kind: guc, options: {length: 3M, parallel: 4}}\n"))
    summary, events, records = run(specs, {"local": local})
    assert summary.all_passed
    assert local.calls[0].argv == ("globus-url-copy", "-vb", "-p", "4", "-len", "3M", "ftp://src/dev/zero",
                                   "ftp://dst/dev/null")
    assert [e.bytes for e in events if isinstance(e, Progress)] == [1048576, 2097152, 3145728]
    record = records[0]
    assert (record.status, record.bytes, record.rate_guc_avg_mib_s, record.exit_code) == ("passed", 3145728, 300.0, 0)
    assert record.rate_incl_setup_mib_s == pytest.approx(3 / record.seconds)
    assert record.taglog == "s_#000_000.log"  # guc writes tag logs (its kind says so)


def test_a_failing_run_keeps_gucs_error():
    specs = plan(scenario("  - {id: t, kind: guc, source: ftp://src/fail/zero, options: {length: 1M}}\n"))
    _, _, records = run(specs, {"local": ScriptedTransport(guc)})
    assert records[0].status == "failed" and "Unable to connect" in records[0].error


def test_a_hung_program_times_out_and_is_stopped():
    local = ScriptedTransport(lambda call: Script.of(stdout=PROGRESS, hang=True))
    specs = plan(scenario("  - {id: t, kind: guc, timeout: 0.2s, options: {length: 3M}}\n"))
    _, _, records = run(specs, {"local": local}, kill_grace_s=0.1)
    assert records[0].status == "timeout" and local.processes[0].stopped


def test_a_program_that_cannot_start_fails_the_run_with_the_reason():
    def missing(call: Call) -> Script:
        raise StartError(f"{call.argv[0]}: command not found")

    _, _, records = run(plan(scenario("  - {id: t, kind: guc, options: {length: 1M}}\n")),
                        {"local": ScriptedTransport(missing)})
    assert records[0].status == "failed" and "globus-url-copy: command not found" in records[0].error


def test_a_failing_pre_command_leaves_the_transfer_unstarted():
    local = ScriptedTransport(lambda call: Script.of(stderr="no disk\n", exit_code=2) if call.argv[0] == "check"
                              else guc(call))
    specs = plan(scenario("  - {id: t, kind: guc, options: {length: 1M}, pre: [check, disk]}\n"))
    _, events, records = run(specs, {"local": local})
    assert [c.argv[0] for c in local.calls] == ["check"]
    assert records[0].status == "failed" and "pre command failed (exit status 2: no disk)" in records[0].error
    assert records[0].details["commands"]["pre"]["stderr"] == "no disk\n"
    assert [type(e).__name__ for e in events if isinstance(e, RunStarted | RunFinished)] == ["RunStarted",
                                                                                            "RunFinished"]


def test_a_group_on_two_hosts_connects_to_both_first_then_starts_both():
    hosts = "hosts:\n  h1: {address: 10.0.0.1}\n  h2: {address: 10.0.0.2}\n"
    transports = {name: ScriptedTransport(guc, name=name) for name in ("h1", "h2")}
    specs = plan(scenario("  - {id: t, kind: guc, on: [h1, h2], options: {length: 3M}}\n", hosts))
    summary, _, records = run(specs, transports)
    assert summary.all_passed and sorted(r.run_id for r in records) == ["t/0@h1", "t/0@h2"]
    assert [t.prepared for t in transports.values()] == [1, 1]
    assert [len(t.calls) for t in transports.values()] == [1, 1]


def test_stop_interrupts_the_run_in_flight_and_records_it():
    local = ScriptedTransport(lambda call: Script.of(stdout=PROGRESS, hang=True))
    specs = plan(scenario("  - {id: t, kind: guc, repeat: 2, options: {length: 3M}}\n"))
    bus, records = EventBus(), []
    executor = Executor(bus, transport_for=lambda host: local, unbuffer=False, kill_grace_s=0.1)

    def on_event(event):
        if isinstance(event, Progress) and event.bytes == 3145728:
            executor.stop()
        if isinstance(event, RunFinished):
            records.append(event.record)

    bus.subscribe(on_event)
    summary = asyncio.run(executor.run(specs, results_dir="r", scenario="s"))
    assert summary.interrupted and [r.status for r in records] == ["interrupted"] and len(local.calls) == 1


def test_caps_are_read_through_the_transport_and_clock_offsets_come_from_it():
    remote = ScriptedTransport(lambda call: Script.of(stdout="4194304\n8388608\n"), name="h1",
                               clock=ClockOffset(0.25, 0.001, 8))

    class Context:
        kill_grace_s = 0.1

        def transport_for(self, host):
            return remote

    caps = asyncio.run(read_end(Context(), "target", "gsiftp://h1/dev/null", "local", lambda name: "h1"))
    assert (caps.rmem_max, caps.wmem_max) == (4194304, 8388608)
    assert remote.calls[0].argv == ("cat", "/proc/sys/net/core/rmem_max", "/proc/sys/net/core/wmem_max")
    assert asyncio.run(remote.clock_offset()).offset_s == 0.25
