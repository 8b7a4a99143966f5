"""The ``connection-test`` kind: tgftp's connection test, one byte moved with the whole control-channel
conversation logged (registered as entry point ``gftpwb.kinds: connection-test``)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import Dsl, Kind, Planner, Present, Program, Report, Run, TestInput
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


class ConnectionTestDsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return (*(k for k in shared_keys() if k.name not in ("options", "engine", "link")), *COMMAND_KEYS,
                LOG_FILENAME_KEY)

    def check(self, test: TestInput) -> None:
        require_ends(test)

    def build(self, test: TestInput) -> Test:
        return build_transfer_test(test, CONNECTION_TEST_TIMEOUT_S)


class ConnectionTestPlanner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, Test)
        return plan_transfers(scenario, test, first_case, connection_shape)

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        return (GUC_PROGRAM,)

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        return transfer_endpoints(spec)


class ConnectionTestPresent(Present):
    def waiting(self, spec: RunSpec) -> str:
        return GUC_WAITING

    def headline(self, record: ResultRecord) -> str:
        took = f" in {record.seconds:.3f}s" if record.seconds is not None else ""  # an imported log may lack times
        return f"connection ok (connect, login, data channel){took}"

    def params_text(self, params: dict[str, Any]) -> str:
        from gftpwb.kinds.guc.report import params_text

        return params_text(params)


def tgftp_batchfile_line(test: Test, point: dict[str, Any]) -> tuple[tuple[str, ...], bool, str]:
    """One case of ``test`` as a tgftp 0.7.0 batchfile line: a connection test, which takes no guc
    parameters (a note says which extra_args are dropped)."""
    note = (f"test {test.id}: tgftp's connection test takes no guc parameters; extra_args "
            f"{' '.join(test.extra_args)} dropped") if test.extra_args else ""
    return (), True, note


KIND = Kind(
    name="connection-test",
    description=("tgftp's connection test: guc -dbg -vb -len 1 moves one byte with the full control-channel "
                 "conversation logged, and the record says which step failed (connect, login, data channel). "
                 "Default timeout 30s."),
    order=20,
    dsl=ConnectionTestDsl(),
    planner=ConnectionTestPlanner(),
    run=Run("gftpwb.kinds.connection_test.run.runner:run",
            trace_phases="gftpwb.kinds.guc.phases:phase_reader",  # its -dbg conversation is a guc one
            writes_taglog=True),
    report=Report(TRANSFERS),  # tabulated with the guc runs
    present=ConnectionTestPresent(),
    exports={"tgftp-batchfile": "gftpwb.kinds.connection_test.kind:tgftp_batchfile_line"},
)
