"""Every difference between tgftp 0.7.0 and gftpwb that the compat suite accepts, each with its reason.

An entry matches differences by case name, path and aspect (fnmatch patterns), and where it says so
only differences of one kind (``rewrite``: the values must agree once it is applied; ``when``: a
condition on the two values). A difference that no entry matches fails its case; an entry that
matches nothing fails ``test_every_allow_list_entry_is_used`` (unless it excuses a race in tgftp,
which a run may not hit), so the list never outlives what it excuses. docs/migration/tgftp.md explains
each difference for users.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Allowed:
    """Differences of ``aspect`` in ``case`` on ``path`` are accepted for ``reason``. With ``rewrite``,
    only what the rewrite takes out may differ: both values are rewritten and must then be equal."""

    case: str
    path: str
    aspect: str
    reason: str
    rewrite: Callable[[object], object] | None = None
    when: Callable[[object, object], bool] | None = None  # (tgftp's value, gftpwb's): is this the excused case?
    race: bool = False  # excuses a race in tgftp, which a run may or may not hit: exempt from the used check

    def excuses(self, diff) -> bool:
        if not (fnmatch.fnmatchcase(diff.case, self.case) and fnmatch.fnmatchcase(diff.path, self.path)
                and fnmatch.fnmatchcase(diff.aspect, self.aspect)):
            return False
        if self.when is not None and not self.when(diff.theirs, diff.ours):
            return False
        return self.rewrite is None or self.rewrite(diff.theirs) == self.rewrite(diff.ours)


def without_files(*patterns: str) -> Callable[[object], object]:
    """Drop file names matching any of ``patterns`` (regular expressions) from a file list."""
    def rewrite(files: object) -> object:
        assert isinstance(files, list)
        return [f for f in files if not any(re.fullmatch(p, f) for p in patterns)]
    return rewrite


def tgftp_lost_it(theirs: object, ours: object) -> bool:
    """tgftp_log found nothing in tgftp's log (exit 0, nothing on stdout)."""
    return getattr(theirs, "stdout", None) == "" and getattr(theirs, "exit", None) == 0


def without_quotes(value: object) -> object:
    """A tag's text without quote characters."""
    return re.sub(r"[\'\"\\\\]", "", getattr(value, "stdout", str(value)))


def without_len_1(value: object) -> object:
    """A connection test's guc call(s) or command tag without the ``-len 1`` gftpwb adds."""
    if isinstance(value, list):
        return [[a for i, a in enumerate(call) if not (call[i:i + 2] == ["-len", "1"] or call[i - 1:i + 1] ==
                                                          ["-len", "1"])] for call in value]
    return getattr(value, "stdout", str(value)).replace(" -len 1 ", " ")


def masked(value: object) -> object:
    """A tag's text with the lab's password masked, as gftpwb masks it (gftpwb.core.masking)."""
    return (getattr(value, "exit", None), getattr(value, "stdout", str(value)).replace(":s3cr3t@", ":***@"),
            getattr(value, "stderr", None))


def without_tee_race(value: object) -> object:
    """stderr lines without bash's complaints about tgftp's ``<PID>_testgftp.sh.log`` (the tee's copy)."""
    assert isinstance(value, list)
    return [line for line in value if not re.fullmatch(r"(cat: |rm: cannot remove ')\d+_testgftp\.sh\.log'?: No such "
                                                       r"file or directory", line)]


def without_probe(value: object) -> object:
    """guc calls without those of gftpwb run's environment probe (``globus-url-copy -version`` and a
    ``-dbg -list SERVER/`` banner read per server, made before the first transfer for meta.json)."""
    assert isinstance(value, list)
    return [call for call in value if call != ["-version"] and not (len(call) == 3 and call[:2] == ["-dbg", "-list"]
                                                                     and call[2].endswith("/"))]


def without_size_listing(value: object) -> object:
    """guc calls without the listing gftpwb runs after a plain copy passed, to learn its size
    (``globus-url-copy ... -do LIST -sync -sync-level 0 SOURCE file:///dev/null/gftpwb-size``)."""
    assert isinstance(value, list)
    return [call for call in value if not (call and str(call[-1]).startswith("file:///dev/null/gftpwb-size"))]


def without_probe_or_listing(value: object) -> object:
    return without_probe(without_size_listing(value))


