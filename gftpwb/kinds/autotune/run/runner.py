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
import time
from dataclasses import asdict
from typing import Any

from gftpwb.core.events import Notice, RunStarted, TuneUpdate
from gftpwb.core.format import ci_text
from gftpwb.core.records import FAILED, FINAL_STATUSES, INTERRUPTED, PASSED, ResultRecord
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.units import format_rate, format_size_arg
from gftpwb.kinds.autotune import caps as capmath
from gftpwb.kinds.autotune.candidates import GUC
from gftpwb.kinds.autotune.plan import TuneSettings, transfer_spec
from gftpwb.kinds.autotune.strategies import Tuner, make_tuner
from gftpwb.shell.context import Interrupted, RunContext, utc_now_iso

from .caps import read_path_caps

UNKNOWN_ENDS = (capmath.EndCaps("source", "?"), capmath.EndCaps("target", "?"))


def failure_text(record: ResultRecord) -> str:
    lines = [line for line in record.error.splitlines() if line.strip()]
    return lines[0] if lines else record.status


def tune_update(spec: RunSpec, tuner: Tuner, *, finished: bool = False) -> TuneUpdate:
    pick = tuner.pick()
    return TuneUpdate(kind=spec.kind, transfers=str(spec.params.get("transfers", GUC)), test_id=spec.test_id,
                      strategy=tuner.name, engine=spec.engine,
                      transfers_used=tuner.transfers_used, budget=tuner.budget, margin_mib_s=tuner.margin,
                      rows=tuner.rows(), leader=None if pick is None else tuner.candidates[pick].label,
                      finished=finished, p_within_margin=tuner.p_within_margin() if finished else None,
                      stop_reason=tuner.stop_reason if finished else "")


def tune_details(spec: RunSpec, tuner: Tuner, ends: tuple[capmath.EndCaps, capmath.EndCaps],
                 dupes: dict[int, int], replayed: int) -> dict[str, Any]:
    pick = tuner.pick()
    arm = tuner.arms[pick] if pick is not None else None
    return {
        "strategy": tuner.name,
        "engine": spec.engine,
        "margin_mib_s": tuner.margin,
        "transfers_used": tuner.transfers_used,
        "budget": tuner.budget,
        "replayed_transfers": replayed,
        "pick": None if arm is None else {"candidate": arm.candidate.number, "params": arm.candidate.label,
                                          "mean_mib_s": arm.mean, "runs": arm.runs},
        "tgftp_line": tuner.pick_line() if spec.params.get("transfers", GUC) == GUC else "",
        "p_within_margin": tuner.p_within_margin(),
        "pooled_cv": tuner.pooled_cv(),
        "stop_reason": tuner.stop_reason,
        "ranking": [asdict(row) for row in tuner.rows()],
        "eliminations": [asdict(e) for e in tuner.eliminations],
        "buffer_caps": {"source": asdict(ends[0]), "target": asdict(ends[1]),
                        "path_cap": capmath.path_cap(*ends)},
        "duplicates": {str(k): v for k, v in dupes.items()},
    }


def ranking_text(tuner: Tuner) -> str:
    """The ranking as plain text, for the record's output (people reading results.jsonl)."""
    lines = []
    for row in tuner.rows():
        half = None if row.ci_low_mib_s is None or row.ci_high_mib_s is None else \
            (row.ci_high_mib_s - row.ci_low_mib_s) / 2
        mean = ci_text(row.mean_mib_s, half)
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
        self.tuner = make_tuner(settings.strategy, settings.candidates, settings.margin_mib_s,
                                repetitions=settings.repetitions, budget=settings.budget, duplicates=self.dupes)
        self.tuner.buffer = flag or self.tuner.buffer
        self.ctx.publish(tune_update(spec, self.tuner))
        return self.tuner

    async def _race(self, tuner: Tuner) -> None:
        """Ask, run (or replay from the journal), tell, until the strategy is done."""
        while (index := tuner.ask()) is not None:
            candidate = self.settings.candidates[index]
            transfer = transfer_spec(self.spec, candidate, tuner.arms[index].runs, self.settings.length)
            done = self.history.get(transfer.run_id)
            if done is not None:
                self.replayed += 1
            else:
                if self.ctx.stopping:
                    raise asyncio.CancelledError
                done = await self.ctx.run_child(transfer)
            ok = done.status == PASSED and done.rate_incl_setup_mib_s is not None
            tuner.tell(index, done.rate_incl_setup_mib_s if ok else None, "" if ok else failure_text(done))
            self.ctx.publish(tune_update(self.spec, tuner))

    def _finish(self, tuner: Tuner) -> ResultRecord:
        spec = self.spec
        self.ctx.publish(tune_update(spec, tuner, finished=True))
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
            details=tune_details(self.spec, tuner, self.ends, self.dupes, self.replayed) if tuner else {},
        )
