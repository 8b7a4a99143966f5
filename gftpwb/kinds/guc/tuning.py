"""What an auto-tune may vary in guc's transfers (its tuning facet): -p, -tcp-bs, -bs, -cc, -pp and
-fast, a transfer with given values (``-len`` bytes, ``-vb`` for progress where the mode rule lets
it), and a candidate's label: the arguments of the command that ran, as tgftp -a prints its line
(``-vb -p 16 -tcp-bs 8M``). Between two servers a candidate without -p runs in stream mode without
``-vb``, so it is shown as what ran, not as tgftp's ``-vb``. tgftp's 37 configurations vary -p (1 to
32) and -tcp-bs (1M to 16M): those are the values a search tries when it names none."""

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


NO_OPTIONS = "(no options)"  # a candidate that runs guc with no arguments but -len and the ends
FILE_ENDS = ("file:///dev/zero", "file:///dev/null")  # ends where -vb leaves the transfer mode alone


def args_line(argv: Sequence[str]) -> str:
    """guc's arguments in ``argv`` without the program, the two URLs and ``-len N`` (the size every
    candidate of a tune shares): the line tgftp -a prints for its pick (``-vb -p 16 -tcp-bs 8M``), of
    the command that ran. Empty when guc ran with nothing else (stream mode between two servers)."""
    args = list(argv[1:-2])
    for flag in ("-len", "-partial-length"):
        while flag in args:
            at = args.index(flag)
            del args[at:at + 2]
    return " ".join(args)


def label(made: Transfer, extra_args: Sequence[str] = ()) -> str:
    """A candidate as it ran: :func:`args_line` of its transfer's argv, or :data:`NO_OPTIONS`."""
    return args_line(made.argv) or NO_OPTIONS


def params_line(params: Mapping[str, Any] | GucOptions, extra_args: Sequence[str] = ()) -> str:
    """The line of a transfer with these options where ``-vb`` leaves the mode alone (a file end):
    ``-vb`` then the options in guc-table order, then any extra arguments; no ``-len``."""
    from .model import GucOptions

    options = params if isinstance(params, GucOptions) else GucOptions.from_mapping(dict(params))
    return args_line(transfer(*FILE_ENDS, options.set_options(), None, extra_args).argv)


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
