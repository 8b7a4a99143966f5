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
    """A tgftp batchfile starts with ``#%tgftp%v...``; a file not named .yaml/.yml/.json may have it lower
    down, or not at all when its first line that is not a comment is a batch line (tgftp's 9 fields:
    tgftp 0.7.0 ran a file without the header as a batchfile of its own version)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.startswith("#%tgftp"):
        return True
    if path.endswith((".yaml", ".yml", ".json")):
        return False
    lines = text.splitlines()
    if any(line.startswith("#%tgftp%v") for line in lines):
        return True
    return looks_like_batch_line(next((line for line in lines if line.strip() and not line.startswith("#")), ""))


def looks_like_batch_line(line: str) -> bool:
    """A line with at least tgftp's 9 ``;``-separated fields and a source in the first (a URL or a path,
    not a YAML key)."""
    source = line.split(";", 1)[0].strip()
    return line.count(";") >= 8 and bool(source) and ("://" in source or source.startswith(("/", "~", "$", "'", '"')))


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
