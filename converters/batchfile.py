"""tgftp batchfiles (``#%tgftp%v0.4.x`` .. ``0.7.x``) -> gftpwb scenarios, and back.

A batchfile is one test per line, ten ``;``-separated fields (see ../shared/research/tgftp.md §2)::

    source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;post-command;execs

:func:`import_batchfile` reads it exactly as tgftp 0.7.0 did (:mod:`gftpwb.tgftp.model`: its line
and test numbering, the lines it skipped, and the two passes through bash that turned each line
into a child tgftp command line, whose guc call is the third) and writes a DSL v1 scenario: each
test gets guc's parameters as ``args``, exactly as tgftp passed them (``-len 1024M`` stays
``-len 1024M``; nothing is reordered and no ``-vb`` is added), ``tgftp_style`` (tgftp's listing
after each transfer, its buffered output and its tag-log rules), and a pre command that does not
stop the transfer when it fails. ``#`` lines become YAML comments before the test they precede;
every line tgftp skipped or failed stays in the scenario as a comment, with the reason also given
as a ``file:line:col`` warning.

Where tgftp's behaviour was a bug, the scenario departs and says so: the sticky connection-test and
log-comment flags (bug B1) and an empty first timeout (bug B2) are not reproduced; a CRLF file and a
last line without a newline are read; a log name with a directory keeps its file name (logs go to the
results directory); a log name without ``.log`` gets ``_<exec>`` when there are several executions;
connection tests move one byte (``-len 1``, which tgftp 0.5.0-0.7.0 left out).

Pure: text in, text and diagnostics out. :func:`export_batchfile` writes a scenario back as a
batchfile (one line per test case), which makes the round trip testable.
"""

from __future__ import annotations

import contextlib
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from gftpwb import __version__
from gftpwb.core.commands import Command, from_shell_text, to_dsl
from gftpwb.core.dsl.repeats import SEQUENTIAL
from gftpwb.core.errors import Diagnostic, ScenarioError
from gftpwb.core.limits import limits, too_many_runs
from gftpwb.core.plan import first_cases, matrix_points
from gftpwb.core.scenario.keys import NAME_PATTERN
from gftpwb.core.scenario.model import Scenario
from gftpwb.kinds.connection_test.facets import CONNECTION_TEST_TIMEOUT_S
from gftpwb.kinds.guc.model import Test
from gftpwb.kinds.guc.urls import url_problem
from gftpwb.tgftp.args import TgftpUsage
from gftpwb.tgftp.departures import connection_test_length_note, sticky_flag_notes
from gftpwb.tgftp.model import (
    FIELD_NAMES,
    BatchLine,
    Execution,
    eval_code,
    is_text_comment,
    parse_child,
    read_batch,
    single_test,
    split_fields,
)
from gftpwb.tgftp.shellwords import quote_word

from .yamlout import scenario_yaml

HEADER_PREFIX = "#%tgftp%v"
AUTOTUNE_MAGIC = "#%tgftp_autotuning_batchfile"
FIELDS_LINE = "#  " + ";".join(FIELD_NAMES)
EXPORT_VERSION = "0.7.0"
PROGRAM = "tgftp"  # tgftp's $0 on the command lines it generated
# A kind whose tests have a batchfile form names its line writer under this name in Kind.exports
# (the name of the batchfile input format too).
BATCHFILE_EXPORT = "tgftp-batchfile"
_VERSION_RE = re.compile(r"^0\.([4-7])(?:\.(\d+))?$")
_NAME_RE = re.compile(NAME_PATTERN)

# Characters a batchfile line may hold but YAML may not show plainly: C0 and C1 controls but tab, DEL,
# and Unicode's line and paragraph separators (\n ends a line; a \r before it is a CRLF file's).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff]")
_UNDECODABLE = re.compile("[\udc80-\udcff]+")

__all__ = ["ExportError", "ImportResult", "decode_batchfile", "export_batchfile", "import_batchfile",
           "scenario_name_for", "split_fields"]


@dataclass
class TestDraft:
    """One batchfile data line on its way to becoming a scenario test."""

    line: int
    number: int  # tgftp's test number (data lines counted from 0), also the tag log's #NNN
    data: dict[str, Any]
    comments_before: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # warnings, also written as YAML comments


@dataclass
class ImportResult:
    text: str  # the scenario as YAML
    name: str
    version: str
    tests: int
    warnings: list[Diagnostic]
    lines: dict[str, int] = field(default_factory=dict)  # test id -> batchfile line


