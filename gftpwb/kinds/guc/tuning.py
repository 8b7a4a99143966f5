"""What an auto-tune may vary in guc's transfers (its tuning facet): -p, -tcp-bs, -bs, -cc, -pp and
-fast, a transfer with given values (``-len`` bytes, ``-vb`` for progress), and a candidate's label,
the line tgftp -a prints (``-vb -p 16 -tcp-bs 8M``). tgftp's 37 configurations vary -p (1 to 32)
and -tcp-bs (1M to 16M): those are the values a search tries when it names none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gftpwb.core.registry import Transfer, Tunable, Tuning
from gftpwb.core.units import MIB

from .keys import option_schema
from .options import OPTIONS_BY_NAME

if TYPE_CHECKING:  # the model and the driver are imported when a tune is planned: the kind's manifest names
    from .model import GucOptions  # this facet, and loading a manifest must cost next to nothing

TGFTP_PARALLEL = (1, 2, 4, 8, 16, 32)
TGFTP_TCP_BUFFERS = tuple(n * MIB for n in (1, 2, 4, 8, 16))
VERBOSE = ("-vb", "-verbose-perf")


def _tunable(name: str, values: tuple[Any, ...] = ()) -> Tunable:
    option = OPTIONS_BY_NAME[name]
    return Tunable(name, option_schema(option), option.description, values, flag=option.flag,
                   size=option.type == "size", switch=option.type == "flag", socket_buffer=name == "tcp_buffer")


PARAMETERS = (
    _tunable("parallel", TGFTP_PARALLEL),
    _tunable("tcp_buffer", TGFTP_TCP_BUFFERS),
    _tunable("block_size"),
    _tunable("concurrency"),
    _tunable("pipeline"),
    _tunable("fast"),
)


def params_line(params: Mapping[str, Any] | GucOptions, extra_args: Sequence[str] = ()) -> str:
    """``-vb`` then the options in guc-table order, then any extra arguments; no ``-len``: what tgftp
    prints for the pick of its auto-tune."""
    from .driver import option_args
    from .model import GucOptions

    options = params if isinstance(params, GucOptions) else GucOptions.from_mapping(dict(params))
    without_length = GucOptions(**{**options.set_options(), "length": None})
    extra = [a for a in extra_args if a not in VERBOSE]
    return " ".join(["-vb", *option_args(without_length), *extra])


def label(params: Mapping[str, Any], extra_args: Sequence[str]) -> str:
    return params_line(params, extra_args)


def transfer(source: str, target: str, params: Mapping[str, Any], length: int | None,
             extra_args: Sequence[str]) -> Transfer:
    """One guc transfer of ``length`` bytes (``-len``) with these options."""
    from .driver import build_argv, run_details
    from .model import GucOptions

    options = GucOptions.from_mapping({**params, "length": length})
    argv = build_argv(source, target, options, tuple(extra_args))
    return Transfer(argv, options.set_options(), run_details(argv), length)


GUC_TUNING = Tuning(PARAMETERS, transfer="gftpwb.kinds.guc.tuning:transfer", label="gftpwb.kinds.guc.tuning:label",
                    memory_ends=True, sets_length=True)
