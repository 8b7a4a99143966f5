"""How tgftp 0.7.0 turned a batchfile line or a command line into a globus-url-copy call (pure).

tgftp hands every value through bash up to three times, and each pass reads quotes and expansions
again (../shared/research/tgftp.md §2.3; checked against the real script by tests/compat):

* **pass A** (batch mode only): the parent builds ``eval echo $0 --source <source> ... -- <params>``
  from the raw fields; ``eval`` reads the fields as shell text (the log-comment, pre- and
  post-command are inserted as ``"$VAR"``, so they stay raw) and ``echo`` joins the words with
  spaces: :func:`generated_command_line`, the line tgftp prints and writes to its command file;
* **pass B** (batch mode only): a second bash runs that file, so the line is read again into the
  child tgftp's arguments: :func:`child_argv`;
* **pass C**: the child joins its guc parameters with spaces and writes ``exec globus-url-copy
  <params> <source> <target>`` to a file that a third bash runs: :func:`single_test`.

So ``"-vb -p 4 -len 1G"`` in a batchfile is one word after pass A, four after pass B; in
``tgftp -- "-vb -p 4 -len 1G"`` the user's shell makes it one argument and pass C splits it.

The rest of tgftp's single-test rules live here too: its timeout test, the ``-len`` it finds for the
rate, when it lists the transfer with ``guc -do``, the size and rate texts of its log, and the
batch-mode bookkeeping (test numbers, skipped lines and their messages).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import overload

from gftpwb.tgftp.args import TgftpArgs, TgftpUsage, parse_tgftp_args
from gftpwb.tgftp.bash import ArithError, Problem, arith, coreutils_duration, expand

GUC = "globus-url-copy"
IFS = " \t\n"
BATCH_IFS = ";"  # tgftp's batch mode sets IFS=";" around its eval
COMMENT_VAR, PRE_VAR, POST_VAR = "GSIFTP_TRANSFER_LOG_COMMENT", "GSIFTP_TRANSFER_PRE_COMMAND", \
    "GSIFTP_TRANSFER_POST_COMMAND"
HEADER_MARK = "#%tgftp"
VERSION_PREFIX = "#%tgftp%v"
AUTOTUNE_MAGIC = "#%tgftp_autotuning_batchfile"
SUPPORTED_VERSION = "0.7.0"
EX_SHELL = 69  # the drop-in's own exit status: shell code gftpwb does not evaluate (sysexits EX_UNAVAILABLE)

_LEN = re.compile(r"-len [A-Za-z0-9]*|-partial-length [A-Za-z0-9]*")
_RECURSIVE = re.compile(r"-r")  # tgftp's egrep "\-r|\-recurse": any "-r" anywhere
_NODCAU = re.compile(r"-nodcau")


def ifs_split(text: str) -> list[str]:
    """An unquoted ``$VAR`` split on the default IFS (no glob: patterns match no file here)."""
    return [w for w in re.split(r"[ \t\n]+", text) if w]


def echo_joined(text: str) -> str:
    """``echo $VAR``: the words of an unquoted variable joined by single spaces."""
    return " ".join(ifs_split(text))


# --- pass C: the child tgftp and its guc call ------------------------------------------------------


@dataclass(frozen=True)
class Timeout:
    """What tgftp's ``[[ ! $T -eq 0 ]] && timeout $T`` made of the timeout value."""

    text: str
    seconds: float | None  # None: no time limit
    refused: bool = False  # coreutils timeout refused the value: guc never ran, the test failed
    note: str = ""


def tgftp_timeout(text: str, env: Mapping[str, str]) -> Timeout:
    try:
        applies = arith(text, env) != 0
    except ArithError:
        applies = True  # an arithmetic error makes "! ... -eq 0" true: tgftp then calls timeout
    if not applies:
        return Timeout(text, None, note=f"{text!r} counts as 0 in bash arithmetic: no time limit" if text.strip()
                       not in ("", "0") else "")
    seconds = coreutils_duration(text)
    if seconds is None:
        return Timeout(text, None, refused=True, note=f"coreutils timeout refuses {text!r} (exit 125): guc never "
                                                      "ran and the test failed")
    return Timeout(text, seconds or None)


