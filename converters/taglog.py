"""tgftp's tag-style log format: write one from a result record, and read tags back.

The layout is tgftp 0.7.0's (see ../shared/research/tgftp.md §3): each attribute is ``<TAG>`` on its
own line, the value, ``</TAG>`` on its own line; order COMMENT, TGFTP_COMMAND, COMMAND, OUTPUT (with
one empty line after guc's output), START, END, then ERROR on failure or SIZE and RATE on success.
The rate tag holds tgftp's integer ``N MB/s`` (MiB, truncated). Our own precise figures follow as
extra ``GFTPWB_*`` tags, after the standard ones, which tgftp_log ignores.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime

from gftpwb.core.rates import tgftp_rate_text, tgftp_size_text
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, STATUSES, TIMEOUT, ResultRecord
from gftpwb.core.units import GIB, KIB, MIB
from gftpwb.kinds.guc.driver import summarize_error
from gftpwb.kinds.guc.output import GucOutputParser, ProgressSample

from .gucargs import length_from_args, split_guc_args

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
    head = "".join(parts)
    return head + _block(RECORD, record_json(record, with_output=not _output_reads_back(head, record.output)))


RECORD = "GFTPWB_RECORD"


def _first_value(text: str, tag: str) -> str | None:
    return next((value for name, value in parse_tags(text) if name == tag), None)


def _output_reads_back(text: str, output: str) -> bool:
    """Does a reader find ``output`` at the start of the first output tag of ``text``? Not when the
    comment, the command or the output itself holds lines that look like tags."""
    value = _first_value(text, OUTPUT)
    return value is not None and value[: len(output)] == output


def record_json(record: ResultRecord, *, with_output: bool = False) -> str:
    """The record as one line of JSON for the ``GFTPWB_RECORD`` tag.

    guc's output is left out (it is in the output tag above) unless a reader could not find it there
    unchanged; ``output_chars`` says how much of the output tag's text is the output (the writer adds
    a newline and tgftp's empty line).
    """
    data = asdict(record)
    output = data.pop("output")
    data["output_chars"] = len(output)
    if with_output:
        data["output"] = output
    return json.dumps(data, ensure_ascii=True, separators=(",", ":"))


def _record_line(text: str) -> str | None:
    """The JSON line of the last ``GFTPWB_RECORD`` tag, found from the end of the log, so nothing a
    comment or guc's output holds can hide it."""
    lines = text.split("\n")
    for index in range(len(lines) - 3, -1, -1):
        if lines[index] == f"<{RECORD}>" and lines[index + 2] == f"</{RECORD}>":
            return lines[index + 1]
    return None


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


# --- tgftp_log ----------------------------------------------------------------------------------


def get_attribute(text: str, attribute: str) -> list[str]:
    """The value lines tgftp_log prints for ``attribute``: ``sed -n '/<A>/,/<\\/A>/p' | sed '/^<.*A>$/d'``.

    A range opens on any line containing ``<A>`` and closes on a later line containing ``</A>`` (or
    runs to the end of the file); ranges may repeat. Lines that start with ``<`` and end with ``A>``
    are then dropped. Every occurrence is returned, as tgftp_log prints them all.
    """
    opening, closing = f"<{attribute}>", f"</{attribute}>"
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    selected: list[str] = []
    inside = False
    for line in lines:
        if inside:
            selected.append(line)
            if closing in line:
                inside = False
        elif opening in line:
            selected.append(line)
            inside = True
    return [line for line in selected if not (line.startswith("<") and line.endswith(f"{attribute}>"))]


def attribute_is_empty(lines: list[str]) -> bool:
    """tgftp_log's "not found ... or empty": nothing but empty lines (as ``$(...)`` would see it)."""
    return "\n".join(lines).strip("\n") == ""


# --- reading tag logs back into records ---------------------------------------------------------