class _Reader:
    """Diagnostics while reading one batchfile, and what earlier lines set (for tgftp's sticky flags)."""

    def __init__(self, filename: str):
        self.filename = filename
        self.warnings: list[Diagnostic] = []
        self.errors: list[Diagnostic] = []  # what stops the import: raised together at its end
        self.sticky_notes: dict[int, list[tuple[int, str]]] = {}  # line -> where B1 or B2 bit (gftpwb.tgftp.departures)
        self.log_names: dict[str, int] = {}

    def warn(self, line: int, column: int, message: str, draft: TestDraft | None = None) -> None:
        self.warnings.append(Diagnostic(self.filename, line, column, message, severity="warning"))
        if draft is not None:
            draft.notes.append(message)


def scenario_name_for(filename: str) -> str:
    """The scenario name for a batchfile: its base name, which also makes tgftp's log names
    (``<batchfile>_#NNN_MMM.log``) come out the same; characters a name cannot hold become ``_``."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1] or "batchfile"
    if _NAME_RE.match(base):
        return base
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip("._-")
    return cleaned or "batchfile"


def decode_batchfile(data: bytes, filename: str) -> tuple[str, list[Diagnostic]]:
    """A batchfile's bytes as text, and a warning at line:col for each line holding bytes that are not
    UTF-8. tgftp's bash passed such bytes on untouched; a scenario holds text, so each undecodable run
    becomes U+FFFD (the warning says so, and where)."""
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    text = data.decode("utf-8", errors="surrogateescape")
    warnings = []
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        runs = list(_UNDECODABLE.finditer(line))
        if not runs:
            continue
        shown = line[runs[0].start():runs[0].end()].encode("utf-8", "surrogateescape")
        more = f" (and {len(runs) - 1} more on this line)" if len(runs) > 1 else ""
        warnings.append(Diagnostic(filename, number, runs[0].start() + 1,
                                   f"bytes {shown!r} are not UTF-8{more}: tgftp passed them on as they were; a "
                                   "scenario holds text, so gftpwb reads each such run as U+FFFD (\ufffd)",
                                   severity="warning"))
        lines[number - 1] = _UNDECODABLE.sub("\ufffd", line)
    return "\n".join(lines), warnings


def _control_characters(text: str, reader: _Reader) -> str:
    """Warn at line:col of every line holding a control character (what it is and in which field), and
    drop NUL bytes as bash's ``read`` did; the other characters stay, as tgftp passed them on."""
    if not _CONTROL.search(text):
        return text
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        found = list(_CONTROL.finditer(line))
        if not found:
            continue
        first = found[0]
        _fields, columns = split_fields(line)
        index = sum(1 for column in columns[1:] if column <= first.start() + 1)
        where = (f"the {FIELD_NAMES[index]} field" if not line.lstrip().startswith("#") and index < len(FIELD_NAMES)
                 else "this line")
        more = f" (and {len(found) - 1} more on this line)" if len(found) > 1 else ""
        char = first.group()
        what = (f"a NUL byte{more} in {where}: bash's read dropped it, and so does gftpwb" if char == "\x00" else
                f"control character U+{ord(char):04X} ({char!r}){more} in {where}: tgftp passed it on as it was, "
                "and so does gftpwb (the scenario writes it escaped)")
        reader.warn(number, first.start() + 1, what)
        lines[number - 1] = line.replace("\x00", "")
    return "\n".join(lines)


