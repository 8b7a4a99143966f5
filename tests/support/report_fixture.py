"""A results directory with every case a report must handle, written from fixed records: warm-ups,
an outlier, quantised guc averages, a failure, a timeout, a run interrupted and resumed, a planned run
never run, a connection test, a gfapi test, an auto-tune with its transfers, progress samples with a
stall and a gap, and an environment in meta.json. The golden report outputs (tests/golden/report/)
are what ``gftpwb report`` makes of it."""

from __future__ import annotations

import json
from pathlib import Path

from gftpwb.core.records import ResultRecord
from gftpwb.core.samples import RunSamples, Series

SRC, DST = "ftp://a.example:2811/dev/zero", "ftp://b.example:2811/dev/null"
T0 = "2026-11-22T10:00:00+00:00"
REFUSED = "globus_xio: Unable to connect to b.example:2811\nglobus_xio: System error in connect: Connection refused"


def guc(run_id: str, case: int, repeat: int, rate: float | None, *, status: str = "passed", p: int | None = 4,
        avg: float | None = None, quantised: bool = False, warmup: bool = False, test: str = "sweep",
        error: str = "", seconds: float = 4.0) -> ResultRecord:
    params = {**({"parallel": p} if p else {}), "length": 1 << 30}
    argv = ["globus-url-copy", *(["-vb", "-p", str(p)] if p else []), "-len", "1G", SRC, DST]
    details: dict = {"mode": "extended" if p else "stream", "live_progress": bool(p)}
    if warmup:
        details["warmup"] = True
    if quantised:
        details["guc_avg_quantised"] = True
    return ResultRecord(scenario="mixed", test_id=test, run_id=run_id, case=case, repeat=repeat, kind="guc",
                        host="local", argv=argv, status=status, params=params, started_at=T0, ended_at=T0,
                        seconds=seconds, bytes=(1 << 30) if status == "passed" else None,
                        rate_incl_setup_mib_s=rate, rate_guc_avg_mib_s=avg, exit_code=0 if status == "passed" else 1,
                        error=error, taglog=f"mixed_#{case:03d}_{repeat:03d}.log", details=details)


def gfapi(run_id: str, repeat: int, files_s: float) -> ResultRecord:
    last = {"files_s": files_s, "mib_s": files_s / 16, "iops": files_s * 4, "seconds": 2.0}
    return ResultRecord(scenario="mixed", test_id="files", run_id=run_id, case=5, repeat=repeat, kind="gfapi",
                        host="local", argv=["gftpwb-gfapi-worker"], status="passed",
                        params={"workload": "seq-wr", "threads": 2, "files": 1000, "file_size": 65536,
                                "record_size": 65536}, started_at=T0, ended_at=T0, seconds=3.0,
                        details={"gfapi": {"cluster": {"files": 1000, "last_done": last,
                                                       "first_done": {"mib_s": 70.0, "pct_done": 80.0}},
                                           "start_skew_ms": 0.5}})


def records() -> list[ResultRecord]:
    tune_details = {
        "strategy": "exhaustive", "engine": "real", "margin_mib_s": 20.0, "transfers_used": 2, "budget": 2,
        "pick": {"candidate": 2, "params": "-vb -p 4", "mean_mib_s": 900.0, "runs": 1},
        "p_within_margin": 0.91, "stop_reason": "",
        "ranking": [{"rank": 1, "candidate": "-vb -p 4", "mean_mib_s": 900.0, "ci_low_mib_s": None,
                     "ci_high_mib_s": None, "runs": 1, "failures": 0},
                    {"rank": 2, "candidate": "-vb", "mean_mib_s": 500.0, "ci_low_mib_s": None,
                     "ci_high_mib_s": None, "runs": 1, "failures": 0}]}
    return [
        guc("sweep[0]/0", 0, 0, 610.0, p=1, avg=650.0, warmup=True),
        guc("sweep[0]/1", 0, 1, 702.5, p=1, avg=760.0),
        guc("sweep[0]/2", 0, 2, 698.0, p=1, avg=755.5),
        guc("sweep[0]/3", 0, 3, 705.1, p=1, avg=5120.0, quantised=True),
        guc("sweep[0]/4", 0, 4, 701.2, p=1, avg=750.0),
        guc("sweep[0]/5", 0, 5, 310.4, p=1, avg=320.0),
        guc("sweep[1]/0", 1, 0, 1010.0, warmup=True, avg=1100.0),
        guc("sweep[1]/1", 1, 1, 1100.0, avg=1210.0),
        guc("sweep[1]/2", 1, 2, None, status="failed", error=REFUSED),
        guc("sweep[1]/3", 1, 3, 1150.0, avg=1260.0),
        guc("stream/0", 2, 0, 401.0, p=None, test="stream"),
        guc("stream/1", 2, 1, None, status="interrupted", p=None, test="stream",
            error="interrupted by the user (Ctrl-C); guc was stopped"),
        guc("stream/1", 2, 1, 398.5, p=None, test="stream"),
        guc("slow/0", 3, 0, None, status="timeout", test="slow", error="timed out after 30s; guc and its process "
                                                                         "group were killed", seconds=30.0),
        ResultRecord(scenario="mixed", test_id="conn", run_id="conn/0", case=4, repeat=0, kind="connection-test",
                     host="local", argv=["globus-url-copy", "-dbg", "-vb", "-len", "1", SRC, DST], status="passed",
                     started_at=T0, ended_at=T0, seconds=0.25, bytes=1, exit_code=0,
                     details={"connection_test": {"steps": []}}),
        gfapi("files/0", 0, 16000.0), gfapi("files/1", 1, 15500.0), gfapi("files/2", 2, 16400.0),
        guc("tune#1/0", 7, 0, 500.0, p=None, test="tune", avg=520.0),
        guc("tune#2/0", 8, 0, 900.0, test="tune", avg=950.0),
        ResultRecord(scenario="mixed", test_id="tune", run_id="tune", case=6, repeat=0, kind="autotune",
                     host="local", argv=[], status="passed", started_at=T0, ended_at=T0, seconds=9.0,
                     rate_incl_setup_mib_s=900.0, details=tune_details),
    ]


