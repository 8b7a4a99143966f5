"""The "protocols on the same path" section: GridFTP (guc), XRootD (xrdcp), HTTP (gfal-copy) and
iperf3 cases of one results directory side by side. Pure.

First a table of each copy-tool kind's cases (:mod:`.cases`: options, mode, statistics, the tool's own
average), then the comparison. A row per case: its protocol, test, case number and the options in
which it differs from the other cases of its test (``copy_mode=pull``; streams have their own
column), streams and medium (memory: tmpfs test files or /dev/zero; disk; ", third-party"
when the client only steers a copy between two servers), the
median rate incl. set-up with its 95 % interval, the efficiency against iperf3 (ratio of the means of
the counted runs with its interval, as guc's ``baseline:``: the case's own baseline runs, else an
iperf3 test's case with the same streams), and compare's verdict against the GridFTP case with the
same streams and medium, third-party copies against GridFTP's server-to-server ones (Mann-Whitney U,
p < 0.05 and at least 5 % apart; else "no significant change"; "too few runs" when no p-value under
0.05 is possible with so few runs). Intervals as :mod:`gftpwb.core.intervals` makes them. A
comparison that cannot be made reads ``-``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.compare import NO_DATA, compare_figure
from gftpwb.core.format import estimate_text, human_bytes, rate_text
from gftpwb.core.intervals import MEDIAN_LEGEND
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import ReportData, ReportTable, registry
from gftpwb.core.stats import ratio_of_means
from gftpwb.core.summary import CaseSummary, summarize_cases
from gftpwb.kinds.guc.efficiency import files_in_memory

from . import cases as case_tables

RATE = "rate_incl_setup_mib_s"
IPERF3_RATE = "rate_guc_avg_mib_s"  # iperf3's receiver rate, where a guc record keeps guc's average
IPERF3, GUC = "iperf3", "guc"
PROTOCOL = {GUC: "GridFTP", "xrootd": "XRootD", "http": "HTTP", IPERF3: "iperf3 (TCP)"}
STREAM_PARAMS = ("streams", "parallel")  # xrdcp/gfal-copy/iperf3, guc
THRESHOLD_PCT = 5.0


def headline(record: ResultRecord, program: str) -> str:
    own = f", {program} avg {rate_text(record.rate_guc_avg_mib_s)} MiB/s" if record.rate_guc_avg_mib_s else ""
    mode = record.details.get("mode", "")
    return (f"{human_bytes(record.bytes)} in {record.seconds or 0:.3f}s  {rate_text(record.rate_incl_setup_mib_s)} "
            f"MiB/s{own}{f'  ({mode})' if mode else ''}")


def streams_of(case: CaseSummary) -> int:
    for name in STREAM_PARAMS:
        value = case.params.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 1


THIRD_PARTY = "third-party"


def third_party(record: ResultRecord) -> bool:
    """Whether the client only steered a copy between two servers: a copy tool's mode says so; a
    GridFTP one has server URLs at both ends (no file://)."""
    if record.details.get("mode") == THIRD_PARTY:
        return True
    return record.kind == GUC and all("://" in end and not end.startswith("file://") for end in ends_of(record))


def ends_of(record: ResultRecord) -> tuple[str, ...]:
    """The run's source and target: its test files' URLs, else its command's last two arguments."""
    files = record.details.get("files") or {}
    if files.get("source_url") and files.get("target_url"):
        return str(files["source_url"]), str(files["target_url"])
    return tuple(str(a) for a in record.argv[-2:])


def medium_of(case: CaseSummary) -> str:
    """memory (tmpfs test files, /dev/zero or /dev/null ends) or disk (test files elsewhere), with
    ", third-party" for a copy between two servers (compared with its likes only)."""
    record = case.runs[0].record if case.runs else None
    if record is None:
        return "-"
    medium = _medium(case, record)
    return f"{medium}, {THIRD_PARTY}" if third_party(record) else medium


def _medium(case: CaseSummary, record: ResultRecord) -> str:
    files = record.details.get("files") or {}
    if files:
        return "memory" if files_in_memory(files) else "disk"
    if case.kind == IPERF3:
        return "memory"
    ends = " ".join(ends_of(record))
    return "memory" if "/dev/zero" in ends or "/dev/shm/" in ends else "-"


def counted(case: CaseSummary, key: str) -> list[float]:
    return [v for r in case.runs if r.counted and key not in r.excluded for v in [r.values.get(key)] if v is not None]


def differing(case: CaseSummary, cases: Sequence[CaseSummary]) -> dict[str, Any]:
    """The case's parameters whose values differ among its test's cases of its kind (its streams
    aside, a column of their own): what tells two rows of one test apart."""
    siblings = [c for c in cases if c.test_id == case.test_id and c.kind == case.kind]
    names = dict.fromkeys(name for c in siblings for name in c.params if name not in STREAM_PARAMS)
    return {name: case.params.get(name) for name in names
            if len({repr(c.params.get(name)) for c in siblings}) > 1 and name in case.params}


def differing_text(kind: str, values: dict[str, Any]) -> str:
    """The differing parameters as the kind writes parameters (``copy_mode=pull``, guc's ``-tcp-bs 8M``)."""
    if not values:
        return "-"
    found = registry().find(kind)
    return found.present.params_text(dict(values)) if found is not None else \
        " ".join(f"{k}={v}" for k, v in values.items())


class Row:
    """One case of the section and what it is compared with."""

    def __init__(self, case: CaseSummary, cases: Sequence[CaseSummary]):
        self.case = case
        self.differs = differing(case, cases)
        self.protocol = PROTOCOL.get(case.kind, case.kind)
        self.streams = streams_of(case)
        self.medium = medium_of(case)
        figure = case.figure(RATE if case.kind != IPERF3 else IPERF3_RATE)
        self.stats = figure.stats if figure is not None else None
        self.efficiency = None
        if case.kind != IPERF3:
            baseline = self._baseline(cases)
            if baseline is not None:
                self.efficiency = ratio_of_means(counted(case, RATE), counted(baseline, IPERF3_RATE))
        self.verdict, self.change = self._against_gridftp(cases)

    def _baseline(self, cases: Sequence[CaseSummary]) -> CaseSummary | None:
        own = next((c for c in cases if c.kind == IPERF3 and c.test_id == self.case.test_id
                    and c.case == self.case.case), None)
        if own is not None:
            return own
        return next((c for c in cases if c.kind == IPERF3 and c.test_kind == IPERF3 and streams_of(c) == self.streams),
                    None)

    def _against_gridftp(self, cases: Sequence[CaseSummary]) -> tuple[str, float | None]:
        case = self.case
        if case.kind in (IPERF3, GUC):
            return "", None
        reference = next((c for c in cases if c.kind == GUC and c.test_kind == GUC and streams_of(c) == self.streams
                          and medium_of(c) == self.medium), None)
        if reference is None:
            return "", None
        ref_stats, own_stats = reference.figure(RATE), case.figure(RATE)
        if ref_stats is None or own_stats is None:
            return NO_DATA, None
        change = compare_figure(reference, case, ref_stats, own_stats, THRESHOLD_PCT)
        return change.verdict, change.change_pct

    def line_label(self) -> str:
        """``HTTP (tpc copy_mode=pull)``: the line of the case's test and differing options in a chart."""
        differs = f" {differing_text(self.case.kind, self.differs)}" if self.differs else ""
        return f"{self.protocol} ({self.case.test_id}{differs})"

    def label(self) -> str:
        """``HTTP (tpc copy_mode=pull, 1)``: the case in a chart, its differing options said."""
        return f"{self.line_label()[:-1]}, {self.streams})"

    def cells(self) -> tuple[str, ...]:
        s, e = self.stats, self.efficiency
        ci = s.ci_median if s is not None else None
        eff = "-" if e is None else estimate_text(e.value * 100, e.ci.low * 100 if e.ci else None,
                                                  e.ci.high * 100 if e.ci else None, 0) + " %"
        change = "" if self.change is None else f" ({self.change:+.0f} %)"
        return (self.protocol, self.case.test_id, f"{self.case.case:03d}", differing_text(self.case.kind, self.differs),
                str(self.streams), self.medium, str(s.n if s else 0),
                estimate_text(s.median if s else None, ci.low if ci else None, ci.high if ci else None), eff,
                f"{self.verdict}{change}" if self.verdict else "-")

    def data(self) -> dict[str, Any]:
        s, e = self.stats, self.efficiency
        return {"protocol": self.protocol, "kind": self.case.kind, "test_id": self.case.test_id,
                "case": self.case.case, "params": dict(self.case.params), "params_text": self.case.params_text,
                "differs": dict(self.differs), "streams": self.streams, "medium": self.medium, "n": s.n if s else 0,
                "median_mib_s": s.median if s else None,
                "ci_median": [s.ci_median.low, s.ci_median.high] if s and s.ci_median else None,
                "efficiency": e.value if e else None,
                "efficiency_ci": [e.ci.low, e.ci.high] if e and e.ci else None,
                "vs_gridftp": self.verdict or None, "vs_gridftp_change_pct": self.change}


def rows(records: Sequence[ResultRecord]) -> list[Row]:
    cases = summarize_cases(records)
    own = [c for c in cases if c.kind == c.test_kind]  # a test's own cases (not baselines, not a tune's)
    out = [Row(c, cases) for c in own if c.kind in PROTOCOL and c.figures]
    order = {name: i for i, name in enumerate(PROTOCOL.values())}
    return sorted(out, key=lambda r: (r.medium, r.streams, order.get(r.protocol, 9), r.case.test_id))


COLUMNS = (("protocol", "left"), ("test", "left"), ("#", "right"), ("differs by", "left"), ("streams", "right"),
           ("medium", "left"), ("n", "right"), ("median MiB/s (95 % CI)", "right"), ("vs iperf3", "right"),
           ("vs GridFTP", "left"))
COPY_TOOLS = {kind: name for kind, name in PROTOCOL.items() if kind not in (GUC, IPERF3)}


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """Each copy-tool kind's cases, then the protocols side by side."""
    found = rows(records)
    if not any(r.case.kind not in (GUC, IPERF3) for r in found):
        return []
    return [*case_tables.tables(summarize_cases(records), COPY_TOOLS), ReportTable(
        title="Protocols on the same path",
        caption="median rate incl. set-up; differs by: the case's options that differ from those of the "
                "other cases of its test; vs iperf3: mean rate / iperf3's mean receiver rate on the same path and "
                "streams; vs GridFTP: compare's verdict against the guc case of the same streams and medium, "
                "third-party copies against server-to-server ones (Mann-Whitney U, p < 0.05 and at least "
                f"{THRESHOLD_PCT:g} % apart; too few runs when so few that no p could be under 0.05: 3 "
                "and 3 runs at best give 0.1)",
        columns=COLUMNS, rows=tuple((r.cells(), "") for r in found), whole=("protocol", "medium"), keys=3)]


def data(records: Sequence[ResultRecord], cases: Sequence[Any]) -> list[ReportData]:
    found = rows(records)
    if not any(r.case.kind not in (GUC, IPERF3) for r in found):
        return []
    return [ReportData("protocols", tuple(r.data() for r in found))]


def charts(records: Sequence[ResultRecord], samples: Any) -> list[Any]:
    """Per medium, each protocol's median against the streams (a line per protocol, iperf3 among
    them), or, where every case has one stream count (third-party copies), each case's median with
    its interval."""
    from gftpwb.core.charts import IntervalChart, Line, LineChart, Point, n_label, n_span

    found = [r for r in rows(records) if r.stats is not None and r.stats.median is not None]
    if not any(r.case.kind not in (GUC, IPERF3) for r in found):
        return []
    out: list[Any] = []
    for medium in dict.fromkeys(r.medium for r in found):
        here = [r for r in found if r.medium == medium]
        if len({r.streams for r in here}) > 1:
            lines = []
            for label in dict.fromkeys(r.line_label() for r in here):
                points = sorted((float(r.streams), float(r.stats.median)) for r in here  # type: ignore[union-attr]
                                if r.line_label() == label)
                lines.append(Line(label, tuple(x for x, _ in points), tuple(y for _, y in points)))
            iperf3 = any(r.case.kind == IPERF3 for r in here)
            runs = n_span([r.stats.n for r in here])  # type: ignore[union-attr]
            out.append(LineChart(f"Protocols on the same path, {medium}: median by streams", "streams",
                                 "median rate incl. set-up (MiB/s)", tuple(lines), integer_x=True,
                                 note=f"Medians of {runs}." + (" iperf3: its receiver rate, the path's TCP capacity "
                                                               "with as many streams." if iperf3 else "")))
        else:
            points = []
            for r in here:
                ci = r.stats.ci_median  # type: ignore[union-attr]
                points.append(Point(n_label(r.label(), r.stats.n), float(r.stats.median),  # type: ignore[union-attr]
                                    ci.low if ci else None, ci.high if ci else None))
            out.append(IntervalChart(f"Protocols on the same path, {medium}", "protocol (test, streams)",
                                     "median rate incl. set-up (MiB/s)", tuple(points),
                                     note=f"n: the runs each median rests on. Whiskers: {MEDIAN_LEGEND}."))
    return out
