"""Planning: expand a scenario into run specs (matrix cross product x repeats), argv-ready.

Pure and deterministic: the same scenario always gives the same run ids and case numbers, which is
what lets ``--resume`` skip the runs a journal already holds, and keeps tag log names stable when
``--only`` selects a subset.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable
from typing import Any

from .drivers.gfapi import GfapiJob, display_argv, gfapi_hosts
from .drivers.guc import build_argv
from .dsl.model import AnyTest, GfapiTest, Scenario, Test
from .errors import UsageError
from .specs import RunSpec


def matrix_points(test: AnyTest) -> list[dict[str, object]]:
    """Every combination of the matrix values, first key outermost; ``[{}]`` without a matrix."""
    if not test.matrix:
        return [{}]
    keys = [key for key, _ in test.matrix]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(values for _, values in test.matrix))]


def case_label(test: AnyTest, variant: int) -> str:
    return f"{test.id}[{variant}]" if test.matrix else test.id


def plan(scenario: Scenario, only: Iterable[str] = ()) -> list[RunSpec]:
    """Run specs for the whole scenario, or for the tests named in ``only`` (in scenario order)."""
    wanted = set(only)
    unknown = wanted - {t.id for t in scenario.tests}
    if unknown:
        have = ", ".join(t.id for t in scenario.tests)
        raise UsageError(f"unknown test id {', '.join(sorted(repr(u) for u in unknown))}; "
                         f"{scenario.name} has: {have}")
    specs: list[RunSpec] = []
    case = 0
    for test in scenario.tests:
        for variant, point in enumerate(matrix_points(test)):
            fields = CASE_FIELDS[test.kind](test, point)
            if not wanted or test.id in wanted:
                for repeat in range(test.repeat):
                    specs.append(RunSpec(
                        run_id=f"{case_label(test, variant)}/{repeat}",
                        scenario=scenario.name,
                        test_id=test.id,
                        case=case,
                        repeat=repeat,
                        kind=test.kind,
                        timeout_s=test.timeout_s,
                        comment=test.comment,
                        **fields,
                    ))
            case += 1
    return specs


def guc_case(test: Test, point: dict[str, Any]) -> dict[str, Any]:
    options = test.options.with_values(point)
    return {"host": "local", "argv": build_argv(test.source, test.target, options, test.extra_args),
            "params": options.set_options(), "length_bytes": options.length, "source": test.source,
            "target": test.target}


def gfapi_case(test: GfapiTest, point: dict[str, Any]) -> dict[str, Any]:
    job = GfapiJob.from_test(test, point, gfapi_hosts(test))
    return {"host": job.hosts[0], "argv": display_argv(job), "params": job.to_params(),
            "length_bytes": job.total_bytes or None, "target": job.target}


# Per kind: the RunSpec fields of one matrix combination (a new kind adds its function here).
CASE_FIELDS = {"guc": guc_case, "gfapi": gfapi_case}


def plan_fingerprint(specs: list[RunSpec]) -> str:
    """A hash of what the runs will do; ``--resume`` refuses to continue a journal of another plan."""
    # gfapi runs also depend on what argv does not show (hosts, start lead, timeouts): add their job.
    payload = [[s.run_id, list(s.argv), s.host, s.timeout_s, *([s.params] if s.kind == "gfapi" else [])]
               for s in specs]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
