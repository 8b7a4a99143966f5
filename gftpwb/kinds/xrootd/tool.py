"""xrdcp as a copy tool: its options, and how its progress bar and errors read. Pure.

xrdcp (XRootD 5.5) draws ``[808MB/1024MB][ 78%][======>   ][112MB/s]`` on stderr about once a second,
``\\r`` between updates, only when its stdout is a terminal. The sizes count in powers of 1024; the
rate is the bytes so far over the whole seconds since it started (an average, in 1 s steps). Errors
are ``Run: [ERROR] Server responded with an error: [3011] Unable to open ...`` or ``Run: [FATAL]
Connection error``; the exit status is XRootD's error code (51, 54, ...).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gftpwb.kinds.copytool.tool import BOOL_ENV, CHOICE, COUNT, SIZE_VALUE, Tool, ToolOption

if TYPE_CHECKING:  # the output parser is imported when a run reads output, not when the kind loads
    from gftpwb.core.output import ParsedItem

XRDCP = "xrdcp"
PROGRESS_RE = re.compile(
    r"^(?:\[\d+/\d+\])?\[(?P<done>\d+(?:\.\d+)?)(?P<du>[KMGT]?B)/(?P<total>\d+(?:\.\d+)?)(?P<tu>[KMGT]?B)\]"
    r"\[\s*(?P<pct>\d+)%\]\[[=> ]*\]\[(?P<rate>\d+(?:\.\d+)?)(?P<ru>[KMGT]?B)/s\]\s*$")

OPTIONS = (
    ToolOption("streams", COUNT, "TCP connections of the copy (xrdcp -S); XRootD allows up to 15.", flag="-S",
               tunable=True, maximum=15, tune_values=(1, 2, 4, 8)),
    ToolOption("parallel", COUNT, "Files copied at the same time (xrdcp --parallel).", flag="--parallel",
               tunable=True),
    ToolOption("chunk_size", SIZE_VALUE, "Size of each read/write of the copy (XRD_CPCHUNKSIZE; XRootD's default 8M).",
               env="XRD_CPCHUNKSIZE", tunable=True, tune_values=(1 << 20, 8 << 20, 32 << 20)),
    ToolOption("parallel_chunks", COUNT, "Chunks in flight per file (XRD_CPPARALLELCHUNKS; default 4).",
               env="XRD_CPPARALLELCHUNKS", tunable=True),
    ToolOption("page_checksums", BOOL_ENV,
               "Page reads and writes with a CRC32C per 4 KiB page (XRD_CPUSEPGWRTRD; on by default in XRootD 5: "
               "costs the client CPU, false turns it off).", env="XRD_CPUSEPGWRTRD", tunable=True),
    ToolOption("checksum", CHOICE, "Verify the copy with this checksum at the end (xrdcp --cksum TYPE): those "
               "xrootd computes itself (zcrc32 needs a server plug-in).",
               flag="--cksum", choices=("adler32", "crc32", "crc32c", "md5", "auto")),
    ToolOption("tpc", CHOICE, "Third-party copy between two servers (xrdcp --tpc): only (fail without TPC) or "
               "first (fall back to a copy through this host).", flag="--tpc", choices=("only", "first")),
    ToolOption("rate_limit", SIZE_VALUE, "Limit the copy to this many bytes per second (xrdcp -X).", flag="-X"),
)


def classify(stream: str, line: str) -> ParsedItem | bool | None:
    from gftpwb.core.output import ProgressSample
    from gftpwb.kinds.copytool.lines import size_bytes

    match = PROGRESS_RE.match(line.strip())
    if match is None:
        return True
    rate = size_bytes(match["rate"], match["ru"]) / 1048576
    return ProgressSample(size_bytes(match["done"], match["du"]), round(rate, 3), None)


def make_parser() -> Any:
    """A fresh parser of the tool's output lines."""
    from gftpwb.kinds.copytool.lines import LineParser

    return LineParser(classify)


def summarize_error(lines: Sequence[str]) -> str:
    """xrdcp's ``Run: [...]`` lines, without the prefix, most specific first."""
    found = [line.split("Run: ", 1)[1].strip() for line in lines if "Run: [" in line]
    return "\n".join(dict.fromkeys(found or [line.strip() for line in lines[-5:]]))


XRDCP_TOOL = Tool(
    kind="xrootd", program=XRDCP, package="xrootd-client", options=OPTIONS, parser=make_parser,
    summarize_error=summarize_error, url_schemes=("root", "xroot", "roots"), fixed_args=("-f",),
    own_rate_step_s=1.0, files_style="each",
    description="XRootD copies with xrdcp: to and from an xrootd server, or between two (--tpc).")
