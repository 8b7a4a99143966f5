"""Planning a gfapi test: one case per matrix combination; each repeat is ONE run on all of the
test's hosts at once (the runner starts them together), not a run per host."""

from __future__ import annotations

from gftpwb.core.plan import case_label, matrix_points, order_runs
from gftpwb.core.scenario.model import Scenario
from gftpwb.core.specs import RunSpec

from .job import GfapiJob, display_argv
from .model import GfapiTest


def plan_gfapi(scenario: Scenario, test: GfapiTest, first_case: int) -> tuple[list[RunSpec], int]:
    """Specs of a gfapi test, the first ``warmup`` runs of each case marked, in the test's ``order``."""
    cases: list[list[list[RunSpec]]] = []
    points = matrix_points(test)
    for variant, point in enumerate(points):
        job = GfapiJob.from_test(test, point, test.on)
        cases.append([[RunSpec(run_id=f"{case_label(test, variant)}/{repeat}", scenario=scenario.name,
                             test_id=test.id, case=first_case + variant, repeat=repeat, kind=test.kind,
                             host=",".join(job.hosts), argv=display_argv(job), params=job.to_params(),
                             timeout_s=test.timeout_s, length_bytes=job.total_bytes or None, comment=test.comment,
                             target=job.target, details={"warmup": True} if repeat < test.warmup else {})]
                      for repeat in range(test.repeat)])
    return order_runs(cases, test.order, test.order_seed), len(points)
