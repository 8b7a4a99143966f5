"""The ``connection-test`` kind: tgftp's connection test, one byte moved with the whole control-channel
conversation logged (registered as entry point ``gftpwb.kinds: connection-test``)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import Kind, Program, TestInput
from gftpwb.core.scenario.keys import COMMAND_KEYS, LOG_FILENAME_KEY, Key
from gftpwb.core.scenario.model import Scenario, TestModel
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.guc.keys import shared_keys
from gftpwb.kinds.guc.kind import (
    GUC_PROGRAM,
    GUC_WAITING,
    TRANSFERS,
    build_transfer_test,
    require_ends,
    transfer_endpoints,
)
from gftpwb.kinds.guc.model import GucOptions, Test
from gftpwb.kinds.guc.plan import plan_transfers

from .argv import CONNECTION_TEST_LENGTH, build_connection_argv

CONNECTION_TEST_TIMEOUT_S = 30.0  # tgftp forces 30 s on a connection test; ours is only the default


def connection_shape(test: Test, options: GucOptions) -> tuple[tuple[str, ...], dict[str, Any], int | None]:
    return build_connection_argv(test.source, test.target, test.extra_args), {}, CONNECTION_TEST_LENGTH


class ConnectionTestKind(Kind):
    name = "connection-test"
    description = ("tgftp's connection test: guc -dbg -vb -len 1 moves one byte with the full control-channel "
                   "conversation logged, and the record says which step failed (connect, login, data channel). "
                   "Default timeout 30s.")
    order = 20
    runner = "gftpwb.kinds.connection_test.run.runner:run"
    trace_phases = "gftpwb.kinds.guc.phases:phase_reader"  # its -dbg conversation is a guc one
    writes_taglog = True
    report = TRANSFERS  # tabulated with the guc runs

    def dsl_keys(self) -> tuple[Key, ...]:
        return (*(k for k in shared_keys() if k.name not in ("options", "engine", "link")), *COMMAND_KEYS,
                LOG_FILENAME_KEY)

    def check(self, test: TestInput) -> None:
        require_ends(test)

    def build(self, test: TestInput) -> Test:
        return build_transfer_test(test, CONNECTION_TEST_TIMEOUT_S)

    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, Test)
        return plan_transfers(scenario, test, first_case, connection_shape)

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return (GUC_PROGRAM,)

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        return transfer_endpoints(spec)

    def waiting(self, spec: RunSpec) -> str:
        return GUC_WAITING

    def tgftp_line(self, test: Any, point: dict[str, Any]) -> tuple[tuple[str, ...], bool, str] | None:
        note = (f"test {test.id}: tgftp's connection test takes no guc parameters; extra_args "
                f"{' '.join(test.extra_args)} dropped") if test.extra_args else ""
        return (), True, note

    def headline(self, record: ResultRecord) -> str:
        took = f" in {record.seconds:.3f}s" if record.seconds is not None else ""  # an imported log may lack times
        return f"connection ok (connect, login, data channel){took}"

    def params_text(self, params: dict[str, Any]) -> str:
        from gftpwb.kinds.guc.report import params_text

        return params_text(params)


KIND = ConnectionTestKind()
