"""The auto-tune runner: asks the strategy which candidate to run, runs that guc transfer as a child
run (``ctx.run_child``: the guc kind's runner, real or on the spec's engine), tells the strategy the
result, and publishes a TuneUpdate after every transfer.

Every transfer is a run of its own: RunStarted, progress, RunFinished, so the journal holds one
record per transfer and each gets its tgftp tag log. The tune ends in one record of kind
``autotune`` holding the ranking, the pick and the tgftp parameter line (``details``). On
``--resume`` the strategy is replayed from the journal: it asks for the same transfers again, and
the ones already recorded are told from the journal instead of being run.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import time
from dataclasses import asdict, replace
from typing import Any

from gftpwb.core.errors import GftpwbError
from gftpwb.core.events import Notice, RunStarted, TuneUpdate
from gftpwb.core.format import estimate_text
from gftpwb.core.records import FAILED, FINAL_STATUSES, INTERRUPTED, PASSED, ResultRecord
from gftpwb.core.registry import registry
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.units import format_rate, format_size_arg
from gftpwb.kinds.autotune import caps as capmath
from gftpwb.kinds.autotune.candidates import DEFAULT_PORTS, GUC
from gftpwb.kinds.autotune.model import ADAPTIVE
from gftpwb.kinds.autotune.plan import TuneSettings, candidate_keys, transfer_kind, transfer_spec
from gftpwb.kinds.autotune.strategies import Tuner, make_tuner
from gftpwb.kinds.autotune.warm import PathFeatures, data_of, endpoint
from gftpwb.kinds.autotune.warmrace import (
    PLAN_DETAIL,
    WarmAdaptive,
    WarmPlan,
    plan_from_json,
    plan_to_json,
    plan_warm_start,
    priors_to_json,
    used_text,
    warm_text,
)
from gftpwb.kinds.guc.tuning import args_line
from gftpwb.shell.context import Interrupted, RunContext, utc_now_iso

from .caps import read_path_caps
from .history import history_base, read_campaigns_async
from .rtt import path_rtt

# The ports a URL without one connects to, for the warm start's view of a path's ends.
PORTS = {**DEFAULT_PORTS, "root": 1094, "roots": 1094, "dav": 80, "davs": 443}
UNKNOWN_ENDS = (capmath.EndCaps("source", "?"), capmath.EndCaps("target", "?"))


def failure_text(record: ResultRecord) -> str:
    lines = [line for line in record.error.splitlines() if line.strip()]
    return lines[0] if lines else record.status


def tune_update(spec: RunSpec, tuner: Tuner, *, finished: bool = False, warm: str = "") -> TuneUpdate:
    pick = tuner.pick()
    return TuneUpdate(kind=spec.kind, transfers=str(spec.params.get("transfers", GUC)), test_id=spec.test_id,
                      strategy=tuner.name, engine=spec.engine,
                      transfers_used=tuner.transfers_used, budget=tuner.budget, margin_mib_s=tuner.margin,
                      rows=tuner.rows(), leader=None if pick is None else tuner.candidates[pick].label,
                      finished=finished, p_within_margin=tuner.p_within_margin() if finished else None,
                      stop_reason=tuner.stop_reason if finished else "", warm_start=warm,
                      p_with_history=tuner.p_with_history() if finished else None,
                      history_share=tuner.history_share() if finished else "",
                      leader_command="" if pick is None else shlex.join(pick_argv(spec, tuner, pick)))


def pick_argv(spec: RunSpec, tuner: Tuner, pick: int) -> tuple[str, ...]:
    """The command line of the pick's transfers, as they run."""
    return transfer_spec(spec, tuner.candidates[pick], 0, int(spec.params["length"])).argv


