"""Stand-in runners that publish per-thread ``WorkerProgress`` and ``TuneUpdate`` rankings through the
real executor, session and bus, with figures known in advance: every thread has its own speed, so
each sort order is known, and the auto-tune stand-in releases one transfer at a time, so a test can
look at the view after every step. test_tui.py also drives the views with the real producers
(the gfapi workers on GlusterFS, the simulated auto-tune engine).

Both register for kind ``guc``, so a plain guc scenario with fake endpoints drives them.
"""

from __future__ import annotations

import asyncio
import math
import time
from statistics import fmean, stdev

from gftpwb.core.events import RankingRow, RunStarted, TuneUpdate, WorkerProgress
from gftpwb.core.records import INTERRUPTED, PASSED, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.shell.context import Interrupted, utc_now_iso
from gftpwb.shell.executor import Executor

MIB = 1048576


def _record(spec: RunSpec, status: str, nbytes: int, seconds: float, started_at: str) -> ResultRecord:
    return ResultRecord(scenario=spec.scenario, test_id=spec.test_id, run_id=spec.run_id, case=spec.case,
                        repeat=spec.repeat, kind=spec.kind, host=spec.host, argv=list(spec.argv), status=status,
                        params=dict(spec.params), started_at=started_at, ended_at=utc_now_iso(), seconds=seconds,
                        bytes=nbytes, rate_incl_setup_mib_s=nbytes / MIB / seconds if seconds else None,
                        taglog=spec.taglog_name, comment=spec.comment)


def thread_speed(host_index: int, thread: int) -> int:
    """MiB each thread moves per step: distinct, so every sort order is known in advance."""
    return 1 + host_index * 10 + thread * 3


class GfapiStandIn:
    """Workers on ``hosts`` x ``threads``: preparing, ready, ``steps`` running samples, then done.

    ``hold`` (an asyncio.Event) keeps the run in flight after the last running sample until it is set.
    """

    def __init__(self, hosts=("c1", "c2"), threads=3, steps=4, files_total=200, hold: asyncio.Event | None = None):
        self.hosts, self.threads, self.steps, self.files_total, self.hold = hosts, threads, steps, files_total, hold

    async def __call__(self, executor: Executor, spec: RunSpec) -> ResultRecord:
        started_at = utc_now_iso()
        t0 = time.monotonic()
        executor.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
        total = 0
        for state in ("preparing", "ready"):
            for host in self.hosts:
                for thread in range(self.threads):
                    executor.publish(WorkerProgress(run_id=spec.run_id, host=host, thread=thread, state=state,
                                                    files_total=self.files_total))
        try:
            for step in range(1, self.steps + 1):
                total = 0
                for h, host in enumerate(self.hosts):
                    for thread in range(self.threads):
                        mib = step * thread_speed(h, thread)
                        total += mib * MIB
                        executor.publish(WorkerProgress(
                            run_id=spec.run_id, host=host, thread=thread, state="running", files=step * 10,
                            bytes=mib * MIB, ios=mib * 16, elapsed_s=step * 0.5, files_total=self.files_total))
                await asyncio.sleep(0.01)
            if self.hold is not None:
                await self.hold.wait()
        except asyncio.CancelledError:
            raise Interrupted(_record(spec, INTERRUPTED, total, time.monotonic() - t0, started_at)) from None
        for h, host in enumerate(self.hosts):
            for thread in range(self.threads):
                mib = self.steps * thread_speed(h, thread)
                executor.publish(WorkerProgress(
                    run_id=spec.run_id, host=host, thread=thread, state="done", files=self.steps * 10,
                    bytes=mib * MIB, ios=mib * 16, elapsed_s=self.steps * 0.5, files_total=self.files_total))
        return _record(spec, PASSED, total, self.steps * 0.5, started_at)


# Auto-tune: four candidates in tgftp's order, and the rate each transfer measured (MiB/s). Round 1 runs
# every candidate once; -p 4 -tcp-bs 1M is under half the best and is dropped as hopeless; -p 32 fails
# (guc "500 Command failed") and counts no rate; the rest race until the budget is spent.
CANDIDATES = ("-vb -p 4 -tcp-bs 1M", "-vb -p 8 -tcp-bs 8M", "-vb -p 16 -tcp-bs 8M", "-vb -p 32 -tcp-bs 64M")
TRANSFERS = (
    (0, 520.0), (1, 1150.0), (2, 1190.0), (3, None),
    (1, 1170.0), (2, 1175.0), (3, None), (1, 1160.0), (2, 1185.0), (1, 1180.0), (2, 1170.0), (2, 1180.0),
)
BUDGET = len(TRANSFERS)
MARGIN = 20.0


def ranking_after(n: int) -> tuple[tuple[RankingRow, ...], str | None]:
    """The ranking after the first ``n`` transfers: mean, a t-ish 95 % interval, ties within MARGIN of #1."""
    rates: dict[int, list[float]] = {i: [] for i in range(len(CANDIDATES))}
    failures = dict.fromkeys(rates, 0)
    for index, rate in TRANSFERS[:n]:
        if rate is None:
            failures[index] += 1
        else:
            rates[index].append(rate)
    means = {i: fmean(r) for i, r in rates.items() if r}
    best = max(means.values(), default=None)
    eliminated = {i: 4 for i, m in means.items() if n >= 4 and best and m < best / 2}
    eliminated.update({i: 7 for i in failures if failures[i] >= 2 and n >= 7})
    order = sorted(rates, key=lambda i: (i in eliminated, -(means.get(i) or -1.0), i))
    leader_index = order[0] if order and order[0] in means else None
    rows = []
    for rank, i in enumerate(order, start=1):
        r = rates[i]
        half = 1.96 * stdev(r) / math.sqrt(len(r)) if len(r) > 1 else None
        mean = means.get(i)
        rows.append(RankingRow(
            rank=rank, candidate=CANDIDATES[i], mean_mib_s=mean,
            ci_low_mib_s=mean - half if half is not None and mean is not None else None,
            ci_high_mib_s=mean + half if half is not None and mean is not None else None,
            runs=len(r) + failures[i], failures=failures[i],
            tied_with_leader=(i != leader_index and mean is not None and leader_index is not None
                              and i not in eliminated and means[leader_index] - mean <= MARGIN),
            eliminated=i in eliminated, eliminated_after=eliminated.get(i),
            note="guc failed: 500 Command failed" if failures[i] and mean is None else "",
        ))
    return tuple(rows), CANDIDATES[leader_index] if leader_index is not None else None


class TuneStandIn:
    """Publishes the ranking after every transfer of TRANSFERS (adaptive strategy, simulated engine).

    With ``gate`` (a semaphore) each transfer waits for one release, so a test can look at every step.
    """

    def __init__(self, step_s: float = 0.005, gate: asyncio.Semaphore | None = None):
        self.step_s = step_s
        self.gate = gate

    async def __call__(self, executor: Executor, spec: RunSpec) -> ResultRecord:
        started_at = utc_now_iso()
        executor.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
        for n in range(1, BUDGET + 1):
            if self.gate is not None:
                await self.gate.acquire()
            else:
                await asyncio.sleep(self.step_s)
            rows, leader = ranking_after(n)
            executor.publish(TuneUpdate(test_id=spec.test_id, strategy="adaptive", engine="simulated",
                                        transfers_used=n, budget=BUDGET, margin_mib_s=MARGIN, rows=rows,
                                        leader=leader, finished=n == BUDGET))
        return _record(spec, PASSED, BUDGET * MIB, 1.0, started_at)
