"""Planning an iperf3 test: one case per matrix combination, ``repeat`` runs each; a run is one spec
(host: the client's), its server and client hosts in the params (:class:`~.job.Iperf3Job`)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.plan import case_label, matrix_points
from gftpwb.core.scenario.model import LOCAL, Scenario
from gftpwb.core.specs import RunSpec

from .job import Iperf3Job
from .model import Iperf3Test, convert_value

LOOPBACK = "127.0.0.1"


def server_address(scenario: Scenario, test: Iperf3Test) -> str:
    """Where the client connects: the test's server_address, else the server host's inventory address,
    else (both ends on this machine) loopback."""
    if test.server_address:
        return test.server_address
    host = scenario.host(test.server) if test.server != LOCAL else None
    return host.address if host is not None else LOOPBACK


def job_for(scenario: Scenario, test: Iperf3Test, point: dict[str, object]) -> Iperf3Job:
    values: dict[str, Any] = {key: convert_value(key, value) for key, value in point.items()}
    duration = values.get("duration", test.duration)
    nbytes = values.get("bytes", test.bytes)
    return Iperf3Job(
        client=test.client, server=test.server, server_address=server_address(scenario, test), port=test.port,
        streams=int(values.get("streams", test.streams)),
        window=values.get("window", test.window),
        bandwidth_mib_s=values.get("bandwidth", test.bandwidth),
        rtt_s=test.rtt,
        duration_s=None if nbytes is not None else duration,
        bytes=nbytes,
        reverse=bool(values.get("reverse", test.reverse)),
        omit_s=float(values.get("omit", test.omit)),
    )


def plan_iperf3(scenario: Scenario, test: Iperf3Test, first_case: int) -> tuple[list[RunSpec], int]:
    specs: list[RunSpec] = []
    points = matrix_points(test)
    for variant, point in enumerate(points):
        job = job_for(scenario, test, point)
        specs.extend(RunSpec(
            run_id=f"{case_label(test, variant)}/{repeat}", scenario=scenario.name, test_id=test.id,
            case=first_case + variant, repeat=repeat, kind=test.kind, host=test.client, argv=job.display_argv(),
            params=job.to_params(), timeout_s=test.timeout_s, length_bytes=job.bytes, comment=test.comment,
            source=test.client, target=test.server, pre=test.pre, post=test.post,
            comment_command=test.comment_command) for repeat in range(test.repeat))
    return specs, len(points)