_BATCH_NAME = re.compile(r"^(?P<scenario>.+)_#(?P<case>\d{3,})_(?P<repeat>\d{3,})\.log$")
_EXEC_NAME = re.compile(r"^(?P<stem>.+)_(?P<repeat>\d{3,})\.log$")
_SIZE_TEXT = re.compile(r"^\s*(?P<n>\d+)\s*(?P<unit>GB|MB|KB|B)\s*$")
_RATE_TEXT = re.compile(r"^\s*(?P<n>\d+)\s*MB/s\s*$")
_ID_CHARS = re.compile(r"[^A-Za-z0-9._-]")


class TagLogError(ValueError):
    """The text is not a tag log we can read (no tgftp or gftpwb tags at all)."""


@dataclass(frozen=True)
class LogName:
    """What a tag log's file name says: tgftp's batch names are ``<batchfile>_#<test>_<exec>.log``."""

    scenario: str | None
    test: str
    case: int | None
    repeat: int


def parse_log_name(name: str) -> LogName:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    match = _BATCH_NAME.match(base)
    if match:
        case = int(match["case"])
        return LogName(match["scenario"], f"test-{case:03d}", case, int(match["repeat"]))
    match = _EXEC_NAME.match(base)
    stem, repeat = (match["stem"], int(match["repeat"])) if match else (base.removesuffix(".log"), 0)
    test = _ID_CHARS.sub("_", stem).lstrip("._-") or "log"
    return LogName(None, test, None, repeat)


def _local_to_utc_iso(stamp: str) -> str:
    """tgftp's local ``YYYY-mm-dd_HH:MM:SS`` as ISO 8601 UTC (read in this machine's time zone)."""
    try:
        local = datetime.strptime(stamp.strip(), TIMESTAMP_FORMAT)
    except ValueError:
        return ""
    return local.astimezone().astimezone(UTC).isoformat(timespec="microseconds")


def _size_bytes(text: str) -> int | None:
    match = _SIZE_TEXT.match(text)
    if match is None:
        return None
    return int(match["n"]) * {"GB": GIB, "MB": MIB, "KB": KIB, "B": 1}[match["unit"]]


def _last_progress(output: str) -> ProgressSample | None:
    parser = GucOutputParser()
    items = parser.feed("stdout", output.encode("utf-8", errors="replace")) + parser.close()
    samples = [item for item in items if isinstance(item, ProgressSample)]
    return samples[-1] if samples else None


@dataclass
class ImportedLog:
    record: ResultRecord
    notes: list[str] = field(default_factory=list)
    written_by: str = "tgftp"  # or "gftpwb"


def record_from_taglog(text: str, name: str, *, scenario: str = "imported", case: int = 0) -> ImportedLog:
    """A result record from a tag log written by tgftp (0.4-0.7) or by gftpwb.

    A gftpwb log carries its whole record (``GFTPWB_RECORD``) and comes back exactly. A tgftp log is
    read from its standard tags: the error line gives the status (tgftp 0.7.0 logged timeouts as
    "failed", so those stay failed), the size tag or the ``-len`` of the guc command the byte count,
    the rate tag tgftp's integer rate (whole-second timing, kept as the "incl. set-up" rate and in
    ``details.tgftp_rate_mb_s``), and guc's own last ``-vb`` average, when the output has one, the
    precise "guc avg" rate. ``name`` (the file name) gives test, case and repeat when it follows
    tgftp's ``<batchfile>_#NNN_MMM.log``; otherwise ``scenario`` and ``case`` are used.
    """
    tags: dict[str, str] = {}
    for tag, value in parse_tags(text):
        tags.setdefault(tag, value)
    record_line = _record_line(text)
    if record_line is not None:
        imported = _from_record_tag(record_line, tags)
        if imported is not None:
            return imported
    if not any(tag in tags for tag in (COMMAND, START, COMMENT, OUTPUT)):
        raise TagLogError("not a tgftp tag log: none of <GSIFTP_TRANSFER_COMMAND>, <GSIFTP_TRANSFER_START>, "
                          "<GSIFTP_TRANSFER_LOG_COMMENT> found")
    return _from_tgftp_tags(tags, name, scenario, case)