@dataclass
class SingleTest:
    """What the child tgftp runs for one set of arguments (a command line or a batch execution)."""

    args: TgftpArgs
    argv: tuple[str, ...]  # globus-url-copy and its arguments, after pass C
    command_text: str  # the GSIFTP_TRANSFER_COMMAND tag's value before tgftp's echo -e
    timeout: Timeout
    length_text: str  # the size tgftp found in -len/-partial-length ("" = none); may hold several lines
    listing: bool  # after success tgftp ran `guc -do <PID>_transferList ...` (LIST, and SIZE without -len)
    params: str  # GSIFTP_PARAMS: the guc parameters as one text, before pass C
    problems: list[Problem] = field(default_factory=list)  # shell syntax gftpwb does not evaluate
    expanded: list[tuple[str, str]] = field(default_factory=list)
    unset: list[str] = field(default_factory=list)
    globs: list[str] = field(default_factory=list)

    @property
    def connection_test(self) -> bool:
        return self.args.mode == "connection-test"


def single_test(args: TgftpArgs, env: Mapping[str, str], *, connection_len: bool = True) -> SingleTest:
    """The guc call tgftp 0.7.0 makes for ``args`` (pass C), and its rules for timeout and rate.

    ``connection_len``: add ``-len 1`` to a connection test, as tgftp 0.4 and 0.7.1 did (0.5.0 to
    0.7.0 left it out, so a connection test from /dev/zero ran until its 30 s timeout).
    """
    params = " ".join(args.guc_params)  # GSIFTP_PARAMS="$@"
    if args.mode == "connection-test":
        defaults = "-dbg -vb -len 1" if connection_len else "-dbg -vb"
        params = ""
        timeout = Timeout("30", 30.0)
    else:
        defaults = ""
        timeout = tgftp_timeout(args.value("--timeout|-k") or "0", env)
    line = f"{defaults} {params} {args.source} {args.target}"
    words = expand(line, env)
    # $(cat FILE | sed ...) unquoted between two quoted strings: split into words, and trailing blanks
    # (empty source and target) cut the closing tag off as a word of its own, so echo adds a space.
    command_text = " ".join([GUC, *ifs_split(line)]) + (" " if line[-1:] in " \t\n" else "")
    length_text = length_texts(params) if args.mode != "connection-test" else ""
    listing = args.mode != "connection-test" and listing_wanted(params, args.source, args.target)
    return SingleTest(args=args, argv=(GUC, *words.words), command_text=command_text, timeout=timeout,
                      length_text=length_text, listing=listing, params=params, problems=words.problems,
                      expanded=words.expanded, unset=words.unset, globs=words.globs)


def length_texts(params: str) -> str:
    """The size tgftp found for its rate: every ``-len X``/``-partial-length X`` of ``echo $PARAMS``
    (X = the letters and digits that follow; several lines when there are several)."""
    return "\n".join(m.group(0).split(" ", 1)[1] for m in _LEN.finditer(echo_joined(params)))


def listing_wanted(params: str, source: str, target: str) -> bool:
    """Did tgftp list the transfer after success? With a -len always; without one unless the source
    holds /dev/zero or the target /dev/null (then there was no size, and no rate)."""
    return bool(length_texts(params)) or not ("/dev/zero" in source or "/dev/null" in target)


def listing_argv(source: str, target: str, params: str, list_file: str) -> tuple[str, ...] | None:
    """``globus-url-copy -do FILE [-r] [-nodcau] SOURCE TARGET`` as tgftp ran it (None: tgftp refused the
    URLs -- no protocol, or an http target -- and ran nothing)."""
    for url in (source, target):
        if not url.startswith("/") and "://" not in url:
            return None
    if re.match(r"https?://", target):
        return None
    joined = echo_joined(params)
    return (GUC, "-do", list_file, *(["-r"] if _RECURSIVE.search(joined) else []),
            *(["-nodcau"] if _NODCAU.search(joined) else []), source, target)


