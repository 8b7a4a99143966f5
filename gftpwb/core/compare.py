"""Compare two scenario runs (two results directories), case by case. Pure.

``gftpwb compare A B`` (:func:`compare_summaries`): per case both have and per figure, the change of
the median with its 95 % interval (the Mann-Whitney test inverted: :func:`gftpwb.core.intervals.change_interval`),
a Mann-Whitney U test (two-sided: rates are skewed and have outliers, and it asks what the median
asks, whether one side's runs tend to be faster), and a verdict (:mod:`gftpwb.core.compare_decision`:
the test's, or too few runs for it, with the runs it needs); plus the environments' differences. The TUI's diff of two
directories (:func:`diff_rates`) shows the means side by side.

Cases are matched by test id and parameters rather than by case number, so a run of an edited
scenario (a test added in front, a matrix value dropped) still lines up with an older one. Only the
latest record of each run id counts, so a resumed directory compares by what it finally holds.
The figure compared is each kind's headline figure (:attr:`gftpwb.core.registry.Report.figures`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .compare_decision import ALPHA, FASTER, NO_DATA, SAME, SLOWER, TOO_FEW, Decision, decide, needed_text
from .errors import UsageError
from .format import interval_text
from .intervals import change_interval
from .records import ResultRecord
from .registry import Figure
from .stats import Interval
from .summary import CaseSummary, DirectorySummary, FigureStats, summarize_cases


@dataclass(frozen=True)
class RateDiff:
    test_id: str
    params: str
    a_mib_s: float | None  # mean of the headline figure over counted runs; None: none (or no such case)
    b_mib_s: float | None
    a_runs: str  # "2/2" passed/runs, "" when the case is missing on that side
    b_runs: str

    @property
    def delta_mib_s(self) -> float | None:
        if self.a_mib_s is None or self.b_mib_s is None:
            return None
        return self.b_mib_s - self.a_mib_s

    @property
    def delta_pct(self) -> float | None:
        if self.delta_mib_s is None or not self.a_mib_s:
            return None
        return 100.0 * self.delta_mib_s / self.a_mib_s


def _cases(records: list[ResultRecord]) -> dict[tuple[str, str], CaseSummary]:
    return {(row.test_id, row.params_text): row for row in summarize_cases(records)}


def _mean(case: CaseSummary | None) -> float | None:
    headline = case.headline if case is not None else None
    return headline.stats.mean if headline is not None and headline.stats is not None else None


def diff_rates(a: list[ResultRecord], b: list[ResultRecord]) -> list[RateDiff]:
    """One row per case of either run: A's cases in order, then those only B has."""
    cases_a, cases_b = _cases(a), _cases(b)
    rows = []
    for key in [*cases_a, *(k for k in cases_b if k not in cases_a)]:
        ra, rb = cases_a.get(key), cases_b.get(key)
        rows.append(RateDiff(
            test_id=key[0], params=key[1], a_mib_s=_mean(ra), b_mib_s=_mean(rb),
            a_runs=f"{ra.passed}/{ra.total}" if ra else "", b_runs=f"{rb.passed}/{rb.total}" if rb else "",
        ))
    return rows


DIFF_COLUMNS = ("test", "guc options", "A MiB/s", "B MiB/s", "Δ MiB/s", "Δ %", "A ok", "B ok")


def diff_cells(row: RateDiff) -> tuple[str, ...]:
    def num(value: float | None, fmt: str) -> str:
        return "-" if value is None else format(value, fmt)

    return (row.test_id, row.params, num(row.a_mib_s, ".1f"), num(row.b_mib_s, ".1f"), num(row.delta_mib_s, "+.1f"),
            num(row.delta_pct, "+.1f"), row.a_runs or "-", row.b_runs or "-")


# --- gftpwb compare A B: change of the median, its CI, significance, verdict ------------------------

COMPARE_VERSION = 2
TEST_NAME = "Mann-Whitney U (two-sided)"


