"""Planning an auto-tune: one run spec for the whole tune, and the spec of each transfer in it.

The tune's spec carries everything the runner needs (its ``params`` hold the kind of its transfers,
the candidates and the strategy's settings), so ``plan.json`` documents the tune and ``--resume``
refuses a changed one. Each transfer is an ordinary run of that kind (guc by default), made by the
kind's tuning facet: run id ``<test>#<candidate>/<n>`` (candidates count from 1, as tgftp users
number its configurations), case = the tune's first case + candidate index, so every guc candidate
has its own tag logs, ``<scenario>_#<case>_<n>.log``, like tgftp's batch lines.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any

from gftpwb.core.harness.instances import child_harness, child_run_id
from gftpwb.core.plan import run_id_on
from gftpwb.core.registry import Tuning, registry
from gftpwb.core.scenario.model import Scenario, TestModel
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.units import format_size_arg
from gftpwb.kinds.simulated.link import LinkModel

from .candidates import GUC, Candidate, make_candidates, memory_endpoints
from .model import EXHAUSTIVE, AutotuneTest
from .warm import candidate_key, warm_budget

AUTOTUNE = "autotune"


def plan_autotune(scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
    assert isinstance(test, AutotuneTest)
    source, target = (memory_endpoints(test.source, test.target) if test.memory_to_memory
                      else (test.source, test.target))
    host = test.on[0]
    params: dict[str, Any] = {
        **({"transfers": test.transfers} if test.transfers != GUC else {}),  # guc's plans stay as they were
        "strategy": test.strategy,
        "candidate_set": test.candidate_set,
        "candidates": [dict(c) for c in test.candidates],
        "margin_mib_s": test.margin_mib_s,
        "length": test.length,
        "extra_args": list(test.extra_args),
        "memory_to_memory": test.memory_to_memory,
    }
    if test.strategy == EXHAUSTIVE:
        params["repetitions"] = test.repetitions
    else:
        params["budget"] = test.budget
        params["warm_start"] = ({"history": test.warm_history, "campaigns": test.warm_campaigns}
                                if test.warm_start else "off")
    # Which inventory host can read each end's kernel settings (by its address or name).
    url_hosts = {name: h.name for h in scenario.hosts for name in (h.address, h.name)}
    if url_hosts:
        params["url_hosts"] = url_hosts
    spec = RunSpec(
        run_id=run_id_on(test.id, host, test), scenario=scenario.name, test_id=test.id, case=first_case,
        repeat=0, kind=AUTOTUNE, host=host, argv=(), params=params, timeout_s=test.timeout_s, length_bytes=test.length,
        comment=test.comment, source=source, target=target, engine=test.engine,
        link=(test.link or LinkModel()) if test.engine != REAL_ENGINE else None,
    )
    return [spec], len(test.candidates)


@dataclass(frozen=True)
class TuneSettings:
    """An auto-tune spec's ``params``, typed."""

    strategy: str
    candidates: tuple[Candidate, ...]
    candidate_set: str
    margin_mib_s: float
    length: int
    repetitions: int
    budget: int
    transfers: str = GUC  # the kind of its transfers (specs planned before other kinds were tuned: guc)
    warm_start: bool = False  # adaptive: learn from the history
    warm_history: str = ""  # the results base to read ("": the run's)
    warm_campaigns: int = 5

    @classmethod
    def of(cls, spec: RunSpec) -> TuneSettings:
        p = spec.params
        transfers = str(p.get("transfers", GUC))
        tuning = tuning_of(transfers)
        length = int(p["length"])

        def label(params: dict[str, Any], extra: tuple[str, ...]) -> str:  # what the candidate's transfers run
            return tuning.candidate_label(spec.source, spec.target, params, length, extra)

        candidates = make_candidates([dict(o) for o in p["candidates"]], tuple(p.get("extra_args", ())), label)
        reps = int(p.get("repetitions", 10))
        # Specs planned before warm starts existed have no warm_start: their tunes stay cold on --resume.
        warm = p.get("warm_start", "off")
        warm_settings = warm if isinstance(warm, dict) else {}
        return cls(strategy=p["strategy"], candidates=candidates, candidate_set=p.get("candidate_set", ""),
                   margin_mib_s=float(p["margin_mib_s"]), length=length, repetitions=reps,
                   budget=int(p.get("budget", reps * len(candidates))), transfers=transfers,
                   warm_start=warm != "off", warm_history=str(warm_settings.get("history", "")),
                   warm_campaigns=int(warm_settings.get("campaigns", 5)))

    @property
    def tuning(self) -> Tuning:
        return tuning_of(self.transfers)


