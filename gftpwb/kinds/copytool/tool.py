"""A copy tool as a kind sees it: its program, its options (each a DSL key and a flag or an
environment variable), how it is called, and how its output reads. Pure data and functions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.scenario.bounds import MAX_STREAMS, whole
from gftpwb.core.units import format_size_arg, parse_size

FLAG, COUNT, SIZE_VALUE, CHOICE, BOOL_ENV = "flag", "count", "size", "choice", "bool-env"


@dataclass(frozen=True)
class ToolOption:
    """One option: a DSL key ``name`` that becomes ``flag VALUE`` on the command line, or, with ``env``,
    an environment variable the tool reads (``XRD_CPUSEPGWRTRD``). ``type``: count (integer >= 1),
    size (``8M``), choice (one of ``choices``), flag (true: the bare flag), bool-env (true/false as 1/0).
    ``tunable``: the auto-tuner may vary it, trying ``tune_values`` when a tune names no values."""

    name: str
    type: str
    description: str
    flag: str = ""
    env: str = ""
    choices: tuple[str, ...] = ()
    tunable: bool = False
    maximum: int | None = None
    tune_values: tuple[Any, ...] = ()

    def schema(self) -> dict[str, Any]:
        if self.type == COUNT:
            return whole(1, self.maximum or MAX_STREAMS)
        if self.type == SIZE_VALUE:
            return {"$ref": "#/definitions/size"}
        if self.type == CHOICE:
            return {"enum": list(self.choices)}
        return {"type": "boolean"}

    def typed(self, value: Any) -> Any:
        """A DSL value as the plan keeps it (sizes in bytes)."""
        return parse_size(value) if self.type == SIZE_VALUE and value is not None else value

    def args(self, value: Any) -> list[str]:
        if self.env or value is None or value is False:
            return []
        if self.type == FLAG:
            return [self.flag]
        if self.type == SIZE_VALUE:
            return [self.flag, format_size_arg(int(value))]
        return [self.flag, str(value)]

    def environment(self, value: Any) -> dict[str, str]:
        if not self.env or value is None:
            return {}
        if self.type in (BOOL_ENV, FLAG):
            return {self.env: "1" if value else "0"}
        return {self.env: str(int(value)) if self.type in (SIZE_VALUE, COUNT) else str(value)}


@dataclass(frozen=True)
class Tool:
    """A copy tool. ``parser`` makes a fresh sans-I/O output parser (``feed(stream, bytes)``,
    ``close()``, each returning progress samples and text lines); ``summarize_error`` turns its
    stderr/stdout lines into the record's error; ``fixed_env`` is always set (gfal-copy's Python)."""

    kind: str
    program: str
    package: str
    options: tuple[ToolOption, ...]
    parser: Callable[[], Any]
    summarize_error: Callable[[Sequence[str]], str]
    url_schemes: tuple[str, ...]
    #: Arguments always given (``-f``: replace what a previous run left), then the options.
    fixed_args: tuple[str, ...] = ()
    fixed_env: tuple[tuple[str, str], ...] = ()
    #: The tool's own average in its progress is timed in whole steps of this many seconds (xrdcp: 1).
    own_rate_step_s: float | None = None
    #: How a files run names its sources: one argument per file ("each") or the directory ("recursive").
    files_style: str = "each"
    recursive_flag: str = "-r"
    #: How a path on the tool's host is written as an end (gfal-copy wants ``file://``; xrdcp a path).
    local_prefix: str = ""
    #: The option that sets the number of TCP streams (a baseline's iperf3 uses as many).
    streams_option: str = "streams"
    #: The copy modes (ends.TPC, ...) in which the tool reports bytes as it goes; empty: all.
    progress_only_for: tuple[str, ...] = ()
    #: Why a run without live progress shows only its elapsed time.
    no_progress_note: str = ""
    tpc_note: str = ""
    description: str = ""
    by_name: dict[str, ToolOption] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        self.by_name.update({o.name: o for o in self.options})

    def option(self, name: str) -> ToolOption:
        return self.by_name[name]

    def typed(self, values: dict[str, Any]) -> dict[str, Any]:
        return {name: self.option(name).typed(value) for name, value in values.items()}

    def option_args(self, values: dict[str, Any]) -> list[str]:
        """Flags of the set options, in the tool's table order."""
        return [arg for o in self.options if o.name in values for arg in o.args(values[o.name])]

    def environment(self, values: dict[str, Any]) -> dict[str, str]:
        env = dict(self.fixed_env)
        for o in self.options:
            if o.name in values:
                env.update(o.environment(values[o.name]))
        return env

    def argv(self, sources: Sequence[str], target: str, values: dict[str, Any], extra_args: Sequence[str] = (),
             *, recursive: bool = False) -> tuple[str, ...]:
        """``[env VAR=V ...] PROGRAM <fixed> <options> <extra> SOURCE... TARGET`` (an argv, no shell)."""
        env = self.environment(values)
        prefix = ("env", *(f"{k}={v}" for k, v in sorted(env.items()))) if env else ()
        return (*prefix, self.program, *self.fixed_args, *self.option_args(values), *extra_args,
                *([self.recursive_flag] if recursive else []), *sources, target)

    def is_url(self, end: str) -> bool:
        return end.partition("://")[0].lower() in self.url_schemes

    def end(self, end: str) -> str:
        """An end as the tool takes it: a URL as given, a path with the tool's local prefix."""
        if "://" in end or not self.local_prefix:
            return end
        return self.local_prefix + end


def label(tool: Tool, values: dict[str, Any], extra_args: Sequence[str] = ()) -> str:
    """``streams=4 chunk_size=8M``: an auto-tune candidate's options (sizes as sizes), then any extra
    arguments."""
    parts = [f"{o.name}={format_size_arg(int(values[o.name])) if o.type == SIZE_VALUE else value_text(values[o.name])}"
             for o in tool.options if values.get(o.name) is not None]
    return " ".join([*parts, *extra_args]) or "defaults"


def value_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def params_text(values: dict[str, Any]) -> str:
    """``streams=4 page_checksums=false``: a case's options for reports."""
    return " ".join(f"{k}={value_text(v)}" for k, v in values.items()) or "defaults"
