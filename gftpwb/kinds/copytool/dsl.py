"""Copy-tool tests: the checks the schema cannot express, and the typed model."""

from __future__ import annotations

from typing import Any

from gftpwb.core.commands import command_of
from gftpwb.core.dsl.repeats import SEQUENTIAL, check_repeats
from gftpwb.core.errors import Diagnostic
from gftpwb.core.registry import TestInput
from gftpwb.core.scenario.model import LOCAL, on_tuple
from gftpwb.core.units import parse_duration, parse_size
from gftpwb.kinds.guc.baseline import BaselineError
from gftpwb.kinds.guc.files import LIST

from .ends import TPC, baseline_of, copy_mode, files_of
from .model import CopyTest
from .tool import Tool


def _values(test: TestInput, name: str) -> list[Any]:
    """Every value option ``name`` takes in the test's runs: its matrix list, else its option."""
    matrix = test.raw.get("matrix", {})
    if name in matrix:
        return list(matrix[name])
    options = test.merged.get("options", {})
    return [options[name]] if name in options else []


def _report(test: TestInput, name: str, message: str) -> None:
    """At the option in the test's matrix, else at its options, else at the test."""
    if name in test.raw.get("matrix", {}):
        line, col = test.pos.of_value((*test.path, "matrix", name))
        test.errors.append(Diagnostic(test.filename, line, col, message))
    elif name in test.raw.get("options", {}):
        line, col = test.pos.of_value((*test.path, "options", name))
        test.errors.append(Diagnostic(test.filename, line, col, message))
    else:
        test.error(message, "options" if "options" in test.raw else None)


def check_copy_urls(tool: Tool, test: TestInput) -> None:
    """Each of source and target that is text and looks like a URL: one the tool takes. Needs only the
    two values, so it also runs on a scenario that breaks the schema (``Dsl.check_values``)."""
    for key in ("source", "target"):
        end = test.merged.get(key)
        if isinstance(end, str) and "://" in end and not end.startswith("file://") and not tool.is_url(end):
            schemes = ", ".join(f"{s}://" for s in tool.url_schemes)
            test.error(f"test '{test.id}': {key} {end} is no URL {tool.program} takes here ({schemes}, or a path on "
                       "the host it runs on)", key)


def check_copy_test(tool: Tool, test: TestInput, tpc_option: str, tpc_values: tuple[str, ...]) -> None:
    """Ends, one host, TPC options only between two servers, files and baseline as for guc."""
    tid, merged = test.id, test.merged
    for key in ("source", "target"):
        if not merged.get(key):
            test.error(f"test '{tid}' has no {key} (set it on the test)")
    if test.errors:
        return
    source, target = str(merged["source"]), str(merged["target"])
    check_copy_urls(tool, test)
    on = on_tuple(merged.get("on", LOCAL))
    if len(on) > 1 and (merged.get("files") is not None or merged.get("baseline") is not None):
        test.error(f"test '{tid}': files: and baseline: need one host in on:", "on" if "on" in test.raw else None)
    mode = copy_mode(tool, source, target)
    for value in _values(test, tpc_option):
        if value in tpc_values and mode != TPC:
            _report(test, tpc_option, f"test '{tid}': {tpc_option}: {value} is a third-party copy; it needs both "
                                      f"source and target to be servers ({', '.join(tool.url_schemes)} URLs)")
    check_repeats(test)
    _check_files(tool, test, source, target, on)
    _check_baseline(tool, test, source, target, on)
    if "/dev/zero" in source and tool.is_url(source):
        test.error(f"test '{tid}': xrootd serves no character devices (/dev/zero: 'block device required'); for "
                   "memory to memory use files: with source and target directories on tmpfs (/dev/shm)", "source")


def _check_files(tool: Tool, test: TestInput, source: str, target: str, on: tuple[str, ...]) -> None:
    value = test.merged.get("files")
    if value is None:
        return
    key = "files" if "files" in test.raw else None
    if value.get("transfer") == LIST:
        test.error(f"test '{test.id}': files: transfer: list is guc's -f; {tool.program} copies the files named "
                   "one by one or the directory", key)
    if "length" in test.merged:
        test.error(f"test '{test.id}': files: the files' size is what moves; leave length out", key)
    try:
        files_of(tool, value, source=source, target=target, on=on, inventory=test.inventory)
    except ValueError as exc:
        test.error(f"test '{test.id}': {exc}", key)


def _check_baseline(tool: Tool, test: TestInput, source: str, target: str, on: tuple[str, ...]) -> None:
    value = test.merged.get("baseline")
    if value is None:
        return
    try:
        baseline_of(tool, value, source=source, target=target, on=on, inventory=test.inventory, tests=test.tests)
    except (BaselineError, ValueError) as exc:
        test.error(f"test '{test.id}': {str(exc).replace('guc', tool.program)}",
                   "baseline" if "baseline" in test.raw else None)


def build_copy_test(tool: Tool, test: TestInput) -> CopyTest:
    raw, merged = test.raw, test.merged
    on = on_tuple(merged.get("on", LOCAL))
    source, target = str(merged["source"]), str(merged["target"])
    timeout = parse_duration(merged["timeout"]) if "timeout" in merged else 0.0
    return CopyTest(
        id=raw["id"], kind=raw["kind"], description=raw.get("description", ""), source=source, target=target,
        options=tuple(tool.typed(dict(merged.get("options", {}))).items()),
        extra_args=tuple(str(a) for a in merged.get("extra_args", ())),
        length=parse_size(merged["length"]) if "length" in merged else None,
        repeat=merged.get("repeat", 1), warmup=merged.get("warmup", 0), order=merged.get("order", SEQUENTIAL),
        order_seed=merged.get("order_seed", 0), timeout_s=timeout or None, comment=merged.get("comment", ""),
        matrix=tuple((key, tuple(values)) for key, values in raw.get("matrix", {}).items()),
        pre=command_of(merged.get("pre")), post=command_of(merged.get("post")),
        comment_command=command_of(merged.get("comment_command")), on=on,
        files=files_of(tool, merged.get("files"), source=source, target=target, on=on, inventory=test.inventory),
        baseline=baseline_of(tool, merged.get("baseline"), source=source, target=target, on=on,
                             inventory=test.inventory, tests=test.tests),
        index=test.index)