def listing_text(file_text: str) -> str:
    """The transfer list as tgftp logged it: ``#`` lines removed (its ``sed -i '/^#.*$/d'``)."""
    return "\n".join(line for line in file_text.split("\n") if not line.startswith("#"))


def _cut(line: str, delimiter: str, index: int) -> str:
    """``cut -d D -f N`` on one line: the whole line when it has no delimiter."""
    if delimiter not in line:
        return line
    parts = line.split(delimiter)
    return parts[index - 1] if index <= len(parts) else ""


def listing_size(list_text: str, env: Mapping[str, str]) -> str:
    """tgftp's sum of the ``size=`` fields of a transfer list (as text: "" when bash had no number)."""
    sizes = [_cut(_cut(_cut(line, " ", 4), ";", 1), "=", 2) for line in list_text.split("\n")
             if line and not line.startswith("#")]
    total = ""
    for word in ifs_split(" ".join(sizes)):
        try:
            total = str(arith(f"{total} + {word}", env))
        except ArithError:
            break
    return total


def size_unit(size: str) -> str:
    """tgftp's get_unit: GB, MB or KB when a line of ``size`` ends in G, M or K, else B."""
    lines = size.split("\n")
    for suffix, unit in (("G", "GB"), ("M", "MB"), ("K", "KB")):
        if any(line.endswith(suffix) for line in lines):
            return unit
    return "B"


def size_text(length: str) -> str:
    """The GSIFTP_TRANSFER_SIZE value for a ``-len`` text: one trailing letter removed, then the unit."""
    number = length[:-1] if length[-1:].isalpha() and length[-1:].isascii() else length
    return f"{number} {size_unit(length)}"


def rate_text(size: str, start_epoch: int, end_epoch: int, env: Mapping[str, str] | None = None) -> str:
    """tgftp's calcTransferRate: whole seconds (0 counts as 1), bash integer division; "" on an error."""
    divisor = (end_epoch - start_epoch) or 1
    unit = size_unit(size)
    multiplier = {"GB": 1024, "MB": 1, "KB": 1, "B": 1}[unit]
    if unit == "KB":
        divisor *= 1024
    elif unit == "B":
        divisor *= 1024 * 1024
    number = "\n".join(line[:-1] if line[-1:] in "KMG" and line else line for line in size.split("\n"))
    try:
        return str(arith(f"{arith(f'{number} * {multiplier}', env or {})} / {divisor}", env or {}))
    except ArithError:
        return ""


def tgftp_command_text(program: str, argv: list[str] | tuple[str, ...]) -> str:
    """TGFTP_COMMAND's value: ``"$0 $@"`` (tgftp wrote it with ``echo -e``, as the tag-log writer does)."""
    return f"{program} {' '.join(argv)}"


def is_text_comment(comment: str) -> bool:
    """tgftp's ``echo "$COMMENT" | grep '^#'``: a text comment when any line starts with '#'."""
    return any(line.startswith("#") for line in comment.split("\n"))


def comment_echo(comment: str) -> list[str]:
    """The lines that grep echoed to the screen for a text comment."""
    return [line for line in comment.split("\n") if line.startswith("#")]


def eval_code(text: str) -> str:
    """What ``eval $VAR`` runs: the value split on IFS and joined by spaces, read as shell code."""
    return echo_joined(text)


# --- batch mode: the version check -----------------------------------------------------------------


