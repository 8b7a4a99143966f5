"""Which runs ``--only`` and ``--where`` select: tests (``id``), cases of a test (``id[case]``: the
case's number in the scenario, as the tables' ``#`` column, the run ids and the tag log names say
it), and cases by their parameters (``--where parallel=4``).

Selection works on the kinds' specs of one pass, before loops and copies are added, and never
renumbers anything: a selected run keeps the run id, case number and tag log name it has in the
whole plan.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.errors import UsageError
from gftpwb.core.specs import RunSpec
from gftpwb.core.units import parse_size

_ONLY = re.compile(r"^(?P<test>[^\[\]]+)(\[(?P<case>\d+)\])?$")
_WHERE = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_.-]*)\s*(?P<op>!=|=)\s*(?P<value>.*)$")


@dataclass(frozen=True)
class Condition:
    """``key=value`` or ``key!=value`` on a run's parameters."""

    key: str
    value: str
    negated: bool = False

    def matches(self, params: dict[str, Any]) -> bool:
        if self.key not in params:
            return self.negated
        return param_equals(params[self.key], self.value) != self.negated

    def __str__(self) -> str:
        return f"{self.key}{'!=' if self.negated else '='}{self.value}"


def param_equals(value: Any, text: str) -> bool:
    """Whether a parameter's value is what ``text`` says: the same text, the same number, the same
    size (``4M`` is 4194304), or the same boolean (``true``/``false``)."""
    text = text.strip()
    if isinstance(value, bool):
        return text.lower() == str(value).lower()
    if str(value) == text:
        return True
    if isinstance(value, int | float):
        try:
            return float(text) == float(value)
        except ValueError:
            pass
        try:
            return parse_size(text) == value
        except ValueError:
            return False
    return value is None and text.lower() in ("null", "none", "~")


@dataclass
class Selection:
    """What ``--only`` and ``--where`` ask for; ``wanted`` tests (empty: all), cases per test (None: all)."""

    tests: dict[str, set[int] | None] = field(default_factory=dict)
    conditions: list[Condition] = field(default_factory=list)

    @classmethod
    def parse(cls, only: Iterable[str], where: Iterable[str], test_ids: Sequence[str],
              scenario: str = "the scenario") -> Selection:
        selection = cls()
        for item in only:
            match = _ONLY.match(item.strip())
            if match is None:
                raise UsageError(f"--only {item!r}: write a test id, or a test id and a case number: id[2]")
            test, case = match["test"], match["case"]
            if test not in test_ids:
                raise UsageError(f"unknown test id {test!r}; {scenario} has: {', '.join(test_ids)}")
            cases = selection.tests.get(test, set())
            if case is None or cases is None:
                selection.tests[test] = None
            else:
                cases.add(int(case))
                selection.tests[test] = cases
        for item in where:
            for part in (p for p in item.split(",") if p.strip()):
                match = _WHERE.match(part.strip())
                if match is None:
                    raise UsageError(f"--where {part!r}: write parameter=value or parameter!=value, e.g. "
                                     "parallel=4")
                selection.conditions.append(Condition(match["key"], match["value"], match["op"] == "!="))
        return selection

    @property
    def everything(self) -> bool:
        return not self.tests and not self.conditions

    def wants_test(self, test_id: str) -> bool:
        return not self.tests or test_id in self.tests

    def pick(self, test_id: str, specs: list[RunSpec], first_case: int, cases: int) -> list[RunSpec]:
        """The specs of one test (which take case numbers ``first_case`` .. + ``cases``) selected."""
        if not self.wants_test(test_id):
            return []
        wanted = self.tests.get(test_id)
        if wanted is not None:
            outside = sorted(c for c in wanted if not first_case <= c < first_case + cases)
            if outside:
                raise UsageError(f"--only {test_id}[{outside[0]}]: test {test_id!r} has "
                                 + (f"cases [{first_case}] to [{first_case + cases - 1}]" if cases > 1 else
                                    f"one case, [{first_case}]")
                                 + " (the case numbers of the tables' # column)")
            specs = [s for s in specs if s.case in wanted]
        return [s for s in specs if all(c.matches(s.params) for c in self.conditions)]

    def check_where(self, considered: list[RunSpec], picked: int) -> None:
        """``--where`` on a parameter no run has, or matching no run, is a mistake worth stopping for."""
        if not self.conditions:
            return
        known = sorted({key for spec in considered for key in spec.params})
        for condition in self.conditions:
            if condition.key not in known:
                raise UsageError(f"--where {condition}: no run of the selected tests has a parameter "
                                 f"{condition.key!r}; they have: {', '.join(known) or 'none'}")
        if not picked:
            raise UsageError(f"--where {', '.join(str(c) for c in self.conditions)}: no run matches")
