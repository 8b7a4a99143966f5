"""tgftp batchfiles (``#%tgftp%v0.4.x`` .. ``0.7.x``) -> gftpwb scenarios, and back.

A batchfile is one test per line, ten ``;``-separated fields (see ../shared/research/tgftp.md §2)::

    source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;post-command;execs

:func:`import_batchfile` reads it the way tgftp did -- ``read -r -a`` with ``IFS=";"`` (no trimming,
no escaping, a trailing empty field dropped, fewer than 9 fields skipped), then each field read by
the second bash that ran the generated command line (:mod:`.shellwords`) -- and writes a DSL v1
scenario with ruamel.yaml, ``#`` lines kept as YAML comments before the test they precede.

tgftp's batch-mode bugs are not reproduced. Where one of them changed what tgftp actually ran, the
importer says so with the line number (and the same text as a YAML comment on the test), so users
learn why old numbers may differ:

* B1 sticky flags: after a ``connection-test=yes`` line every later line ran as a connection test;
  after a line with a log-comment, an empty log-comment swallowed the next token (``--pre-command``,
  ``--post-command`` or the ``--`` before the guc parameters) and the test failed with a usage error;
* B2: an empty timeout before any line had set one failed the test with a usage error;
* an unquoted ``#`` in a field started a shell comment that dropped the rest of the command line;
* multi-word fields without quotes became unknown tgftp options (usage error);
* 0.5.0-0.7.0 connection tests lacked ``-len 1`` and ran until their 30 s timeout;
* a last line without a newline was never read by tgftp's ``while read`` loop.

Pure: text in, text and diagnostics out. :func:`export_batchfile` writes a scenario back as a
batchfile (one line per test case), which makes the round trip testable.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from gftpwb import __version__
from gftpwb.core.commands import Command, from_shell_text, to_dsl
from gftpwb.core.dsl.keys import NAME_PATTERN
from gftpwb.core.dsl.model import Scenario
from gftpwb.core.errors import Diagnostic, ScenarioError
from gftpwb.core.plan import matrix_points
from gftpwb.kinds.guc.model import Test
from gftpwb.tgftp_args import coreutils_seconds

from .gucargs import split_guc_args
from .shellwords import Words, quote_word, split_words

HEADER_PREFIX = "#%tgftp%v"
AUTOTUNE_MAGIC = "#%tgftp_autotuning_batchfile"
FIELD_NAMES = ("source", "target", "gsiftp-params", "connection-test", "timeout", "log-filename", "log-comment",
               "pre-command", "post-command", "execs")
FIELDS_LINE = "#  " + ";".join(FIELD_NAMES)
EXPORT_VERSION = "0.7.0"
_VERSION_RE = re.compile(r"^0\.([4-7])(?:\.(\d+))?$")
_NAME_RE = re.compile(NAME_PATTERN)
# The order in which tgftp put the fields on its generated command line: an unquoted '#' in one field
# dropped every field after it.
COMMAND_LINE_ORDER = (0, 1, 3, 4, 5, 6, 7, 8, 2)


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
    """State while reading one batchfile: diagnostics, and tgftp's sticky (never reset) flags."""

    def __init__(self, filename: str):
        self.filename = filename
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.sticky_connection_test: int | None = None  # line that set --connection-test (B1)
        self.sticky_timeout = False  # some line set --timeout (B2 then no longer bites)
        self.sticky_comment: int | None = None  # line that set --log-comment (B1)
        self.log_names: dict[str, int] = {}

    def error(self, line: int, column: int, message: str) -> None:
        self.errors.append(Diagnostic(self.filename, line, column, message))

    def warn(self, line: int, column: int, message: str, draft: TestDraft | None = None) -> None:
        self.warnings.append(Diagnostic(self.filename, line, column, message, severity="warning"))
        if draft is not None:
            draft.notes.append(message)


