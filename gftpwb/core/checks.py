"""A threshold of ``expect:`` checked on one case (:mod:`gftpwb.core.expect` checks them), as the
console, ``expectations.jsonl``, JUnit and the reports show it. Pure, and free of imports so the
report data model can hold checks without depending on how they are made."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    """One threshold checked on one case: the value found and whether it met the threshold."""

    test_id: str
    case: int
    case_text: str  # "#001 -p 4" (the case and its parameters)
    metric: str
    expression: str  # as written: ">= 900MiB/s"
    value: float | None
    value_text: str  # "702.5 MiB/s", "3.1 %", "-" when there is none
    ok: bool
    note: str = ""  # why there is no value

    def to_dict(self) -> dict[str, object]:
        return {"test_id": self.test_id, "case": self.case, "case_text": self.case_text, "metric": self.metric,
                "expect": self.expression, "value": self.value, "value_text": self.value_text, "ok": self.ok,
                "note": self.note}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Check:
        value = data.get("value")
        return cls(str(data["test_id"]), int(data.get("case") or 0), str(data.get("case_text") or ""),  # type: ignore[arg-type]
                   str(data["metric"]), str(data.get("expect") or ""),
                   float(value) if isinstance(value, int | float) else None, str(data.get("value_text") or "-"),
                   bool(data.get("ok")), str(data.get("note") or ""))

    def line(self) -> str:
        """``sweep #001 -p 4: median_rate >= 900MiB/s: 702.5 MiB/s: VIOLATED``."""
        verdict = "met" if self.ok else "VIOLATED"
        note = f" ({self.note})" if self.note else ""
        return f"{self.test_id} {self.case_text}: {self.metric} {self.expression}: {self.value_text}{note}: {verdict}"
