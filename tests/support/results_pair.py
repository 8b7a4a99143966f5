"""Two results directories of the mixed fixture (support/report_fixture.py) for the results view's comparison:
B's ``sweep`` case 0 runs 8 % faster than A's (each counted run 8 % faster, its slow outlier gone, so
every B run beats every A run: Mann-Whitney p = 0.008), the rest as in A; B is a day later."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from gftpwb.core.records import ResultRecord
from support.report_fixture import T0, records, write_mixed

FASTER = 1.08
B_T0 = T0.replace("2026-11-22", "2026-11-23")


def faster(r: ResultRecord) -> ResultRecord:
    if r.run_id == "sweep[0]/5":  # A's outlier (310.4)
        return replace(r, rate_incl_setup_mib_s=740.0)
    if r.test_id == "sweep" and r.case == 0 and r.rate_incl_setup_mib_s:
        return replace(r, rate_incl_setup_mib_s=r.rate_incl_setup_mib_s * FASTER)
    return r


def write_pair(base: Path) -> tuple[Path, Path]:
    a = write_mixed(base / "20261122T100000Z-mixed")
    b = write_mixed(base / "20261123T100000Z-mixed")
    (b / "results.jsonl").write_text("".join(faster(r).to_json() + "\n" for r in records()))
    meta = json.loads((b / "meta.json").read_text())
    meta["created_at"] = B_T0
    (b / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    return a, b
