"""Planning: expand a scenario into run specs, each test by its kind's planner, argv-ready.

Pure and deterministic: the same scenario always gives the same run ids and case numbers, which is
what lets ``--resume`` skip the runs a journal already holds, and keeps tag log names stable when
``--only`` selects a subset. The helpers below are what kinds' planners share.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from gftpwb.core.harness.instances import Plan
from gftpwb.core.harness.select import Selection
from gftpwb.core.masking import mask
from gftpwb.core.registry import registry
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel
from gftpwb.core.specs import RunSpec
from gftpwb.core.trace.setting import TraceSetting


def plan(scenario: Scenario, only: Iterable[str] = (), where: Iterable[str] = ()) -> Plan:
    """Run specs for the whole scenario, or for what ``only`` (``test`` or ``test[case]``) and ``where``
    (``parameter=value``) select, in scenario order; loops and copies added (:mod:`gftpwb.core.harness`).

    Case numbers count over every test, selected or not, so tag log names stay the same with
    ``--only``; each kind's planner says how many cases its test takes.
    """
    selection = Selection.parse(only, where, [t.id for t in scenario.tests], scenario.name)
    specs: list[RunSpec] = []
    considered: list[RunSpec] = []
    case = 0
    for test in scenario.tests:
        test_specs, cases = registry().kind(test.kind).planner.plan(scenario, test, case)
        test_specs = traced(test_specs, scenario.trace_of(test.id))
        if selection.wants_test(test.id):
            considered.extend(test_specs)
            specs.extend(selection.pick(test.id, test_specs, case, cases))
        case += cases
    selection.check_where(considered, len(specs))
    return Plan(scenario, specs)


def traced(specs: list[RunSpec], setting: TraceSetting) -> list[RunSpec]:
    """The specs with their trace setting in ``details.trace`` (where runners and the trace sink read
    it, and records keep it); untraced specs stay exactly as the kind planned them."""
    if not setting.on:
        return specs
    return [dataclasses.replace(s, details={**s.details, "trace": setting.details()}) for s in specs]


def with_trace(scenario: Scenario, setting: TraceSetting) -> Scenario:
    """The scenario with every test traced at ``setting`` (``--trace`` overrides the file's settings)."""
    schedules = {tid: dataclasses.replace(s, trace=None) for tid, s in scenario.schedules.items()}
    return dataclasses.replace(scenario, trace=setting, schedules=schedules)


def matrix_points(test: Any) -> list[dict[str, object]]:
    """Every combination of a test's ``matrix`` values, first key outermost; ``[{}]`` without one."""
    if not getattr(test, "matrix", ()):
        return [{}]
    keys = [key for key, _ in test.matrix]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(values for _, values in test.matrix))]


def case_label(test: Any, variant: int) -> str:
    """``<test>[<variant>]`` for a test with a matrix, else the test id."""
    return f"{test.id}[{variant}]" if getattr(test, "matrix", ()) else test.id


def run_id_on(base: str, host: str, test: TestModel) -> str:
    """``base`` for a test that runs only on ``local`` (ids stay what they always were), else
    ``base@host``: the same run on several hosts needs an id per host."""
    return base if test.on == (LOCAL,) else f"{base}@{host}"


def log_name_for(test: Any, variant: int, repeat: int) -> str:
    """A test's own tag log name for one run, from its ``log_filename`` ("" when it has none).

    As tgftp: a trailing ``.log`` becomes ``_<repeat>.log``. A name without ``.log`` is used as it is
    for a single run (tgftp reused it for every execution and so failed from the second one on) and
    gets ``_<repeat>`` otherwise. A matrix case adds ``_#<case>`` before that, so names never collide.
    """
    if not test.log_filename:
        return ""
    name = test.log_filename
    stem, suffix = (name[:-4], ".log") if name.endswith(".log") else (name, "")
    if test.matrix:
        stem = f"{stem}_#{variant:03d}"
    if suffix:
        return f"{stem}_{repeat:03d}{suffix}"
    return stem if test.repeat == 1 else f"{stem}_{repeat:03d}"


def order_runs(cases: list[list[list[RunSpec]]], order: str = "sequential", seed: int = 0) -> list[RunSpec]:
    """The specs of a test's cases in run order. ``cases[c][r]`` is the r-th run of case c: one spec,
    or the specs of one group (the same run on several hosts, kept together).

    sequential: every run of a case, then the next case (tgftp's order); interleaved: the first run
    of every case, then the second, ...; random: a permutation given by the SHA-256 of ``seed`` and
    each run's id, so it never changes between Python or numpy versions (``--resume`` compares plans).
    """
    if order == "interleaved":
        longest = max((len(runs) for runs in cases), default=0)
        units = [runs[r] for r in range(longest) for runs in cases if r < len(runs)]
    else:
        units = [unit for runs in cases for unit in runs]
    if order == "random":
        import hashlib  # only here and for fingerprints: OpenSSL is a noticeable part of a quick command

        def key(unit: list[RunSpec]) -> bytes:
            return hashlib.sha256(f"{seed}\x1f{unit[0].run_id}".encode()).digest()

        units = sorted(units, key=key)
    return [spec for unit in units for spec in unit]


def plan_fingerprint(specs: Iterable[RunSpec]) -> str:
    """A hash of what the runs will do; ``--resume`` refuses to continue a journal of another plan.
    Passwords in URLs are masked first: a hash is no place for them either (and a new password
    does not make another plan)."""
    import hashlib
    import json

    payload = [[s.run_id, list(s.argv), s.host, s.timeout_s, s.params, s.engine,
                asdict(s.link) if s.link else None] + ([s.group] if s.group else []) + _extras(s)
               + (["tgftp_style"] if s.tgftp_style else []) for s in specs]
    return hashlib.sha256(json.dumps(mask(payload), sort_keys=True).encode()).hexdigest()


def spec_json(spec: RunSpec) -> dict[str, object]:
    """A spec as ``plan.json`` lists it; ``harness`` only when the spec has one (so plans of
    scenarios without harness features read as they always did)."""
    data = asdict(spec)
    if spec.harness is None:
        del data["harness"]
    return data


def _extras(spec: RunSpec) -> list[object]:
    """The per-test commands and the log name, when a spec has them: a resumed run must not mix runs
    whose pre, post or comment command (or tag log name) differed."""
    extras = {role: asdict(command) for role, command in
              (("pre", spec.pre), ("post", spec.post), ("comment_command", spec.comment_command)) if command}
    if spec.log_name:
        extras["log_name"] = spec.log_name
    if spec.details.get("warmup"):
        extras["warmup"] = True
    if spec.delay_s:
        extras["delay_s"] = spec.delay_s
    return [extras] if extras else []
