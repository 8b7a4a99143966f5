"""The ``autotune`` kind's language and planning (its DSL and planner facets, imported when a scenario
has an auto-tune: :mod:`.kind` names them)."""

from __future__ import annotations

from typing import Any

from gftpwb.core.errors import Diagnostic
from gftpwb.core.registry import (
    Dsl,
    Kind,
    Planner,
    Program,
    TestInput,
    Tunable,
    registry,
)
from gftpwb.core.scenario.keys import Key
from gftpwb.core.scenario.model import LOCAL, Scenario, TestModel, on_tuple
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.units import parse_rate, parse_size
from gftpwb.kinds.guc.facets import check_ends, check_urls, timeout_of
from gftpwb.kinds.simulated.link import build_link

from .candidates import GUC, TGFTP_37, repeated, resolve_candidates
from .keys import autotune_keys, candidates_schema, warm_start_schema
from .model import ADAPTIVE, EXHAUSTIVE, AutotuneTest
from .plan import TuneSettings, describe, plan_autotune, transfer_spec


def tuned_kind(name: str) -> Kind | None:
    """The kind an auto-tune's transfers are, if it declares tunable parameters."""
    kind = registry().find(name)
    return kind if kind is not None and kind.tuning.parameters else None


def tunable_kinds() -> list[str]:
    return [k.name for k in registry().kinds() if k.tuning.parameters]


class AutotuneDsl(Dsl):
    def test_keys(self) -> tuple[Key, ...]:
        return autotune_keys()

    def definitions(self) -> dict[str, dict[str, Any]]:
        return {"autotune_candidates": candidates_schema(), "autotune_warm_start": warm_start_schema()}

    def check_values(self, test: TestInput) -> None:
        if test.merged.get("transfers", GUC) == GUC:  # another kind's URLs are its own
            check_urls(test)

    def check(self, test: TestInput) -> None:
        raw, merged = test.raw, test.merged
        check_ends(test, guc_urls=merged.get("transfers", GUC) == GUC)  # another kind's URLs are its own
        if len(test.on) > 1:
            test.error("an auto-tune runs its transfers from one host; give on one host (or write one auto-tune "
                       "test per host)", "on", of_key=True)
        strategy = raw.get("strategy", EXHAUSTIVE)
        if strategy == EXHAUSTIVE and "budget" in raw:
            test.error("budget applies to strategy: adaptive; the exhaustive strategy runs every candidate "
                       "`repetitions` times", "budget", of_key=True)
        if strategy == EXHAUSTIVE and raw.get("warm_start", "off") != "off":
            test.error("warm_start applies to strategy: adaptive; the exhaustive strategy runs every candidate "
                       "`repetitions` times, as tgftp, whatever the history holds", "warm_start", of_key=True)
        if strategy == ADAPTIVE and "repetitions" in raw:
            test.error("repetitions applies to strategy: exhaustive; the adaptive strategy decides how often to "
                       "run each candidate, up to `budget` transfers", "repetitions", of_key=True)
        if "margin" in raw and parse_rate(raw["margin"]) <= 0:
            test.error("margin must be more than 0 (tgftp 0.7.0's code uses 10MB/s, its documentation 20MB/s)",
                       "margin", of_key=True)
        if "length" in raw and parse_size(raw["length"]) == 0:
            test.error("length must be more than 0 bytes", "length", of_key=True)
        name = merged.get("transfers", GUC)
        kind = tuned_kind(name)
        if kind is None:
            test.error(f"transfers: {name} is no kind an auto-tune can vary (kinds that declare tunable "
                       f"parameters: {', '.join(tunable_kinds())})", "transfers")
            return
        self._check_transfers(test, kind)
        if "candidates" in raw:
            self._check_candidates(test, kind)

    @staticmethod
    def _check_transfers(test: TestInput, kind: Kind) -> None:
        """What the tuned kind's transfers can do: /dev/zero ends, -len, the simulated engine."""
        merged, name, tuning = test.merged, kind.name, kind.tuning
        if merged.get("memory_to_memory", tuning.memory_ends) and not tuning.memory_ends:
            test.error(f"memory_to_memory: {name} transfers cannot read /dev/zero nor write /dev/null on the "
                       "servers; set memory_to_memory: false and a source file on tmpfs (/dev/shm)",
                       "memory_to_memory")
        if not tuning.sets_length and "length" not in merged:
            test.error(f"an auto-tune of {name} transfers copies its source file whole: give its size in length "
                       "(the rates need it)")
        takes_engine = any(key.name == "engine" for key in kind.dsl.test_keys())
        if merged.get("engine", REAL_ENGINE) != REAL_ENGINE and not takes_engine:
            test.error(f"engine: {merged['engine']} does not carry out {name} transfers; an auto-tune of {name} "
                       "transfers runs them for real", "engine")

    @staticmethod
    def _check_candidates(test: TestInput, kind: Kind) -> None:
        """Candidate options the tuned kind declares, with values its schema takes, and no repeats."""
        raw, tuning = test.raw, kind.tuning
        value = raw["candidates"]
        if value == TGFTP_37:
            if kind.name != GUC:
                test.error(f"candidates: tgftp-37 are guc configurations; an auto-tune of {kind.name} transfers "
                           "takes a grid or a list of its options", "candidates")
            return
        before = len(test.errors)
        sets = [value] if isinstance(value, dict) else list(value)
        for n, options in enumerate(sets):
            where = ("candidates",) if isinstance(value, dict) else ("candidates", n)
            for option, given in options.items():
                parameter = tuning.parameter(option)
                if parameter is None:
                    names = ", ".join(t.name for t in tuning.parameters)
                    test.errors.append(_at(test, (*where, option), True,
                                           f"candidates: {option} is no option an auto-tune of {kind.name} "
                                           f"transfers may vary ({names})"))
                    continue
                values = given if isinstance(value, dict) else [given]
                for i, one in enumerate(values):
                    problem = value_problem(parameter, one)
                    if problem:
                        path = (*where, option, i) if isinstance(value, dict) else (*where, option)
                        test.errors.append(_at(test, path, False, f"candidates: {option}: {problem}"))
        if len(test.errors) > before:
            return
        options, _ = resolve_candidates(value, tuning)
        source, target = str(test.merged.get("source", "")), str(test.merged.get("target", ""))
        for later, earlier in repeated(options):
            shown = tuning.candidate_label(source, target, options[later - 1], None)
            test.error(f"candidate {later} repeats candidate {earlier} ({shown})", "candidates", of_key=True)

    def build(self, test: TestInput) -> AutotuneTest:
        raw, merged = test.raw, test.merged
        kind = tuned_kind(merged.get("transfers", GUC))
        assert kind is not None
        default = TGFTP_37 if kind.name == GUC else None
        candidates, form = resolve_candidates(merged.get("candidates", default), kind.tuning)
        base = AutotuneTest(id="", kind=raw["kind"])  # its defaults
        warm = merged.get("warm_start", "auto")
        warm_settings = warm if isinstance(warm, dict) else {}
        return AutotuneTest(
            id=raw["id"],
            kind=raw["kind"],
            description=raw.get("description", ""),
            source=merged["source"],
            target=merged["target"],
            extra_args=tuple(merged.get("extra_args", ())),
            comment=merged.get("comment", ""),
            engine=merged.get("engine", REAL_ENGINE),
            link=build_link(merged.get("link")),
            timeout_s=timeout_of(merged, base.timeout_s or 0.0),
            memory_to_memory=merged.get("memory_to_memory", kind.tuning.memory_ends),
            transfers=kind.name,
            candidates=candidates,
            candidate_set=form,
            strategy=merged.get("strategy", base.strategy),
            repetitions=merged.get("repetitions", base.repetitions),
            budget=merged.get("budget", base.budget),
            warm_start=warm != "off",
            warm_history=str(warm_settings.get("history", base.warm_history)),
            warm_campaigns=int(warm_settings.get("campaigns", base.warm_campaigns)),
            length=parse_size(merged["length"]) if "length" in merged else base.length,
            margin_mib_s=parse_rate(merged["margin"]) if "margin" in merged else base.margin_mib_s,
            on=on_tuple(merged.get("on", LOCAL)),
            index=test.index,
        )


