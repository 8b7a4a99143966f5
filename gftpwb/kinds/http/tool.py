"""gfal-copy as the HTTP/WebDAV copy tool: its options, and how its progress and errors read. Pure.

Why gfal-copy rather than davix: it is what FTS drives (gfal2), it does HTTP-TPC in pull and push
mode (``--copy-mode``) and checksums (``-K``), and its progress for a third-party copy comes from the
servers' performance markers, for a streamed copy from its own monitor: ``Copying URL   24s 80%
[===>] 6.41GB 328M/s`` on stdout (sizes in powers of 1024; the rate is the current one), the first
after about 5 s (before, only the elapsed seconds: those lines are dropped). davix-get and davix-cp
print no progress at all. It prints its progress only to a terminal, and errors as ``gfal-copy
error: 2 (No such file or directory) - ...``, exiting with that errno.

Debian's gfal2 Python bindings are built for /usr/bin/python3; gfal-copy's launcher takes the first
``python3`` on PATH that imports them, or ``GFAL_PYTHONBIN``, which gftpwb sets (a PATH with another
python3 first, as pyenv's shims, otherwise makes it fail with "exec: /usr/bin/python: not found").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gftpwb.kinds.copytool.tool import CHOICE, COUNT, FLAG, SIZE_VALUE, Tool, ToolOption

if TYPE_CHECKING:  # the output parser is imported when a run reads output, not when the kind loads
    from gftpwb.core.output import ParsedItem

GFAL_COPY = "gfal-copy"
SYSTEM_PYTHON = "/usr/bin/python3"
PROGRESS_RE = re.compile(
    r"\s(?P<secs>\d+)s\s+(?P<pct>\d+)%\s+\[[=> ]*\]\s+(?P<done>\d+(?:\.\d+)?)(?P<du>[KMGT]?B)\s+"
    r"(?P<rate>\d+(?:\.\d+)?)(?P<ru>[KMGT]?)B?/s\s*$")
COPYING = "Copying "

OPTIONS = (
    ToolOption("streams", COUNT, "Parallel streams (gfal-copy -n): HTTP-TPC asks the puller for as many "
               "(X-Number-Of-Streams); a streamed copy has one.", flag="-n", tunable=True, tune_values=(1, 2, 4, 8)),
    ToolOption("tcp_buffer", SIZE_VALUE, "TCP buffer size (gfal-copy --tcp-buffersize).", flag="--tcp-buffersize",
               tunable=True),
    ToolOption("copy_mode", CHOICE, "HTTP-TPC between two servers: pull (the target fetches), push (the source "
               "sends) or streamed (through this host).", flag="--copy-mode", choices=("pull", "push", "streamed")),
    ToolOption("checksum", CHOICE, "Verify the copy with this checksum (gfal-copy -K). Not CRC32: xrootd's crc32 "
               "is the POSIX cksum one, gfal2's zlib's, so they never match.", flag="-K", choices=("ADLER32", "MD5")),
    ToolOption("checksum_mode", CHOICE, "Which ends' checksums are compared (gfal-copy --checksum-mode).",
               flag="--checksum-mode", choices=("source", "target", "both")),
    ToolOption("just_copy", FLAG, "Skip the checks before the copy (gfal-copy --just-copy): less set-up.",
               flag="--just-copy", tunable=True),
)


def classify(stream: str, line: str) -> ParsedItem | bool | None:
    from gftpwb.core.output import ProgressSample
    from gftpwb.kinds.copytool.lines import size_bytes

    match = PROGRESS_RE.search(line)
    if match is not None:
        rate = size_bytes(match["rate"], match["ru"] or "B") / 1048576
        return ProgressSample(size_bytes(match["done"], match["du"]), None, round(rate, 3))
    text = line.strip()
    if text.startswith(COPYING) and ("File size:" in text or "[DONE]" in text or text.endswith("s")):
        return None  # elapsed seconds only (a streamed copy), or the last line: no bytes to report
    return True


def make_parser() -> Any:
    """A fresh parser of the tool's output lines."""
    from gftpwb.kinds.copytool.lines import LineParser

    return LineParser(classify)


def summarize_error(lines: Sequence[str]) -> str:
    found = [line.split("error:", 1)[1].strip() for line in lines if line.startswith(f"{GFAL_COPY} error:")]
    return "\n".join(dict.fromkeys(found or [line.strip() for line in lines[-5:]]))


GFAL_TOOL = Tool(
    kind="http", program=GFAL_COPY, package="gfal2-util-scripts gfal2-plugin-http gfal2-plugin-file",
    options=OPTIONS, parser=make_parser, summarize_error=summarize_error,
    url_schemes=("http", "https", "dav", "davs"), fixed_args=("-f",),
    fixed_env=(("GFAL_PYTHONBIN", SYSTEM_PYTHON),), own_rate_step_s=None, files_style="recursive",
    local_prefix="file://",
    description="HTTP/WebDAV copies with gfal-copy: to and from an HTTP server, or between two (HTTP-TPC).")