@dataclass(frozen=True)
class Matching:
    """Which parameters line cases up: by default all of them (a case is its test id, kind and every
    parameter); ``ignore`` leaves some out ("did 16 threads help?": ``--ignore threads``), ``only``
    keeps only those named (``--match workload,files``). The test id and kind always count."""

    ignore: tuple[str, ...] = ()
    only: tuple[str, ...] | None = None

    @property
    def default(self) -> bool:
        return not self.ignore and self.only is None

    def key(self, case: CaseSummary) -> tuple[str, ...]:
        if self.default:
            return case_key(case)
        kept = sorted((k, _value_text(v)) for k, v in case.params.items()
                      if (k in self.only if self.only is not None else k not in self.ignore))
        return (case.test_id, case.kind, *(f"{k}={v}" for k, v in kept))

    def check(self, cases: list[CaseSummary]) -> None:
        """A parameter named that no case has is a mistake (a typo would match nothing, or everything)."""
        known = {k for c in cases for k in c.params}
        unknown = [name for name in (*self.ignore, *(self.only or ())) if name not in known]
        if unknown:
            raise UsageError(f"no case has the parameter{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} "
                             f"(they have: {', '.join(sorted(known)) or 'none'})")


@dataclass(frozen=True)
class Side:
    """One side's counted values of a figure and their median."""

    n: int
    median: float | None
    ci: Interval | None  # the median's (order statistics; None below 6 values)

    @property
    def ci_low(self) -> float | None:
        return self.ci.low if self.ci is not None else None

    @property
    def ci_high(self) -> float | None:
        return self.ci.high if self.ci is not None else None


@dataclass(frozen=True)
class Change:
    """One case's figure in A and in B: how the median moved and whether that is more than noise."""

    test_id: str
    kind: str
    params_text: str
    case_a: int
    case_b: int
    figure: Figure
    a: Side
    b: Side
    change_pct: float | None  # (median B / median A - 1) * 100
    ci_low_pct: float | None  # its 95 % interval (gftpwb.core.intervals.change_interval), in percent
    ci_high_pct: float | None
    p_value: float | None  # Mann-Whitney U, two-sided
    significant: bool  # by the test: p < alpha and |change| >= threshold
    verdict: str
    basis: str | None = None  # what the verdict rests on: "test", or None (too few runs for it, no data)
    runs_needed: tuple[int, int] | None = None  # (A, B) runs the test needs to decide; None: it can
    # (parameter, A's value, B's value) where the cases matched although they differ (compare --ignore/--match)
    varied: tuple[tuple[str, str, str], ...] = ()
    # (what, A's, B's) of how the two sides' figures were measured, where that differs (another tool's
    # totals, a delay inside its timed loop): the change is partly the measurement's
    measured_differently: tuple[tuple[str, str, str], ...] = ()

    @property
    def regression(self) -> bool:
        return self.verdict == SLOWER


@dataclass(frozen=True)
class Comparison:
    a: DirectorySummary
    b: DirectorySummary
    threshold_pct: float
    changes: tuple[Change, ...]
    only_a: tuple[str, ...]  # "test #case params" of cases only A has
    only_b: tuple[str, ...]
    environment: tuple[tuple[str, str, str, str], ...]  # (host, what, A's, B's) that differ
    matching: Matching = Matching()  # which parameters lined the cases up

    @property
    def regressions(self) -> int:
        return sum(1 for c in self.changes if c.regression)


def counted_values(case: CaseSummary, key: str) -> list[float]:
    """The values of figure ``key`` that its statistics take (passed, not warm-ups, not excluded)."""
    stats = case.figure(key)
    if stats is not None and stats.values:  # kept by the summary: the same values in the same order
        return list(stats.values)
    out = []
    for run in case.runs:
        value = run.values.get(key)
        if run.counted and value is not None and key not in run.excluded:
            out.append(value)
    return out


