"""The ``iperf3`` kind's language and planning (its DSL and planner facets, imported when a scenario
has an iperf3 test: :mod:`.kind` names them)."""

from __future__ import annotations

from gftpwb.core.registry import Dsl, Planner, Program, TestInput
from gftpwb.core.scenario.keys import Key
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel
from gftpwb.core.specs import RunSpec

from .dsl import build_iperf3_test, check_iperf3_test
from .job import IPERF3, Iperf3Job
from .keys import IPERF3_KEYS
from .model import BDP, Iperf3Test
from .plan import plan_iperf3

IPERF3_PROGRAM = Program(IPERF3, "install the Debian package iperf3 (make test does)")


class Iperf3Dsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return IPERF3_KEYS

    def check(self, test: TestInput) -> None:
        check_iperf3_test(test)

    def build(self, test: TestInput) -> Iperf3Test:
        return build_iperf3_test(test)


class Iperf3Planner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, Iperf3Test)
        return plan_iperf3(scenario, test, first_case)

    def describe(self, spec: RunSpec, limit: str) -> list[str]:
        job = Iperf3Job.from_params(spec.params)
        port = job.port if job.port is not None else "<port>"
        lines = [f"{spec.run_id}: server on {job.server}: {' '.join(job.server_argv(port))}",
                 f"{' ' * len(spec.run_id)}  client on {job.client}: {' '.join(spec.argv)}{limit}"]
        if job.window == BDP:
            rtt = f"{job.rtt_s * 1000:g} ms" if job.rtt_s is not None else "measured by a 1 s probe before the run"
            lines.append(f"{' ' * len(spec.run_id)}  window = {job.bandwidth_mib_s:g} MiB/s x RTT ({rtt}) / "
                         f"{job.streams} stream(s)")
        return lines

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        job = Iperf3Job.from_params(spec.params)
        return (IPERF3_PROGRAM,) if LOCAL in (job.client, job.server) else ()
