"""Reading an input file (a scenario, a hosts file it includes): at most 64 MiB, UTF-8, every
problem at a line and column, so ``validate /dev/zero`` or a huge include ends in an error, not in
memory exhaustion."""

from __future__ import annotations

from gftpwb.core.errors import Diagnostic, ScenarioError

MAX_SCENARIO_BYTES = 64 * 1024 * 1024  # a scenario of 20,000 tests is about 2 MiB

__all__ = ["MAX_SCENARIO_BYTES", "TooLarge", "decode_source", "read_bounded", "read_source"]


class TooLarge(Exception):
    """The file holds more than :data:`MAX_SCENARIO_BYTES`."""


def read_bounded(path: str) -> bytes:
    """The bytes of ``path``; raises OSError, or TooLarge past :data:`MAX_SCENARIO_BYTES`."""
    with open(path, "rb") as handle:
        data = handle.read(MAX_SCENARIO_BYTES + 1)
    if len(data) > MAX_SCENARIO_BYTES:
        raise TooLarge(f"larger than {MAX_SCENARIO_BYTES // (1024 * 1024)} MiB")
    return data


def read_source(path: str) -> bytes:
    """The bytes of a scenario file, or a ScenarioError saying why not."""
    try:
        return read_bounded(path)
    except OSError as exc:
        raise ScenarioError([Diagnostic(path, 0, 0, f"cannot read scenario: {exc.strerror or exc}")]) from None
    except TooLarge as exc:
        raise ScenarioError([Diagnostic(path, 0, 0, f"{exc}: not a scenario")]) from None


def decode_source(data: bytes, path: str) -> str:
    """UTF-8 text, or a ScenarioError at the line and column of the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[:exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        raise ScenarioError([Diagnostic(path, line, column, f"not UTF-8 text: byte 0x{data[exc.start]:02x} "
                                                            f"({exc.reason})")]) from None
