"""A kind is a name and its facets: the three every kind needs (dsl, planner, run) and the two with
defaults (report, present). A kind made of the three alone plans, is in no report table, is shown
with the defaults; a facet of the wrong type or a facet missing a required method is refused when
the kind is made, and the registry turns a plug-in that cannot be made into a message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from gftpwb.core.errors import EnvironmentProblem
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import Dsl, Kind, Planner, Present, Registry, Report, Run, TestInput
from gftpwb.core.scenario.keys import Key
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel
from gftpwb.core.specs import RunSpec


@dataclass(frozen=True)
class TickTest:
    id: str
    kind: str


class TickDsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return (Key("ticks", {"type": "integer"}, "How many."),)

    def build(self, test: TestInput) -> TickTest:
        return TickTest(test.raw["id"], test.raw["kind"])


class TickPlanner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        assert isinstance(test, TickTest)
        return [RunSpec(run_id=f"{test.id}/0", scenario=scenario.name, test_id=test.id, case=first_case, repeat=0,
                        kind=test.kind, host=LOCAL, argv=("true",))], 1


def tick(**facets: Any) -> Kind:
    return Kind(**{"name": "tick", "description": "does nothing.", "dsl": TickDsl(), "planner": TickPlanner(),
                   "run": Run("somewhere:run"), **facets})


def record(**fields: Any) -> ResultRecord:
    return ResultRecord(run_id="t/0", scenario="s", test_id="t", case=0, repeat=0, kind="tick", host=LOCAL,
                        status=PASSED, argv=["true"], **fields)


def test_a_kind_of_the_required_facets_has_the_defaults_of_the_others():
    kind = tick()
    assert kind.order == 100 and kind.exports == {}
    assert kind.report == Report() and kind.report.section is None and kind.report.figures == ()
    assert kind.report.measure(record(seconds=0.5)) == {} and kind.report.facts(record()) == {}
    assert kind.present.whole_run_row and kind.present.announce(None) is None  # type: ignore[arg-type]
    assert kind.present.params_text({"a": 1, "b": "x"}) == "a=1 b=x"
    assert kind.present.headline(record(seconds=0.25)) == "done in 0.250s"  # it moved no bytes
    assert kind.present.headline(record(seconds=2.0, bytes=4 << 20, rate_incl_setup_mib_s=2.0)) == (
        "4.00 MiB in 2.000s  2.0 MiB/s")
    assert kind.dsl.defaults_keys() == () and kind.dsl.definitions() == {}
    assert kind.planner.programs(None) == () and kind.planner.endpoints(None) == ()  # type: ignore[arg-type]


def test_the_optional_facets_are_filled_in_or_subclassed():
    class Shown(Present):
        def headline(self, record: ResultRecord) -> str:
            return "ticked"

    kind = tick(present=Shown(whole_run_row=False), exports={"elsewhere": "module:write"})
    assert kind.present.headline(record()) == "ticked" and not kind.present.whole_run_row
    assert kind.present.waiting(None) == Present().waiting(None)  # type: ignore[arg-type]
    assert kind.exports["elsewhere"] == "module:write"


@pytest.mark.parametrize("facet, value", [("dsl", TickPlanner()), ("planner", None), ("run", "somewhere:run"),
                                          ("report", object()), ("present", Report())])
def test_a_facet_of_the_wrong_type_is_refused_by_name(facet, value):
    with pytest.raises(TypeError, match=f"kind 'tick': {facet} must be a gftpwb.core.registry."):
        tick(**{facet: value})


def test_a_required_method_left_out_is_refused_when_the_facet_is_made():
    class NoBuild(Dsl):
        def test_keys(self) -> tuple[Key, ...]:
            return ()

    class NoPlan(Planner):
        pass

    with pytest.raises(TypeError, match="build"):
        NoBuild()  # type: ignore[abstract]
    with pytest.raises(TypeError, match="plan"):
        NoPlan()  # type: ignore[abstract]


@dataclass
class FakeEntry:
    name: str
    value: str
    make: Any

    def load(self) -> Any:
        return self.make()


def broken() -> Any:
    return tick(run="somewhere:run")


@pytest.mark.parametrize("entry, message", [
    (FakeEntry("tick", "tick:KIND", broken),
     r"cannot load the test kind 'tick' \(tick:KIND\): TypeError: kind 'tick': run must be a gftpwb.core.registry.Run"),
    (FakeEntry("tick", "tick:KIND", object), r"entry point 'tick' \(tick:KIND\) of gftpwb.kinds is neither a Kind"),
    (FakeEntry("tock", "tick:KIND", tick), r"entry point 'tock' \(tick:KIND\) names a plug-in called 'tick'"),
])
def test_the_registry_says_which_plug_in_cannot_be_used(entry, message):
    with pytest.raises(EnvironmentProblem, match=message):
        Registry(lambda: [entry]).kinds()


def test_the_registry_finds_a_kind_of_the_required_facets():
    registry = Registry(lambda: [FakeEntry("tick", "tick:KIND", tick)])
    assert registry.kind_names() == ("tick",) and registry.kind("tick").run.runner == "somewhere:run"
    assert registry.phase_reader(RunSpec(run_id="t/0", scenario="s", test_id="t", case=0, repeat=0, kind="tick",
                                         host=LOCAL, argv=("true",))) is None
