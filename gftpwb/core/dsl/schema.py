"""The scenario JSON Schema (draft-07), put together from the shared keys (:mod:`.keys`) and the
keys and definitions of every registered kind and engine (:mod:`gftpwb.core.registry`).

Validation uses the schema of the kinds installed, so a plug-in's keys are checked like the built-in
ones. ``schemas/scenario.schema.json`` is that schema for gftpwb's own kinds (``make schema``),
committed so editors can use it and shipped in the package; ``tests/test_schema.py`` fails when the
file, the kinds' key tables and their typed models drift apart. When the plug-ins installed are
exactly gftpwb's own (:data:`BUILTIN_PLUGINS`), validation reads that file instead of building the
schema, which would import every kind's language: ``gftpwb validate`` then imports only the kinds its
scenario uses (their facets are imported on first use: :class:`gftpwb.core.registry.ImportedDsl`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from gftpwb.core.expect import all_metrics, schema_of
from gftpwb.core.monitors.keys import monitor_definition
from gftpwb.core.registry import Kind, Metric, registry
from gftpwb.core.scenario.keys import (
    COMMON_TEST_KEYS,
    DEFAULT_ONLY_KEYS,
    DEFINITIONS,
    HOST_KEYS,
    SCENARIO_KEYS,
    SCHEMA_ID,
    Key,
    object_schema,
    ref,
)
from gftpwb.core.slurm.keys import slurm_definition

EXPECT = "expect"
# The plug-ins gftpwb ships: its entry points in pyproject.toml (tests/test_schema.py checks the two agree).
BUILTIN_PLUGINS = frozenset({
    ("guc", "gftpwb.kinds.guc.kind:KIND"),
    ("connection-test", "gftpwb.kinds.connection_test.kind:KIND"),
    ("autotune", "gftpwb.kinds.autotune.kind:KIND"),
    ("gfapi", "gftpwb.kinds.gfapi.kind:KIND"),
    ("iperf3", "gftpwb.kinds.iperf3.kind:KIND"),
    ("xrootd", "gftpwb.kinds.xrootd.kind:KIND"),
    ("http", "gftpwb.kinds.http.kind:KIND"),
    ("simulated", "gftpwb.kinds.simulated.kind:ENGINE"),
})


def expect_key(metrics: tuple[Metric, ...], whose: str) -> Key:
    """``expect:``: thresholds on the metrics of a kind (or, in the defaults, of any kind)."""
    names = ", ".join(m.name for m in metrics)
    return Key(EXPECT, schema_of(metrics), f"Thresholds checked when the test ends, on {whose} metrics ({names}): "
               "metric: '<op> <value>', op one of <, <=, >, >=, ==, e.g. median_rate: '>= 900MiB/s', cv: '< 5%'. A "
               "violation is reported and makes gftpwb run exit with 8.", merge=True)


def kind_keys(kind: Kind) -> tuple[Key, ...]:
    """All keys a test of ``kind`` accepts, with the kind fixed to its name (and ``expect`` when the
    kind has metrics)."""
    common = tuple(
        Key(k.name, {"const": kind.name}, f"{kind.name}: {kind.description}", True) if k.name == "kind" else k
        for k in COMMON_TEST_KEYS
    )
    metrics = kind.report.metrics
    expect = (expect_key(metrics, f"the {kind.name} kind's"),) if metrics else ()
    return (*common, *kind.dsl.test_keys(), *expect)


def defaults_keys() -> tuple[Key, ...]:
    """The keys of the ``defaults:`` block: every key a kind offers (first one of a name wins), then ``on``
    and ``expect`` (any kind's metric: each test takes those of its kind)."""
    seen: dict[str, Key] = {}
    for kind in registry().kinds():
        for key in kind.dsl.defaults_keys():
            seen.setdefault(key.name, key)
    metrics = tuple(all_metrics().values())
    expect = (expect_key(metrics, "any kind's (each test takes its kind's)"),) if metrics else ()
    return (*seen.values(), *DEFAULT_ONLY_KEYS, *expect)


def build_schema() -> dict[str, Any]:
    """Assemble the whole scenario schema from the shared keys and the registered plug-ins."""
    kinds = registry().kinds()
    definitions = dict(DEFINITIONS)
    for plugin in registry().plugins():
        definitions.update(plugin.dsl.definitions())
    definitions["defaults"] = object_schema(defaults_keys(), "Values every test inherits unless it sets its own "
                                            "(a test takes the ones its kind has).")
    definitions["host"] = object_schema(HOST_KEYS, "One host of the inventory, reached over SSH.")
    definitions["monitor"] = monitor_definition()
    definitions["slurm"] = slurm_definition()
    for kind in kinds:
        definitions[f"{kind.name}_test"] = object_schema(kind_keys(kind), f"A test of kind {kind.name}: "
                                                                          f"{kind.description}")
    definitions["test"] = {
        "description": "One test. Its kind decides which keys it may have.",
        "type": "object",
        "required": ["id", "kind"],
        "properties": {"kind": {"enum": [kind.name for kind in kinds], "description": "What the test runs."}},
        "allOf": [
            {"if": {"properties": {"kind": {"const": kind.name, "description": f"Selects the {kind.name} keys."}}},
             "then": ref(f"{kind.name}_test")} for kind in kinds
        ],
    }
    root = object_schema(SCENARIO_KEYS, "A gftpwb scenario: tests to run and how.")
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_ID,
        "title": "gftpwb scenario",
        **root,
        "definitions": definitions,
    }