def _from_record_tag(line: str, tags: dict[str, str]) -> ImportedLog | None:
    try:
        data = json.loads(line)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    chars = data.pop("output_chars", None)
    if "output" not in data:
        output = tags.get(OUTPUT, "")
        data["output"] = output[:chars] if isinstance(chars, int) and chars >= 0 else output
    try:
        record = ResultRecord.from_dict(data)
    except TypeError:
        return None
    texts = (record.scenario, record.test_id, record.run_id, record.kind, record.status, record.output)
    if not all(isinstance(t, str) for t in texts) or record.status not in STATUSES or not isinstance(record.argv, list):
        return None
    return ImportedLog(record, written_by="gftpwb")


def _from_tgftp_tags(tags: dict[str, str], name: str, scenario: str, case: int) -> ImportedLog:
    notes: list[str] = []
    log_name = parse_log_name(name)
    command = tags.get(COMMAND, "").strip()
    try:
        argv = shlex.split(command)
    except ValueError:
        argv = command.split()
    error_text = tags.get(ERROR, "").strip()
    if ERROR not in tags:
        status = PASSED
    elif "timed out" in error_text:
        status = TIMEOUT
    elif "interrupted" in error_text:
        status = INTERRUPTED
    else:
        status = FAILED
    output = tags.get(OUTPUT, "")  # tgftp's "\n</TAG>" after guc's own last newline: the value is the output
    started_at = _local_to_utc_iso(tags.get(START, ""))
    ended_at = _local_to_utc_iso(tags.get(END, ""))
    seconds = None
    if started_at and ended_at:
        seconds = (datetime.fromisoformat(ended_at) - datetime.fromisoformat(started_at)).total_seconds()
    guc_argv = argv[1:] if argv and argv[0].endswith("globus-url-copy") else argv
    urls = [a for a in guc_argv if "://" in a or a.startswith("/")][-2:]
    params = split_guc_args([a for a in guc_argv if a not in urls])
    progress = _last_progress(output)
    details: dict[str, object] = {"imported_from": name, "written_by": "tgftp"}
    if tags.get(TGFTP_COMMAND):
        details["tgftp_command"] = tags[TGFTP_COMMAND]
    if tags.get(LIST):
        details["transfer_list"] = tags[LIST]
    nbytes = _size_bytes(tags.get(SIZE, ""))
    if nbytes is None:
        nbytes = length_from_args(guc_argv)
    rate = None
    rate_text = tags.get(RATE, "").strip()
    rate_match = _RATE_TEXT.match(rate_text)
    if rate_match:
        rate = float(rate_match["n"])
        details["tgftp_rate_mb_s"] = int(rate_match["n"])
    elif rate_text:
        notes.append(f"rate tag holds no rate: {rate_text}")
        details["tgftp_rate_note"] = rate_text
    if status == PASSED and nbytes is None and progress is not None:
        nbytes = progress.bytes
    if status != PASSED:
        rate = None
    error = ""
    if status != PASSED:
        detail = summarize_error(output.splitlines())
        error = "\n".join(part for part in (error_text, detail) if part)
    kind = "connection-test" if "-dbg" in guc_argv else "guc"
    scenario_name = log_name.scenario or scenario
    case_number = log_name.case if log_name.case is not None else case
    record = ResultRecord(
        scenario=scenario_name, test_id=log_name.test, run_id=f"{log_name.test}/{log_name.repeat}",
        case=case_number, repeat=log_name.repeat, kind=kind, host="unknown", argv=argv, status=status,
        params=_typed_params(params.options), started_at=started_at, ended_at=ended_at, seconds=seconds,
        bytes=nbytes if status == PASSED or nbytes is None else None,
        rate_incl_setup_mib_s=rate, rate_guc_avg_mib_s=progress.avg_mib_s if progress else None,
        exit_code=0 if status == PASSED else None, error=error, output=output, comment=tags.get(COMMENT, ""),
        taglog=name.replace("\\", "/").rsplit("/", 1)[-1], details=details,
    )
    return ImportedLog(record, notes)


def _typed_params(options: dict[str, object]) -> dict[str, object]:
    """Option values as records keep them (sizes in bytes), in guc table order."""
    from gftpwb.kinds.guc.model import GucOptions

    try:
        return dict(GucOptions.from_mapping(dict(options)).set_options())
    except (TypeError, ValueError):
        return dict(options)