def import_batchfile(text: str, filename: str, env: Mapping[str, str] | None = None) -> ImportResult:
    """Convert a tgftp batchfile to a scenario. ``env`` is the environment tgftp's shell would have had
    (``$HOME``, ...). Raises ScenarioError (file:line:col) when there is nothing to import."""
    env = dict(env or {})
    reader = _Reader(filename)
    text = _control_characters(text, reader)
    batch = read_batch(text, filename, PROGRAM, env)
    reader.sticky_notes = sticky_flag_notes(batch)
    lines = text.replace("\r\n", "\n").split("\n") if batch.crlf else text.split("\n")
    version, header_line = _header(lines, reader)
    if batch.crlf:
        reader.warn(1, 1, "CRLF line endings: tgftp kept the \\r in every line, so its version check failed and it "
                          "ran nothing; gftpwb reads the lines")
    name = scenario_name_for(filename)
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if name != base:
        reader.warn(0, 0, f"scenario named {name!r}: {base!r} is not a valid name, so tag logs are named "
                          f"{name}_#NNN_MMM.log instead of tgftp's {base}_#NNN_MMM.log")
    if batch.autotune:
        reader.warn(max(header_line, 1), 1, "this is tgftp's generated auto-tuning batchfile: tgftp ran it silently "
                                            "and printed only the best parameters; gftpwb imports its lines as plain "
                                            "tests")
    drafts: list[TestDraft] = []
    pending: list[str] = []
    for entry in batch.lines:
        if entry.line == header_line or AUTOTUNE_MAGIC in entry.text:
            continue
        fields = entry.fields
        if not fields or fields[0] == "":
            continue
        if fields[0].startswith("#"):
            pending.append(entry.text[1:].strip())
            continue
        for column, note in entry.notes:
            reader.warn(entry.line, column, note)
        draft = _draft(reader, entry, version, env, position=len(drafts)) if entry.test is not None else None
        if draft is None:
            pending.append(f"gftpwb: skipped line {entry.line}: {entry.text}")
            continue
        draft.comments_before, pending = pending, []
        drafts.append(draft)
    if reader.errors:
        raise ScenarioError(reader.errors)
    if not drafts:
        raise ScenarioError([Diagnostic(filename, max(header_line, 1), 1, "no test lines to import (every line is a "
                                                                  "comment, empty or skipped)")])
    yaml_text = _render(name, base, version, drafts, pending)
    warnings = sorted(reader.warnings, key=lambda d: (d.line, d.column))
    return ImportResult(yaml_text, name, version, len(drafts), warnings,
                        {draft.data["id"]: draft.line for draft in drafts})


def _header(lines: list[str], reader: _Reader) -> tuple[str, int]:
    for index, line in enumerate(lines, start=1):
        if line.startswith(HEADER_PREFIX):
            version = line[len(HEADER_PREFIX):].strip()
            if not _VERSION_RE.match(version):
                raise ScenarioError([Diagnostic(reader.filename, index, len(HEADER_PREFIX) + 1,
                                                f"unsupported tgftp batchfile version 'v{version}' (gftpwb reads "
                                                "batchfiles of tgftp 0.4.x to 0.7.x)")])
            if index != 1:
                reader.warn(index, 1, "the #%tgftp header should be the first line (tgftp 0.7.0 also found it "
                                      "further down)")
            return version, index
    reader.warn(1, 1, f"no '{HEADER_PREFIX}<version>' header line: tgftp 0.7.0 ran such a file as a batchfile of "
                      f"its own version, and so does gftpwb (add {HEADER_PREFIX}{EXPORT_VERSION} as line 1)")
    return EXPORT_VERSION, 0


def _version_tuple(version: str) -> tuple[int, int]:
    match = _VERSION_RE.match(version)
    assert match is not None
    return int(match.group(1)), int(match.group(2) or 0)


def _column(entry: BatchLine, index: int) -> int:
    return entry.columns[index] if index < len(entry.columns) else entry.columns[-1]