def _bre(pattern: str) -> re.Pattern[str] | None:
    """A POSIX basic regular expression (as grep reads one) as a Python pattern; None when invalid."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append({"(": "(", ")": ")", "{": "{", "}": "}", "|": "|", "<": r"\b", ">": r"\b"}.get(nxt,
                                                                                                    re.escape(nxt)))
            i += 2
        elif ch == "[":
            close = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("]", "^") else i + 1)
            if close < 0:
                return None
            out.append(pattern[i:close + 1].replace("\\", "\\\\"))
            i = close + 1
        elif ch == "*" and (i == 0 or pattern[i - 1:i] == "^"):
            out.append(r"\*")
            i += 1
        elif ch in ".*":
            out.append(ch)
            i += 1
        elif ch == "^" and i == 0:
            out.append("^")
            i += 1
        elif ch == "$" and i == len(pattern) - 1:
            out.append("$")
            i += 1
        else:
            out.append(re.escape(ch))
            i += 1
    try:
        return re.compile("".join(out))
    except re.error:
        return None


def grep_bre(pattern: str, line: str) -> bool | None:
    """Does ``grep PATTERN`` match ``line``? None when grep would refuse the pattern."""
    compiled = _bre(pattern)
    return None if compiled is None else compiled.search(line) is not None


def batch_version(lines: list[str]) -> tuple[bool, str]:
    """tgftp's check: every line holding ``#%tgftp`` (prefix ``#%tgftp%v`` dropped) is a grep pattern
    for "0.7.0"; accepted when one matches (so also with no header at all). Returns (ok, shown)."""
    found = [line[len(VERSION_PREFIX):] if line.startswith(VERSION_PREFIX) else line
             for line in lines if HEADER_MARK in line]
    patterns = found or [""]
    ok = any(grep_bre(p, SUPPORTED_VERSION) for p in patterns)
    return ok, "\n".join(found)


# --- batch mode: lines, numbers, and the generated command line --------------------------------------


@dataclass
class Execution:
    number: int  # the EXEC counter: log names end in _<number>.log
    line: str  # what tgftp printed (pass A)
    argv: list[str] | None  # the child's arguments after pass B (None: gftpwb cannot tell, see problems)
    problems: list[str] = field(default_factory=list)
    hidden: str = ""  # what an unquoted '#' made a shell comment (in either pass), dropped from the line
    # tgftp's eval failed on an unterminated quote: it printed nothing, its command file stayed empty and
    # the "test" passed without running anything
    eval_failed: bool = False
    expanded: list[tuple[str, str]] = field(default_factory=list)
    unset: list[str] = field(default_factory=list)


class Executions(Sequence[Execution]):
    """The executions of one batchfile line (its ``execs``), each worked out when it is asked for:
    ``execs`` is a bash arithmetic value, up to 2^63 - 1, and tgftp ran its loop that often. Built all
    at once, 99999999999999999999 (which bash reads as 7766279631452241919) kept ``validate`` busy
    until it was killed; the importer needs the first and the count (and refuses a count over the
    runs cap), the drop-in runs them one after another as tgftp did."""

    def __init__(self, count: int, make: Callable[[int], Execution] | None = None):
        self._count = count
        self._make = make
        self._first: Execution | None = None

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> Execution: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Execution]: ...

    def __getitem__(self, index: int | slice) -> Execution | Sequence[Execution]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        if index < 0:
            index += self._count
        if not 0 <= index < self._count or self._make is None:
            raise IndexError(index)
        if index == 0:  # asked for most (the importer reads it, the count and nothing else)
            if self._first is None:
                self._first = self._make(0)
            return self._first
        return self._make(index)

    def __iter__(self) -> Iterator[Execution]:
        return (self[i] for i in range(self._count))


@dataclass
class BatchLine:
    """One line of a batchfile and what tgftp did with it."""

    line: int  # 1-based line in the file
    text: str
    fields: list[str]
    columns: list[int]
    test: int | None = None  # tgftp's test number (data lines counted from 0); None: skipped
    tgftp_line_number: int = 0  # the number tgftp's own messages used (it drifts: bug B3)
    stdout: list[str] = field(default_factory=list)  # what tgftp printed for a skipped line
    stderr: list[str] = field(default_factory=list)
    execs_text: str = "1"
    executions: Executions = field(default_factory=lambda: Executions(0))
    notes: list[tuple[int, str]] = field(default_factory=list)  # (column, text): gftpwb's warnings
    connection_test: bool = False
    timeout_given: bool = False


@dataclass
class Batch:
    lines: list[BatchLine]
    version_ok: bool
    version_shown: str
    autotune: bool
    crlf: bool
    unterminated_last_line: bool


FIELD_NAMES = ("source", "target", "gsiftp-params", "connection-test", "timeout", "log-filename", "log-comment",
               "pre-command", "post-command", "execs")


def split_fields(line: str) -> tuple[list[str], list[int]]:
    """bash ``read -r -a`` with ``IFS=";"``: every ``;`` separates, one trailing empty field is dropped."""
    fields = line.split(";")
    columns, col = [], 1
    for text in fields:
        columns.append(col)
        col += len(text) + 1
    if fields[-1] == "":
        fields.pop()
        columns.pop()
    return fields, columns


def batch_basename(filename: str) -> str:
    """``$(basename ${FILE})`` in tgftp's default log name: FILE unquoted, so a name with blanks is several
    arguments, and coreutils basename takes a second one as a suffix to remove (a third is an error)."""
    words = ifs_split(filename)
    if not words or len(words) > 2:
        return ""
    name = words[0].rstrip("/") or ("/" if words[0] else "")
    name = name.rsplit("/", 1)[-1] if name != "/" else "/"
    if len(words) == 2 and name.endswith(words[1]) and name != words[1]:
        name = name[: -len(words[1])]
    return name


def exec_count(text: str, env: Mapping[str, str]) -> tuple[int, str]:
    """How often tgftp's ``while [[ $EXEC -lt $EXECS ]]`` ran, and a note when the value is odd."""
    try:
        value = arith(text, env)
    except ArithError as exc:
        return 0, f"bash: {exc}: tgftp ran this line zero times"
    if str(value) != text:
        return max(value, 0), f"{text!r} is {value} in bash arithmetic: tgftp ran it {max(value, 0)} time(s)"
    return max(value, 0), ""


