"""Load YAML and remember where every node stands.

JSON Schema validators report errors by path (``tests/2/options/length``); users want
``file:line:col``. A file becomes plain Python data (so the validator and the model never see a YAML
library's types) plus a map from each path to the 1-based position of its key and of its value
(:class:`~.positions.Positions`): through libyaml when the file allows (:mod:`.fastyaml`), else
through ruamel.yaml's round-trip loader (:mod:`.ruamelyaml`), which also gives every error its message
and position.
"""

from __future__ import annotations

from typing import Any

from gftpwb.core.scenario.fastyaml import fast_load

from .positions import MAX_NESTING, MIN_VALUE_BUDGET, Path, Positions, label, line_column

__all__ = ["MAX_NESTING", "MIN_VALUE_BUDGET", "Path", "Positions", "label", "line_column",
           "load_yaml_with_positions", "ruamel_load"]


def load_yaml_with_positions(text: str, filename: str, *, tree: bool = False) -> tuple[Any, Positions, Any]:
    """Parse ``text`` and return (plain data, positions, round-trip tree).

    Syntax errors and duplicate keys raise ScenarioError with the file position ruamel reports.
    The round-trip tree is returned so converters can keep comments when they rewrite a file; it is
    None when the file took the fast path (:mod:`.fastyaml`), which most scenarios do, unless ``tree``
    asks for it.
    """
    budget = max(MIN_VALUE_BUDGET, 20 * len(text))
    fast = None if tree else fast_load(text, budget, MAX_NESTING)
    if fast is not None:
        data, values, keys = fast
        pos = Positions(values=values, keys=keys)
        pos.values[()] = (1, 1)
        return data, pos, None
    return ruamel_load(text, filename, budget)


def ruamel_load(text: str, filename: str, budget: int) -> tuple[Any, Positions, Any]:
    """The ruamel path of :func:`load_yaml_with_positions` (:func:`.ruamelyaml.ruamel_load`)."""
    from .ruamelyaml import ruamel_load as load

    return load(text, filename, budget)
