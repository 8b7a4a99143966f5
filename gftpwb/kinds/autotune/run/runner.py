"""The auto-tune runner: asks the strategy which candidate to run, runs that guc transfer through the
ordinary guc runner (real or simulated), tells the strategy the result, and publishes a TuneUpdate
after every transfer.

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

from gftpwb.core.events import Notice, RunFinished, RunStarted, TuneUpdate
from gftpwb.core.records import FAILED, FINAL_STATUSES, INTERRUPTED, PASSED, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.core.units import format_rate, format_size_arg
from gftpwb.kinds.autotune import caps as capmath
from gftpwb.kinds.autotune.plan import TuneSettings, transfer_spec
from gftpwb.kinds.autotune.strategies import Adaptive, Tuner, make_tuner
from gftpwb.shell.executor import Executor, Interrupted, utc_now_iso
from gftpwb.shell.runners import run_guc

from .caps import read_path_caps


def failure_text(record: ResultRecord) -> str:
    lines = [line for line in record.error.splitlines() if line.strip()]
    return lines[0] if lines else record.status


def tune_update(spec: RunSpec, tuner: Tuner, *, finished: bool = False) -> TuneUpdate:
    pick = tuner.pick()
    return TuneUpdate(test_id=spec.test_id, strategy=tuner.name, engine=spec.engine,
                      transfers_used=tuner.transfers_used, budget=tuner.budget, margin_mib_s=tuner.margin,
                      rows=tuner.rows(), leader=None if pick is None else tuner.candidates[pick].label,
                      finished=finished)


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
        "tgftp_line": tuner.pick_line(),
        "p_within_margin": tuner.p_within_margin(),
        "pooled_cv": tuner.pooled_cv(),
        "stop_reason": getattr(tuner, "stop_reason", ""),
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
        mean = "-" if row.mean_mib_s is None else f"{row.mean_mib_s:.1f}"
        ci = "" if row.ci_low_mib_s is None else f" [{row.ci_low_mib_s:.1f}, {row.ci_high_mib_s:.1f}]"
        tied = " (tied with #1)" if row.tied_with_leader else ""
        note = f"  {row.note}" if row.note else ""
        lines.append(f"{row.rank:>3}. {row.candidate}: {mean} MiB/s{ci}, {row.runs} runs, "
                     f"{row.failures} failed{tied}{note}")
    return "\n".join(lines) + "\n"


async def run_autotune(executor: Executor, spec: RunSpec) -> ResultRecord:
    settings = TuneSettings.of(spec)
    started_at = utc_now_iso()
    t0 = time.monotonic()
    executor.publish(RunStarted(spec=spec, argv=(), started_at=started_at))
    history = {r.run_id: r for r in executor.history
               if r.test_id == spec.test_id and r.kind == "guc" and r.status in FINAL_STATUSES}
    replayed = 0
    tuner: Tuner | None = None
    ends: tuple[capmath.EndCaps, capmath.EndCaps] = (capmath.EndCaps("source", "?"), capmath.EndCaps("target", "?"))
    dupes: dict[int, int] = {}

    def record(status: str, error: str = "") -> ResultRecord:
        pick = tuner.pick() if tuner else None
        mean = tuner.arms[pick].mean if tuner and pick is not None else None
        return ResultRecord(
            scenario=spec.scenario, test_id=spec.test_id, run_id=spec.run_id, case=spec.case, repeat=0,
            kind=spec.kind, host=spec.host, argv=[], status=status, params=dict(spec.params),
            started_at=started_at, ended_at=utc_now_iso(), seconds=round(time.monotonic() - t0, 6),
            rate_incl_setup_mib_s=mean, error=error, output=ranking_text(tuner) if tuner else "",
            comment=spec.comment, engine=spec.engine,
            details=tune_details(spec, tuner, ends, dupes, replayed) if tuner else {},
        )

    try:
        ends = await read_path_caps(executor, spec)
        dupes = capmath.duplicates(settings.candidates, capmath.path_cap(*ends))
        if not (spec.engine == "simulated" and capmath.path_cap(*ends) is None):
            for level, text in capmath.notices(*ends, settings.candidates, dupes):
                executor.publish(Notice(level=level, text=f"{spec.test_id}: {text}"))
        if spec.timeout_s:
            need = settings.length / 1048576 / spec.timeout_s
            executor.publish(Notice(level="info", text=(
                f"{spec.test_id}: a transfer of {format_size_arg(settings.length)} must reach "
                f"{need:.0f} MiB/s to finish within the {spec.timeout_s:g}s timeout; slower runs count as failed")))
        tuner = make_tuner(settings.strategy, settings.candidates, settings.margin_mib_s,
                           repetitions=settings.repetitions, budget=settings.budget, duplicates=dupes)
        executor.publish(tune_update(spec, tuner))
        while (index := tuner.ask()) is not None:
            candidate = settings.candidates[index]
            tspec = transfer_spec(spec, candidate, tuner.arms[index].runs, settings.length)
            done = history.get(tspec.run_id)
            if done is not None:
                replayed += 1
            else:
                if executor.stopping:
                    raise asyncio.CancelledError
                try:
                    done = await run_guc(executor, tspec)
                except Interrupted as exc:
                    executor.publish(RunFinished(record=exc.record))
                    raise asyncio.CancelledError from None
                executor.publish(RunFinished(record=done))
            ok = done.status == PASSED and done.rate_incl_setup_mib_s is not None
            tuner.tell(index, done.rate_incl_setup_mib_s if ok else None, "" if ok else failure_text(done))
            executor.publish(tune_update(spec, tuner))
    except asyncio.CancelledError:
        raise Interrupted(record(INTERRUPTED, "interrupted by the user (Ctrl-C); --resume continues the "
                                              "auto-tune from its journal")) from None
    executor.publish(tune_update(spec, tuner, finished=True))
    if replayed:
        executor.publish(Notice(level="info", text=f"{spec.test_id}: {replayed} transfer(s) taken from the "
                                                   "journal of the interrupted run"))
    if tuner.pick() is not None:
        return record(PASSED)
    if not any(arm.rates for arm in tuner.arms):
        return record(FAILED, "no candidate had a successful transfer")
    stop = f" ({tuner.stop_reason})" if isinstance(tuner, Adaptive) and tuner.stop_reason else ""
    return record(FAILED, f"no candidate reached the tie margin of {format_rate(tuner.margin)} "
                          f"(tgftp's rule starts from 0 MB/s, so it prints an empty line){stop}")
