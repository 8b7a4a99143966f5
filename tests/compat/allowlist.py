"""Every difference between tgftp 0.7.0 and gftpwb that the compat suite accepts, each with its reason.

An entry matches differences by case name, path and aspect (fnmatch patterns). A difference that no
entry matches fails its case; an entry that matches nothing fails ``test_every_allow_list_entry_is_used``,
so the list never outlives what it excuses. docs/tgftp-compat.md explains each entry for users.
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


ALLOW: list[Allowed] = [
    Allowed("batch/*", "run", "tag:*:TGFTP_COMMAND",
            "gftpwb run BATCHFILE logs the command that was given (gftpwb run ...), not a tgftp command line "
            "that never ran"),
    Allowed("batch/*", "import", "tag:*:TGFTP_COMMAND",
            "gftpwb run SCENARIO logs the command that was given (gftpwb run ...), not a tgftp command line "
            "that never ran"),
    Allowed("*", "*", "tag:*:GSIFTP_TRANSFER_COMMAND_OUTPUT",
            "tgftp copies guc's output through a background tee and cats the copy as soon as guc exits, so "
            "its log sometimes has an empty output tag (a race in tgftp); gftpwb always logs the output",
            when=tgftp_lost_it),
    Allowed("*", "*", "files",
            "tgftp 0.7.0 leaves <PID>_transferList behind after every transfer with -len (its bug B5, issue #7 "
            "upstream); gftpwb removes the list file once it has read it",
            without_files(r"<PID>_transferList")),
    Allowed("batch/*", "*", "files",
            "tgftp keeps the generated command file of a failed batch execution as .TGFTP_COMMAND_XXXXXX_#N; "
            "gftpwb runs the execution in-process and has no command file",
            without_files(r"<PID>_transferList", r"\.TGFTP_COMMAND_\w{6}_#\d+")),
]
