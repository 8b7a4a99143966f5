"""The facets of the copy-tool kinds, made from a :class:`~.tool.Tool`: :func:`copy_tool_kind` is the
whole kind (the XRootD and HTTP kinds are one call each)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gftpwb.core.registry import (
    Dsl,
    Exclusion,
    Figure,
    HostCheck,
    Kind,
    Metric,
    Planner,
    Present,
    Program,
    Report,
    ReportSection,
    Run,
    TestInput,
    Tuning,
)
from gftpwb.core.scenario.model import LOCAL

from .relay import PYTHON

if TYPE_CHECKING:  # the language and planning are imported when a test of the kind is read: the XRootD
    # and HTTP kinds' manifests are made here, and loading a manifest must cost next to nothing
    from gftpwb.core.records import ResultRecord
    from gftpwb.core.scenario.keys import Key
    from gftpwb.core.scenario.model import Scenario, TestModel
    from gftpwb.core.specs import RunSpec

    from .model import CopyTest
    from .tool import Tool

# The kinds of other transfer protocols on the same path, tabulated together, with the GridFTP
# (guc) tests and iperf3 runs of the same results (ReportSection.also).
PROTOCOLS = ReportSection("protocols", 22, "gftpwb.kinds.copytool.report:tables",
                          data="gftpwb.kinds.copytool.report:data", charts="gftpwb.kinds.copytool.report:charts",
                          also=("guc", "iperf3"))
RATE = Figure("rate_incl_setup_mib_s", "rate incl. set-up", "MiB/s", ("rate_incl_setup_mib_s",))
QUANTISED, PER_FILE = "quantised", "per file"


def own_figure(program: str) -> Figure:
    """The tool's own average (kept where the record keeps guc's), left out when quantised or per file."""
    return Figure("rate_guc_avg_mib_s", f"{program} avg", "MiB/s", ("rate_guc_avg_mib_s",),
                  excluded_by=("details", "guc_avg_quantised"), excluded_reason=QUANTISED,
                  exclusions=(Exclusion(("details", "files", "count"), PER_FILE, above=1),))


METRICS = (
    Metric("median_rate", "median rate incl. set-up of the case's counted runs", "MiB/s", RATE.key, "median"),
    Metric("mean_rate", "mean rate incl. set-up", "MiB/s", RATE.key, "mean"),
    Metric("min_rate", "slowest counted run's rate incl. set-up", "MiB/s", RATE.key, "min"),
    Metric("cv", "coefficient of variation of the rate incl. set-up (stdev / mean)", "%", RATE.key, "cv"),
)


class CopyToolDsl(Dsl):
    """The tool's options as keys, its checks (``tpc_option`` takes ``tpc_values`` only between two
    servers), its typed model."""

    def __init__(self, tool: Tool, tpc_option: str, tpc_values: tuple[str, ...]):
        self.tool, self.tpc_option, self.tpc_values = tool, tpc_option, tpc_values

    def test_keys(self) -> tuple[Key, ...]:
        from .keys import copy_keys

        return copy_keys(self.tool)

    def definitions(self) -> dict[str, dict[str, Any]]:
        from .keys import definitions

        return definitions(self.tool)

    def check(self, test: TestInput) -> None:
        from .dsl import check_copy_test

        check_copy_test(self.tool, test, self.tpc_option, self.tpc_values)

    def check_values(self, test: TestInput) -> None:
        from .dsl import check_copy_urls

        check_copy_urls(self.tool, test)

    def build(self, test: TestInput) -> CopyTest:
        from .dsl import build_copy_test

        return build_copy_test(self.tool, test)


class CopyToolPlanner(Planner):
    def __init__(self, tool: Tool):
        self.tool = tool

    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        from .model import CopyTest
        from .plan import plan_copies

        assert isinstance(test, CopyTest)
        return plan_copies(scenario, self.tool, test, first_case)

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        if spec.host != LOCAL:
            return ()
        return (Program(self.tool.program, f"install the Debian package(s) {self.tool.package} (make test does)"),
                Program(PYTHON, "install Debian's python3 (it gives the tool a terminal, for its progress)"))

    def host_checks(self, spec: RunSpec) -> tuple[HostCheck, ...]:
        files = spec.details.get("files")
        if not files:
            return ()
        from gftpwb.kinds.guc.files import FileSet, reach_checks

        return reach_checks(FileSet.from_dict(files), f"test '{spec.test_id}'")

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        out: list[str] = []
        for end in (spec.source, spec.target):
            if self.tool.is_url(end):
                scheme, _, rest = end.partition("://")
                base = f"{scheme}://{rest.split('/', 1)[0]}/"
                if base not in out:
                    out.append(base)
        return tuple(out)

    def describe(self, spec: RunSpec, limit: str) -> list[str]:
        from gftpwb.kinds.guc.files import plan_line

        line = plan_line(spec.details, spec.run_id)
        return [*super().describe(spec, limit), *([line] if line else [])]


class CopyToolReport(Report):
    """In the protocols section; its facts: the copy mode and whether progress was live."""

    def facts(self, record: ResultRecord) -> dict[str, str | float | int | bool | None]:
        return {"mode": record.details.get("mode"), "live_progress": record.details.get("live_progress")}


class CopyToolPresent(Present):
    def __init__(self, tool: Tool):
        self.tool = tool

    def waiting(self, spec: RunSpec) -> str:
        return f"waiting for {self.tool.program}'s first progress report (about every second)"

    def progress_note(self, spec: RunSpec) -> str:
        return self.tool.no_progress_note if spec.details.get("live_progress") is False else ""

    def headline(self, record: ResultRecord) -> str:
        from .report import headline

        return headline(record, self.tool.program)

    def params_text(self, params: dict[str, Any]) -> str:
        from .tool import params_text

        return params_text(params)


def copy_tool_kind(tool: Tool, *, order: int, runner: str, figures: tuple[Figure, ...], tpc_option: str,
                   tpc_values: tuple[str, ...], tuning: Tuning) -> Kind:
    """The kind ``tool.kind``: one run of the tool per run, in the protocols section, its tunable
    options for the auto-tune (:func:`gftpwb.kinds.copytool.tuning.tuning`)."""
    return Kind(
        name=tool.kind, description=tool.description, order=order,
        dsl=CopyToolDsl(tool, tpc_option, tpc_values), planner=CopyToolPlanner(tool), run=Run(runner),
        report=CopyToolReport(PROTOCOLS, figures=figures, metrics=METRICS), present=CopyToolPresent(tool),
        tuning=tuning)
