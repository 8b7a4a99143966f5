"""The ``iperf3`` kind: a network baseline between two hosts (registered as entry point
``gftpwb.kinds: iperf3``). Everything about it lives in this folder."""

from __future__ import annotations

from typing import Any

from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import (
    Dsl,
    Figure,
    Kind,
    Metric,
    Planner,
    Present,
    Program,
    Report,
    ReportSection,
    Run,
    TestInput,
)
from gftpwb.core.scenario.keys import Key
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel
from gftpwb.core.specs import RunSpec

from .dsl import build_iperf3_test, check_iperf3_test
from .job import IPERF3, Iperf3Job
from .keys import IPERF3_KEYS
from .model import BDP, Iperf3Test
from .plan import plan_iperf3

IPERF3_PROGRAM = Program(IPERF3, "install the Debian package iperf3 (make test does)")
# iperf3's receiver rate after the omitted seconds (its own clock; the record keeps it where a guc
# record keeps guc's own average), then all bytes over the client's wall time.
RECEIVER = Figure("rate_guc_avg_mib_s", "iperf3 rate", "MiB/s", ("rate_guc_avg_mib_s",))
WALL = Figure("rate_incl_setup_mib_s", "rate incl. omit + set-up", "MiB/s", ("rate_incl_setup_mib_s",))
METRICS = (
    Metric("median_rate", "median iperf3 receiver rate of the case's counted runs", "MiB/s", RECEIVER.key, "median"),
    Metric("mean_rate", "mean iperf3 receiver rate", "MiB/s", RECEIVER.key, "mean"),
    Metric("min_rate", "slowest counted run's iperf3 receiver rate", "MiB/s", RECEIVER.key, "min"),
    Metric("cv", "coefficient of variation of the receiver rate (stdev / mean)", "%", RECEIVER.key, "cv"),
)


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


class Iperf3Present(Present):
    def waiting(self, spec: RunSpec) -> str:
        return "starting the iperf3 server; progress comes from its interval reports (every second)"

    def headline(self, record: ResultRecord) -> str:
        from .report import headline

        return headline(record)

    def params_text(self, params: dict[str, Any]) -> str:
        from .report import params_text

        return params_text(params)


KIND = Kind(
    name="iperf3",
    description=("a network baseline: iperf3 from a client host to a server started for each run on a "
                 "server host (memory to memory, as guc from /dev/zero to /dev/null)."),
    order=50,
    dsl=Iperf3Dsl(),
    planner=Iperf3Planner(),
    run=Run("gftpwb.kinds.iperf3.run.runner:run"),
    report=Report(ReportSection("iperf3", 25, "gftpwb.kinds.iperf3.report:tables"), figures=(RECEIVER, WALL),
                  metrics=METRICS),
    present=Iperf3Present(),
)