def render_schema(schema: dict[str, Any] | None = None) -> str:
    """The schema as committed: 2-space indented JSON with a final newline."""
    return json.dumps(build_schema() if schema is None else schema, indent=2, ensure_ascii=False) + "\n"


def scenario_schema() -> dict[str, Any]:
    """The schema scenarios are validated against: that of the kinds installed (built once; the
    shipped file when they are gftpwb's own)."""
    return registry().memo("schema", lambda: shipped_schema() or build_schema())


def only_builtin_plugins() -> bool:
    """Whether the plug-ins installed are exactly gftpwb's own (read from the entry points, none imported)."""
    return {(e.name, e.value) for e in registry().entry_points()} == BUILTIN_PLUGINS


def shipped_schema() -> dict[str, Any] | None:
    """``schemas/scenario.schema.json`` as installed (``gftpwb.schemas``), when it is the schema of the
    plug-ins installed; None otherwise (or when it cannot be read)."""
    if not only_builtin_plugins():
        return None
    from importlib.util import find_spec

    spec = find_spec("gftpwb.schemas")  # where the package's schemas are, found without importing it
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    try:
        with open(os.path.join(locations[0], "scenario.schema.json"), encoding="utf-8") as handle:
            return json.load(handle)
    except (IndexError, OSError, ValueError):
        return None


def expected_forms() -> dict[str, str]:
    """Key name -> how its accepted forms are named in errors, for keys whose value has several
    forms (see ``Key.expected``)."""

    def make() -> dict[str, str]:
        out: dict[str, str] = {k.name: k.expected for k in (*COMMON_TEST_KEYS, *DEFAULT_ONLY_KEYS) if k.expected}
        for plugin in registry().plugins():
            for key in plugin.dsl.test_keys():
                if key.expected:
                    out.setdefault(key.name, key.expected)
        return out

    return registry().memo("expected forms", make)


class _ByKind(Mapping[str, frozenset[str]]):
    """Kind name -> a table derived from that kind alone, made on first use: asking about one kind
    imports only that kind's language."""

    def __init__(self, make: Callable[[Any], frozenset[str]]):
        self._make = make
        self._made: dict[str, frozenset[str]] = {}

    def __getitem__(self, name: str) -> frozenset[str]:
        if name not in self._made:
            kind = registry().find(name)
            if kind is None:
                raise KeyError(name)
            self._made[name] = self._make(kind)
        return self._made[name]

    def __iter__(self):
        return iter(registry().kind_names())

    def __len__(self) -> int:
        return len(registry().kind_names())


def kind_key_names() -> Mapping[str, frozenset[str]]:
    """Kind -> the names of the keys its tests take (what they inherit from ``defaults:``)."""
    return registry().memo("kind keys", lambda: _ByKind(lambda kind: frozenset(
        k.name for k in (*kind.dsl.test_keys(), *DEFAULT_ONLY_KEYS))
        | (frozenset({EXPECT}) if kind.report.metrics else frozenset())))


def merged_key_names() -> Mapping[str, frozenset[str]]:
    """Kind -> the names of its mapping keys that merge key by key with the defaults' (``Key.merge``)."""
    return registry().memo("merged keys", lambda: _ByKind(lambda kind: frozenset(
        k.name for k in kind.dsl.test_keys() if k.merge)
        | (frozenset({EXPECT}) if kind.report.metrics else frozenset())))
