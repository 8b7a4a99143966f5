"""What the live views show (frozen rows, made on demand) and what the live state keeps per run
(mutable, updated per event). See :mod:`gftpwb.core.live.state`."""

from __future__ import annotations

from dataclasses import dataclass, field

from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, SKIPPED, TIMEOUT, ResultRecord, Summary
from gftpwb.core.specs import RunSpec

MIB = 1048576
QUEUED = "queued"
RUNNING = "running"

# Scenario-view status of a test, most urgent first: one running run makes the test "running", one failed
# run "failed"; a test is "passed" only when every run it has in this attempt passed.
TEST_STATUS_ORDER = (RUNNING, FAILED, TIMEOUT, INTERRUPTED, QUEUED, PASSED, SKIPPED)


# --- rows the front ends draw ---------------------------------------------------------------------


@dataclass(frozen=True)
class TestRow:
    """One test of the scenario view."""

    __test__ = False  # not a pytest test class

    test_id: str
    kind: str
    hosts: str
    status: str  # queued, running, passed, failed, timeout, interrupted, skipped
    done: int  # runs finished in this attempt or an earlier (resumed) one
    total: int
    passed: int
    note: str  # "1 failed, 1 timeout", "2 done earlier", "not selected"
    last_rate_mib_s: float | None  # the live average while running, else the last finished run's rate
    engine: str = ""  # how its runs are marked when another engine carries them out ("SIMULATED")


@dataclass(frozen=True)
class RunLine:
    """A run in flight (or the last one finished), for the run view."""

    run_id: str
    host: str
    command: str
    status: str
    elapsed_s: float
    bytes: int
    length_bytes: int | None
    rate_avg_mib_s: float | None
    rate_inst_mib_s: float | None
    engine: str = ""  # "SIMULATED" when the simulated engine carries the run out
    #: A run in flight that has reported nothing yet: what it waits for, in its kind's words ("waiting
    #: for guc's first progress report ..."); its bytes and rates are not known yet, not zero.
    waiting: str = ""

    @property
    def fraction(self) -> float | None:
        if not self.length_bytes:
            return None
        return min(self.bytes / self.length_bytes, 1.0)

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the average rate so far, when the length is known."""
        if not self.length_bytes or not self.rate_avg_mib_s or self.status != RUNNING:
            return None
        return max(self.length_bytes - self.bytes, 0) / (self.rate_avg_mib_s * MIB)


@dataclass(frozen=True)
class RunPanel:
    """The run view: where the scenario is, what moves now, and how fast."""

    scenario: str
    results_dir: str
    state: str  # "idle", "running", "finished", "interrupted"
    runs_done: int
    runs_total: int
    running: tuple[RunLine, ...]
    last: RunLine | None
    bytes_moved: int  # this attempt: finished runs plus the runs in flight
    rate_inst_mib_s: float | None  # aggregate over the runs (and threads, streams) in flight
    rate_avg_mib_s: float | None
    summary: Summary | None


@dataclass(frozen=True)
class ThreadRow:
    """One worker thread (gfapi), guc stream or guc host in the per-thread view, like elbencho's table."""

    key: str
    run_id: str
    host: str
    thread: str
    percent: float | None
    mib: float
    mib_s: float | None
    iops: float | None
    files_s: float | None
    state: str
    error: str = ""
    engine: str = ""  # "SIMULATED" for a simulated run's rows


# The states of a thread row (a worker thread's, a stream's, a run's) whose figures stopped with a failure:
# they count as failed in the totals, never as done, and add nothing to the sums and rates.
FAILED_ROW_STATES = frozenset({"failed", "stopped", "not-started", "timeout", "interrupted"})


