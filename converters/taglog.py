"""tgftp's tag-style log format: write one from a result record, and read tags back.

The standard tags hold exactly what tgftp 0.7.0 would have written (../shared/research/tgftp.md §3,
checked against the real script by tests/compat): COMMENT, TGFTP_COMMAND, COMMAND, OUTPUT (guc's
output, then the newline tgftp adds), START and END (local time, whole seconds), then ERROR on
failure (a timeout too is ``failed.``: tgftp 0.7.0 never wrote ``timed out.``), or LIST, SIZE and
RATE on success: SIZE from the ``-len`` text as tgftp read it (``-len 1024M`` is ``1024 MB``), RATE
by tgftp's own formula on the whole seconds of START and END. Connection tests have no SIZE or RATE.

gftpwb's own figures come first, as ``GFTPWB_*`` tags ending with ``GFTPWB_RECORD`` (the record as
one line of JSON with ``<`` and ``>`` escaped). tgftp_log's sed range only ever reads downwards from a
line that names the tag (``<TAG>``), and no gftpwb line names one, so the real tgftp_log prints from
our logs exactly what it prints from tgftp's, even when a comment opens a tag it never closes.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime

from gftpwb.core.recordcheck import unreadable
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, STATUSES, TIMEOUT, RecordError, ResultRecord
from gftpwb.core.scenario.keys import NAME_PATTERN
from gftpwb.core.undecodable import restore_undecodable, set_aside_undecodable
from gftpwb.core.units import GIB, KIB, MIB
from gftpwb.kinds.guc.driver import quantised, summarize_error
from gftpwb.kinds.guc.gucargs import length_from_args, split_guc_args
from gftpwb.kinds.guc.output import GucOutputParser, ProgressSample
from gftpwb.tgftp.bash import echo_e
from gftpwb.tgftp.model import length_texts, listing_size, rate_text, size_text

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
# gftpwb's own tags, in the order they are written (before the standard ones).
GFTPWB_TAGS = ("GFTPWB_RUN_ID", "GFTPWB_HOST", "GFTPWB_STATUS", "GFTPWB_RATE_INCL_SETUP_MIB_S",
               "GFTPWB_RATE_GUC_AVG_MIB_S", "GFTPWB_SECONDS", "GFTPWB_ERROR_DETAIL", "GFTPWB_RECORD")

INTERRUPTED_TEXT = 'ERROR: "globus-url-copy" was interrupted.'
FAILED_TEXT = 'ERROR: "globus-url-copy" failed.'
TIMED_OUT_TEXT = 'ERROR: "globus-url-copy" timed out.'  # tgftp <= 0.6.1; read, never written

TIMESTAMP_FORMAT = "%Y-%m-%d_%H:%M:%S"


def epoch_seconds(iso_utc: str) -> int:
    """Whole seconds since the epoch (tgftp's ``date +%s``) of our ISO 8601 UTC timestamp."""
    return int(datetime.fromisoformat(iso_utc).timestamp() // 1)


def is_timestamp(text: str) -> bool:
    """Is ``text`` an ISO 8601 time a record can hold (a damaged journal or tag log may hold anything)?"""
    try:
        datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError, OSError):
        return False
    return True


def tgftp_timestamp(iso_utc: str) -> str:
    """tgftp's ``YYYY-mm-dd_HH:MM:SS`` in local time, from our ISO 8601 UTC timestamp ("" for none, or for
    text that is not one)."""
    if not iso_utc or not is_timestamp(iso_utc):
        return ""
    return datetime.fromtimestamp(epoch_seconds(iso_utc)).astimezone().strftime(TIMESTAMP_FORMAT)


def _block(tag: str, value: str) -> str:
    return f"<{tag}>\n{value}\n</{tag}>\n"


def tgftp_texts(record: ResultRecord) -> dict:
    """What the tgftp drop-in recorded about its run (``details["tgftp"]``): the guc parameters and the
    guc command as tgftp's shell had them, and that its log is written with ``echo -e``."""
    texts = record.details.get("tgftp")
    return texts if isinstance(texts, dict) else {}


def size_and_rate(record: ResultRecord) -> tuple[str, str] | None:
    """The SIZE and RATE values tgftp would have written for a passed run, or None (no rate)."""
    if record.status != PASSED or not is_timestamp(record.started_at) or not is_timestamp(record.ended_at):
        return None
    if "connection_test" in record.details:  # a connection test's record carries its steps: tgftp had no rate
        return None
    texts = tgftp_texts(record)
    params = texts.get("params", " ".join(record.argv[1:-2]))
    length = length_texts(params)
    listing = record.details.get("transfer_list")
    if length:
        size, amount = size_text(length), length
    elif isinstance(listing, str):
        amount = listing_size(listing, {})
        size = f"{amount} B"
    elif texts or record.details.get("tgftp_style") or record.bytes is None:
        return None  # tgftp had no size for this transfer (/dev/zero or /dev/null without -len)
    else:
        amount = str(record.bytes)
        size = f"{amount} B"
    if record.engine != "real" and record.seconds is not None:
        # a simulated transfer took its model's time, not the clock's: its whole seconds
        return size, rate_text(amount, 0, int(record.seconds))
    return size, rate_text(amount, epoch_seconds(record.started_at), epoch_seconds(record.ended_at))


def format_taglog(record: ResultRecord, tgftp_command: str = "") -> str:
    """The tag log tgftp would have written for this run, after gftpwb's own tags. ``tgftp_command`` is
    the TGFTP_COMMAND value, unless the record keeps its own (``details.tgftp_command``: a log it was
    imported from, or the drop-in's command line)."""
    record = restore_undecodable(record)  # bytes that are not UTF-8 are written back as they were
    kept = record.details.get("tgftp_command")
    tgftp_command = kept if isinstance(kept, str) else tgftp_command
    original = record.details.get("tgftp_log")
    if isinstance(original, list):
        standard = "".join(_kept_tag(entry, record) for entry in original if isinstance(entry, list) and entry)
        return _own_tags(record, standard) + standard
    texts = tgftp_texts(record)
    echo = echo_e if texts.get("echo_e") or record.details.get("tgftp_style") else (lambda text: text)
    command = texts.get("command", shlex.join(record.argv))
    parts = [
        echo(_block(COMMENT, record.comment)),
        echo(_block(TGFTP_COMMAND, tgftp_command)),
        echo(_block(COMMAND, command)),
        _block(OUTPUT, record.output),  # guc's output, then the newline tgftp adds
        _block(START, tgftp_timestamp(record.started_at)),
        _block(END, tgftp_timestamp(record.ended_at)),
    ]
    if record.status != PASSED:
        parts.append(_block(ERROR, INTERRUPTED_TEXT if record.status == INTERRUPTED else FAILED_TEXT))
    else:
        sized = size_and_rate(record)
        listing = record.details.get("transfer_list")
        if isinstance(listing, str) and (sized is not None or texts):
            parts.append(echo(_block(LIST, listing)))
        if sized is not None:
            parts.append(_block(SIZE, sized[0]))
            parts.append(_block(RATE, f"{sized[1]} MB/s"))
    standard = "".join(parts)
    return _own_tags(record, standard) + standard


def _kept_tag(entry: list, record: ResultRecord) -> str:
    """A standard tag of an imported tgftp log, written back as it was (:func:`_kept_block`)."""
    tag = str(entry[0])
    if entry[1:2] == [None]:  # held by the record
        value = record.comment if tag == COMMENT else record.output
    else:
        value = str(entry[1]) if len(entry) > 1 else ""
    if len(entry) == 3 and isinstance(entry[2], str):
        return entry[2] if entry[2].endswith("\n") else entry[2] + "\n"
    return _block(tag, value)


def _own_tags(record: ResultRecord, standard: str) -> str:
    """gftpwb's tags, written before the standard ones (``standard``), ending with the record."""
    own = [_block("GFTPWB_RUN_ID", record.run_id)]
    if record.host and record.host != "local":
        own.append(_block("GFTPWB_HOST", record.host))
    own.append(_block("GFTPWB_STATUS", record.status))
    if record.rate_incl_setup_mib_s is not None:
        own.append(_block("GFTPWB_RATE_INCL_SETUP_MIB_S", f"{record.rate_incl_setup_mib_s:.3f}"))
    if record.rate_guc_avg_mib_s is not None:
        own.append(_block("GFTPWB_RATE_GUC_AVG_MIB_S", f"{record.rate_guc_avg_mib_s:.2f}"))
    if record.seconds is not None:
        own.append(_block("GFTPWB_SECONDS", f"{record.seconds:.3f}"))
    if record.error and "<" not in record.error:  # a "<TAG>" in it could open a range for tgftp_log
        own.append(_block("GFTPWB_ERROR_DETAIL", record.error))
    with_output = not _output_reads_back(standard, record.output)
    own.append(_block(RECORD, record_json(record, with_output=with_output)))
    return "".join(own)


RECORD = "GFTPWB_RECORD"


def _first_value(text: str, tag: str) -> str | None:
    return next((value for name, value in parse_tags(text) if name == tag), None)


def _output_reads_back(text: str, output: str) -> bool:
    """Does a reader find ``output`` at the start of the first output tag of ``text``? Not when the
    comment, the command or the output itself holds lines that look like tags."""
    value = _first_value(text, OUTPUT)
    return value is not None and value[: len(output)] == output


def record_json(record: ResultRecord, *, with_output: bool = False) -> str:
    """The record as one line of JSON for the ``GFTPWB_RECORD`` tag, with ``<`` and ``>`` escaped so no
    reader of tags mistakes it for a tag.

    guc's output is left out (it is in the output tag) unless a reader could not find it there
    unchanged; ``output_chars`` says how much of the output tag's text is the output.
    """
    data = asdict(record)
    output = data.pop("output")
    data["output_chars"] = len(output)
    if with_output:
        data["output"] = output
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def _record_line(text: str) -> tuple[str, int] | None:
    """The JSON line of gftpwb's ``GFTPWB_RECORD`` tag and its line number: the first one when the log
    starts with gftpwb's tags (nothing a comment or guc's output holds comes before it), else the last
    one (logs of gftpwb before 0.2 wrote its tags at the end)."""
    lines = text.split("\n")
    if text.startswith("<GFTPWB_"):
        for index in range(len(lines) - 2):
            if lines[index] == f"<{RECORD}>" and lines[index + 2] == f"</{RECORD}>":
                return lines[index + 1], index + 2
            if lines[index] == f"<{COMMENT}>":
                break
        return None
    for index in range(len(lines) - 3, -1, -1):
        if lines[index] == f"<{RECORD}>" and lines[index + 2] == f"</{RECORD}>":
            return lines[index + 1], index + 2
    return None


@dataclass(frozen=True)
class TagBlock:
    """One ``<TAG>`` ... ``</TAG>`` block: its value, and its tag lines as written (``closing`` None when
    the block runs to the end of the text)."""

    tag: str
    value: str
    opening: str
    closing: str | None
    raw: str  # the block as written, tag lines included (to the end of the text when left open)
    lines: int  # how many value lines it has (an empty value is one empty line or none)

    @property
    def exact(self) -> bool:
        """Is it written as :func:`format_taglog` writes a value: ``<TAG>``, at least one line, ``</TAG>``
        (or the end of the text)?"""
        return self.opening == f"<{self.tag}>" and self.closing in (f"</{self.tag}>", None) and self.lines > 0


_BLANKS = " \t"


def parse_tag_blocks(text: str) -> list[TagBlock]:
    """Every ``<TAG>`` ... ``</TAG>`` block in order, as tgftp_log reads them.

    Like tgftp_log's ``sed -n '/<TAG>/,/<\\/TAG>/p'``, a block runs from an opening line to the next
    matching closing line; a block left open runs to the end of the text (a log cut short by a crash).
    A tag line may have blanks around the tag (``<GSIFTP_TRANSFER_SIZE> ``: tgftp_log opens its range
    there too, and then prints that line with the value).
    """
    blocks: list[TagBlock] = []
    lines = text.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        bare = line.strip(_BLANKS)
        if bare.startswith("<") and bare.endswith(">") and not bare.startswith("</") and len(bare) > 2:
            start = index
            tag = bare[1:-1]
            closing = f"</{tag}>"
            value_lines = []
            index += 1
            while index < len(lines) and lines[index].strip(_BLANKS) != closing:
                value_lines.append(lines[index])
                index += 1
            closed = index < len(lines)
            raw = "\n".join(lines[start:index + 1]) + "\n" if closed else "\n".join(lines[start:])
            blocks.append(TagBlock(tag, "\n".join(value_lines), line, lines[index] if closed else None, raw,
                                   len(value_lines)))
        index += 1
    return blocks


def parse_tags(text: str) -> list[tuple[str, str]]:
    """Every block of :func:`parse_tag_blocks` as (tag, value)."""
    return [(block.tag, block.value) for block in parse_tag_blocks(text)]


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
_SCENARIO_NAME = re.compile(NAME_PATTERN.removeprefix("^").removesuffix("$"))


class TagLogError(ValueError):
    """The text is not a tag log we can read (no tgftp or gftpwb tags at all), or gftpwb's record in it is
    damaged; ``line`` is the log's line the problem is on (0: the whole file)."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.reason = message

    def located(self, path: str) -> str:
        """The message as ``path:line: reason`` (``path: reason`` without a line)."""
        return f"{path}:{self.line}: {self.reason}" if self.line else f"{path}: {self.reason}"


@dataclass(frozen=True)
class LogName:
    """What a tag log's file name says: tgftp's batch names are ``<batchfile>_#<test>_<exec>.log``."""

    scenario: str | None
    test: str
    case: int | None
    repeat: int


def valid_scenario_name(name: str) -> str:
    """``name`` as a scenario name (it names results directories): characters a name cannot hold become
    ``_``, as for batchfiles (gftpwb.converters.batchfile.scenario_name_for), so ``../../x`` is ``x``."""
    if _SCENARIO_NAME.fullmatch(name):
        return name
    return re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip("._-") or "imported"


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


@dataclass(frozen=True)
class LogIdentity:
    """The run a tgftp tag log stands for, read from its file name alone: what ``import taglogs`` gives a
    tgftp log, and a log of the tgftp drop-in too (its ``GFTPWB_RECORD`` then agrees with its name)."""

    scenario: str
    test_id: str
    run_id: str
    case: int
    repeat: int

    def fields(self) -> dict[str, object]:
        return {"scenario": self.scenario, "test_id": self.test_id, "run_id": self.run_id, "case": self.case,
                "repeat": self.repeat}


def log_identity(name: str, scenario: str, case: int) -> LogIdentity:
    """The run of the tag log called ``name``: a batch log (``tests.csv_#003_001.log``) is scenario
    ``tests.csv``, test ``test-003``, run ``test-003/1``; any other log is scenario ``scenario``, case
    ``case``, its test its name without ``_NNN.log`` and its repeat that ``NNN`` (0 without one), so
    tgftp's ``x_000.log``, ``x_001.log`` are two runs of ``x`` (the executions of one batch line,
    ``execs``: :func:`number_cases` gives them one case) and two single tests two tests."""
    parsed = parse_log_name(name)
    scenario_name = valid_scenario_name(parsed.scenario) if parsed.scenario else scenario
    return LogIdentity(scenario_name, parsed.test, f"{parsed.test}/{parsed.repeat}",
                       parsed.case if parsed.case is not None else case, parsed.repeat)


def number_cases(imported: list[ImportedLog]) -> None:
    """One case per batch line among logs tgftp wrote without a batch name (``nightly_000.log``,
    ``nightly_001.log``, ... of a line with ``execs`` 3): the logs of one test that ran the same line
    (the same guc command, comment and tgftp command, but for the log's own number) are the repeats of
    one case, numbered by the test's lines in the order met (0 for the first, as the drop-in's records
    say of theirs); a log whose record says its case (the drop-in's) and a batch log
    (``tests.csv_#003_001.log``, the case in its name) keep theirs. So a line run three times is one
    case of three runs, not three cases of one, in every report, comparison and the history."""
    lines: dict[tuple[str, str], list[tuple]] = {}
    for entry in imported:
        record = entry.record
        if record.details.get("written_by") != "tgftp" or parse_log_name(record.taglog).case is not None:
            continue
        line = _batch_line(record)
        seen = lines.setdefault((record.scenario, record.test_id), [])
        if line not in seen:
            seen.append(line)
        entry.record = replace(record, case=seen.index(line))


def _batch_line(record: ResultRecord) -> tuple:
    """What one batch line gives every log of its executions: guc's command, the comment, and tgftp's
    command with the log's own name in the form the line gave it (``x_001.log`` -> ``x.log``)."""
    command = str(record.details.get("tgftp_command") or "")
    match = _EXEC_NAME.match(record.taglog)
    if match:
        command = command.replace(record.taglog, f"{match['stem']}.log")
    return tuple(record.argv), record.comment, command


def written_by_dropin(record: ResultRecord) -> bool:
    """Did the tgftp drop-in write this record (a ``tgftp`` command, not ``gftpwb run``)? Its run is
    named after its log, as a tgftp log's is (older drop-ins named every run ``tgftp/0``)."""
    return isinstance(record.details.get("tgftp"), dict) and isinstance(record.details.get("tgftp_command"), str)


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
    tgftp_command: str | None = None  # a gftpwb log's TGFTP_COMMAND (its record does not hold it)


def record_from_taglog(text: str, name: str, *, scenario: str = "imported", case: int = 0) -> ImportedLog:
    """A result record from a tag log written by tgftp (0.4-0.7) or by gftpwb.

    A gftpwb log carries its whole record (``GFTPWB_RECORD``) and comes back exactly. A tgftp log is
    read from its standard tags: the error line gives the status (tgftp 0.7.0 logged timeouts as
    "failed", so those stay failed), the size tag or the ``-len`` of the guc command the byte count,
    the rate tag tgftp's integer rate (whole-second timing, kept as the "incl. set-up" rate and in
    ``details.tgftp_rate_mb_s``), and guc's own last ``-vb`` average, when the output has one, the
    precise "guc avg" rate. ``name`` (the file name) gives test, case and repeat when it follows
    tgftp's ``<batchfile>_#NNN_MMM.log``; otherwise ``scenario`` and ``case`` are used.

    A tgftp log's standard tags are also kept as they were (``details.tgftp_log``: the tags in their
    order, the values but the comment and guc's output, which the record holds), so exporting the
    record writes them back and tgftp_log reads from it what it read from the original. A log with
    CRLF line ends is read as if it had LF ones (and noted).
    """
    crlf = text.split("\n", 1)[0].endswith(">\r")  # a converted file (guc's own lines may end in \r)
    if crlf:
        text = text.replace("\r\n", "\n")
    blocks = parse_tag_blocks(text)
    tags: dict[str, str] = {}
    for block in blocks:
        tags.setdefault(block.tag, block.value)
    found = _record_line(text)
    if found is not None:
        imported = _from_record_tag(found[0], found[1], tags)
        imported.tgftp_command = tags.get(TGFTP_COMMAND)
        if written_by_dropin(imported.record):  # named as the same log without gftpwb's tags would be,
            identity = log_identity(name, scenario, imported.record.case)  # in the case its record says
            imported.record = replace(imported.record, **identity.fields())
        imported.record = set_aside_undecodable(imported.record)
        return imported
    if not any(tag in tags for tag in (COMMAND, START, COMMENT, OUTPUT)):
        raise TagLogError("not a tgftp tag log: none of <GSIFTP_TRANSFER_COMMAND>, <GSIFTP_TRANSFER_START>, "
                          "<GSIFTP_TRANSFER_LOG_COMMENT> found")
    imported = _from_tgftp_tags(tags, name, scenario, case)
    standard = [block for block in blocks if block.tag in STANDARD_TAGS]
    held = {next((b for b in standard if b.tag == tag), None) for tag in (COMMENT, OUTPUT)}  # the record's
    imported.record.details["tgftp_log"] = [_kept_block(block, block in held) for block in standard]
    if crlf:
        imported.notes.append("CRLF line ends read as LF")
    imported.record = set_aside_undecodable(imported.record)
    return imported


def _kept_block(block: TagBlock, held: bool) -> list[str | None]:
    """A standard tag of a tgftp log as the record keeps it (``details.tgftp_log``): ``[tag, value]`` (the
    value None when the record holds it: the first comment and guc's first output), and the whole block
    as it was written when it is not written as gftpwb writes one (tag lines with blanks, which
    tgftp_log prints; no value line at all)."""
    kept: list[str | None] = [block.tag, None if held else block.value]
    if not block.exact:
        kept.append(block.raw)
    return kept


def _from_record_tag(line: str, number: int, tags: dict[str, str]) -> ImportedLog:
    """The record of a ``GFTPWB_RECORD`` line (``number``: its line in the log). A damaged one is an
    error at its line, not a reason to read the log as tgftp's: its standard tags would give a record
    with another scenario, test and figures than the one gftpwb wrote."""
    if not line.isascii():  # record_json writes ASCII only: a byte beyond it was put there since
        column = next(i for i, char in enumerate(line) if not char.isascii()) + 1
        raise TagLogError(f"<{RECORD}> is damaged: a character gftpwb never writes there (column {column}; "
                          "the record is written in ASCII)", number)
    try:
        data = json.loads(line)
    except ValueError as exc:
        raise TagLogError(f"<{RECORD}> is not one line of JSON ({exc})", number) from None
    if not isinstance(data, dict):
        raise TagLogError(f"<{RECORD}> is not a JSON object", number)
    chars = data.pop("output_chars", None)
    if "output" not in data:
        output = tags.get(OUTPUT, "")
        data["output"] = output[:chars] if isinstance(chars, int) and chars >= 0 else output
    try:
        record = ResultRecord.from_dict(data)
    except RecordError as exc:
        raise TagLogError(f"<{RECORD}> is damaged: {exc}", number) from None
    if record.status not in STATUSES:
        raise TagLogError(f"<{RECORD}> is damaged: status {record.status!r} is not one of {', '.join(STATUSES)}",
                          number)
    if not _SCENARIO_NAME.fullmatch(record.scenario):
        raise TagLogError(f"<{RECORD}>: scenario name {record.scenario!r} is not a valid name (letters, digits, "
                          "'.', '_' and '-', starting with a letter or digit)", number)
    for name in ("started_at", "ended_at"):
        value = getattr(record, name)
        if value and not is_timestamp(value):
            raise TagLogError(f"<{RECORD}> is damaged: {name} {value[:40]!r} is not an ISO 8601 time", number)
    problem = unreadable(record)
    if problem is not None:
        raise TagLogError(f"<{RECORD}> is damaged: {problem}", number)
    return ImportedLog(record, written_by="gftpwb")


def _from_tgftp_tags(tags: dict[str, str], name: str, scenario: str, case: int) -> ImportedLog:
    notes: list[str] = []
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
        notes.append(f"rate tag holds no rate: {rate_text if rate_text.isprintable() else repr(rate_text)}")
        details["tgftp_rate_note"] = rate_text
    if status == PASSED and nbytes is None and progress is not None:
        nbytes = progress.bytes
    if status != PASSED:
        rate = None
    error = ""
    if status != PASSED:
        detail = summarize_error(output.splitlines())
        error = "\n".join(part for part in (error_text, detail) if part)
    if status == PASSED and progress is not None and quantised(progress.bytes, progress.avg_mib_s):
        details["guc_avg_quantised"] = True  # as a run of gftpwb's with the same output is marked
    kind = "connection-test" if "-dbg" in guc_argv else "guc"
    record = ResultRecord(
        **log_identity(name, scenario, case).fields(), kind=kind, host="unknown", argv=argv, status=status,
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