PLAN_KINDS = {"sweep": "guc", "stream": "guc", "slow": "guc", "conn": "connection-test", "files": "gfapi",
              "tune": "autotune", "late": "guc"}


def plan() -> list[dict]:
    seen: dict[str, dict] = {}
    for r in records():
        if "#" not in r.run_id:
            seen.setdefault(r.run_id, {"run_id": r.run_id, "test_id": r.test_id, "kind": PLAN_KINDS[r.test_id]})
    seen["late/0"] = {"run_id": "late/0", "test_id": "late", "kind": "guc"}
    return list(seen.values())


def samples() -> list[RunSamples]:
    steady = Series([2000, 4000, 6000, 8000], [300 << 20, 700 << 20, 1000 << 20, 1 << 30])
    # a stall from 4 s to 8 s (no new bytes), then a report gap from 8 s to 16 s
    bumpy = Series([2000, 4000, 6000, 8000, 16000, 18000], [200 << 20, 400 << 20, 400 << 20, 400 << 20, 900 << 20,
                                                            1 << 30])
    threads = {"local/0": Series([1000, 2000], [20 << 20, 31 << 20], [320, 500]),
               "local/1": Series([1000, 2000], [21 << 20, 31 << 20], [330, 500])}
    return [RunSamples("sweep[0]/1", {"": steady}), RunSamples("sweep[1]/3", {"": bumpy}),
            RunSamples("files/0", {"": Series([1000, 2000], [41 << 20, 62 << 20], [650, 1000]), **threads})]


META = {"gftpwb_version": "0.1.0", "created_at": T0, "command": ["gftpwb", "run", "mixed.yaml"],
        "controller": "ctl", "scenario": "mixed", "plan_fingerprint": "0" * 64, "runs": 19,
        "environment": {"hosts": {"local": {"kernel": "6.1.0-test", "cpu_model": "Test CPU", "cpu_count": 2,
                                            "guc": "10.12", "tcp_congestion_control": "cubic"}}}}


def checks() -> list[dict]:
    """expectations.jsonl lines: sweep's thresholds checked (one met, one violated), an earlier line of
    the same test superseded by the latest."""
    def check(case: int, text: str, metric: str, expect: str, value: float, shown: str, ok: bool) -> dict:
        return {"test_id": "sweep", "case": case, "case_text": text, "metric": metric, "expect": expect,
                "value": value, "value_text": shown, "ok": ok, "note": ""}

    old = {"test_id": "sweep", "checked_at": T0, "checks": [check(0, "#000 -p 1 -len 1G", "median_rate", ">= 1MiB/s",
                                                                1.0, "1.0 MiB/s", True)]}
    latest = {"test_id": "sweep", "checked_at": T0, "checks": [
        check(0, "#000 -p 1 -len 1G", "median_rate", ">= 900MiB/s", 701.2, "701.2 MiB/s", False),
        check(1, "#001 -p 4 -len 1G", "median_rate", ">= 900MiB/s", 1125.0, "1125.0 MiB/s", True)]}
    return [old, latest]


def write_records(directory: Path, written: list[ResultRecord]) -> Path:
    """A results directory of just ``written`` (a journal, a plan of those runs, the least meta.json)."""
    directory.mkdir(parents=True, exist_ok=True)
    runs = {r.run_id: {"run_id": r.run_id, "test_id": r.test_id, "kind": r.kind} for r in written}
    meta = {"gftpwb_version": "0.1.0", "created_at": T0, "scenario": written[0].scenario, "runs": len(runs)}
    (directory / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    (directory / "plan.json").write_text(json.dumps(list(runs.values()), indent=1) + "\n")
    (directory / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in written))
    return directory


def write_mixed(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "meta.json").write_text(json.dumps(META, indent=1) + "\n")
    (directory / "plan.json").write_text(json.dumps(plan(), indent=1) + "\n")
    (directory / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in records()))
    (directory / "samples.jsonl").write_text("".join(s.to_json() + "\n" for s in samples()))
    (directory / "expectations.jsonl").write_text("".join(json.dumps(c) + "\n" for c in checks()))
    return directory
