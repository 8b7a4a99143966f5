"""tgftp batchfiles as an input format (``gftpwb run tests.csv``): how one is told from a scenario, and
the converter that reads one. Light on purpose: the front end asks :func:`is_batchfile` of every file
it loads, so the converter (:mod:`gftpwb.converters.batchfile`) is imported only for batchfiles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gftpwb.core.errors import Diagnostic, ScenarioError
from gftpwb.core.formats import InputFormat

if TYPE_CHECKING:
    from gftpwb.converters.batchfile import ImportResult

MAX_BATCHFILE_BYTES = 64 << 20  # as for scenarios: a bounded input


def is_batchfile(path: str, text: str) -> bool:
    """A tgftp batchfile starts with ``#%tgftp%v...``; a file not named .yaml/.yml may have it lower down."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.startswith("#%tgftp"):
        return True
    if path.endswith((".yaml", ".yml")):
        return False
    return any(line.startswith("#%tgftp%v") for line in text.splitlines())


def convert(path: str, data: bytes, environ: Mapping[str, str]) -> ImportResult:
    """The batchfile at ``path`` as a scenario, with a warning at line:col for bytes that are not UTF-8;
    ``environ``: the variables tgftp's bash expanded (``$HOME``)."""
    from gftpwb.converters.batchfile import decode_batchfile, import_batchfile

    if len(data) > MAX_BATCHFILE_BYTES:
        raise ScenarioError([Diagnostic(path, 1, 1, f"batchfile larger than {MAX_BATCHFILE_BYTES >> 20} MiB; "
                                                    "not read")])
    text, undecodable = decode_batchfile(data, path)
    result = import_batchfile(text, path, dict(environ))
    result.warnings = sorted([*undecodable, *result.warnings], key=lambda d: (d.line, d.column))
    return result


FORMAT = InputFormat(name="tgftp-batchfile", description="a tgftp batchfile", claims=is_batchfile,
                     converter="gftpwb.converters.batchfile_format:convert")