def tune_details(spec: RunSpec, tuner: Tuner, ends: tuple[capmath.EndCaps, capmath.EndCaps],
                 dupes: dict[int, int], replayed: int) -> dict[str, Any]:
    pick = tuner.pick()
    arm = tuner.arms[pick] if pick is not None else None
    pick_mean = None if pick is None or not isinstance(tuner, WarmAdaptive) else tuner.estimate(pick)
    return {
        "strategy": tuner.name,
        "engine": spec.engine,
        "margin_mib_s": tuner.margin,
        "transfers_used": tuner.transfers_used,
        "budget": tuner.budget,
        "replayed_transfers": replayed,
        "pick": None if arm is None else {"candidate": arm.candidate.number, "params": arm.candidate.label,
                                          "mean_mib_s": arm.mean, "runs": arm.runs,
                                          **({"estimate_mib_s": pick_mean} if pick_mean is not None else {})},
        "tgftp_line": tgftp_line(spec, tuner),
        "p_within_margin": tuner.p_within_margin(),
        "p_with_history": tuner.p_with_history(),
        "history_share": tuner.history_share(),
        "measured_cv": tuner.measured_cv(),
        "pooled_cv": tuner.pooled_cv(),
        "stop_reason": tuner.stop_reason,
        "ranking": [asdict(row) for row in tuner.rows()],
        "eliminations": [asdict(e) for e in tuner.eliminations],
        "buffer_caps": {"source": asdict(ends[0]), "target": asdict(ends[1]),
                        "path_cap": capmath.path_cap(*ends)},
        "duplicates": {str(k): v for k, v in dupes.items()},
    }


def tgftp_line(spec: RunSpec, tuner: Tuner) -> str:
    """The pick's guc arguments as its transfers ran them (without -len), the line tgftp -a prints;
    empty without a pick, for another kind's transfers, or when the pick ran guc with no arguments
    (stream mode between two servers: ``pick`` then says which candidate won)."""
    pick = tuner.pick()
    if pick is None or transfer_kind(spec) != GUC:
        return ""
    return args_line(pick_argv(spec, tuner, pick))


def ranking_text(tuner: Tuner) -> str:
    """The ranking as plain text, for the record's output (people reading results.jsonl)."""
    lines = []
    for row in tuner.rows():
        mean = estimate_text(row.mean_mib_s, row.ci_low_mib_s, row.ci_high_mib_s)
        tied = " (tied with #1)" if row.tied_with_leader else ""
        note = f"  {row.note}" if row.note else ""
        lines.append(f"{row.rank:>3}. {row.candidate}: {mean} MiB/s, {row.runs} runs, "
                     f"{row.failures} failed{tied}{note}")
    return "\n".join(lines) + "\n"


async def run_autotune(ctx: RunContext, spec: RunSpec) -> ResultRecord:
    return await Tune(ctx, spec).run()


