"""The DSL keys of a copy-tool kind, made from its tool's option table."""

from __future__ import annotations

from typing import Any

from gftpwb.core.dsl.repeats import REPEAT_KEYS
from gftpwb.core.scenario.bounds import MAX_COUNT, whole
from gftpwb.core.scenario.keys import COMMAND_KEYS, DURATION, SIZE, Key, ref
from gftpwb.kinds.guc.keys import BASELINE_KEY

from .tool import Tool


def options_object(tool: Tool) -> dict[str, Any]:
    return {
        "description": f"Typed {tool.program} options; each becomes its flag (or environment variable). Unset "
                       f"options are not passed, so {tool.program}'s own defaults apply.",
        "type": "object", "additionalProperties": False,
        "properties": {o.name: {**o.schema(), "description": o.description} for o in tool.options},
    }


def matrix_object(tool: Tool) -> dict[str, Any]:
    return {
        "description": "Lists of option values; the test runs once for every combination (the cross product, first "
                       "key outermost, order kept). A matrix value overrides the same key in options.",
        "type": "object", "additionalProperties": False, "minProperties": 1,
        "properties": {o.name: {"description": f"Values of {o.name} to sweep.", "type": "array", "minItems": 1,
                                "items": o.schema()} for o in tool.options},
    }


def definitions(tool: Tool) -> dict[str, dict[str, Any]]:
    return {f"{tool.kind}_options": options_object(tool), f"{tool.kind}_matrix": matrix_object(tool)}


def copy_keys(tool: Tool) -> tuple[Key, ...]:
    schemes = ", ".join(f"{s}://" for s in tool.url_schemes)
    return (
        Key("source", {"type": "string", "minLength": 1},
            f"What to copy: a URL ({schemes}) or a path on the host the tool runs on (on:); with files:, a "
            "directory ending in /."),
        Key("target", {"type": "string", "minLength": 1},
            f"Where to: a URL ({schemes}) or a path on the tool's host (/dev/null: a null sink); with files:, a "
            "directory ending in /. Both ends URLs of servers: a third-party copy."),
        Key("options", ref(f"{tool.kind}_options"), f"{tool.program} options (see {tool.kind}_options)."),
        Key("matrix", ref(f"{tool.kind}_matrix"), "Option values to sweep (see the options)."),
        Key("extra_args", {"type": "array", "items": {"type": "string"}},
            f"More {tool.program} arguments, passed as they are before the source."),
        Key("length", SIZE, "Bytes a run moves, for its rates when the source is an existing file (with files: the "
            "files' size is used)."),
        Key("files", ref("guc_files"),
            "Test files gftpwb makes before and removes after each run, as for guc: count files of size in the source "
            "directory, the target directory emptied, then checked. Directories on tmpfs (/dev/shm) make it memory "
            "to memory (xrootd refuses /dev/zero and /dev/null: 'block device required'), on disks disk to disk."),
        Key("baseline", BASELINE_KEY.schema,
            "An iperf3 run before every run on the same host pair, as for guc (baseline: iperf3, a mapping of its "
            "settings, or the id of an iperf3 test); its streams are the case's streams option."),
        Key("repeat", whole(1, MAX_COUNT), "How many times each case runs. Default 1."),
        Key("timeout", DURATION, "Stop the tool (its whole process group) after this long; the run is recorded as "
            "timeout. Default: no limit."),
        Key("comment", {"type": "string"}, "Free text written to the record."),
        *REPEAT_KEYS,
        *COMMAND_KEYS,
    )
