"""Stops at run boundaries : a stop at any moment around a run's record never
raises out of the executor, the summary counts exactly the records published, and records and exit
codes say which signal stopped the run. The same against real guc in test_hardening_real.py."""

from __future__ import annotations

import asyncio

import pytest

from gftpwb.core.bus import EventBus
from gftpwb.core.errors import EXIT_STOPPED_BY
from gftpwb.core.events import RunFinished, RunStarted
from gftpwb.core.records import INTERRUPTED, PASSED, Summary
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import RunSpec
from gftpwb.shell import frontend
from gftpwb.shell.context import Interrupted
from gftpwb.shell.executor import Executor


def spec(i: int) -> RunSpec:
    return RunSpec(run_id=f"a/{i}", scenario="s", test_id="a", case=0, repeat=i, kind="guc", host="local",
                   argv=("x",))


async def quick(ctx, spec: RunSpec):
    ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=""))
    try:
        await asyncio.sleep(0)
    except asyncio.CancelledError:
        stopped = record_for(spec, INTERRUPTED, error="interrupted by the user (Ctrl-C); x was stopped")
        raise Interrupted(stopped) from None
    return record_for(spec, PASSED)


def after_steps(loop: asyncio.AbstractEventLoop, steps: int, action) -> None:
    """Call ``action`` after ``steps`` turns of the loop: walks a stop across every moment between
    one run's record and the next run's start (the task created, not yet started, started...)."""
    if steps == 0:
        action()
    else:
        loop.call_soon(after_steps, loop, steps - 1, action)


@pytest.mark.parametrize("steps", range(8))
async def test_a_stop_at_any_moment_around_a_record_never_raises(steps):
    bus, events = EventBus(), []
    executor = Executor(bus, runners={"guc": quick})
    bus.subscribe(events.append)
    bus.subscribe(lambda e: after_steps(asyncio.get_running_loop(), steps, lambda: executor.stop("SIGTERM"))
                  if isinstance(e, RunFinished) and e.record.run_id == "a/1" else None)
    summary = await executor.run([spec(i) for i in range(5)], results_dir="r", scenario="s")
    finished = [e.record for e in events if isinstance(e, RunFinished)]
    started = [e.spec.run_id for e in events if isinstance(e, RunStarted)]
    assert [r.run_id for r in finished] == started  # every run that started has exactly one record
    assert summary.interrupted and summary.stopped_by == "SIGTERM"
    assert sum(summary.counts.values()) == len(finished)
    statuses = [r.status for r in finished]
    assert 2 <= statuses.count(PASSED) < 5 and statuses[:statuses.count(PASSED)] == [PASSED] * statuses.count(PASSED)
    for record in finished[statuses.count(PASSED):]:  # at most the run in flight, interrupted and saying by what
        assert record.status == INTERRUPTED
        assert record.error == "interrupted by SIGTERM; x was stopped"
        assert record.details["interrupted_by"] == "SIGTERM"
    assert len(finished) - statuses.count(PASSED) <= 1


def stop_once_started(executor: Executor, stopped_by: str) -> None:
    """Stop ``executor`` (as its signal handler does, from the loop) once a run has started."""
    executor.bus.subscribe(lambda e: asyncio.get_running_loop().call_soon(executor.stop, stopped_by)
                           if isinstance(e, RunStarted) else None)


async def test_a_second_stop_does_not_cancel_the_clean_up_of_the_first():
    cancelled = 0
    cleaned = asyncio.Event()

    async def slow_to_stop(ctx, spec):
        nonlocal cancelled
        ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=""))
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled += 1
            executor.stop("SIGINT")  # Ctrl-C again, within the polite stop's grace
            for _ in range(3):  # the clean-up goes on over turns of the loop: a second cancel would cut it short
                await asyncio.sleep(0)
            cleaned.set()
            raise Interrupted(record_for(spec, INTERRUPTED, error="interrupted by the user (Ctrl-C)")) from None
        return record_for(spec, PASSED)

    executor = Executor(EventBus(), runners={"guc": slow_to_stop})
    stop_once_started(executor, "SIGINT")
    summary = await executor.run([spec(0), spec(1)], results_dir="r", scenario="s")
    assert cancelled == 1 and cleaned.is_set()
    assert summary.counts == {INTERRUPTED: 1} and summary.stopped_by == "SIGINT"


async def test_a_runner_that_lets_the_cancellation_through_still_gets_its_record():
    async def careless(ctx, spec):
        ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=""))
        await asyncio.sleep(30)
        return record_for(spec, PASSED)

    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, runners={"guc": careless})
    stop_once_started(executor, "SIGHUP")
    summary = await executor.run([spec(0)], results_dir="r", scenario="s")
    (record,) = [e.record for e in events if isinstance(e, RunFinished)]
    assert record.status == INTERRUPTED and record.error.startswith("interrupted by SIGHUP")
    assert summary.counts == {INTERRUPTED: 1}


@pytest.mark.parametrize(("stopped_by", "code"), [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129), ("", 130)])
def test_exit_codes_say_which_signal_stopped_the_run(stopped_by, code):
    summary = Summary(total=2, counts={INTERRUPTED: 1}, interrupted=True, stopped_by=stopped_by)
    assert frontend.exit_code(summary) == code
    assert EXIT_STOPPED_BY.get(stopped_by, 130) == code


def test_the_cli_entry_module_imports_nothing_before_main_runs():
    # A Ctrl-C during start-up is caught by main() only if importing the entry module is (almost) free.
    import subprocess
    import sys

    code = ("import sys; before = set(sys.modules); import gftpwb.cli.main as m; "
            "print(sorted(n for n in set(sys.modules) - before if n.startswith('gftpwb.core') or n in "
            "('argparse', 'asyncio', 'ruamel')), m.EXIT_INTERRUPTED)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "130"]