class Tune:
    """One auto-tune in flight: its settings, the strategy, and what the record will say."""

    def __init__(self, ctx: RunContext, spec: RunSpec):
        self.ctx = ctx
        self.spec = spec
        self.settings = TuneSettings.of(spec)
        self.started_at = utc_now_iso()
        self.t0 = time.monotonic()
        # Transfers an interrupted attempt of this tune finished (--resume): told, not run again.
        self.history = {r.run_id: r for r in ctx.history
                        if r.test_id == spec.test_id and r.kind == self.settings.transfers
                        and r.status in FINAL_STATUSES}
        self.replayed = 0
        self.tuner: Tuner | None = None
        self.ends: tuple[capmath.EndCaps, capmath.EndCaps] = UNKNOWN_ENDS
        self.dupes: dict[int, int] = {}
        self.features: PathFeatures | None = None
        self.warm_plan: WarmPlan | None = None
        self.warm_base: str | None = None
        self.phase = ""  # the warm start's phase at the last update (a change is announced)
        self.plan_recorded = False  # a transfer's record carries the warm start already

    async def run(self) -> ResultRecord:
        self.ctx.publish(RunStarted(spec=self.spec, argv=(), started_at=self.started_at))
        try:
            tuner = await self._prepare()
            await self._race(tuner)
        except asyncio.CancelledError:
            raise Interrupted(self._record(INTERRUPTED, "interrupted by the user (Ctrl-C); --resume continues the "
                                                        "auto-tune from its journal")) from None
        return self._finish(tuner)

    async def _prepare(self) -> Tuner:
        """Read the ends' buffer caps, tell the user what they mean, and set up the strategy."""
        spec, settings = self.spec, self.settings
        buffers = [t for t in settings.tuning.parameters if t.socket_buffer]
        names, flag = [t.name for t in buffers], (buffers[0].flag if buffers else "")
        self.ends = await read_path_caps(self.ctx, spec)
        self.dupes = capmath.duplicates(settings.candidates, capmath.path_cap(*self.ends), names)
        if buffers and not (spec.engine != REAL_ENGINE and capmath.path_cap(*self.ends) is None):
            for level, text in capmath.notices(*self.ends, settings.candidates, self.dupes, names, flag):
                self.ctx.publish(Notice(level=level, text=f"{spec.test_id}: {text}"))
        if spec.timeout_s:
            need = settings.length / 1048576 / spec.timeout_s
            self.ctx.publish(Notice(level="info", text=(
                f"{spec.test_id}: a transfer of {format_size_arg(settings.length)} must reach "
                f"{need:.0f} MiB/s to finish within the {spec.timeout_s:g}s timeout; slower runs count as failed")))
        self.features = await self._features()
        if settings.strategy == ADAPTIVE and settings.warm_start:
            self.warm_plan = await self._warm_plan()
        if self.warm_plan is not None and self.warm_plan.warm is not None:
            self.tuner = WarmAdaptive(settings.candidates, settings.margin_mib_s, settings.budget, self.warm_plan.warm,
                                      self.dupes)
        else:
            self.tuner = make_tuner(settings.strategy, settings.candidates, settings.margin_mib_s,
                                    repetitions=settings.repetitions, budget=settings.budget, duplicates=self.dupes)
        self.tuner.buffer = flag or self.tuner.buffer
        self._announce_warm_start()
        self.ctx.publish(self._update())
        return self.tuner

    # --- the warm start ------------------------------------------------------------------------------

    async def _features(self) -> PathFeatures:
        """The path as the tune finds it: end points, size, RTT (measured, or the engine's model) and the
        kernel's buffer cap; kept in the record so later tunes can tell whether they tune the same path."""
        spec = self.spec
        if spec.engine == REAL_ENGINE:
            rtt, notes = await path_rtt(self.ctx, spec.host, (spec.source, spec.target), PORTS)
            for note in notes:
                self.ctx.publish(Notice(level="info", text=f"{spec.test_id}: {note}"))
        else:
            rtt = registry().engine(spec.engine).rtt_s(spec)
        return PathFeatures(transfer_kind(spec), spec.engine, endpoint(spec.source, PORTS),
                            endpoint(spec.target, PORTS), self.settings.length, rtt,
                            capmath.path_cap(*self.ends), data_of(spec.source, spec.target))

    async def _warm_plan(self) -> WarmPlan:
        """The warm start: the one an interrupted attempt of this tune recorded on its first transfer (so
        --resume races on the same priors, after Ctrl-C or a kill alike), else one planned from the
        earlier campaigns in the history."""
        settings, spec = self.settings, self.spec
        kept = next((r.details[PLAN_DETAIL] for r in self.history.values()
                     if isinstance(r.details.get(PLAN_DETAIL), dict)), None)
        if kept is not None:
            self.warm_base = kept.get("history")
            self.plan_recorded = True
            return plan_from_json(kept)
        base = history_base(self.ctx.results_dir, settings.warm_history)
        self.warm_base = base
        if base is None:
            return WarmPlan(None, (), "no results directory, so no history")
        own = os.path.basename(os.path.abspath(self.ctx.results_dir.rstrip("/"))) if self.ctx.results_dir else ""
        keys, drop = candidate_keys(spec, settings)
        try:
            campaigns = await read_campaigns_async(base, own, transfer_kind(spec), drop, PORTS)
        except GftpwbError as exc:
            self.ctx.publish(Notice(level="warning", text=f"{spec.test_id}: cannot read the history in {base}: {exc}; "
                                                          "the tune searches cold"))
            return WarmPlan(None, (), f"the history in {base} could not be read")
        assert self.features is not None
        return plan_warm_start(self.features, campaigns, keys, settings.budget, limit=settings.warm_campaigns)

    def _warm_line(self) -> str:
        if self.tuner is None or self.settings.strategy != ADAPTIVE:
            return ""
        if self.warm_plan is None:
            return "cold search: warm_start is off"
        return warm_text(self.tuner, self.warm_plan.used, self.warm_plan.reason)

    def _update(self, finished: bool = False) -> TuneUpdate:
        assert self.tuner is not None
        return tune_update(self.spec, self.tuner, finished=finished, warm=self._warm_line())

    def _announce_warm_start(self) -> None:
        """Say what the history gave: the campaigns used (how similar, what weight) or why none."""
        plan, test = self.warm_plan, self.spec.test_id
        if plan is None:
            return
        if plan.warm is None:
            self.ctx.publish(Notice(level="info", text=f"{test}: cold search: {plan.reason}"))
            return
        assert isinstance(self.tuner, WarmAdaptive)
        self.phase = self.tuner.phase
        self.ctx.publish(Notice(level="info", text=f"{test}: {self._warm_line()}"))
        self.ctx.publish(Notice(level="info", text=f"{test}: history used: {used_text(plan.used)}"))

    def _after_transfer(self) -> None:
        """Announce a change of the warm start's phase: the probes' verdict, or the fall-back."""
        tuner = self.tuner
        if not isinstance(tuner, WarmAdaptive) or tuner.phase == self.phase:
            return
        self.phase = tuner.phase
        level = "warning" if tuner.went_cold else "info"
        self.ctx.publish(Notice(level=level, text=f"{self.spec.test_id}: {self._warm_line()}"))

    async def _race(self, tuner: Tuner) -> None:
        """Ask, run (or replay from the journal), tell, until the strategy is done."""
        while (index := tuner.ask()) is not None:
            candidate = self.settings.candidates[index]
            transfer = transfer_spec(self.spec, candidate, tuner.arms[index].runs, self.settings.length)
            done = self.history.get(transfer.run_id)
            if done is None and not self.plan_recorded and self.warm_plan is not None:
                # The first transfer carries the warm start, so a resumed tune plans nothing anew.
                transfer = replace(transfer, details={**transfer.details,
                                                      PLAN_DETAIL: plan_to_json(self.warm_plan, self.warm_base)})
                self.plan_recorded = True
            if done is not None:
                self.replayed += 1
            else:
                if self.ctx.stopping:
                    raise asyncio.CancelledError
                done = await self.ctx.run_child(transfer)
            ok = done.status == PASSED and done.rate_incl_setup_mib_s is not None
            tuner.tell(index, done.rate_incl_setup_mib_s if ok else None, "" if ok else failure_text(done))
            self._after_transfer()
            self.ctx.publish(self._update())

    def _finish(self, tuner: Tuner) -> ResultRecord:
        spec = self.spec
        self.ctx.publish(self._update(finished=True))
        if self.replayed:
            self.ctx.publish(Notice(level="info", text=f"{spec.test_id}: {self.replayed} transfer(s) taken from the "
                                                       "journal of the interrupted run"))
        if tuner.pick() is not None:
            return self._record(PASSED)
        if not any(arm.rates for arm in tuner.arms):
            return self._record(FAILED, "no candidate had a successful transfer")
        stop = f" ({tuner.stop_reason})" if tuner.stop_reason else ""
        return self._record(FAILED, f"no candidate reached the tie margin of {format_rate(tuner.margin)} "
                                    f"(tgftp's rule starts from 0 MB/s, so it prints an empty line){stop}")

    def _record(self, status: str, error: str = "") -> ResultRecord:
        tuner = self.tuner
        pick = tuner.pick() if tuner else None
        mean = tuner.arms[pick].mean if tuner and pick is not None else None
        return record_for(
            self.spec, status, started_at=self.started_at, ended_at=utc_now_iso(),
            seconds=round(time.monotonic() - self.t0, 6), rate_incl_setup_mib_s=mean, error=error,
            output=ranking_text(tuner) if tuner else "",
            details=self._details() if tuner else {},
        )

    def _details(self) -> dict[str, Any]:
        assert self.tuner is not None
        details = tune_details(self.spec, self.tuner, self.ends, self.dupes, self.replayed)
        if self.features is not None:
            details["path"] = self.features.as_dict()
        plan = self.warm_plan
        if plan is not None:
            warm: dict[str, Any] = {"history": self.warm_base, "reason": plan.reason, "text": self._warm_line(),
                                    "used": [u.as_dict() for u in plan.used], "warm": plan.warm is not None}
            if plan.warm is not None and isinstance(self.tuner, WarmAdaptive):
                warm.update(self.tuner.warm_facts())
                warm["priors"] = priors_to_json(plan.warm)
            details["warm_start"] = warm
        elif self.settings.strategy == ADAPTIVE:
            details["warm_start"] = {"history": None, "reason": "warm_start is off", "text": self._warm_line(),
                                     "used": [], "warm": False}
        return details
