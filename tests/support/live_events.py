"""Events and records for the live aggregator's tests (gftpwb.core.live) and the TUI's snapshots: a plan
of four guc runs, their records, the scenario's start, and an auto-tune's ranking."""

from __future__ import annotations

from gftpwb.core.events import RankingRow, ScenarioStarted
from gftpwb.core.live import read
from gftpwb.core.live.models import MIB
from gftpwb.core.records import ResultRecord
from gftpwb.core.specs import RunSpec


def spec(test_id="a", case=0, repeat=0, kind="guc", host="local", length=None, index=None):
    label = test_id if index is None else f"{test_id}[{index}]"
    return RunSpec(run_id=f"{label}/{repeat}", scenario="s", test_id=test_id, case=case, repeat=repeat, kind=kind,
                   host=host, argv=("globus-url-copy", "-vb", "ftp://x/zero", "ftp://y/null"), length_bytes=length,
                   source="ftp://x/zero", target="ftp://y/null")


def record(s: RunSpec, status="passed", nbytes=1 << 30, seconds=2.0, error=""):
    return ResultRecord(scenario=s.scenario, test_id=s.test_id, run_id=s.run_id, case=s.case, repeat=s.repeat,
                        kind=s.kind, host=s.host, argv=list(s.argv), status=status, seconds=seconds, bytes=nbytes,
                        rate_incl_setup_mib_s=nbytes / MIB / seconds if status == "passed" else None, error=error)


PLAN = (spec("a", 0, 0, length=1 << 30), spec("a", 0, 1, length=1 << 30), spec("b", 1, 0), spec("c", 2, 0))


def started(plan=PLAN, skipped=frozenset(), t=100.0):
    return ScenarioStarted(scenario="s", results_dir="results/x", plan=tuple(plan), skipped_run_ids=skipped, t=t)


def by_id(live):
    return {row.test_id: row for row in read.test_rows(live)}


RANKING = (
    RankingRow(rank=1, candidate="-vb -p 16 -tcp-bs 8M", mean_mib_s=1180.0, ci_low_mib_s=1150.0,
               ci_high_mib_s=1210.0, runs=4, failures=0),
    RankingRow(rank=2, candidate="-vb -p 8 -tcp-bs 8M", mean_mib_s=1168.0, ci_low_mib_s=1120.0,
               ci_high_mib_s=1216.0, runs=4, failures=0, tied_with_leader=True),
    RankingRow(rank=3, candidate="-vb -p 4 -tcp-bs 1M", mean_mib_s=610.0, ci_low_mib_s=560.0, ci_high_mib_s=660.0,
               runs=2, failures=0, eliminated=True, eliminated_after=9, note="hopeless: < 50 % of the best"),
    RankingRow(rank=4, candidate="-vb -p 32 -tcp-bs 64M", mean_mib_s=None, ci_low_mib_s=None, ci_high_mib_s=None,
               runs=1, failures=1, note="guc failed: 500 Command failed"),
)
