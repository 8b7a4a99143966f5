"""Planning guc transfers (guc and connection tests): one case per matrix combination, each run
``repeat`` times on every host of ``on`` (together, as a group, when there are several)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gftpwb.core.dsl.model import Scenario
from gftpwb.core.plan import case_label, log_name_for, matrix_points, order_runs, run_id_on
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.kinds.simulated.link import LinkModel

from .driver import build_argv, run_details
from .model import GucOptions, Test

# What differs between kinds that run guc once per run: its argv, the parameters recorded, the length.
Shape = Callable[[Test, GucOptions], tuple[tuple[str, ...], dict[str, Any], int | None]]


def guc_shape(test: Test, options: GucOptions) -> tuple[tuple[str, ...], dict[str, Any], int | None]:
    if test.stripe:  # a striped study run: -stripe, and -dbg for the per-stripe performance markers
        options = options.with_values({"stripe": True})
    argv = build_argv(test.source, test.target, options, test.extra_args, mode=test.mode, debug=test.stripe)
    return argv, options.set_options(), options.length


def plan_transfers(scenario: Scenario, test: Test, first_case: int,
                   shape: Shape = guc_shape) -> tuple[list[RunSpec], int]:
    """Specs of a test that runs one guc per run; ``shape`` gives each case's argv, params and length.
    Their details say the transfer mode and whether guc reports progress (:func:`run_details`), and
    mark the first ``warmup`` runs of each case; ``order`` arranges the repeats of a matrix."""
    cases: list[list[list[RunSpec]]] = []
    points = matrix_points(test)
    link = (test.link or LinkModel()) if test.engine != REAL_ENGINE else None
    for variant, point in enumerate(points):
        argv, params, length = shape(test, test.options.with_values(point))
        details = run_details(argv)
        cases.append([])
        for repeat in range(test.repeat):
            base = f"{case_label(test, variant)}/{repeat}"
            cases[-1].append([RunSpec(
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
                details={**details, "warmup": True} if repeat < test.warmup else dict(details),
            ) for host in test.on])
    return order_runs(cases, test.order, test.order_seed), len(points)
