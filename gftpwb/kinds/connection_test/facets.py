"""The ``connection-test`` kind's language and planning (its DSL and planner facets, imported when a
scenario has a connection test: :mod:`.kind` names them), and its tgftp batchfile line."""

from __future__ import annotations

from typing import Any

from gftpwb.core.registry import Dsl, Planner, Program, TestInput
from gftpwb.core.scenario.keys import COMMAND_KEYS, LOG_FILENAME_KEY, Key
from gftpwb.core.scenario.model import Scenario, TestModel
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.guc.facets import GUC_PROGRAM, build_transfer_test, check_ends, check_urls, transfer_endpoints
from gftpwb.kinds.guc.keys import shared_keys
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
        check_ends(test)

    def check_values(self, test: TestInput) -> None:
        check_urls(test)

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


def tgftp_batchfile_line(test: Test, point: dict[str, Any]) -> tuple[tuple[str, ...], bool, str]:
    """One case of ``test`` as a tgftp 0.7.0 batchfile line: a connection test, which takes no guc
    parameters (a note says which extra_args are dropped)."""
    note = (f"test {test.id}: tgftp's connection test takes no guc parameters; extra_args "
            f"{' '.join(test.extra_args)} dropped") if test.extra_args else ""
    return (), True, note