def file_number(counter: int) -> str:
    """tgftp's get_file_number: zero-padded to three digits below 100, as it is from 100 on."""
    return f"{counter:03d}"


def read_batch(text: str, filename: str, program: str, env: Mapping[str, str], *,
               fix_crlf: bool = True, last_line: bool = True) -> Batch:
    """Everything tgftp's batch mode decides before it runs anything, line by line.

    Departures (each noted on the line it concerns): with ``fix_crlf`` a CRLF file is read as LF
    (tgftp kept the ``\\r``, so its version check failed and it ran nothing); with ``last_line`` a
    last line without a newline is read (tgftp's ``while read`` never ran it); an empty timeout is
    ``--timeout 0`` and the connection-test and log-comment flags are reset on every line (tgftp's
    bugs B1 and B2).
    """
    crlf = fix_crlf and "\r\n" in text
    if crlf:
        text = text.replace("\r\n", "\n")
    raw_lines = text.split("\n")
    unterminated = raw_lines[-1] != ""
    if not unterminated:
        raw_lines.pop()
    ok, shown = batch_version(raw_lines)
    autotune = any(AUTOTUNE_MAGIC in line for line in raw_lines)
    base = batch_basename(filename)
    out: list[BatchLine] = []
    tgftp_line = 1
    test = 0
    for index, raw in enumerate(raw_lines, start=1):
        fields, columns = split_fields(raw)
        entry = BatchLine(index, raw, fields, columns, tgftp_line_number=tgftp_line)
        out.append(entry)
        if index == len(raw_lines) and unterminated:
            if not last_line:
                entry.notes.append((len(raw) + 1, "no newline at the end of the last line: tgftp's `while read` "
                                                  "never ran it"))
                break
            if fields and fields[0] and not fields[0].startswith("#"):
                entry.notes.append((len(raw) + 1, "no newline at the end of the last line: tgftp's `while read` "
                                                  "never ran it; gftpwb does"))
        if not fields or fields[0] == "" or fields[0].startswith("#"):
            tgftp_line += 1
            continue
        if len(fields) < 9:
            entry.stdout.append(f"Fields: {len(fields)}")
            entry.stderr.append(f"tgftp: line {tgftp_line} has less than 10 fields! Skipping line!")
            entry.notes.append((1, f"{len(fields)} field(s), fewer than the 9 tgftp needs; skipped, as tgftp did"))
            tgftp_line += 1
            continue
        fields = fields + [""] * (10 - len(fields))
        if fields[1] == "":
            entry.stderr.append(f'tgftp: in line {tgftp_line}: "target" field is empty! Skipping line!')
            entry.notes.append((columns[1], "the target field is empty; skipped, as tgftp did"))
            continue
        if fields[3] not in ("yes", "no"):
            entry.stderr.append(f'tgftp: in line {tgftp_line}: "connection-test" field is empty! Skipping line!')
            entry.notes.append((columns[3], f"connection-test must be yes or no, not {fields[3]!r}; skipped, as "
                                            "tgftp did"))
            continue
        if len(fields) > 10 and any(fields[10:]):
            entry.notes.append((columns[10], "fields after the tenth (execs) are ignored, as tgftp did"))
        entry.test = test
        entry.connection_test = fields[3] == "yes"
        entry.timeout_given = fields[4] != ""
        entry.execs_text = fields[9] or "1"
        count, note = exec_count(entry.execs_text, env)
        if note:
            entry.notes.append((columns[9] if len(columns) > 9 else 1, f"execs: {note}"))
        entry.executions = Executions(count, functools.partial(_execution, fields, test=test, base=base,
                                                               program=program, env=env))
        test += 1
        tgftp_line += 1
    return Batch(out, ok, shown, autotune, crlf, unterminated)


