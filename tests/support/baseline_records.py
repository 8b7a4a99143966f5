"""Records of guc runs and their iperf3 baselines, for the efficiency report (the kind's tests and
the TUI's report view)."""

from __future__ import annotations

from gftpwb.core.records import PASSED, ResultRecord


def record(run_id: str, kind: str, case: int, repeat: int, rate: float, avg: float, *, status: str = PASSED,
           params: dict | None = None) -> ResultRecord:
    return ResultRecord(run_id=run_id, scenario="b", test_id="eff", case=case, repeat=repeat, kind=kind,
                        host="local", argv=(), params=params or {}, status=status, started_at="", ended_at="",
                        seconds=1.0, bytes=1, rate_incl_setup_mib_s=rate, rate_guc_avg_mib_s=avg)