SIZE_LISTING = ("a copy without -len passed: gftpwb lists its source after it (globus-url-copy -do LIST -sync "
                "-sync-level 0 SOURCE file:///dev/null/gftpwb-size, outside the timing, writing nothing) to learn "
                "the bytes it moved and rate it, where tgftp had no size and no rate; tgftp's own calls are the "
                "same, argument for argument, and its log's size and rate tags stay tgftp's")
PROBE = ("gftpwb run records the environment of each run in meta.json: before the first transfer it asks guc for "
         "its version and reads each server's banner (globus-url-copy -dbg -list SERVER/); the transfer calls "
         "themselves are tgftp's, argument for argument")
B1_CONNECTION = ("tgftp's bug B1: after a connection-test line, tgftp ran every later line as a connection test "
                 "(the flag was never reset); gftpwb runs each line as written and warns")
B1_COMMENT = ("tgftp's bug B1: after a line with a log comment, a later line without one got a bare --log-comment "
              "that swallowed the next word (here --), so tgftp failed it with a usage error; gftpwb runs it and "
              "warns")
B2 = ("tgftp's bug B2: an empty timeout before any line had set one left a bare 0 on the generated command line, "
      "a usage error; gftpwb reads it as no time limit (--timeout 0, as later lines got) and warns")
LEN_1 = ("connection tests move one byte (guc -dbg -vb -len 1), as tgftp's documentation and 0.4/0.7.1 did; tgftp "
         "0.5.0-0.7.0 left out -len 1, so a connection test from /dev/zero ran until its 30 s timeout")
LEN_1_OUTPUT = (LEN_1 + "; without -len guc first sizes the source, so tgftp's -dbg conversation has a SIZE step "
                "more")
NO_SHELL = ("command substitution in a URL or guc parameter: tgftp's shell ran it; gftpwb runs no shell code there "
            "(the drop-in exits 69 and says so, the importer skips the line with a warning)")
CRLF = ("a CRLF batchfile: tgftp kept the \\r, so its version check failed and it ran nothing (exit 64); gftpwb "
        "reads the lines (warned)")
LAST_LINE = ("a last line without a newline: tgftp's while-read loop never ran it; gftpwb runs it (warned)")
OWN_TEXTS = ("usage and help texts are gftpwb's own (tgftp's GPL texts are not copied); the exit codes are tgftp's")
MASKED = ("passwords in URLs (ftp://user:pw@host/) are masked in gftpwb's tag logs and on the drop-in's screen "
          "(guc -vb's Source:/Dest: lines) as ftp://user:***@host/, where tgftp wrote and showed them verbatim; "
          "GFTPWB_TGFTP_FAITHFUL_LOGS=1 gives the drop-in's logs and screen as tgftp's (the -faithful cases, "
          "identical); guc gets the real URL (the argv is compared)")
RESULTS_DIR_NAMES = ("gftpwb run writes tag logs into its results directory: a log-filename keeps only its file "
                     "name, a name used twice gets default names the second time, and a name without .log gets "
                     "_<exec> for several executions, where tgftp failed those executions (log exists); warned")