def _draft(reader: _Reader, entry: BatchLine, version: str, env: Mapping[str, str],
           position: int) -> TestDraft | None:
    """The scenario test for one line tgftp ran (None when tgftp ran nothing useful for it)."""
    number = entry.test
    assert number is not None
    fields = entry.fields + [""] * (10 - len(entry.fields))
    draft = TestDraft(line=entry.line, number=number, data={})
    col = {name: _column(entry, i) for i, name in enumerate(FIELD_NAMES)}
    _sticky_notes(reader, entry, draft)
    if not entry.executions:
        reader.warn(entry.line, col["execs"], f"execs {entry.execs_text!r}: tgftp ran this line zero times; "
                                              "skipped")
        return None
    cap = limits().runs
    if len(entry.executions) > cap:  # as repeat: a typo must not plan (or run) without end
        reader.errors.append(Diagnostic(reader.filename, entry.line, col["execs"], too_many_runs(
            f"test 'test-{number:03d}'", len(entry.executions), cap, f"execs {entry.execs_text}")))
        return None
    first = entry.executions[0]
    if first.eval_failed:
        reader.warn(entry.line, 1, f"{'; '.join(first.problems)}: tgftp's eval failed, so it ran nothing for this "
                                   "line (and called it successful); line skipped")
        return None
    if first.argv is None:
        for problem in first.problems:
            reader.warn(entry.line, 1, f"{problem}: gftpwb runs no shell code there; line skipped")
        return None
    _expansion_notes(reader, entry.line, first, draft)
    if first.hidden:
        reader.warn(entry.line, 1, f"an unquoted '#' made {first.hidden!r} a shell comment in tgftp's command line, "
                                   "so tgftp ran this test without it; so does gftpwb (put fields that start with '#' "
                                   "in double quotes)", draft)
    child = parse_child(first.argv)
    if isinstance(child, TgftpUsage):
        why = child.message or "an argument it does not know (usage)"
        reader.warn(entry.line, 1, f"tgftp failed this test with a usage error ({why}): its generated command "
                                   f"line was {first.line!r}; line skipped (put fields with spaces in double "
                                   "quotes)")
        return None
    if child.mode in ("batch", "auto-tune"):
        reader.warn(entry.line, 1, f"the generated command line asks tgftp for {child.mode} mode; line skipped")
        return None
    test = single_test(child, env)
    if test.problems:
        for problem in test.problems:
            reader.warn(entry.line, col["gsiftp-params"], f"{problem} (in the guc command line tgftp wrote): gftpwb "
                                                          "runs no shell code there; line skipped")
        return None
    if len(test.argv) < 3:
        reader.warn(entry.line, 1, "guc would have been called without a source and a target; line skipped")
        return None
    for word in dict.fromkeys(test.globs):
        reader.warn(entry.line, col["gsiftp-params"], f"{word!r} is a file name pattern for bash; gftpwb passes it "
                                                      "as it is (bash too, when no file matches)", draft)
    for variable in dict.fromkeys(test.unset):
        reader.warn(entry.line, 1, f"${variable} is not set: it expands to nothing, as in tgftp's shell", draft)
    for key, value in (("source", test.argv[-2]), ("target", test.argv[-1])):
        problem = url_problem(value)
        if problem is not None:  # tgftp handed it to guc, which could not read it as meant
            reader.warn(entry.line, col[key], f"{key}: {problem}; line skipped")
            return None
    data: dict[str, Any] = {"id": f"test-{number:03d}",
                            "kind": "connection-test" if test.connection_test else "guc",
                            "source": test.argv[-2], "target": test.argv[-1]}
    if test.connection_test:
        if fields[2].strip():
            reader.warn(entry.line, col["gsiftp-params"], "tgftp ignores gsiftp-params in a connection test (it "
                                                          "runs guc -dbg -vb); not imported", draft)
        if (5, 0) <= _version_tuple(version) <= (7, 0):
            reader.warn(entry.line, col["connection-test"], connection_test_length_note(version), draft)
        if fields[4] not in ("", "30"):
            reader.warn(entry.line, col["timeout"], "tgftp ignores the timeout of a connection test (always 30 s); "
                                                    "gftpwb uses its 30 s default too", draft)
        elif fields[4]:
            data["timeout"] = 30  # what the line said, so an export writes it back (an empty field stays empty)
    else:
        data["args"] = list(test.argv[1:-2])
        data["tgftp_style"] = True
        timeout = test.timeout
        if timeout.refused:
            reader.warn(entry.line, col["timeout"], f"timeout: {timeout.note}; line skipped")
            return None
        if timeout.note:
            reader.warn(entry.line, col["timeout"], f"timeout: {timeout.note}", draft)
        if timeout.seconds and not math.isfinite(timeout.seconds):
            reader.warn(entry.line, col["timeout"], f"timeout {timeout.text!r}: coreutils timeout reads it as "
                                                    "infinite, so no time limit; none set", draft)
        elif timeout.seconds:
            data["timeout"] = int(timeout.seconds) if timeout.seconds == int(timeout.seconds) else timeout.seconds
        elif fields[4]:
            data["timeout"] = 0  # said no limit (an empty field, which says nothing, stays out)
    if len(entry.executions) != 1 or fields[9] != "":
        data["repeat"] = len(entry.executions)  # what the line said, 1 too: an empty execs field stays empty
    _log_filename(reader, entry, fields, child.value("--log-filename"), col["log-filename"], data, draft, position)
    _comment_and_commands(reader, entry.line, col, child.value("--log-comment"), child.value("--pre-command"),
                          child.value("--post-command"), data, draft)
    draft.data = data
    return draft


def _sticky_notes(reader: _Reader, entry: BatchLine, draft: TestDraft) -> None:
    """tgftp's bugs B1 and B2, which gftpwb does not reproduce: say where they changed what tgftp ran."""
    for column, message in reader.sticky_notes.get(entry.line, ()):
        reader.warn(entry.line, column, message, draft)


def _expansion_notes(reader: _Reader, line: int, execution: Execution, draft: TestDraft) -> None:
    for shown, value in dict.fromkeys(execution.expanded):
        reader.warn(line, 1, f"{shown} expanded to {value!r}, as tgftp's shell did; the scenario holds the value",
                    draft)
    for variable in dict.fromkeys(execution.unset):
        reader.warn(line, 1, f"${variable} is not set: it expands to nothing, as in tgftp's shell", draft)


