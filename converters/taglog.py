"""tgftp's tag-style log format: write one from a result record, and read tags back.

The layout is tgftp 0.7.0's (see ../shared/research/tgftp.md §3): each attribute is ``<TAG>`` on its
own line, the value, ``</TAG>`` on its own line; order COMMENT, TGFTP_COMMAND, COMMAND, OUTPUT (with
one empty line after guc's output), START, END, then ERROR on failure or SIZE and RATE on success.
The rate tag holds tgftp's integer ``N MB/s`` (MiB, truncated). Our own precise figures follow as
extra ``GFTPWB_*`` tags, after the standard ones, which tgftp_log ignores.
"""

from __future__ import annotations

import shlex
from datetime import datetime

from gftpwb.rates import tgftp_rate_text, tgftp_size_text
from gftpwb.records import INTERRUPTED, PASSED, TIMEOUT, ResultRecord

COMMENT = "GSIFTP_TRANSFER_LOG_COMMENT"
TGFTP_COMMAND = "TGFTP_COMMAND"
COMMAND = "GSIFTP_TRANSFER_COMMAND"
OUTPUT = "GSIFTP_TRANSFER_COMMAND_OUTPUT"
START = "GSIFTP_TRANSFER_START"
END = "GSIFTP_TRANSFER_END"
ERROR = "GSIFTP_TRANSFER_ERROR"
LIST = "GSIFTP_TRANSFER_LIST"
SIZE = "GSIFTP_TRANSFER_SIZE"
RATE = "GSIFTP_TRANSFER_RATE"

# tgftp_log 0.2.0's SUPPORTED_ATTS, in its order.
STANDARD_TAGS = (COMMENT, COMMAND, OUTPUT, START, END, ERROR, RATE, SIZE, LIST, TGFTP_COMMAND)

ERROR_TEXT = {
    TIMEOUT: 'ERROR: "globus-url-copy" timed out.',
    INTERRUPTED: 'ERROR: "globus-url-copy" was interrupted.',
}
FAILED_TEXT = 'ERROR: "globus-url-copy" failed.'

TIMESTAMP_FORMAT = "%Y-%m-%d_%H:%M:%S"


def tgftp_timestamp(iso_utc: str) -> str:
    """tgftp's ``YYYY-mm-dd_HH:MM:SS`` in local time, from our ISO 8601 UTC timestamp."""
    if not iso_utc:
        return ""
    return datetime.fromisoformat(iso_utc).astimezone().strftime(TIMESTAMP_FORMAT)


def _block(tag: str, value: str) -> str:
    return f"<{tag}>\n{value}\n</{tag}>\n"


def format_taglog(record: ResultRecord, tgftp_command: str = "") -> str:
    """The tag log tgftp would have written for this run (plus our extra tags at the end)."""
    output = record.output
    if output and not output.endswith("\n"):
        output += "\n"
    parts = [
        _block(COMMENT, record.comment),
        _block(TGFTP_COMMAND, tgftp_command),
        _block(COMMAND, shlex.join(record.argv)),
        _block(OUTPUT, output),  # guc output, then the one empty line tgftp leaves
        _block(START, tgftp_timestamp(record.started_at)),
        _block(END, tgftp_timestamp(record.ended_at)),
    ]
    if record.status != PASSED:
        parts.append(_block(ERROR, ERROR_TEXT.get(record.status, FAILED_TEXT)))
    elif record.bytes is not None and record.rate_incl_setup_mib_s is not None:
        parts.append(_block(SIZE, tgftp_size_text(record.bytes)))
        parts.append(_block(RATE, tgftp_rate_text(record.rate_incl_setup_mib_s)))
    parts.append(_block("GFTPWB_RUN_ID", record.run_id))
    if record.host and record.host != "local":
        parts.append(_block("GFTPWB_HOST", record.host))
    parts.append(_block("GFTPWB_STATUS", record.status))
    if record.rate_incl_setup_mib_s is not None:
        parts.append(_block("GFTPWB_RATE_INCL_SETUP_MIB_S", f"{record.rate_incl_setup_mib_s:.3f}"))
    if record.rate_guc_avg_mib_s is not None:
        parts.append(_block("GFTPWB_RATE_GUC_AVG_MIB_S", f"{record.rate_guc_avg_mib_s:.2f}"))
    if record.seconds is not None:
        parts.append(_block("GFTPWB_SECONDS", f"{record.seconds:.3f}"))
    if record.error:
        parts.append(_block("GFTPWB_ERROR_DETAIL", record.error))
    return "".join(parts)


def parse_tags(text: str) -> list[tuple[str, str]]:
    """Every ``<TAG>`` ... ``</TAG>`` block in order, as tgftp_log reads them.

    Like tgftp_log's ``sed -n '/<TAG>/,/<\\/TAG>/p'``, a block runs from an opening line to the next
    matching closing line; a block left open runs to the end of the text (a log cut short by a crash).
    """
    blocks: list[tuple[str, str]] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("<") and line.endswith(">") and not line.startswith("</") and len(line) > 2:
            tag = line[1:-1]
            closing = f"</{tag}>"
            value_lines = []
            index += 1
            while index < len(lines) and lines[index] != closing:
                value_lines.append(lines[index])
                index += 1
            blocks.append((tag, "\n".join(value_lines)))
        index += 1
    return blocks