ALLOW: list[Allowed] = [
    *(Allowed("batch/*", path, "argv", f"{PROBE}; and {SIZE_LISTING}", rewrite=without_probe_or_listing)
      for path in ("run", "import")),
    Allowed("*", "dropin", "argv", SIZE_LISTING, rewrite=without_size_listing),
    Allowed("batch/*", "run", "tag:*:TGFTP_COMMAND",
            "gftpwb run BATCHFILE logs the command that was given (gftpwb run ...), not a tgftp command line "
            "that never ran"),
    Allowed("batch/*", "import", "tag:*:TGFTP_COMMAND",
            "gftpwb run SCENARIO logs the command that was given (gftpwb run ...), not a tgftp command line "
            "that never ran"),
    Allowed("batch/*", "run", "tag:*:GSIFTP_TRANSFER_COMMAND",
            "a scenario holds guc's final arguments, not the text tgftp's last shell read them from, so where "
            "quotes survived to that shell the command tag shows the words without them",
            rewrite=without_quotes),
    Allowed("batch/*", "import", "tag:*:GSIFTP_TRANSFER_COMMAND",
            "a scenario holds guc's final arguments, not the text tgftp's last shell read them from, so where "
            "quotes survived to that shell the command tag shows the words without them",
            rewrite=without_quotes),
    Allowed("*", "*", "tag:*:GSIFTP_TRANSFER_COMMAND_OUTPUT",
            "tgftp copies guc's output through a background tee and cats the copy as soon as guc exits, so "
            "its log sometimes has an empty output tag (a race in tgftp); gftpwb always logs the output",
            when=tgftp_lost_it, race=True),
    Allowed("*", "*", "stderr",
            "the same race of tgftp's background tee, earlier: on a loaded machine guc can end before the tee has "
            "created its copy, and tgftp's cat and rm of <PID>_testgftp.sh.log fail on stderr (seen at load 13)",
            rewrite=without_tee_race, race=True),
    Allowed("*", "*", "files",
            "tgftp 0.7.0 leaves <PID>_transferList behind after every transfer with -len (its bug B5, reported "
            "upstream); gftpwb removes the list file once it has read it",
            without_files(r"<PID>_transferList")),
    Allowed("batch/*", "*", "files",
            "tgftp keeps the generated command file of a failed batch execution as .TGFTP_COMMAND_XXXXXX_#N; "
            "gftpwb runs the execution in-process and has no command file",
            without_files(r"<PID>_transferList", r"\.TGFTP_COMMAND_\w{6}_#\d+")),
    # connection tests: one byte
    *(Allowed("*/connection-test*", "*", aspect, LEN_1, rewrite=without_len_1)
      for aspect in ("argv", "tag:*:GSIFTP_TRANSFER_COMMAND")),
    *(Allowed("batch/connection-test*", path, "argv", f"{LEN_1}; and {PROBE}",
              rewrite=lambda calls: without_len_1(without_probe(calls))) for path in ("run", "import")),
    *(Allowed(case, "*", aspect, LEN_1_OUTPUT)
      for case in ("*/connection-test*", "batch/sticky-connection-test")
      for aspect in ("stdout", "tag:*:GSIFTP_TRANSFER_COMMAND_OUTPUT")),
    # tgftp's batch-mode bugs, not reproduced
    *(Allowed("batch/sticky-connection-test", "*", aspect, B1_CONNECTION)
      for aspect in ("stdout", "argv", "files", "tag:*")),
    *(Allowed("batch/sticky-log-comment", "*", aspect, B1_COMMENT) for aspect in ("stdout", "argv", "files", "logs")),
    *(Allowed("batch/empty-timeout-first", "*", aspect, B2) for aspect in ("stdout", "argv", "files", "logs")),
    # batchfiles tgftp could not read at all, or not to the end
    *(Allowed("batch/crlf", "*", aspect, CRLF) for aspect in ("exit", "stdout", "stderr", "argv", "files", "logs")),
    *(Allowed("batch/no-final-newline", "*", aspect, LAST_LINE) for aspect in ("stdout", "argv", "files", "logs")),
    *(Allowed("batch/other-version", path, aspect, "gftpwb run and import read batchfiles of tgftp 0.4.x to 0.7.x; "
              "tgftp 0.7.0 refused any other version than its own (the drop-in does too)")
      for path in ("run", "import") for aspect in ("argv", "logs")),
    # log names in a results directory
    *(Allowed(case, path, aspect, RESULTS_DIR_NAMES)
      for case, aspects in (("batch/log-filename-reused-without-suffix", ("argv", "logs")),
                            ("batch/log-filename-twice", ("argv", "logs")),
                            ("batch/log-filename-in-a-directory", ("logs",)))
      for path in ("run", "import") for aspect in aspects),
    # shell code gftpwb does not run
    *(Allowed("*/command-substitution", "*", aspect, NO_SHELL)
      for aspect in ("exit", "stdout", "argv", "files", "logs")),
    # passwords in URLs, masked by default
    *(Allowed(case, "*", "tag:*", MASKED, rewrite=masked) for case in ("*/password-in-url", "*/password-refused")),
    Allowed("single/password-in-url", "*", "stdout", MASKED, rewrite=masked),
    *(Allowed("batch/password-in-url", path, "tag:*:GSIFTP_TRANSFER_COMMAND",
              f"{MASKED}; and a scenario holds guc's final arguments, so the masked URL (with its *) is quoted",
              rewrite=lambda value: without_quotes(masked(value)[1])) for path in ("run", "import")),
    # texts
    *(Allowed(f"single/{case}", "*", "stdout", OWN_TEXTS)
      for case in ("unknown-option", "missing-target", "autotune-misspelt", "help", "help-batchfile")),
]
