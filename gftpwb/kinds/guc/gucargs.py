"""guc argument lists <-> a scenario's typed ``options`` plus ``extra_args``.

Both the batchfile importer (``-vb -p 16 -tcp-bs 4M -len 4G``) and the tag-log importer (the guc
command of an old run) need to turn guc flags back into ``parallel: 16, tcp_buffer: 4M, length: 4G``.
Known flags (short or long spelling, from :data:`gftpwb.kinds.guc.options.OPTIONS_BY_FLAG`) become typed
options; everything else stays in ``extra_args`` in its order, so guc still gets it. A flag given
twice, or with a value the schema would refuse, is left in ``extra_args`` untouched: guc then sees
exactly what it saw before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.units import SIZE_PATTERN, parse_size
from gftpwb.kinds.guc.options import OPTIONS_BY_FLAG

VERBOSE_FLAGS = ("-vb", "-verbose-perf")  # gftpwb always passes -vb itself
_SIZE_RE = re.compile(SIZE_PATTERN)


@dataclass
class GucArgs:
    options: dict[str, Any] = field(default_factory=dict)  # DSL values: sizes as written ("4G"), counts as int
    extra_args: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # things a person should know, for warnings
    had_verbose: bool = False


def _value_ok(kind: str, value: str) -> bool:
    if kind == "count":
        return value.isdigit() and int(value) >= 1
    if kind == "level":
        return value in ("0", "1", "2", "3")
    if kind == "size":
        return bool(_SIZE_RE.match(value))
    return True


def _dsl_value(kind: str, value: str) -> Any:
    if kind in ("count", "level"):
        return int(value)
    return int(value) if value.isdigit() else value  # sizes: keep "4G" as written, plain bytes as a number


def split_guc_args(args: list[str]) -> GucArgs:
    """Typed options and the rest, from guc's arguments (without the two URLs)."""
    out = GucArgs()
    counts: dict[str, int] = {}
    for arg in args:
        option = OPTIONS_BY_FLAG.get(arg)
        if option is not None:
            counts[option.name] = counts.get(option.name, 0) + 1
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in VERBOSE_FLAGS:
            out.had_verbose = True
            i += 1
            continue
        option = OPTIONS_BY_FLAG.get(arg)
        if option is None:
            out.extra_args.append(arg)
            i += 1
            continue
        takes_value = option.type != "flag"
        if counts[option.name] > 1:
            out.extra_args.extend(args[i:i + 1 + takes_value])
            if f"{arg} is given more than once" not in " ".join(out.notes):
                out.notes.append(f"{arg} is given more than once; kept as it is in extra_args (guc decides which "
                                 "one counts)")
            i += 1 + takes_value
            continue
        if not takes_value:
            out.options[option.name] = True
            i += 1
            continue
        if i + 1 >= len(args):
            out.extra_args.append(arg)
            out.notes.append(f"{arg} has no value; kept in extra_args")
            i += 1
            continue
        value = args[i + 1]
        if not _value_ok(option.type, value):
            out.extra_args.extend((arg, value))
            out.notes.append(f"{arg} {value!r} is not a valid {option.name}; kept in extra_args")
        else:
            out.options[option.name] = _dsl_value(option.type, value)
        i += 2
    return out


def length_from_args(args: list[str]) -> int | None:
    """Bytes of guc's ``-len``/``-partial-length`` in ``args`` (None when absent or unreadable)."""
    for flag in ("-len", "-partial-length"):
        if flag in args:
            index = args.index(flag)
            if index + 1 < len(args):
                try:
                    return parse_size(args[index + 1])
                except ValueError:
                    return None
    return None