def _side(stats: FigureStats | None) -> Side:
    s = stats.stats if stats is not None else None
    if s is None:
        return Side(0, None, None)
    return Side(s.n, s.median, s.ci_median)


def mann_whitney(a: list[float], b: list[float]) -> float | None:
    """The two-sided p-value of the Mann-Whitney U test (None: fewer than one value a side, or no
    spread at all); scipy's (:mod:`gftpwb.core.mannwhitney`)."""
    import math

    from .mannwhitney import mann_whitney_u

    if not a or not b:
        return None
    if len(set(a) | set(b)) == 1:
        return 1.0
    p = mann_whitney_u(a, b)[1]
    return None if math.isnan(p) else p


@dataclass(frozen=True)
class Judgement:
    """What compare makes of two samples of a figure: the change of the median in percent, its 95 %
    interval, the test's p and the verdict."""

    change_pct: float | None
    ci_pct: tuple[float, float] | None
    p: float | None
    decision: Decision


def judge(values_a: list[float], values_b: list[float], threshold_pct: float,
          higher_is_better: bool = True) -> Judgement:
    """The change of B against A, its interval, the test and the verdict (the module's rules), from
    the two samples alone: what compare says of every case, and what its error rates are checked on."""
    from statistics import median

    change = None
    if values_a and values_b and median(values_a) != 0:
        change = (median(values_b) / median(values_a) - 1) * 100
    ci = change_interval(values_a, values_b)
    p = mann_whitney(values_a, values_b)
    return Judgement(change, None if ci is None else ((ci.low - 1) * 100, (ci.high - 1) * 100), p,
                     decide(change, p, len(values_a), len(values_b), threshold_pct, higher_is_better))


def compare_figure(ca: CaseSummary, cb: CaseSummary, stats_a: FigureStats, stats_b: FigureStats,
                   threshold_pct: float) -> Change:
    figure = stats_a.figure
    j = judge(counted_values(ca, figure.key), counted_values(cb, figure.key), threshold_pct, figure.higher_is_better)
    low, high = j.ci_pct if j.ci_pct is not None else (None, None)
    d = j.decision
    return Change(ca.test_id, ca.kind, ca.params_text, ca.case, cb.case, figure, _side(stats_a), _side(stats_b),
                  j.change_pct, low, high, j.p, d.significant, d.verdict, d.basis, d.needed, varied(ca, cb),
                  measured_differently(ca, cb))


def varied(ca: CaseSummary, cb: CaseSummary) -> tuple[tuple[str, str, str], ...]:
    """The parameters in which two matched cases differ (those compare was told to ignore)."""
    return tuple((k, _value_text(ca.params.get(k)), _value_text(cb.params.get(k)))
                 for k in dict.fromkeys([*ca.params, *cb.params]) if ca.params.get(k) != cb.params.get(k))


def measured_differently(ca: CaseSummary, cb: CaseSummary) -> tuple[tuple[str, str, str], ...]:
    """(what, A's, B's) of how the cases' figures were measured, where the two differ."""
    ma, mb = dict(ca.measured), dict(cb.measured)
    return tuple((k, ma.get(k, "-"), mb.get(k, "-")) for k in dict.fromkeys([*ma, *mb]) if ma.get(k) != mb.get(k))


def _value_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return "-" if value is None else str(value)


def for_comparison(summary: DirectorySummary) -> DirectorySummary:
    """What :func:`compare_summaries` reads of a directory: its cases with their statistics and the
    values they took, without each run (100,000 of them, with their records), and no samples or
    monitors. Small enough to pass between processes (``gftpwb.shell.read_pair``); the same
    comparison as the whole summary gives (:func:`counted_values` needs a case's runs only when its
    figure kept no values, and then they have none to give)."""
    return replace(summary, cases=tuple(replace(c, runs=()) for c in summary.cases), samples={}, monitors=None)


def case_key(case: CaseSummary) -> tuple[str, str, str]:
    return (case.test_id, case.kind, case.params_text)


