"""A copy tool's tuning facet: the options its table marks tunable (with the values a search tries
when it names none), one copy with given values, and a candidate's label. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.registry import Transfer, Tunable, Tuning

from .tool import FLAG, SIZE_VALUE, Tool
from .tool import label as options_label


def tuning(tool: Tool, module: str) -> Tuning:
    """The facet; ``module`` holds the kind's ``transfer`` and ``label`` (:func:`transfer`, :func:`label`
    bound to ``tool``). A copy moves its source whole: the tune's ``length`` says how much that is."""
    parameters = tuple(Tunable(o.name, o.schema(), o.description, o.tune_values, flag=o.flag or o.env,
                               size=o.type == SIZE_VALUE, switch=o.type == FLAG, socket_buffer=o.name == "tcp_buffer")
                       for o in tool.options if o.tunable)
    return Tuning(parameters, transfer=f"{module}:transfer", label=f"{module}:label")


def transfer(tool: Tool, source: str, target: str, params: dict[str, Any], length: int | None,
             extra_args: Sequence[str]) -> Transfer:
    """One copy from ``source`` to ``target`` with these option values (in the tool's table order)."""
    from .ends import copy_mode  # here: the kinds' manifests name this facet, and must load in no time
    from .plan import live_progress

    values = {o.name: params[o.name] for o in tool.options if o.name in params and params[o.name] is not None}
    argv = tool.argv([tool.end(source)], tool.end(target), values, tuple(extra_args))
    mode = copy_mode(tool, source, target)
    return Transfer(argv, values, {"mode": mode, "live_progress": live_progress(tool, mode)}, length)


def label(tool: Tool, made: Transfer, extra_args: Sequence[str] = ()) -> str:
    """A candidate as it ran: the option values its copy was made with (``streams=4 chunk_size=8M``)."""
    return options_label(tool, made.params, extra_args)


__all__ = ["label", "transfer", "tuning"]