def _at(test: TestInput, path: tuple[Any, ...], of_key: bool, message: str) -> Diagnostic:
    full = (*test.path, *path)
    line, col = test.pos.of_key(full) if of_key else test.pos.of_value(full)
    return Diagnostic(test.filename, line, col, message)


def value_problem(parameter: Tunable, value: Any) -> str:
    """Why ``value`` is no value of the parameter (its kind's schema says: xrdcp takes 15 streams at
    most), or "" (null is "not passed")."""
    if value is None:
        return ""
    import jsonschema

    schema = dict(parameter.schema)
    if schema.get("$ref") == "#/definitions/size":
        schema = {"type": ["string", "integer"]}  # the schema checked the size's form already
    try:
        jsonschema.validate(value, schema)
    except jsonschema.ValidationError as exc:
        return exc.message
    return ""


class AutotunePlanner(Planner):
    def plan(self, scenario: Scenario, test: TestModel, first_case: int) -> tuple[list[RunSpec], int]:
        return plan_autotune(scenario, test, first_case)

    def describe(self, spec: RunSpec, limit: str) -> list[str]:
        header, *commands = describe(spec)
        return [header + limit, *commands]

    def programs(self, spec: RunSpec) -> tuple[Program, ...]:
        kind, first = first_transfer(spec)
        return kind.planner.programs(first) if spec.engine == REAL_ENGINE else ()

    def endpoints(self, spec: RunSpec) -> tuple[str, ...]:
        kind, first = first_transfer(spec)
        return kind.planner.endpoints(first)


def first_transfer(spec: RunSpec) -> tuple[Kind, RunSpec]:
    """The tuned kind and the spec of a tune's first transfer: what its transfers need and reach."""
    settings = TuneSettings.of(spec)
    return registry().kind(settings.transfers), transfer_spec(spec, settings.candidates[0], 0, settings.length)
