"""The kinds' checks of single values (a URL's typo), run on a scenario that breaks the schema.

Why: the kinds' full checks (:meth:`~gftpwb.core.registry.Vocabulary.check`) assume a valid test and
so run only once the schema is satisfied; a user who fixed the schema's errors then met a URL typo
only on the next try. These checks read only the values they need, each of its type checked, so
they run on whatever the file holds, and their errors are reported with the schema's in one pass.
"""

from __future__ import annotations

from typing import Any

from gftpwb.core.errors import Diagnostic
from gftpwb.core.registry import TestInput, registry
from gftpwb.core.scenario.yamlpos import Positions

from .schema import kind_key_names


def value_diagnostics(data: dict[str, Any], pos: Positions, filename: str) -> list[Diagnostic]:
    """Errors of the single values of every test of a known kind (with what it takes from a
    ``defaults:`` mapping), said once however many tests share a default."""
    tests = data.get("tests")
    if not isinstance(tests, list):
        return []
    defaults = data.get("defaults")
    defaults = defaults if isinstance(defaults, dict) else {}
    errors: list[Diagnostic] = []
    for index, raw in enumerate(tests):
        kind_name = raw.get("kind") if isinstance(raw, dict) else None
        kind = registry().find(kind_name) if isinstance(kind_name, str) else None
        if kind is None:
            continue  # the schema says what is wrong with the test
        allowed = kind_key_names().get(kind_name, frozenset())
        merged = {**{key: value for key, value in defaults.items() if key in allowed}, **raw}
        test = TestInput(raw=raw, merged=merged, index=index, pos=pos, filename=filename)
        kind.dsl.check_values(test)
        errors.extend(test.errors)
    return list(dict.fromkeys(errors))