def _log_filename(reader: _Reader, entry: BatchLine, fields: list[str], first_name: str, column: int,
                  data: dict[str, Any], draft: TestDraft, position: int) -> None:
    """The test's log_filename from the name tgftp gave its first execution; none when gftpwb's default
    name (``<scenario>_#<position>_<exec>.log``) is the same."""
    line = entry.line
    name = first_name[: -len("_000.log")] + ".log" if first_name.endswith("_000.log") else first_name
    if fields[5] == "":
        if not first_name:  # a '#' earlier on the line hid --log-filename: tgftp's default name, and so ours
            return
        if first_name != f"{scenario_name_for(reader.filename)}_#{position:03d}_000.log" and "/" not in name:
            data["log_filename"] = name  # tgftp's number, or its name for the batchfile, differs from ours
        return
    if not fields[5].endswith(".log"):
        name = first_name
    if "/" in name:
        base = name.rsplit("/", 1)[-1]
        reader.warn(line, column, f"log-filename {name!r} is a path; gftpwb writes tag logs into the results "
                                  f"directory and keeps only {base!r}", draft)
        name = base
    if name in (".", "..", ".log", ""):
        reader.warn(line, column, f"log-filename {name!r} cannot name a file; default names used", draft)
        return
    stem = name[:-4] if name.endswith(".log") else name
    if stem in reader.log_names:
        reader.warn(line, column, f"log-filename {name!r} is also used by line {reader.log_names[stem]}; tgftp "
                                  "refused to overwrite it and failed this test; gftpwb uses default names for this "
                                  "one", draft)
        if position != entry.test:
            data["log_filename"] = f"{scenario_name_for(reader.filename)}_#{entry.test:03d}.log"
        return
    reader.log_names[stem] = line
    if not name.endswith(".log") and len(entry.executions) > 1:
        reader.warn(line, column, f"tgftp used log-filename {name!r} (no .log suffix) for every execution, so "
                                  f"executions after the first failed (log exists); gftpwb names them {name}_000, "
                                  "_001, ...", draft)
    data["log_filename"] = name


def _comment_and_commands(reader: _Reader, line: int, col: dict[str, int], comment: str, pre: str, post: str,
                          data: dict[str, Any], draft: TestDraft) -> None:
    """The child tgftp's --log-comment, --pre-command and --post-command, as gftpwb commands."""
    if comment:
        if is_text_comment(comment):
            if "\\" in comment:
                reader.warn(line, col["log-comment"], "tgftp 0.7.0 wrote the comment with echo -e, which interprets "
                                                      "backslash escapes; so does the tag log of this test (the "
                                                      "record keeps it as written)", draft)
            data["comment"] = comment
        elif eval_code(comment):
            data["comment_command"] = to_dsl(from_shell_text(eval_code(comment)))
    if eval_code(pre):
        data["pre"] = to_dsl(from_shell_text(eval_code(pre), on_failure="continue"))
    if eval_code(post):
        data["post"] = to_dsl(from_shell_text(eval_code(post)))


# --- rendering ------------------------------------------------------------------------------------


_PLAIN_ITEM = re.compile(r"[A-Za-z0-9_./=+-][A-Za-z0-9_./:=+-]*")


def _comment_text(text: str) -> str:
    """A batchfile line as a YAML comment: control characters (line breaks to YAML among them) escaped."""
    return _CONTROL.sub(lambda match: repr(match.group())[1:-1], text)