@dataclass(frozen=True)
class ThreadTotals:
    """The totals row under the per-thread table: sums, the spread of the rates, and when the first
    and the last thread finished (seconds since their run started)."""

    rows: int
    mib: float
    mib_s: float | None  # the sum of the rows' rates, when they all ran at the same time (else None)
    min_mib_s: float | None
    max_mib_s: float | None
    cv: float | None  # stdev / mean of the rows' rates (a fraction)
    done: int  # rows that finished and did their work (done, passed)
    first_done_s: float | None
    last_done_s: float | None
    #: The sum of the rates of each group of rows that ran at the same time (the threads of one run,
    #: of runs that overlapped), groups in the order they started: runs one after another do not add up.
    at_a_time: tuple[float, ...] = ()
    one_run_each: bool = True  # each of those groups is one run (else some runs overlapped)
    #: Rows that failed (a worker thread that failed or was stopped, a run that failed or timed out): in
    #: no sum, rate or spread above, since what they show stopped when they did.
    failed: int = 0


@dataclass(frozen=True)
class RateChartData:
    """The run view's chart: seconds since the scenario started (the end of each bucket), the
    aggregate MiB/s per bucket, and one series per host when the runs span several."""

    seconds: tuple[float, ...]
    total: tuple[float, ...]
    hosts: dict[str, tuple[float, ...]]
    step_s: float

    @property
    def peak(self) -> float:
        return max(self.total, default=0.0)


@dataclass(frozen=True)
class TuneRowView:
    rank: int
    candidate: str
    mean_mib_s: float | None
    ci: str  # the 95 % interval of its mean, "[1038, 1072]" (the race's: gftpwb.kinds.autotune.ranking)
    runs: int
    failures: int
    mark: str  # "leader", "tied with #1 (±20 MB/s)", "eliminated after 12", "failed" or ""
    note: str  # "1 failed; guc failed: 500 Command failed", "same kernel-capped buffer as ..."
    style: str  # "leader", "tied", "eliminated", "failed" or ""
    ci_low_mib_s: float | None = None
    ci_high_mib_s: float | None = None


@dataclass(frozen=True)
class TunePanel:
    test_id: str
    strategy: str
    engine: str
    transfers_used: int
    budget: int
    margin_mib_s: float
    rows: tuple[TuneRowView, ...]
    leader: str | None
    finished: bool
    guc_line: str  # the command line to use, once finished (or the current leader's, marked as such)
    test_ids: tuple[str, ...]  # every auto-tune test seen, in first-seen order
    p_within_margin: float | None = None  # P(the pick's true mean is within the margin of the best)
    stop_reason: str = ""  # why the strategy stopped before its plan ran out ("": it ran its plan)
    warm_start: str = ""  # what the history did for an adaptive tune ("": nothing to say)
    p_with_history: float | None = None  # a warm start's P, the history counted (None: no warm race)
    history_share: str = ""  # what of the pick's estimate the history supplies


# --- mutable per-run state ----------------------------------------------------------------------


@dataclass
class PartState:
    """A partial stream of a run: a guc channel or a worker thread."""

    host: str
    label: str
    bytes: int = 0
    inst: float = 0.0
    avg: float = 0.0
    elapsed: float = 0.0
    state: str = RUNNING
    percent: float | None = None
    files: int = 0
    ios: int = 0
    error: str = ""
    worker: bool = False


@dataclass
class RunState:
    spec: RunSpec
    status: str = QUEUED
    started_t: float | None = None
    command: str = ""
    bytes: int = 0
    avg: float | None = None
    inst: float | None = None
    accounted_bytes: int = 0  # bytes already placed in the rate history
    accounted_t: float | None = None  # up to when; None when the run is not in flight
    accounted_engine_s: float = 0.0  # a run on its engine's clock: its seconds on that clock accounted so far
    has_total: bool = False  # a run-wide Progress (channel None) overrides the sum of parts
    parts: dict[tuple[str, str], PartState] = field(default_factory=dict)
    parts_bytes: int = 0
    parts_inst: float = 0.0
    parts_avg: float = 0.0
    record: ResultRecord | None = None
    ended_t: float | None = None
    earlier: bool = False  # done in an earlier attempt of a resumed results directory
    left_out: bool = False  # not selected for this attempt
    not_run: bool = False  # the attempt was stopped before this run started
    extra: bool = False  # not in the plan: a transfer a strategy chose (an auto-tune's), part of a planned run