def _cases_by_key(summary: DirectorySummary, side: str, matching: Matching) -> dict[tuple[str, ...], CaseSummary]:
    """A directory's own cases by their key; two cases that --ignore or --match gave one key cannot be told
    apart: an error that names them and what tells them apart."""
    out: dict[tuple[str, ...], CaseSummary] = {}
    for case in summary.cases:
        if case.kind != case.test_kind or not case.figures:
            continue
        key = matching.key(case)
        other = out.get(key)
        if other is not None and not matching.default:  # what --ignore/--match merged; by default as ever
            apart = ", ".join(f"{k} {a} and {b}" for k, a, b in varied(other, case))
            raise UsageError(f"{side} has two cases that match as one: {case_name(other)} and {case_name(case)} "
                             f"(they differ in {apart or 'nothing compare can tell'}): match on more parameters")
        out[key] = case
    return out


def case_name(case: CaseSummary) -> str:
    return f"{case.test_id} #{case.case:03d} {case.params_text}".strip()


def compare_summaries(a: DirectorySummary, b: DirectorySummary, *, threshold_pct: float = 5.0,
                      all_figures: bool = False, matching: Matching | None = None) -> Comparison:
    """Every case both have (a test's own cases: an auto-tune's transfers are its ranking's), each
    headline figure (or every figure) compared; plus what only one has and how their environments differ.
    ``matching``: which parameters line the cases up (default: all)."""
    matching = matching or Matching()
    if not matching.default:
        matching.check([*a.cases, *b.cases])
    own_a = _cases_by_key(a, "A", matching)
    own_b = _cases_by_key(b, "B", matching)
    changes = []
    for key, ca in own_a.items():
        cb = own_b.get(key)
        if cb is None:
            continue
        for stats_a in ca.figures if all_figures else ca.figures[:1]:
            stats_b = cb.figure(stats_a.figure.key)
            if stats_b is not None:
                changes.append(compare_figure(ca, cb, stats_a, stats_b, threshold_pct))
    return Comparison(a, b, threshold_pct, tuple(changes),
                      tuple(case_name(c) for k, c in own_a.items() if k not in own_b),
                      tuple(case_name(c) for k, c in own_b.items() if k not in own_a),
                      tuple(environment_differences(a.meta, b.meta)), matching)


# --- environments ---------------------------------------------------------------------------------


def _flat(value: Any, prefix: str = "") -> dict[str, str]:
    if isinstance(value, dict):
        out: dict[str, str] = {}
        for key, inner in value.items():
            out.update(_flat(inner, f"{prefix}.{key}" if prefix else str(key)))
        return out
    if isinstance(value, list):
        return {prefix: " ".join(str(v) for v in value)}
    return {prefix: "-" if value is None else str(value)}


def comparable_environment(host: Any) -> dict[str, str]:
    """What of a host's environment makes results comparable: everything but the servers' addresses
    (a lab server's port changes every run): their GridFTP versions are kept, as a set."""
    if not isinstance(host, dict):
        return {}
    facts = {k: v for k, v in host.items() if k != "servers"}
    out = _flat(facts)
    versions = sorted({str(s.get("version")) for s in (host.get("servers") or {}).values()
                       if isinstance(s, dict) and s.get("version")})
    if versions:
        out["servers' GridFTP version"] = " ".join(versions)
    return out


# meta.json of a directory imported from tag logs: how many of its runs tgftp timed (to the whole second)
WHOLE_SECOND_RATES = "whole_second_rates"


