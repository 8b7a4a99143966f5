"""The ``guc`` kind: globus-url-copy transfers (registered as entry point ``gftpwb.kinds: guc``)."""

from __future__ import annotations

import dataclasses
from typing import Any

from gftpwb.core.commands import command_of
from gftpwb.core.dsl.keys import COMMAND_KEYS, LOG_FILENAME_KEY, Key
from gftpwb.core.dsl.model import LOCAL, Scenario, TestModel, on_tuple
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import Kind, Program, ReportSection, TestInput
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.units import parse_duration
from gftpwb.kinds.simulated.link import build_link

from .driver import GUC
from .keys import EXACT_KEYS, MATRIX_KEY, definitions, shared_keys
from .model import GucOptions, Test
from .plan import plan_transfers

# guc and connection tests: one row per case with the rates of its passed runs.
TRANSFERS = ReportSection("transfers", 20, "gftpwb.kinds.guc.report:tables")
GUC_PROGRAM = Program(GUC, "install the Debian package globus-gass-copy-progs (make demo does)")
GUC_WAITING = "waiting for guc's first progress report (third-party transfers report every 5 s)"


def timeout_of(merged: dict[str, Any], default: float) -> float | None:
    """A test's timeout in seconds (``default`` when it sets none); None: no limit."""
    return (parse_duration(merged["timeout"]) if "timeout" in merged else default) or None


def require_ends(test: TestInput) -> None:
    """A transfer needs a source and a target (from the test or the defaults)."""
    for key in ("source", "target"):
        if not test.merged.get(key):
            test.error(f"test '{test.id}' has no {key} (set it on the test or in defaults)")


def build_transfer_test(test: TestInput, default_timeout: float = 0.0) -> Test:
    """The model of a test that runs guc once per run (a guc or a connection test)."""
    raw, merged = test.raw, test.merged
    return Test(
        id=raw["id"],
        kind=raw["kind"],
        description=raw.get("description", ""),
        source=merged["source"],
        target=merged["target"],
        options=GucOptions.from_mapping(merged.get("options", {})),
        extra_args=tuple(merged.get("extra_args", ())),
        repeat=merged.get("repeat", 1),
        timeout_s=timeout_of(merged, default_timeout),
        comment=merged.get("comment", ""),
        matrix=tuple((key, tuple(values)) for key, values in raw.get("matrix", {}).items()),
        pre=command_of(merged.get("pre")),
        post=command_of(merged.get("post")),
        comment_command=command_of(merged.get("comment_command")),
        log_filename=raw.get("log_filename", ""),
        on=on_tuple(merged.get("on", LOCAL)),
        engine=merged.get("engine", REAL_ENGINE),
        link=build_link(merged.get("link")),
        index=test.index,
    )


class GucKind(Kind):
    name = "guc"
    description = "globus-url-copy transfers."
    order = 10
    runner = "gftpwb.kinds.guc.run.runner:run"
    writes_taglog = True
    report = TRANSFERS

    def dsl_keys(self) -> tuple[Key, ...]:
        return (*shared_keys(), *EXACT_KEYS, MATRIX_KEY, *COMMAND_KEYS, LOG_FILENAME_KEY)

    def defaults_keys(self) -> tuple[Key, ...]:
        return (*shared_keys(), *COMMAND_KEYS)

    def definitions(self) -> dict[str, dict[str, Any]]:
        return definitions()

    def check(self, test: TestInput) -> None:
        require_ends(test)
        merged = test.merged
        if "args" in test.raw:
            clash = [key for key in ("options", "extra_args", "matrix") if merged.get(key)]
            if clash:
                where = " (from defaults)" if not any(key in test.raw for key in clash) else ""
                test.error(f"test '{test.id}': args gives guc's parameters exactly, so it cannot be combined with "
                           f"{' or '.join(clash)}{where}", "args", of_key=True)
        timeout = parse_duration(merged["timeout"]) if "timeout" in merged else 0
        has_length = "length" in merged.get("options", {}) or "length" in test.raw.get("matrix", {}) or any(
            arg in ("-len", "-partial-length") for arg in test.raw.get("args", ()))
        if "/dev/zero" in str(merged.get("source", "")) and not has_length and not timeout:
            test.warning(f"test '{test.id}' reads /dev/zero with no length and no timeout: guc never stops; set "
                         "options.length or timeout")

    def build(self, test: TestInput) -> Test:
        built = build_transfer_test(test)
        raw = test.raw
        return dataclasses.replace(built, args=tuple(raw["args"]) if "args" in raw else None,
                                   add_vb=raw.get("add_vb", "args" not in raw),
                                   tgftp_style=raw.get("tgftp_style", False))

    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, Test)
        return plan_transfers(scenario, test, first_case)

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return (GUC_PROGRAM,) if spec.engine == REAL_ENGINE else ()

    def waiting(self, spec: RunSpec) -> str:
        return GUC_WAITING

    def headline(self, record: ResultRecord) -> str:
        from .report import headline

        return headline(record)

    def params_text(self, params: dict[str, Any]) -> str:
        from .report import params_text

        return params_text(params)


KIND = GucKind()
