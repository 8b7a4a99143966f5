"""Runs that started together (a test on several hosts, a run's copies): what they moved at once, from their
records alone, beside the per-run figures a case pools."""

from __future__ import annotations

from gftpwb.core.harness.aggregate import concurrent_aggregates, together_note
from gftpwb.core.records import ResultRecord
from gftpwb.core.report import case_notes
from gftpwb.core.summary import summarize_cases

MIB = 1024 * 1024


def run(host: str, repeat: int, start: str, end: str, mib: int, *, status: str = "passed",
        group: bool = True) -> ResultRecord:
    seconds = 2.0
    return ResultRecord(scenario="s", test_id="fan", run_id=f"fan/{repeat}@{host}", case=0, repeat=repeat, kind="guc",
                        host=host, argv=[], status=status, started_at=f"2026-12-01T10:00:{start}+00:00",
                        ended_at=f"2026-12-01T10:00:{end}+00:00", seconds=seconds, bytes=mib * MIB,
                        rate_incl_setup_mib_s=mib / seconds,
                        details={"group": f"fan/{repeat}"} if group else {})


def test_the_hosts_of_a_group_are_given_together_over_first_start_to_last_end():
    records = [run("c1", 0, "00", "02", 200), run("c2", 0, "01", "04", 300),  # 500 MiB in 4 s
               run("c1", 1, "10", "12", 200), run("c2", 1, "10", "12", 200)]  # 400 MiB in 2 s
    first, second = concurrent_aggregates(records)
    assert (first.group, first.copies, first.bytes, first.wall_seconds) == ("fan/0", 2, 500 * MIB, 4.0)
    assert first.throughput_mib_s == 125.0 and first.rate_sum_mib_s == 250.0  # the sum says more than moved
    assert second.throughput_mib_s == 200.0
    assert together_note(records) == ("2 at once (c1, c2): together 162.5 MiB/s (first start to last end), "
                                      "median of 2 groups")
    (case,) = summarize_cases(records)
    assert case_notes(case).endswith(together_note(records))
    # a group with a failed run, and runs that ran alone, are not said to be together
    failed = [*records[:2], run("c1", 1, "10", "12", 200), run("c2", 1, "10", "12", 0, status="failed")]
    assert together_note(failed).endswith("together 125.0 MiB/s (first start to last end), 1 group")
    alone = [run("c1", 0, "00", "02", 200, group=False)]
    assert concurrent_aggregates(alone) == [] and together_note(alone) == ""