def whole_second_rates(meta: Any) -> int:
    count = meta.get(WHOLE_SECOND_RATES) if isinstance(meta, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 0


def rate_clock(meta: Any) -> str:
    """Who timed a directory's rates: tgftp's tag logs, imported, carry tgftp's rate (the size over whole
    seconds: a transfer of 0.1 s counts as 1 s); gftpwb times its own runs to the microsecond. A change
    between the two is partly the clocks', so compare warns when they differ."""
    whole = whole_second_rates(meta)
    if whole:
        return f"tgftp, to the whole second ({whole} of {meta.get('runs') or whole} runs)"
    return "gftpwb, to the microsecond"


def environment_differences(meta_a: dict[str, Any], meta_b: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(host, what, A's value, B's value) for every fact of a host that differs, and hosts only one
    side used; the gftpwb versions too, and who timed the rates (tgftp's whole seconds, gftpwb's µs).
    Empty when neither recorded an environment and both were timed alike."""
    out: list[tuple[str, str, str, str]] = []
    va, vb = meta_a.get("gftpwb_version"), meta_b.get("gftpwb_version")
    if va and vb and va != vb:
        out.append(("-", "gftpwb version", str(va), str(vb)))
    if (whole_second_rates(meta_a) > 0) != (whole_second_rates(meta_b) > 0):
        out.append(("-", "rates timed by", rate_clock(meta_a), rate_clock(meta_b)))
    hosts_a = ((meta_a.get("environment") or {}).get("hosts") or {}) if isinstance(meta_a, dict) else {}
    hosts_b = ((meta_b.get("environment") or {}).get("hosts") or {}) if isinstance(meta_b, dict) else {}
    if not hosts_a or not hosts_b:
        return out
    for host in dict.fromkeys([*hosts_a, *hosts_b]):
        if host not in hosts_b or host not in hosts_a:
            out.append((host, "host used", "yes" if host in hosts_a else "no", "yes" if host in hosts_b else "no"))
            continue
        fa, fb = comparable_environment(hosts_a[host]), comparable_environment(hosts_b[host])
        for key in dict.fromkeys([*fa, *fb]):
            if fa.get(key, "-") != fb.get(key, "-"):
                out.append((host, key, fa.get(key, "-"), fb.get(key, "-")))
    return out


# --- what compare prints ----------------------------------------------------------------------------

COMPARE_SCHEMA_ID = "https://gftpwb.invalid/schemas/compare.schema.json"


def _r(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def comparison_data(c: Comparison, generator: str) -> dict[str, Any]:
    """``gftpwb compare --json``: follows ``schemas/compare.schema.json`` (version 2)."""
    def side(s: Side) -> dict[str, Any]:
        return {"n": s.n, "median": _r(s.median), "ci_median": None if s.ci_low is None else
                {"low": _r(s.ci_low), "high": _r(s.ci_high)}}

    def directory(d: DirectorySummary) -> dict[str, Any]:
        return {"path": d.path, "scenario": d.scenario, "created_at": d.created_at}

    return {
        "$schema": COMPARE_SCHEMA_ID, "version": COMPARE_VERSION, "generator": generator,
        "a": directory(c.a), "b": directory(c.b), "test": TEST_NAME, "alpha": ALPHA, "threshold_pct": c.threshold_pct,
        "cases": [{"test_id": x.test_id, "kind": x.kind, "params_text": x.params_text, "case_a": x.case_a,
                   "case_b": x.case_b, "figure": {"key": x.figure.key, "label": x.figure.label, "unit": x.figure.unit,
                                                  "higher_is_better": x.figure.higher_is_better},
                   "a": side(x.a), "b": side(x.b), "change_pct": _r(x.change_pct, 3),
                   "change_ci_pct": None if x.ci_low_pct is None else {"low": _r(x.ci_low_pct, 3),
                                                                       "high": _r(x.ci_high_pct, 3)},
                   "p_value": _r(x.p_value), "significant": x.significant, "verdict": x.verdict,
                   "basis": x.basis, "runs_needed": None if x.runs_needed is None else
                   {"a": x.runs_needed[0], "b": x.runs_needed[1]},
                   "varied": [{"parameter": k, "a": va, "b": vb} for k, va, vb in x.varied],
                   "measured_differently": [{"what": w, "a": va, "b": vb} for w, va, vb in x.measured_differently]}
                  for x in c.changes],
        "matched_by": {"ignore": list(c.matching.ignore),
                       "only": None if c.matching.only is None else list(c.matching.only)},
        "only_in_a": list(c.only_a), "only_in_b": list(c.only_b),
        "environment_differences": [{"host": h, "what": w, "a": a, "b": b} for h, w, a, b in c.environment],
        "regressions": c.regressions,
    }


COMPARE_COLUMNS = (("test", "left"), ("#", "right"), ("parameters", "left"), ("figure", "left"), ("A median", "right"),
                   ("B median", "right"), ("change", "right"), ("95 % CI of change", "right"), ("p", "right"),
                   ("verdict", "left"))
VERDICT_STYLE = {FASTER: "bold green", SLOWER: "bold red", SAME: "", TOO_FEW: "yellow", NO_DATA: "dim"}
MEASURED_DIFFERENTLY_MARK = ", measured differently"  # a verdict cell's mark: see the warning under the table


def verdict_cell(x: Change) -> str:
    """The verdict, with ``, measured differently`` when A's and B's figures were not measured alike."""
    return x.verdict + (MEASURED_DIFFERENTLY_MARK if x.measured_differently else "")


def measurement_warnings(c: Comparison) -> list[str]:
    """One line per case whose sides were measured differently: what differs, A's way and B's."""
    out = []
    for x in c.changes:
        if x.measured_differently:
            what = "; ".join(f"{w}: A {va!r}, B {vb!r}" for w, va, vb in x.measured_differently)
            out.append(f"warning: {x.test_id} #{x.case_b:03d}: A and B were measured differently, so the change is "
                       f"partly the measurement's: {what}")
    return out


def parameters_cell(x: Change) -> str:
    """The case's parameters (A's), and where B's differ (cases matched with --ignore or --match)."""
    if not x.varied:
        return x.params_text
    return f"{x.params_text} (B: {', '.join(f'{k}={vb}' for k, _va, vb in x.varied)})"


@dataclass(frozen=True)
class Undecided:
    """The cases a comparison's test cannot decide: how many of all, and the runs a side the
    neediest one needs."""

    cases: int
    of: int
    runs_needed: tuple[int, int]


def undecided(c: Comparison) -> Undecided | None:
    """:class:`Undecided` of ``c``; None when the test could decide every case."""
    needing = [x.runs_needed for x in c.changes if x.runs_needed is not None]
    if not needing:
        return None
    return Undecided(len(needing), len(c.changes), max(needing))


def undecided_note(c: Comparison) -> str:
    """Why cases say ``too few runs`` and the runs that would let the test decide (the most any case
    needs); "" when the test could decide every case."""
    u = undecided(c)
    if u is None:
        return ""
    return (f"{u.cases} of {u.of} case(s) have too few runs for {TEST_NAME} to reach p < {ALPHA} at all: no verdict "
            f"and no CI of the change for them. It needs {needed_text(u.runs_needed)}: repeat the cases.")


def change_cells(x: Change) -> tuple[tuple[str, ...], str]:
    def num(value: float | None, digits: int) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    def pct(value: float | None) -> str:
        return "-" if value is None else f"{value:+.1f} %"

    # the interval of a ratio is not symmetric: its bounds (gftpwb.core.format.interval_text)
    ci = interval_text(x.ci_low_pct, x.ci_high_pct, signed=True, unit="%")
    digits = x.figure.digits
    p = "-" if x.p_value is None else f"{x.p_value:.3f}"
    name = x.figure.label if x.figure.unit in x.figure.label else f"{x.figure.label} ({x.figure.unit})"
    cells = (x.test_id, f"{x.case_b:03d}", parameters_cell(x), name,
             f"{num(x.a.median, digits)} (n={x.a.n})", f"{num(x.b.median, digits)} (n={x.b.n})", pct(x.change_pct),
             ci, p, verdict_cell(x))
    return cells, VERDICT_STYLE.get(x.verdict, "")
