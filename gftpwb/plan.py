"""Planning: expand a scenario into run specs (matrix cross product x repeats), argv-ready.

Pure and deterministic: the same scenario always gives the same run ids and case numbers, which is
what lets ``--resume`` skip the runs a journal already holds, and keeps tag log names stable when
``--only`` selects a subset.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable
from dataclasses import asdict

from .converters.gucargs import length_from_args, split_guc_args
from .drivers.connection import CONNECTION_TEST_LENGTH, build_connection_argv
from .drivers.gfapi import GfapiJob, display_argv
from .drivers.guc import build_argv, exact_argv, vb_added
from .dsl.model import LOCAL, AnyTest, GfapiTest, GucOptions, Scenario, Test
from .errors import UsageError
from .simlink import LinkModel
from .specs import RunSpec


def matrix_points(test: AnyTest) -> list[dict[str, object]]:
    """Every combination of the matrix values, first key outermost; ``[{}]`` without a matrix."""
    if not test.matrix:
        return [{}]
    keys = [key for key, _ in test.matrix]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(values for _, values in test.matrix))]


def case_label(test: AnyTest, variant: int) -> str:
    return f"{test.id}[{variant}]" if getattr(test, "matrix", ()) else test.id


def run_id_on(base: str, host: str, test: AnyTest) -> str:
    """``base`` for a test that runs only on ``local`` (ids stay what they always were), else
    ``base@host``: the same run on several hosts needs an id per host."""
    return base if test.on == (LOCAL,) else f"{base}@{host}"


def plan(scenario: Scenario, only: Iterable[str] = ()) -> list[RunSpec]:
    """Run specs for the whole scenario, or for the tests named in ``only`` (in scenario order).

    Case numbers count over every test, selected or not, so tag log names stay the same with
    ``--only``; each kind's planner says how many cases its test takes.
    """
    wanted = set(only)
    unknown = wanted - {t.id for t in scenario.tests}
    if unknown:
        have = ", ".join(t.id for t in scenario.tests)
        raise UsageError(f"unknown test id {', '.join(sorted(repr(u) for u in unknown))}; "
                         f"{scenario.name} has: {have}")
    specs: list[RunSpec] = []
    case = 0
    for test in scenario.tests:
        test_specs, cases = PLANNERS[test.kind](scenario, test, case)
        if not wanted or test.id in wanted:
            specs.extend(test_specs)
        case += cases
    return specs


def plan_guc(scenario: Scenario, test: AnyTest, first_case: int) -> tuple[list[RunSpec], int]:
    """A guc or connection-test test: one case per matrix combination, each run ``repeat`` times on
    every host of ``on`` (together, as a group, when there are several)."""
    assert isinstance(test, Test)
    specs: list[RunSpec] = []
    points = matrix_points(test)
    link = (test.link or LinkModel()) if test.engine == "simulated" else None
    for variant, point in enumerate(points):
        options = test.options.with_values(point)
        given = test.extra_args
        if test.kind == "connection-test":
            argv = build_connection_argv(test.source, test.target, test.extra_args)
            params: dict[str, object] = {}
            length = CONNECTION_TEST_LENGTH
        elif test.args is not None:
            given = test.args
            argv = exact_argv(test.source, test.target, test.args, add_vb=test.add_vb)
            params, length = _params_of(test.args)
        else:
            argv = build_argv(test.source, test.target, options, test.extra_args, add_vb=test.add_vb)
            params, length = options.set_options(), options.length
        details: dict[str, object] = {} if test.kind == "connection-test" else {"vb_added": vb_added(argv, given)}
        if test.tgftp_style:
            details["tgftp_style"] = True  # its tag log as tgftp wrote it (see converters.taglog)
        for repeat in range(test.repeat):
            base = f"{case_label(test, variant)}/{repeat}"
            specs.extend(RunSpec(
                run_id=run_id_on(base, host, test),
                scenario=scenario.name,
                test_id=test.id,
                case=first_case + variant,
                repeat=repeat,
                kind=test.kind,
                host=host,
                group=base if len(test.on) > 1 else "",
                argv=argv,
                params=params,
                timeout_s=test.timeout_s,
                length_bytes=length,
                comment=test.comment,
                source=test.source,
                target=test.target,
                engine=test.engine,
                link=link,
                pre=test.pre,
                post=test.post,
                comment_command=test.comment_command,
                log_name=log_name_for(test, variant, repeat),
                tgftp_style=test.tgftp_style,
                details=dict(details),
            ) for host in test.on)
    return specs, len(points)


def _params_of(args: tuple[str, ...]) -> tuple[dict[str, object], int | None]:
    """The typed options an exact guc argument list amounts to (for reports), and its -len in bytes."""
    try:
        params: dict[str, object] = dict(GucOptions.from_mapping(split_guc_args(list(args)).options).set_options())
    except (TypeError, ValueError):
        params = {}
    return params, length_from_args(list(args))


def _plan_autotune(scenario: Scenario, test: AnyTest, first_case: int) -> tuple[list[RunSpec], int]:
    from .autotune.plan import plan_autotune

    return plan_autotune(scenario, test, first_case)


def plan_gfapi(scenario: Scenario, test: AnyTest, first_case: int) -> tuple[list[RunSpec], int]:
    """A gfapi test: one case per matrix combination; each repeat is ONE run on all of the test's
    hosts at once (the runner starts them together), not a run per host."""
    assert isinstance(test, GfapiTest)
    specs: list[RunSpec] = []
    points = matrix_points(test)
    for variant, point in enumerate(points):
        job = GfapiJob.from_test(test, point, test.on)
        specs.extend(RunSpec(run_id=f"{case_label(test, variant)}/{repeat}", scenario=scenario.name,
                             test_id=test.id, case=first_case + variant, repeat=repeat, kind=test.kind,
                             host=",".join(job.hosts), argv=display_argv(job), params=job.to_params(),
                             timeout_s=test.timeout_s, length_bytes=job.total_bytes or None, comment=test.comment,
                             target=job.target)
                     for repeat in range(test.repeat))
    return specs, len(points)


PLANNERS: dict[str, Callable[[Scenario, AnyTest, int], tuple[list[RunSpec], int]]] = {
    "guc": plan_guc,
    "connection-test": plan_guc,
    "autotune": _plan_autotune,
    "gfapi": plan_gfapi,
}


def log_name_for(test: Test, variant: int, repeat: int) -> str:
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



def plan_fingerprint(specs: list[RunSpec]) -> str:
    """A hash of what the runs will do; ``--resume`` refuses to continue a journal of another plan."""
    payload = [[s.run_id, list(s.argv), s.host, s.timeout_s, s.params, s.engine,
                asdict(s.link) if s.link else None] + ([s.group] if s.group else []) + _extras(s)
               + (["tgftp_style"] if s.tgftp_style else []) for s in specs]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _extras(spec: RunSpec) -> list[object]:
    """The per-test commands and the log name, when a spec has them: a resumed run must not mix runs
    whose pre, post or comment command (or tag log name) differed."""
    extras = {role: asdict(command) for role, command in
              (("pre", spec.pre), ("post", spec.post), ("comment_command", spec.comment_command)) if command}
    if spec.log_name:
        extras["log_name"] = spec.log_name
    return [extras] if extras else []
