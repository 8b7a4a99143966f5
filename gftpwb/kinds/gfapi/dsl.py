"""``kind: gfapi`` tests: the checks the schema cannot express, and the typed model.

A gfapi test inherits only ``repeat``, ``warmup``, ``order``, ``order_seed``, ``timeout``, ``comment``
and ``on`` from ``defaults`` (the
keys it shares with them; the other defaults are guc settings). Layout problems are checked
for every combination a matrix can produce, so a sweep never fails half-way on a bad pair such as
``io_requests`` larger than a small ``file_size`` allows.
"""

from __future__ import annotations

import itertools
from typing import Any

from gftpwb.core.dsl.repeats import SEQUENTIAL, check_repeats
from gftpwb.core.errors import Diagnostic
from gftpwb.core.limits import WORKERS_VARIABLE, limits
from gftpwb.core.registry import TestInput
from gftpwb.core.scenario.model import LOCAL, on_tuple
from gftpwb.core.units import parse_duration

from .model import GfapiTest, GfapiVolume, convert_gfapi_value
from .settings import (
    DEFAULT_VOLUME_DIRECTORY,
    DIRECT_ALIGNMENT,
    GFAPI_SETTINGS,
    RANDOM_WORKLOADS,
)

LAYOUT_KEYS = ("workload", "file_size", "record_size", "io_requests", "direct")


def layout_problems(values: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(severity, key, message) for one combination of settings (sizes already in bytes)."""
    out: list[tuple[str, str, str]] = []
    workload, file_size, record_size = values["workload"], values["file_size"], values["record_size"]
    if file_size == 0:
        out.append(("error", "file_size", "file_size must be at least 1 byte"))
        return out
    if record_size == 0:
        out.append(("error", "record_size", "record_size must be at least 1 byte"))
        return out
    if record_size > file_size:
        out.append(("warning", "record_size", f"record_size {record_size} is larger than file_size {file_size}: "
                                              f"each file is written or read in one {file_size}-byte request"))
        record_size = file_size
    records = -(-file_size // record_size)
    if workload in RANDOM_WORKLOADS:
        if file_size % record_size:
            out.append(("error", "file_size", f"{workload} needs file_size ({file_size}) to be a multiple of "
                                              f"record_size ({record_size})"))
        if values["io_requests"] > records:
            out.append(("error", "io_requests", f"io_requests {values['io_requests']} exceeds the {records} records "
                                                f"of a {file_size}-byte file with {record_size}-byte records"))
    if values["direct"] and (file_size % DIRECT_ALIGNMENT or record_size % DIRECT_ALIGNMENT):
        out.append(("error", "direct", f"direct (O_DIRECT) needs file_size and record_size in multiples of "
                                       f"{DIRECT_ALIGNMENT} bytes, got {file_size} and {record_size}"))
    return out


def _values(raw: dict[str, Any]) -> dict[str, Any]:
    return {s.name: convert_gfapi_value(s.name, raw[s.name]) if s.name in raw else s.default for s in GFAPI_SETTINGS}


def check_gfapi_test(test: TestInput) -> None:
    """The checks of a gfapi test the schema cannot express (see the module docstring)."""
    raw, tid = test.raw, test.id
    if "volume" not in raw and "directory" not in raw:
        test.error(f"test '{tid}' needs volume: (libgfapi) or directory: (POSIX mode on a mounted file system)")
    if "volume" in raw and "directory" in raw and not str(raw["directory"]).startswith("/"):
        test.error(f"test '{tid}': directory must be an absolute path inside the volume, e.g. /gftpwb, got "
                   f"{raw['directory']!r}", "directory")

    def report(severity: str, key: str, message: str) -> None:
        """At the key in the test, else at the key in its matrix, else at the test."""
        line, col = test.where(key) if key in raw else (
            test.pos.of_value((*test.path, "matrix", key)) if key in raw.get("matrix", {}) else test.where())
        target = test.errors if severity == "error" else test.warnings
        target.append(Diagnostic(test.filename, line, col, f"test '{tid}': {message}", severity=severity))

    base = _values(raw)
    matrix = raw.get("matrix", {})
    workers = (max(matrix.get("processes", [base["processes"]]) or [1])
               * max(matrix.get("threads", [base["threads"]]) or [1]))
    cap = limits().workers
    if workers > cap:
        report("error", "threads" if "threads" in raw or "threads" in matrix else "processes",
               f"{workers:,} worker threads per host (processes x threads), more than the limit of {cap:,}; use "
               f"fewer, or raise the limit: {WORKERS_VARIABLE}={workers}")
        return
    swept = [k for k in LAYOUT_KEYS if k in matrix]
    seen: set[tuple[str, str, str]] = set()
    for combo in itertools.product(*(matrix[k] for k in swept)):
        values = {**base, **{k: convert_gfapi_value(k, v) for k, v in zip(swept, combo, strict=True)}}
        for problem in layout_problems(values):
            if problem not in seen:
                seen.add(problem)
                report(*problem)
    workloads = set(matrix.get("workload", [base["workload"]]))
    if ("read_pct" in raw or "read_pct" in matrix) and "rw-mix" not in workloads:
        report("warning", "read_pct", "read_pct only matters for workload rw-mix")
    if ("io_requests" in raw or "io_requests" in matrix) and not workloads & set(RANDOM_WORKLOADS):
        report("warning", "io_requests", "io_requests only matters for rnd-wr and rnd-rd")
    check_repeats(test)


def build_gfapi_test(test: TestInput) -> GfapiTest:
    """The model of a valid gfapi test (``test.merged``: its keys with repeat, timeout, comment and
    on from the defaults)."""
    raw, merged = test.raw, test.merged
    volume = None
    if "volume" in raw:
        v = raw["volume"]
        volume = GfapiVolume(name=v["name"], server=v["server"], port=v.get("port", 24007),
                             transport=v.get("transport", "tcp"))
    directory = raw.get("directory", DEFAULT_VOLUME_DIRECTORY if volume else "")
    if volume and len(directory) > 1:
        directory = directory.rstrip("/")
    timeout = parse_duration(merged["timeout"]) if "timeout" in merged else 0.0
    settings = {s.name: convert_gfapi_value(s.name, raw[s.name]) for s in GFAPI_SETTINGS if s.name in raw}
    matrix = tuple((key, tuple(values)) for key, values in raw.get("matrix", {}).items())
    kwargs: dict[str, Any] = {}
    if "start_lead" in raw:
        kwargs["start_lead_s"] = parse_duration(raw["start_lead"])
    if "ready_timeout" in raw:
        kwargs["ready_timeout_s"] = parse_duration(raw["ready_timeout"]) or GfapiTest.ready_timeout_s
    return GfapiTest(id=raw["id"], kind=raw["kind"], description=raw.get("description", ""), volume=volume,
                     directory=directory, repeat=merged.get("repeat", 1), warmup=merged.get("warmup", 0),
                     order=merged.get("order", SEQUENTIAL), order_seed=merged.get("order_seed", 0),
                     timeout_s=timeout or None,
                     comment=merged.get("comment", ""), matrix=matrix, on=on_tuple(merged.get("on", LOCAL)),
                     index=test.index, **settings, **kwargs)
