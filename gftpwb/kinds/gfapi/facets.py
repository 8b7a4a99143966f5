"""The ``gfapi`` kind's language and planning (its DSL and planner facets, imported when a scenario has
a gfapi test: :mod:`.kind` names them)."""

from __future__ import annotations

from gftpwb.core.registry import Dsl, Planner, TestInput
from gftpwb.core.scenario.keys import Key
from gftpwb.core.scenario.model import Scenario, TestModel
from gftpwb.core.specs import RunSpec

from .dsl import build_gfapi_test, check_gfapi_test
from .keys import GFAPI_KEYS
from .model import GfapiTest
from .plan import plan_gfapi


class GfapiDsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return GFAPI_KEYS

    def check(self, test: TestInput) -> None:
        check_gfapi_test(test)

    def build(self, test: TestInput) -> GfapiTest:
        return build_gfapi_test(test)


class GfapiPlanner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, GfapiTest)
        return plan_gfapi(scenario, test, first_case)

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        """The volume's volfile server (glusterd), when the test uses a volume (not POSIX mode)."""
        server = spec.params.get("server")
        return (f"glusterfs://{server}:{spec.params.get('port', 24007)}/",) if server else ()