def tuning_of(kind: str) -> Tuning:
    """The tuning facet of the kind an auto-tune's transfers are."""
    return registry().kind(kind).tuning


def candidate_keys(tune: RunSpec, settings: TuneSettings) -> tuple[list[str], tuple[str, ...]]:
    """Each candidate's key for the history (its parameters as canonical text,
    :func:`gftpwb.kinds.autotune.warm.candidate_key`), and the parameters every transfer of the tune
    carries alike besides the candidate's own (the size), which the history's records drop too."""
    drop: set[str] = set()
    for candidate in settings.candidates:
        drop |= set(transfer_spec(tune, candidate, 0, settings.length).params) - set(candidate.values)
    keys = [candidate_key(candidate.values) for candidate in settings.candidates]
    return keys, tuple(sorted(drop))


def transfer_kind(tune: RunSpec) -> str:
    """The kind of a tune's transfers."""
    return str(tune.params.get("transfers", GUC))


def transfer_run_id(tune: RunSpec, candidate: Candidate, n: int) -> str:
    """``<test>#<candidate>/<n>``, with the tune's ``@host`` when it runs on another host (and its
    loop and copy when the scenario loops or runs copies of the tune)."""
    return child_run_id(tune, f"{tune.test_id}#{candidate.number}/{n}")


def transfer_spec(tune: RunSpec, candidate: Candidate, n: int, length: int) -> RunSpec:
    """The spec of the ``n``-th transfer (0-based) of ``candidate`` in the tune ``tune``: a run of the
    tuned kind, as its tuning facet makes one."""
    kind = str(tune.params.get("transfers", GUC))
    made = tuning_of(kind).make_transfer(tune.source, tune.target, candidate.values, length, candidate.extra_args)
    details = dict(made.details)
    if "trace" in tune.details:  # a traced tune traces its transfers
        details["trace"] = tune.details["trace"]
    return RunSpec(
        run_id=transfer_run_id(tune, candidate, n), scenario=tune.scenario, test_id=tune.test_id,
        case=tune.case + candidate.index, repeat=n, kind=kind, host=tune.host,
        argv=made.argv, params=made.params, timeout_s=tune.timeout_s, length_bytes=made.length_bytes,
        comment=tune.comment, source=tune.source, target=tune.target, engine=tune.engine, link=tune.link,
        details=details, harness=child_harness(tune),
    )


def describe(tune: RunSpec) -> list[str]:
    """What ``--dry-run`` prints for an auto-tune: its settings and one guc command per candidate."""
    settings = TuneSettings.of(tune)
    if settings.strategy == EXHAUSTIVE:
        how = f"exhaustive, {settings.repetitions} transfer(s) per candidate, {settings.budget} in all"
    else:
        how = f"adaptive, at most {settings.budget} transfers"
        if settings.warm_start:
            where = settings.warm_history or "the results base"
            how += f", {warm_budget(settings.budget)} with a warm start from the history in {where}"
    label = registry().engine_label(tune.engine)
    engine = f" {label}" if label else ""
    size = f"-len {format_size_arg(settings.length)}" if settings.tuning.sets_length else \
        f"{settings.transfers} copies of {format_size_arg(settings.length)}"
    lines = [f"{tune.run_id}:{engine} auto-tune of {len(settings.candidates)} candidates ({how}), "
             f"{size}, tie margin {settings.margin_mib_s:g} MB/s"]
    for candidate in settings.candidates:
        spec = transfer_spec(tune, candidate, 0, settings.length)
        lines.append(f"  #{candidate.number}: {shlex.join(spec.argv)}")
    return lines