def _escaped(value: Any) -> Any:
    """Text holding a control character, double-quoted so YAML writes it escaped: plain or single-quoted,
    some are refused when read back and some change (U+0085 and U+2028 are line breaks to YAML)."""
    if isinstance(value, str) and _CONTROL.search(value):
        return DoubleQuotedScalarString(value)
    if isinstance(value, dict):
        return {key: _escaped(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_escaped(item) for item in value]
    return value


def _flow(value: Any) -> Any:
    value = _escaped(value)
    if isinstance(value, dict):
        out = CommentedMap(value)
        out.fa.set_flow_style()
        return out
    if isinstance(value, list):
        # In a flow sequence ruamel leaves some items bare that YAML then reads as something else (?0 is
        # a key): quote every item that is not plainly a word.
        seq = CommentedSeq(item if not isinstance(item, str) or _PLAIN_ITEM.fullmatch(item)
                           else DoubleQuotedScalarString(item) for item in value)
        seq.fa.set_flow_style()
        return seq
    return value


KEY_ORDER = ("id", "kind", "source", "target", "options", "extra_args", "args", "tgftp_style", "timeout",
             "repeat", "log_filename", "comment", "comment_command", "pre", "post")


def _render(name: str, base: str, version: str, drafts: list[TestDraft], trailing: list[str]) -> str:
    doc = CommentedMap()
    doc.yaml_set_start_comment(
        f"Imported by gftpwb {__version__} from the tgftp batchfile {base} (#%tgftp%v{version}).\n"
        "Each test is one line of it; ids test-NNN and tag logs <name>_#NNN_MMM.log keep tgftp's numbering.")
    doc["version"] = 1
    doc["name"] = name
    doc["description"] = f"Imported from the tgftp batchfile {base} (#%tgftp%v{version})"
    tests = CommentedSeq()
    for draft in drafts:
        test = CommentedMap()
        for key in KEY_ORDER:
            if key in draft.data:
                value = draft.data[key]
                test[key] = _flow(value) if key in ("options", "extra_args", "args") or (
                    key in ("pre", "post", "comment_command") and isinstance(value, list)) else _escaped(value)
        tests.append(test)
        before = [_comment_text(text) for text in
                  (*draft.comments_before, *(f"gftpwb: line {draft.line}: {note}" for note in draft.notes))]
        if before:
            tests.yaml_set_comment_before_after_key(len(tests) - 1, before="\n".join(before), indent=2)
    doc["tests"] = tests
    text = scenario_yaml(doc)
    if trailing:
        text += "".join(f"  # {_comment_text(line)}\n" if line else "  #\n" for line in trailing)
    return text


# --- export ---------------------------------------------------------------------------------------


class ExportError(ValueError):
    """A scenario value a batchfile cannot hold (a ';' or a newline, a kind tgftp does not have)."""


def _field(value: str, label: str, test: Test) -> str:
    if ";" in value or "\n" in value or "\r" in value:
        raise ExportError(f"test {test.id}: {label} {value!r} holds ';' or a line break, which a batchfile field "
                          "cannot")
    return value


def _quoted(word: str, passes: int) -> str:
    """``word`` quoted so it survives ``passes`` readings by bash: a tgftp field's URLs and guc
    parameters are read three times (tgftp's eval, its generated command line, the guc command file),
    its log name twice, its comment and commands once (see gftpwb.tgftp.model)."""
    for _ in range(passes):
        word = quote_word(word)
    return word


def _command_field(command: Command | None, label: str, test: Test) -> str:
    if command is None:
        return ""
    return _field(_quoted(command.text(), 1), label, test)


def export_batchfile(scenario: Scenario) -> tuple[str, list[Diagnostic]]:
    """A tgftp 0.7.0 batchfile for ``scenario`` (one line per test case), and warnings on what changed
    (at the scenario's file:line:col where a key says it).

    guc parameters are those of the guc call gftpwb makes for the test (its ``args``, or its options with
    ``-vb`` where gftpwb adds it), so tgftp runs the same transfer; the timeout and execs fields say what
    the scenario says and are empty where it says nothing (tgftp's defaults are gftpwb's: no time limit
    for a transfer, 30 s for a connection test, one execution), so an imported batchfile comes back
    as it was written, except that the first line gets an explicit timeout (``0``, or ``30`` for a
    connection test) to steer clear of tgftp's bug B2; a comment gets a leading ``#`` when it has none
    (tgftp runs any other comment as a command). tgftp 0.7.0's bug B1 is steered clear of
    too, so tgftp runs every line as written: connection tests go after the transfers (after a ``yes``
    line tgftp ran every later line as a connection test), and once a line has a log-comment every later
    line has one (``true``, a command that prints nothing: the log's comment stays empty; a line without
    one after a comment was a usage error). What a batchfile cannot hold (``needs:``, ``expect:``, the
    harness's copies and delays, hosts, loops, monitors) is warned about where the scenario says it.
    """
    from gftpwb.core.registry import registry  # each kind says how its tests read in a batchfile

    where = _KeyFinder(scenario)
    notes: list[Diagnostic] = where.dropped()
    transfers: list[list[str]] = []
    connection_tests: list[list[str]] = []
    first_connection_test: Any = None
    reordered = False  # a transfer came after a connection test
    first = first_cases(scenario)  # a matrix case's log name says its number in the scenario, as gftpwb's
    for test in scenario.tests:
        writer = registry().kind(test.kind).exports.get(BATCHFILE_EXPORT)
        if writer is None:
            raise ExportError(f"test {test.id}: kind {test.kind} has no tgftp equivalent")
        batchfile_line = registry().resolve(writer)
        block = [_field(f"#  {test.id}: {test.description}", "description", test)] if test.description else []
        connection_test = False
        for variant, point in enumerate(matrix_points(test)):
            words, connection_test, note = batchfile_line(test, point)
            if note and all(note != n.message for n in notes):
                notes.append(where.at(test, (), note))
            block.append(_export_line(test, variant, first[test.id] + variant, words, connection_test, notes, where))
        if connection_test:
            if test.source.rstrip("/").endswith(_ENDLESS):
                notes.append(where.at(test, ("source",), "tgftp 0.5.0 to 0.7.0 left -len 1 out of connection "
                                                         f"tests: from {test.source} tgftp's test runs until its "
                                                         "30 s timeout and fails (a small file as source tests the "
                                                         "same)"))
            connection_tests.append(block)
            first_connection_test = first_connection_test or test
        else:
            transfers.append(block)
            reordered = reordered or first_connection_test is not None
    if reordered:
        notes.append(where.at(first_connection_test, (), "connection tests come after the transfers in the "
                                                         "batchfile: after a connection test tgftp 0.7.0 ran every "
                                                         "later line as one (bug B1)"))
    lines = [f"{HEADER_PREFIX}{EXPORT_VERSION}", FIELDS_LINE, f"#  exported by gftpwb {__version__} from scenario "
             f"{scenario.name}"]
    commented = timeout_set = False
    for line in (line for block in (*transfers, *connection_tests) for line in block):
        if _is_line(line):
            fields = line.split(";")
            if fields[6]:
                commented = True
            elif commented:
                fields[6] = NO_COMMENT  # tgftp's sticky --log-comment (bug B1) would swallow the next word
            if not fields[4] and not timeout_set:  # bug B2: tgftp failed such a line; say the default
                fields[4] = f"{CONNECTION_TEST_TIMEOUT_S:g}" if fields[3] == "yes" else "0"
            timeout_set = True
            line = ";".join(fields)
        lines.append(line)
    if commented and any(_is_line(line) and line.split(";")[6] == NO_COMMENT for line in lines):
        notes.append(Diagnostic(scenario.path or scenario.name, 0, 0, f"lines without a comment after one with a "
                                f"comment have log-comment '{NO_COMMENT}' (prints nothing, so their logs' comment "
                                "stays empty): tgftp 0.7.0 failed such a line with a usage error (bug B1)",
                                "warning"))
    return "\n".join(lines) + "\n", notes


NO_COMMENT = "true"  # a log-comment command that prints nothing
_ENDLESS = ("/dev/zero", "/dev/urandom", "/dev/random")  # sources that never end without -len


def _is_line(line: str) -> bool:
    return not line.startswith("#")


def _export_line(test: Any, variant: int, case: int, words: tuple[str, ...], connection_test: bool,
                 notes: list[Diagnostic], where: _KeyFinder) -> str:
    params = " ".join(_quoted(w, 3) for w in words)
    connection = "yes" if connection_test else "no"
    timeout = test.timeout_s or 0
    # what the scenario says, and an empty field where it says nothing (tgftp's default: no limit for a
    # transfer, 30 s for a connection test, as gftpwb's); export_batchfile fills one that B2 would bite
    timeout_text = f"{timeout:g}" if where.says(test, "timeout") else ""
    execs_text = str(test.repeat) if where.says(test, "repeat") or test.repeat != 1 else ""
    log_name = ""
    if test.log_filename:
        stem, suffix = ((test.log_filename[:-4], ".log") if test.log_filename.endswith(".log")
                        else (test.log_filename, ""))
        log_name = f"{stem}_#{case:03d}{suffix}" if test.matrix else test.log_filename
    comment = test.comment
    if test.comment_command is not None:
        if comment and variant == 0:
            notes.append(where.at(test, ("comment",), "tgftp has one log-comment; the comment_command wins, comment "
                                                      f"{comment!r} dropped"))
        comment_field = _command_field(test.comment_command, "comment_command", test)
    elif comment:
        if not comment.startswith("#"):
            if variant == 0:
                notes.append(where.at(test, ("comment",), "comment got a leading '#' (tgftp runs any other comment "
                                                          "as a command)"))
            comment = "#" + comment
        comment_field = _field(_quoted(comment, 1), "comment", test)
    else:
        comment_field = ""
    fields = [
        _field(_quoted(test.source, 3), "source", test), _field(_quoted(test.target, 3), "target", test),
        _field(params, "options", test),
        connection, timeout_text, _field(_quoted(log_name, 2) if log_name else "", "log_filename", test),
        comment_field, _command_field(test.pre, "pre", test), _command_field(test.post, "post", test),
        execs_text,
    ]
    return ";".join(fields)


# What a test or the scenario may say that a batchfile cannot hold, and what tgftp does instead.
_TEST_KEYS_DROPPED = {
    "needs": "tgftp runs every line in order, whatever the lines before it did",
    "expect": "tgftp checks no thresholds",
    "concurrency": "tgftp runs one execution at a time",
    "delay": "tgftp starts each execution when the one before it ended",
    "on": "tgftp runs every line on the machine it runs on",
    "trace": "tgftp records no trace",
}
# Keys a batchfile cannot hold only when they say something else than tgftp does (no warm-up, the
# sequential order, which a test without a matrix has whatever it says): when, and what tgftp does instead.
_TEST_VALUES_DROPPED = {
    "warmup": (lambda value, matrix: bool(value), "tgftp counts every exec: the warm-up runs become counted runs"),
    "order": (lambda value, matrix: value != SEQUENTIAL and matrix,
              "tgftp runs a line's execs one after another, then the next line's: the order becomes sequential"),
}
_SCENARIO_KEYS_DROPPED = {
    "loops": "tgftp runs the file once",
    "concurrent_tests": "tgftp runs one line at a time",
    "monitors": "tgftp polls nothing",
    "seed": "tgftp has no random delays",
    "trace": "tgftp records no trace",
}


def _dropped_keys(block: Any, *, test: bool) -> list[tuple[str, str]]:
    """The keys of a test (or the defaults) a batchfile cannot hold, each with what tgftp does instead,
    in the order the block says them."""
    if not isinstance(block, dict):
        return []
    matrix = bool(block.get("matrix")) if test else True  # the defaults' keys reach tests with a matrix too
    out = []
    for key, value in block.items():
        if key in _TEST_KEYS_DROPPED:
            out.append((key, _TEST_KEYS_DROPPED[key]))
        elif key in _TEST_VALUES_DROPPED and _TEST_VALUES_DROPPED[key][0](value, matrix):
            out.append((key, _TEST_VALUES_DROPPED[key][1]))
    return out


class _KeyFinder:
    """Where the scenario's file says a key (file:line:col), for the export's warnings."""

    def __init__(self, scenario: Scenario):
        from gftpwb.core.scenario.yamlpos import load_yaml_with_positions

        self.file = scenario.path or scenario.name
        self.data: Any = {}
        self.positions = None
        if scenario.text:
            with contextlib.suppress(ScenarioError):  # a scenario that loaded parses again
                self.data, self.positions, _ = load_yaml_with_positions(scenario.text, self.file)

    def at(self, test: Any, key: tuple[str, ...], message: str) -> Diagnostic:
        path: tuple[str | int, ...] = ("tests", test.index, *key)
        line, column = self.positions.of_key(path) if self.positions is not None else (0, 0)
        return Diagnostic(self.file, line, column, f"test {test.id}: {message}", "warning")

    def says(self, test: Any, key: str) -> bool:
        """Whether the scenario's file gives ``key`` for ``test`` (in the test or the defaults); True
        when there is no file to look in."""
        if not isinstance(self.data, dict) or self.positions is None:
            return True
        tests, defaults = self.data.get("tests"), self.data.get("defaults")
        raw = tests[test.index] if isinstance(tests, list) and test.index < len(tests) else {}
        return (isinstance(raw, dict) and key in raw) or (isinstance(defaults, dict) and key in defaults)

    def dropped(self) -> list[Diagnostic]:
        """A warning for each key the batchfile cannot hold, at the key."""
        if not isinstance(self.data, dict) or self.positions is None:
            return []
        out: list[Diagnostic] = []
        for key, why in _SCENARIO_KEYS_DROPPED.items():
            if key in self.data:
                out.append(self._warn((key,), f"{key}: is not in the batchfile ({why})"))
        defaults = self.data.get("defaults")
        for key, why in _dropped_keys(defaults, test=False):
            out.append(self._warn(("defaults", key), f"defaults: {key}: is not in the batchfile ({why})"))
        tests = self.data.get("tests")
        for index, test in enumerate(tests if isinstance(tests, list) else []):
            for key, why in _dropped_keys(test, test=True):
                name = test.get("id", f"#{index}")
                out.append(self._warn(("tests", index, key), f"test {name}: {key}: is not in the batchfile ({why})"))
        return out

    def _warn(self, path: tuple[str | int, ...], message: str) -> Diagnostic:
        assert self.positions is not None
        line, column = self.positions.of_key(path)
        return Diagnostic(self.file, line, column, message, "warning")