def _execution(fields: list[str], number: int, test: int, base: str, program: str,
               env: Mapping[str, str]) -> Execution:
    log_field = fields[5] or f"{base}_#{file_number(test)}.log"
    log_name = log_field[:-4] + f"_{file_number(number)}.log" if log_field.endswith(".log") else log_field
    args = ["echo", program, "--source", fields[0], "--target", fields[1],
            "--connection-test" if fields[3] == "yes" else "", "--timeout", fields[4] or "0",
            "--log-filename", log_name,
            "--log-comment" if fields[6] else "", f'"${COMMENT_VAR}"',
            "--pre-command" if fields[7] else "", f'"${PRE_VAR}"',
            "--post-command" if fields[8] else "", f'"${POST_VAR}"',
            "--", fields[2]]
    pass_a_env = {**env, COMMENT_VAR: fields[6], PRE_VAR: fields[7], POST_VAR: fields[8]}
    first = expand(" ".join(args), pass_a_env, ifs=BATCH_IFS)
    problems = [f"{p} (in tgftp's eval)" for p in first.problems]
    if first.problems and all(p.message.startswith("unterminated") for p in first.problems):
        return Execution(number, "", None, problems, eval_failed=True)
    words = first.words
    if not words or words[0] != "echo":
        return Execution(number, "", None, problems or ["tgftp's eval did not run echo"])
    line = " ".join(words[1:])
    expanded = [e for e in first.expanded if e[0] not in (f"${COMMENT_VAR}", f"${PRE_VAR}", f"${POST_VAR}")]
    unset = list(first.unset)
    hidden = first.comment or ""
    if problems:
        return Execution(number, line, None, problems, hidden=hidden, expanded=expanded, unset=unset)
    second = expand(line, env)
    problems = [f"{p} (in the command line tgftp generated)" for p in second.problems]
    if not second.words or second.words[0] != program:
        problems.append("the command line tgftp generated does not start with tgftp itself")
    return Execution(number, line, None if problems else second.words[1:], problems,
                     hidden=hidden or second.comment or "", expanded=expanded + second.expanded,
                     unset=unset + second.unset)


def parse_child(argv: list[str]) -> TgftpArgs | TgftpUsage:
    """The child tgftp's reading of its arguments: its args, or the usage error it exited 64 with."""
    try:
        return parse_tgftp_args(argv)
    except TgftpUsage as exc:
        return exc


def executions(batch: Batch) -> Iterator[tuple[BatchLine, Execution]]:
    for entry in batch.lines:
        for execution in entry.executions:
            yield entry, execution
