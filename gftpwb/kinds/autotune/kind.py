"""The ``autotune`` kind: which guc parameters move data fastest between a source and a target, as
tgftp -a finds out, or with fewer transfers (registered as entry point ``gftpwb.kinds: autotune``)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.format import p_text, rate_text
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import Dsl, Kind, Metric, Planner, Present, Program, Report, ReportSection, Run, TestInput
from gftpwb.core.scenario.keys import Key
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel, on_tuple
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.units import parse_rate, parse_size
from gftpwb.kinds.guc.kind import GUC_PROGRAM, require_ends, timeout_of, transfer_endpoints
from gftpwb.kinds.simulated.link import build_link

from .candidates import TGFTP_37, params_line, repeated, resolve_candidates
from .keys import autotune_keys, candidates_schema, warm_start_schema
from .model import ADAPTIVE, EXHAUSTIVE, AutotuneTest
from .plan import describe, plan_autotune


class AutotuneDsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return autotune_keys()

    def definitions(self) -> dict[str, dict[str, Any]]:
        return {"autotune_candidates": candidates_schema(), "autotune_warm_start": warm_start_schema()}

    def check(self, test: TestInput) -> None:
        require_ends(test)
        raw = test.raw
        if len(test.on) > 1:
            test.error("an auto-tune runs its transfers from one host; give on one host (or write one auto-tune "
                       "test per host)", "on", of_key=True)
        strategy = raw.get("strategy", EXHAUSTIVE)
        if strategy == EXHAUSTIVE and "budget" in raw:
            test.error("budget applies to strategy: adaptive; the exhaustive strategy runs every candidate "
                       "`repetitions` times", "budget", of_key=True)
        if strategy == EXHAUSTIVE and raw.get("warm_start", "off") != "off":
            test.error("warm_start applies to strategy: adaptive; the exhaustive strategy runs every candidate "
                       "`repetitions` times, as tgftp, whatever the history holds", "warm_start", of_key=True)
        if strategy == ADAPTIVE and "repetitions" in raw:
            test.error("repetitions applies to strategy: exhaustive; the adaptive strategy decides how often to "
                       "run each candidate, up to `budget` transfers", "repetitions", of_key=True)
        if "margin" in raw and parse_rate(raw["margin"]) <= 0:
            test.error("margin must be more than 0 (tgftp 0.7.0's code uses 10MB/s, its documentation 20MB/s)",
                       "margin", of_key=True)
        if "length" in raw and parse_size(raw["length"]) == 0:
            test.error("length must be more than 0 bytes", "length", of_key=True)
        if "candidates" in raw:
            options, _ = resolve_candidates(raw["candidates"])
            for later, earlier in repeated(options):
                test.error(f"candidate {later} repeats candidate {earlier} ({params_line(options[later - 1])})",
                           "candidates", of_key=True)

    def build(self, test: TestInput) -> AutotuneTest:
        raw, merged = test.raw, test.merged
        candidates, form = resolve_candidates(merged.get("candidates", TGFTP_37))
        base = AutotuneTest(id="", kind=raw["kind"])  # its defaults
        warm = merged.get("warm_start", "auto")
        warm_settings = warm if isinstance(warm, dict) else {}
        return AutotuneTest(
            id=raw["id"],
            kind=raw["kind"],
            description=raw.get("description", ""),
            source=merged["source"],
            target=merged["target"],
            extra_args=tuple(merged.get("extra_args", ())),
            comment=merged.get("comment", ""),
            engine=merged.get("engine", REAL_ENGINE),
            link=build_link(merged.get("link")),
            timeout_s=timeout_of(merged, base.timeout_s or 0.0),
            memory_to_memory=merged.get("memory_to_memory", True),
            candidates=candidates,
            candidate_set=form,
            strategy=merged.get("strategy", base.strategy),
            repetitions=merged.get("repetitions", base.repetitions),
            budget=merged.get("budget", base.budget),
            warm_start=warm != "off",
            warm_history=str(warm_settings.get("history", base.warm_history)),
            warm_campaigns=int(warm_settings.get("campaigns", base.warm_campaigns)),
            length=parse_size(merged["length"]) if "length" in merged else base.length,
            margin_mib_s=parse_rate(merged["margin"]) if "margin" in merged else base.margin_mib_s,
            on=on_tuple(merged.get("on", LOCAL)),
            index=test.index,
        )


class AutotunePlanner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        return plan_autotune(scenario, test, first_case)

    def describe(self, spec: RunSpec, limit: str) -> list[str]:
        header, *commands = describe(spec)
        return [header + limit, *commands]

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return (GUC_PROGRAM,) if spec.engine == REAL_ENGINE else ()

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        return transfer_endpoints(spec)


class AutotuneReport(Report):
    def facts(self, record: ResultRecord) -> dict[str, str | float | int | bool | None]:
        from .report import tune_facts

        return tune_facts(record)


class AutotunePresent(Present):
    def announce(self, spec: RunSpec) -> str | None:
        return f"auto-tune, {spec.params.get('strategy')}, {len(spec.params.get('candidates', []))} candidates"

    def headline(self, record: ResultRecord) -> str:
        pick = record.details.get("pick") or {}
        return (f"pick {pick.get('params')} ({rate_text(pick.get('mean_mib_s'))} MiB/s) after "
                f"{record.details.get('transfers_used')} transfers, P(within margin) "
                f"{p_text(record.details.get('p_within_margin'))}")

    def update_blocks(self, event: Any) -> list[Any]:
        """The final ranking, then the pick as tgftp -a prints it."""
        from .report import pick_lines, ranking_table

        return [ranking_table(event), *pick_lines(event)]


KIND = Kind(
    name="autotune",
    description="find the best guc parameters for a path, as tgftp -a does, or with fewer transfers.",
    order=30,
    dsl=AutotuneDsl(),
    planner=AutotunePlanner(),
    # Its transfers are guc runs (with tag logs of their own); the tune's record ranks them and has no
    # tag log, nor a row in the results table: the console prints the ranking as the tune ends, and
    # the report one row per tune (its pick, how sure it is, why it stopped).
    run=Run("gftpwb.kinds.autotune.run.runner:run_autotune", writes_taglog=False),
    report=AutotuneReport(
        ReportSection("auto-tunes", 30, "gftpwb.kinds.autotune.report:tables", list_failures=False,
                      charts="gftpwb.kinds.autotune.charts:charts"),
        metrics=(
            Metric("p_within_margin", "estimated probability that the pick is within the tie margin of the best "
                   "candidate (0-1)", "", fact="p_within_margin"),
            Metric("pick_rate", "the pick's mean rate incl. set-up", "MiB/s", fact="pick_mean_mib_s"),
        )),
    present=AutotunePresent(),
)
