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

from .drivers.guc import build_argv
from .dsl.model import AnyTest, Scenario, Test
from .errors import UsageError
from .simlink import LinkModel
from .specs import RunSpec


def matrix_points(test: Test) -> list[dict[str, object]]:
    """Every combination of the matrix values, first key outermost; ``[{}]`` without a matrix."""
    if not test.matrix:
        return [{}]
    keys = [key for key, _ in test.matrix]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(values for _, values in test.matrix))]


def case_label(test: AnyTest, variant: int) -> str:
    return f"{test.id}[{variant}]" if getattr(test, "matrix", ()) else test.id


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
    """A guc test: one case per matrix combination, each run ``repeat`` times."""
    assert isinstance(test, Test)
    specs: list[RunSpec] = []
    points = matrix_points(test)
    link = (test.link or LinkModel()) if test.engine == "simulated" else None
    for variant, point in enumerate(points):
        options = test.options.with_values(point)
        argv = build_argv(test.source, test.target, options, test.extra_args)
        for repeat in range(test.repeat):
            specs.append(RunSpec(
                run_id=f"{case_label(test, variant)}/{repeat}",
                scenario=scenario.name,
                test_id=test.id,
                case=first_case + variant,
                repeat=repeat,
                kind=test.kind,
                host="local",
                argv=argv,
                params=options.set_options(),
                timeout_s=test.timeout_s,
                length_bytes=options.length,
                comment=test.comment,
                source=test.source,
                target=test.target,
                engine=test.engine,
                link=link,
            ))
    return specs, len(points)


def _plan_autotune(scenario: Scenario, test: AnyTest, first_case: int) -> tuple[list[RunSpec], int]:
    from .autotune.plan import plan_autotune

    return plan_autotune(scenario, test, first_case)


PLANNERS: dict[str, Callable[[Scenario, AnyTest, int], tuple[list[RunSpec], int]]] = {
    "guc": plan_guc,
    "autotune": _plan_autotune,
}


def plan_fingerprint(specs: list[RunSpec]) -> str:
    """A hash of what the runs will do; ``--resume`` refuses to continue a journal of another plan."""
    payload = [[s.run_id, list(s.argv), s.host, s.timeout_s, s.params, s.engine,
                asdict(s.link) if s.link else None] for s in specs]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