def split_fields(line: str) -> tuple[list[str], list[int]]:
    """bash ``read -r -a`` with ``IFS=";"``: every ``;`` separates, one trailing empty field is dropped.

    Returns the fields and the 1-based column where each starts.
    """
    fields = line.split(";")
    columns, col = [], 1
    for text in fields:
        columns.append(col)
        col += len(text) + 1
    if len(fields) > 1 and fields[-1] == "":
        fields.pop()
        columns.pop()
    return fields, columns


def scenario_name_for(filename: str) -> str:
    """The scenario name for a batchfile: its base name, which also makes tgftp's log names
    (``<batchfile>_#NNN_MMM.log``) come out the same; characters a name cannot hold become ``_``."""
    base = filename.replace("\\", "/").rsplit("/", 1)[-1] or "batchfile"
    if _NAME_RE.match(base):
        return base
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", base).lstrip("._-")
    return cleaned or "batchfile"


def import_batchfile(text: str, filename: str) -> ImportResult:
    """Convert a tgftp batchfile to a scenario. Raises ScenarioError (file:line:col) on bad input."""
    reader = _Reader(filename)
    lines = text.split("\n")
    missing_newline = lines[-1] != ""
    if not missing_newline:
        lines.pop()
    version, header_line = _header(lines, reader)
    name = scenario_name_for(filename)
    base = filename.replace("\\", "/").rsplit("/", 1)[-1]
    if name != base:
        reader.warn(0, 0, f"scenario named {name!r}: {base!r} is not a valid name, so tag logs are named "
                          f"{name}_#NNN_MMM.log instead of tgftp's {base}_#NNN_MMM.log")
    drafts: list[TestDraft] = []
    pending_comments: list[str] = []
    for index, raw in enumerate(lines, start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if index == header_line or line.startswith(AUTOTUNE_MAGIC):
            continue
        fields, columns = split_fields(line)
        if not fields or fields[0] == "":
            continue  # tgftp skips empty lines and lines whose first field is empty
        if fields[0].startswith("#"):
            pending_comments.append(line[1:].strip())
            continue
        if len(fields) < 9:
            reader.warn(index, 1, f"line has {len(fields)} field(s), fewer than the 9 tgftp needs (source;target;"
                                  "gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;"
                                  "post-command[;execs]); skipped, as tgftp did")
            pending_comments.append(f"gftpwb: skipped line {index} (fewer than 9 fields): {line}")
            continue
        if index == len(lines) and missing_newline:
            reader.warn(index, len(line) + 1, "the last line has no newline at its end, so tgftp's `while read` "
                                              "loop never ran it; gftpwb imports it")
        draft = _line_to_test(reader, index, fields, columns, version, number=len(drafts))
        if draft is None:
            pending_comments.append(f"gftpwb: skipped line {index}: {line}")
            continue
        draft.comments_before, pending_comments = pending_comments, []
        drafts.append(draft)
    if reader.errors:
        raise ScenarioError(reader.errors)
    if not drafts:
        raise ScenarioError([Diagnostic(filename, header_line, 1, "no test lines to import (every line is a "
                                                                  "comment, empty or skipped)")])
    yaml_text = _render(name, base, version, drafts, pending_comments)
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
            if any(line.startswith(AUTOTUNE_MAGIC) for line in lines):
                reader.warn(index, 1, "this is tgftp's generated auto-tuning batchfile: tgftp ran it silently and "
                                      "printed only the best parameters; gftpwb imports its lines as plain tests")
            return version, index
    raise ScenarioError([Diagnostic(reader.filename, 1, 1, "not a tgftp batchfile: no '#%tgftp%v<version>' header "
                                                           "line (e.g. #%tgftp%v0.7.0 on line 1)")])


def _version_tuple(version: str) -> tuple[int, int]:
    match = _VERSION_RE.match(version)
    assert match is not None
    return int(match.group(1)), int(match.group(2) or 0)


def _words(reader: _Reader, line: int, column: int, label: str, text: str, draft: TestDraft) -> Words:
    words = split_words(text)
    if words.unterminated:
        reader.error(line, column + words.unterminated_column, f"{label}: unterminated {words.unterminated} quote")
    shell_code = label in ("log-comment", "pre-command", "post-command")
    if not shell_code:
        if words.expansions:
            reader.warn(line, column, f"{label}: tgftp's shell would have expanded {', '.join(words.expansions)}; "
                                      "gftpwb passes the text as it is", draft)
        if words.operators:
            reader.warn(line, column, f"{label}: tgftp's shell would have read {' '.join(words.operators)} as "
                                      "shell syntax; gftpwb passes the text as it is", draft)
    return words


def _line_to_test(reader: _Reader, line: int, fields: list[str], columns: list[int], version: str,
                  number: int) -> TestDraft | None:
    fields = fields + [""] * (10 - len(fields))
    columns = columns + [columns[-1]] * (10 - len(columns))
    if len(fields) > 10 and any(f.strip() for f in fields[10:]):
        reader.warn(line, columns[10], "fields after the tenth (execs) are ignored, as tgftp did")
    draft = TestDraft(line=line, number=number, data={})
    raw = dict(zip(FIELD_NAMES, fields[:10], strict=True))
    col = dict(zip(FIELD_NAMES, columns[:10], strict=True))
    if raw["target"] == "":
        reader.warn(line, col["target"], "the target field is empty; line skipped, as tgftp did")
        return None
    parsed = {name: _words(reader, line, col[name], name, raw[name], draft) for name in FIELD_NAMES}

    # An unquoted '#' made bash ignore the rest of tgftp's generated command line.
    _unquoted_hash(reader, line, col, raw, parsed, draft)

    source = _single(reader, line, col["source"], "source", parsed["source"], draft)
    target = _single(reader, line, col["target"], "target", parsed["target"], draft)
    if not source or not target:
        which = "source" if not source else "target"
        reader.warn(line, col[which], f"the {which} field holds no word for tgftp's shell; line skipped", draft)
        return None

    connection = raw["connection-test"]
    if connection not in ("yes", "no"):
        shown = repr(connection) if connection else "empty"
        reader.error(line, col["connection-test"], f"connection-test must be 'yes' or 'no', got {shown} (tgftp "
                                                   "skipped such a line)")
        return None
    is_connection_test = connection == "yes"
    if not is_connection_test and reader.sticky_connection_test is not None:
        reader.warn(line, col["connection-test"], f"tgftp ran this line as a connection test too (bug B1: the "
                                                  f"connection-test flag of line {reader.sticky_connection_test} "
                                                  "stuck); gftpwb runs the transfer", draft)

    data: dict[str, Any] = {"id": f"test-{number:03d}",
                            "kind": "connection-test" if is_connection_test else "guc",
                            "source": source, "target": target}

    params = parsed["gsiftp-params"].words
    if is_connection_test:
        if params:
            reader.warn(line, col["gsiftp-params"], "tgftp ignores gsiftp-params in a connection test (it runs "
                                                    "guc -dbg -vb); not imported", draft)
        if (5, 0) <= _version_tuple(version) <= (7, 0):
            reader.warn(line, col["connection-test"], f"tgftp {version} left out -len 1 in connection tests, so one "
                                                      "from /dev/zero ran until its 30 s timeout and was logged as "
                                                      "failed; gftpwb moves one byte", draft)
    else:
        guc = split_guc_args(params)
        for note in guc.notes:
            reader.warn(line, col["gsiftp-params"], f"gsiftp-params: {note}", draft)
        if guc.options:
            data["options"] = guc.options
        if guc.extra_args:
            data["extra_args"] = guc.extra_args
        for word in params:
            if any(c in word for c in " \t"):
                reader.warn(line, col["gsiftp-params"], f"gsiftp-params: tgftp lost the quoting of {word!r} (its "
                                                        "shell read the field twice) and passed separate words; "
                                                        "gftpwb passes it as one argument", draft)

    _timeout(reader, line, col["timeout"], raw["timeout"], parsed["timeout"], data, draft, is_connection_test)
    _log_filename(reader, line, col["log-filename"], raw, parsed["log-filename"], data, draft)
    _comment(reader, line, col["log-comment"], raw, parsed, data, draft)
    for key, name in (("pre", "pre-command"), ("post", "post-command")):
        value = _shell_field(reader, line, col[name], name, raw[name], parsed[name], draft)
        if value:
            data[key] = to_dsl(from_shell_text(value))

    execs = _execs(reader, line, col["execs"], raw["execs"], parsed["execs"])
    if execs is None:
        return None
    if execs != 1:
        data["repeat"] = execs
    if "log_filename" in data and not data["log_filename"].endswith(".log") and execs > 1:
        reader.warn(line, col["log-filename"], f"tgftp used log-filename {data['log_filename']!r} (no .log suffix) "
                                               "for every execution, so executions after the first failed (log "
                                               f"exists); gftpwb names them {data['log_filename']}_000, _001, ...",
                    draft)

    if is_connection_test:
        reader.sticky_connection_test = reader.sticky_connection_test or line
    draft.data = data
    return draft


def _unquoted_hash(reader: _Reader, line: int, col: dict[str, int], raw: dict[str, str],
                   parsed: dict[str, Words], draft: TestDraft) -> None:
    order = [FIELD_NAMES[i] for i in COMMAND_LINE_ORDER]
    for position, name in enumerate(order):
        words = parsed[name]
        if words.comment is None:
            continue
        later = [n for n in order[position + 1:] if raw[n].strip()]
        column = col[name] + words.comment_column
        if name == "log-comment" and not words.words:
            lost = f" and without its {', '.join(later)}" if later else ""
            reader.warn(line, column, "the log-comment starts with an unquoted '#': tgftp's shell read it as a shell "
                                      f"comment, so that test ran with an empty comment{lost}; gftpwb keeps the "
                                      "comment (put it in double quotes for tgftp)", draft)
        elif later:
            reader.warn(line, column, f"{name}: the unquoted '#' started a shell comment in tgftp, which dropped "
                                      f"{words.comment!r} and this test's {', '.join(later)}; gftpwb keeps the "
                                      "other fields", draft)
        else:
            draft.notes.append(f"{name}: {words.comment!r} is a shell comment, ignored (as by tgftp)")
        return


def _single(reader: _Reader, line: int, column: int, label: str, words: Words, draft: TestDraft) -> str:
    if len(words.words) > 1:
        joined = " ".join(words.words)
        reader.warn(line, column, f"{label}: {joined!r} is several words; tgftp failed this test with a usage "
                                  "error (unknown option); gftpwb uses it as one URL", draft)
        return joined
    return words.words[0] if words.words else ""


def _shell_field(reader: _Reader, line: int, column: int, label: str, raw: str, words: Words,
                 draft: TestDraft) -> str:
    """The value tgftp got for a log-comment, pre- or post-command field (shell code for its eval)."""
    if not raw:
        return ""
    if len(words.words) > 1:
        joined = " ".join(words.words)
        reader.warn(line, column, f"{label} {joined!r} is not in double quotes: tgftp saw the words after the first "
                                  "as unknown options and failed this test (usage error); gftpwb runs it as "
                                  "written", draft)
        return joined
    return words.words[0] if words.words else ""


def _timeout(reader: _Reader, line: int, column: int, raw: str, words: Words, data: dict[str, Any],
             draft: TestDraft, is_connection_test: bool) -> None:
    if raw == "":
        if not reader.sticky_timeout:
            reader.warn(line, column, "tgftp failed this test with a usage error (bug B2: an empty timeout before any "
                                      "line had set one left a stray '0' on its command line); gftpwb runs it "
                                      "without a time limit", draft)
        return
    reader.sticky_timeout = True
    value = words.words[0] if len(words.words) == 1 else ""
    seconds = coreutils_seconds(value)
    if seconds is None:
        reader.error(line, column, f"timeout must be a number of seconds (coreutils timeout syntax such as 30, 2.5 "
                                   f"or 5m), got {raw!r}")
        return
    if is_connection_test:
        if seconds != 30:
            reader.warn(line, column, "tgftp ignores the timeout of a connection test (always 30 s); gftpwb uses its "
                                      "30 s default too", draft)
        return
    if seconds:
        data["timeout"] = int(seconds) if seconds == int(seconds) else seconds


def _log_filename(reader: _Reader, line: int, column: int, raw: dict[str, str], words: Words,
                  data: dict[str, Any], draft: TestDraft) -> None:
    if raw["log-filename"] == "":
        return
    value = _single(reader, line, column, "log-filename", words, draft)
    if not value:
        return
    if "/" in value:
        base = value.rsplit("/", 1)[-1]
        reader.warn(line, column, f"log-filename {value!r} is a path; gftpwb writes tag logs into the results "
                                  f"directory and keeps only {base!r}", draft)
        value = base
    if value in (".", "..", ".log", ""):
        reader.warn(line, column, f"log-filename {value!r} cannot name a file; default names used", draft)
        return
    stem = value[:-4] if value.endswith(".log") else value
    if stem in reader.log_names:
        reader.warn(line, column, f"log-filename {value!r} is also used by line {reader.log_names[stem]}; tgftp "
                                  "refused to overwrite it and failed this test; gftpwb uses default names for "
                                  "this one", draft)
        return
    reader.log_names[stem] = line
    data["log_filename"] = value


def _comment(reader: _Reader, line: int, column: int, raw: dict[str, str], parsed: dict[str, Words],
             data: dict[str, Any], draft: TestDraft) -> None:
    text = raw["log-comment"]
    words = parsed["log-comment"]
    if text == "":
        if reader.sticky_comment is not None:
            swallowed = ("--pre-command" if raw["pre-command"] else "--post-command" if raw["post-command"]
                         else "--" if parsed["gsiftp-params"].words else "")
            if swallowed:
                reader.warn(line, column, f"tgftp failed this test with a usage error (bug B1: the --log-comment flag "
                                          f"of line {reader.sticky_comment} stuck, took {swallowed!r} as the comment "
                                          "and left the next word as an unknown option); gftpwb runs it", draft)
        return
    reader.sticky_comment = reader.sticky_comment or line
    if not words.words and words.comment is not None:
        value = words.comment.strip()  # an unquoted "#text": what the author meant (see _unquoted_hash)
    else:
        value = _shell_field(reader, line, column, "log-comment", text, words, draft)
    if not value:
        return
    if value.startswith("#"):
        if "\\" in value:
            reader.warn(line, column, "tgftp 0.7.0 wrote the comment with echo -e, which interprets backslash "
                                      "escapes; gftpwb keeps it as written", draft)
        data["comment"] = value
    else:
        data["comment_command"] = to_dsl(from_shell_text(value))


def _execs(reader: _Reader, line: int, column: int, raw: str, words: Words) -> int | None:
    if raw == "":
        return 1
    value = words.words[0] if len(words.words) == 1 else ""
    if not value.isdigit():
        reader.error(line, column, f"execs must be a whole number of executions, got {raw!r}")
        return None
    if int(value) == 0:
        reader.error(line, column, "execs 0 runs nothing (tgftp silently ran this line zero times); remove the "
                                   "line or set execs to 1 or more")
        return None
    return int(value)


# --- rendering ------------------------------------------------------------------------------------


def _flow(value: Any) -> Any:
    if isinstance(value, dict):
        out = CommentedMap(value)
        out.fa.set_flow_style()
        return out
    if isinstance(value, list):
        seq = CommentedSeq(value)
        seq.fa.set_flow_style()
        return seq
    return value


KEY_ORDER = ("id", "kind", "source", "target", "options", "extra_args", "timeout", "repeat", "log_filename",
             "comment", "comment_command", "pre", "post")


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
                test[key] = _flow(value) if key in ("options", "extra_args") or (
                    key in ("pre", "post", "comment_command") and isinstance(value, list)) else value
        tests.append(test)
        before = [*draft.comments_before, *(f"gftpwb: line {draft.line}: {note}" for note in draft.notes)]
        if before:
            tests.yaml_set_comment_before_after_key(len(tests) - 1, before="\n".join(before), indent=2)
    doc["tests"] = tests
    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    stream = io.StringIO()
    yaml.dump(doc, stream)
    text = stream.getvalue()
    if trailing:
        text += "".join(f"  # {line}\n" if line else "  #\n" for line in trailing)
    return text


# --- export ---------------------------------------------------------------------------------------


class ExportError(ValueError):
    """A scenario value a batchfile cannot hold (a ';' or a newline, a kind tgftp does not have)."""


def _field(value: str, label: str, test: Test) -> str:
    if ";" in value or "\n" in value or "\r" in value:
        raise ExportError(f"test {test.id}: {label} {value!r} holds ';' or a line break, which a batchfile field "
                          "cannot")
    return value


def _command_field(command: Command | None, label: str, test: Test) -> str:
    if command is None:
        return ""
    return _field(quote_word(command.text()), label, test)


def export_batchfile(scenario: Scenario) -> tuple[str, list[str]]:
    """A tgftp 0.7.0 batchfile for ``scenario`` (one line per test case), and notes on what changed.

    guc parameters start with ``-vb`` (gftpwb always passes it), every line carries an explicit
    timeout (``0`` = none, which also steers clear of tgftp's bug B2), and a comment gets a leading
    ``#`` when it has none (tgftp runs any other comment as a command).
    """
    from gftpwb.kinds.guc.driver import option_args  # the same flags gftpwb's own runs use

    notes: list[str] = []
    lines = [f"{HEADER_PREFIX}{EXPORT_VERSION}", FIELDS_LINE, f"#  exported by gftpwb {__version__} from scenario "
             f"{scenario.name}"]
    for test in scenario.tests:
        if test.kind not in ("guc", "connection-test"):
            raise ExportError(f"test {test.id}: kind {test.kind} has no tgftp equivalent")
        if test.description:
            lines.append(_field(f"#  {test.id}: {test.description}", "description", test))
        for variant, point in enumerate(matrix_points(test)):
            options = test.options.with_values(point)
            if test.kind == "connection-test":
                params, connection = "", "yes"
                if test.extra_args:
                    notes.append(f"test {test.id}: tgftp's connection test takes no guc parameters; extra_args "
                                 f"{' '.join(test.extra_args)} dropped")
            else:
                params = " ".join(quote_word(w) for w in ("-vb", *option_args(options), *test.extra_args))
                connection = "no"
            timeout = test.timeout_s or 0
            timeout_text = f"{timeout:g}"
            log_name = ""
            if test.log_filename:
                stem, suffix = ((test.log_filename[:-4], ".log") if test.log_filename.endswith(".log")
                                else (test.log_filename, ""))
                log_name = f"{stem}_#{variant:03d}{suffix}" if test.matrix else test.log_filename
            comment = test.comment
            if test.comment_command is not None:
                if comment:
                    notes.append(f"test {test.id}: tgftp has one log-comment; the comment_command wins, comment "
                                 f"{comment!r} dropped")
                comment_field = _command_field(test.comment_command, "comment_command", test)
            elif comment:
                if not comment.startswith("#"):
                    notes.append(f"test {test.id}: comment got a leading '#' (tgftp runs any other comment as a "
                                 "command)")
                    comment = "#" + comment
                comment_field = _field(quote_word(comment), "comment", test)
            else:
                comment_field = ""
            fields = [
                _field(quote_word(test.source), "source", test), _field(quote_word(test.target), "target", test),
                _field(params, "options", test),
                connection, timeout_text, _field(quote_word(log_name) if log_name else "", "log_filename", test),
                comment_field, _command_field(test.pre, "pre", test), _command_field(test.post, "post", test),
                str(test.repeat),
            ]
            lines.append(";".join(fields))
    return "\n".join(lines) + "\n", notes
