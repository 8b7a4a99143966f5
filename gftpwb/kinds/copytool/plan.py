"""Planning a copy-tool test: one case per matrix combination, ``repeat`` runs each on every host of
``on`` (a group when several); with ``baseline:`` an iperf3 run before each (as for guc), with
``files:`` the test files' description in the run's details (guc's ``with_files`` makes them)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.plan import case_label, matrix_points, order_runs, run_id_on
from gftpwb.core.scenario.model import Scenario
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.guc.model import GucOptions
from gftpwb.kinds.guc.plan import baseline_spec

from .ends import copy_mode
from .model import CopyTest
from .tool import Tool

RECURSIVE = "recursive"


def case_values(tool: Tool, test: CopyTest, point: dict[str, Any]) -> dict[str, Any]:
    """The options of one case (a matrix point over the test's options), typed, in table order."""
    values = {**test.option_values, **tool.typed(point)}
    return {o.name: values[o.name] for o in tool.options if o.name in values}


def case_argv(tool: Tool, test: CopyTest, values: dict[str, Any]) -> tuple[tuple[str, ...], int | None]:
    """The tool's argv of a case and the bytes one run moves (None: unknown before it runs)."""
    files = test.files
    if files is None:
        return tool.argv([tool.end(test.source)], tool.end(test.target), values, test.extra_args), test.length
    if tool.files_style == RECURSIVE:
        argv = tool.argv([files.source_url], files.target_url, values, test.extra_args, recursive=True)
    else:
        argv = tool.argv([f"{files.source_url}{name}" for name in files.names], files.target_url, values,
                         test.extra_args)
    return argv, files.total_bytes


def live_progress(tool: Tool, mode: str) -> bool:
    """Whether the tool reports bytes as it goes (gfal-copy only for third-party copies)."""
    return not tool.progress_only_for or mode in tool.progress_only_for


def plan_copies(scenario: Scenario, tool: Tool, test: CopyTest, first_case: int) -> tuple[list[RunSpec], int]:
    cases: list[list[list[RunSpec]]] = []
    points = matrix_points(test)
    mode = copy_mode(tool, test.source, test.target)
    for variant, point in enumerate(points):
        values = case_values(tool, test, point)
        argv, length = case_argv(tool, test, values)
        details: dict[str, Any] = {"mode": mode, "live_progress": live_progress(tool, mode)}
        if test.files is not None:
            details["files"] = test.files.to_dict()
        cases.append([])
        for repeat in range(test.repeat):
            base = f"{case_label(test, variant)}/{repeat}"
            warmup = repeat < test.warmup
            streams = int(values.get(tool.streams_option) or 1)
            group = [baseline_spec(scenario, test, test.baseline, first_case + variant, repeat, base,  # type: ignore[arg-type]
                                   GucOptions(parallel=streams), warmup)] if test.baseline else []
            cases[-1].append(group + [RunSpec(
                run_id=run_id_on(base, host, test), scenario=scenario.name, test_id=test.id,
                case=first_case + variant, repeat=repeat, kind=test.kind, host=host,
                group=base if len(test.on) > 1 else "", argv=argv, params=dict(values), timeout_s=test.timeout_s,
                length_bytes=length, comment=test.comment, source=test.source, target=test.target, pre=test.pre,
                post=test.post, comment_command=test.comment_command,
                details={**details, "warmup": True} if warmup else dict(details),
            ) for host in test.on])
    return order_runs(cases, test.order, test.order_seed), len(points)
