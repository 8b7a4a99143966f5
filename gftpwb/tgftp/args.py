"""tgftp 0.7.0's command line, read the way tgftp reads it (pure; the shell is ``tgftp_cli``).

tgftp walks its arguments left to right: every token must be one of its options (anything else prints
the usage and exits 64), each option may appear once (a repeat exits 64 with a message), an option's
value is simply the next token, ``--`` hands everything after it to globus-url-copy, and an empty
token ends the walk. ``--help``, ``--help-batchfile`` and ``--version`` act as soon as they are read.
Then: a batchfile wins over everything else; without source and target only a guc ``-f <file>`` list
will do; then auto-tune; then a connection test or a single test.

Also here: the texts the drop-in prints (tgftp_log's are in gftpwb.tgftp.log).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TGFTP_VERSION = "0.7.0"
TGFTP_LOG_VERSION = "0.2.0"

EX_OK = 0
EX_FAILED = 1  # guc failed (tgftp's "something went wrong")
EX_USAGE = 64  # sysexits EX_USAGE, as tgftp
EX_UNAVAILABLE = 69  # sysexits EX_UNAVAILABLE: a mode gftpwb's drop-in does not offer (yet)
EX_TIMEOUT = 79  # tgftp's own: guc timed out and was killed
EX_INTERRUPTED = 130  # tgftp killed itself with SIGINT

# option -> (the name tgftp's messages use, takes a value)
OPTIONS: dict[str, tuple[str, bool]] = {
    "--source": ("--source|-s", True), "-s": ("--source|-s", True),
    "--target": ("--target|-t", True), "-t": ("--target|-t", True),
    "--timeout": ("--timeout|-k", True), "-k": ("--timeout|-k", True),
    "--log-filename": ("--log-filename", True),
    "--log-comment": ("--log-comment", True),
    "--pre-command": ("--pre-command", True),
    "--post-command": ("--post-command", True),
    "--force-log-overwrite": ("--force-log-overwrite", False),
    "--connection-test": ("--connection-test|-c", False), "-c": ("--connection-test|-c", False),
    "--auto-tune": ("--auto-tune|-a", False), "-a": ("--auto-tune|-a", False),
    "--batchfile": ("--batchfile|-f", True), "-f": ("--batchfile|-f", True),
}
IMMEDIATE = {"--help": "help", "--help-batchfile": "help-batchfile", "--version": "version", "-V": "version"}


class TgftpUsage(Exception):
    """A command line tgftp refuses; ``message`` empty means "print the usage text"."""

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message


@dataclass
class TgftpArgs:
    action: str = "run"  # "run", "help", "help-batchfile", "version"
    values: dict[str, str] = field(default_factory=dict)  # by tgftp's option name, e.g. "--source|-s"
    flags: set[str] = field(default_factory=set)
    guc_params: list[str] = field(default_factory=list)

    def value(self, name: str) -> str:
        return self.values.get(name, "")

    @property
    def source(self) -> str:
        return self.value("--source|-s")

    @property
    def target(self) -> str:
        return self.value("--target|-t")

    @property
    def batchfile(self) -> str | None:
        return self.values.get("--batchfile|-f")

    @property
    def mode(self) -> str:
        """``batch``, ``auto-tune``, ``connection-test`` or ``single``, in tgftp's order of precedence."""
        if self.batchfile is not None:
            return "batch"
        if "--auto-tune|-a" in self.flags:
            return "auto-tune"
        if "--connection-test|-c" in self.flags:
            return "connection-test"
        return "single"

    def url_list_file(self) -> str | None:
        """guc's ``-f <file>`` in the guc parameters (tgftp's ``grep -o '\\-f [^\\ ]*'``): then source and
        target may be left out."""
        match = re.search(r"-f [^ ]*", " ".join(self.guc_params))
        return match.group(0)[3:] if match else None


def parse_tgftp_args(argv: list[str]) -> TgftpArgs:
    """Read tgftp's arguments; raise :class:`TgftpUsage` where tgftp would exit 64."""
    args = TgftpArgs()
    i = 0
    while i < len(argv) and argv[i] != "":
        token = argv[i]
        if token in IMMEDIATE:
            args.action = IMMEDIATE[token]
            return args
        if token == "--":
            args.guc_params = list(argv[i + 1:])
            break
        if token not in OPTIONS:
            raise TgftpUsage()
        name, takes_value = OPTIONS[token]
        if name in args.values or name in args.flags:
            raise TgftpUsage(f'tgftp: the parameter "{name}" cannot be used multiple times!')
        if takes_value:
            args.values[name] = argv[i + 1] if i + 1 < len(argv) else ""
            i += 2
        else:
            args.flags.add(name)
            i += 1
    if args.batchfile is None and (not args.source or not args.target) and args.url_list_file() is None:
        raise TgftpUsage()
    return args


def version_text(prog: str = "tgftp") -> str:
    return f"{prog} - The GridFTP benchmark, test and transfer script v{TGFTP_VERSION}"


def usage_text(prog: str = "tgftp") -> str:
    pad = " " * len(prog)
    return (f"\nusage: {prog} [--help] ||\n\n"
            f"       {prog} --source|-s <GSIFTP_SOURCE_URL> \\\n"
            f"       {pad} --target|-t <GSIFTP_TARGET_URL> \\\n"
            f"       {pad} [optional params] \\\n"
            f"       {pad} [-- <GLOBUS_URL_COPY_PARAMS>] ||\n\n"
            f"       {prog} -f|--batchfile <GSIFTP_BATCHFILE>\n\n"
            "--help gives more information\n")


def help_text(prog: str = "tgftp") -> str:
    return f"""
{version_text(prog)}
(gftpwb's drop-in replacement: tgftp's command line, screen output, log files and exit codes)

SYNOPSIS:

{prog} --source|-s URL --target|-t URL [--timeout|-k SECONDS] [--log-filename NAME]
      [--log-comment "#TEXT" | --log-comment "COMMAND"] [--pre-command "COMMAND"]
      [--post-command "COMMAND"] [--force-log-overwrite] [-- GUC_PARAMETERS]
{prog} --source|-s URL --target|-t URL --connection-test|-c
{prog} --source|-s URL --target|-t URL --auto-tune|-a
{prog} --batchfile|-f BATCHFILE
{prog} --help | --help-batchfile | --version|-V

DESCRIPTION:

Runs globus-url-copy (guc) once, shows its output, prints the rate ("N MB/s", MB = 2^20 bytes,
including connection set-up) and writes a tag log (default name yyyymmdd_H:Mh_<PID>_testgftp.sh.log)
that tgftp_log reads. gftpwb times the run with a monotonic clock instead of whole seconds and always
passes -vb, so the log also holds guc's own average.

  --timeout|-k SECONDS   kill guc after this long (0 = never); exit status 79
  --log-filename NAME    log file name; an existing file is kept unless --force-log-overwrite
  --log-comment TEXT     a comment starting with # is written as it is; anything else is a
                         command whose output becomes the comment
  --pre-command CMD      run before the transfer, outside the timing; if it fails, so does the test
  --post-command CMD     run after a successful transfer
  --connection-test|-c   move 1 byte with guc -dbg -vb -len 1 (30 s timeout), log the whole control
                         conversation and say which step failed: connect, login or data channel
  --auto-tune|-a         find the best guc parameters (tgftp's 37 configurations x 10 transfers of 4 GiB)
                         and print them on one line
  --batchfile|-f FILE    run every line of a tgftp batchfile (see --help-batchfile)
  -- GUC_PARAMETERS      passed to guc as they are (quoting is kept)

Commands are run without a shell when they are plain words, else with bash -c, as tgftp did.
Exit status: 0 ok, 1 guc failed, 64 usage, 79 timeout, 130 interrupted; SIGTERM and SIGHUP, and any
signal in batch mode, end it as they ended tgftp (killed by the signal, after logging the run).
Passwords in URLs are masked in the logs and on screen; GFTPWB_TGFTP_FAITHFUL_LOGS=1 keeps them as tgftp did.
Differences from tgftp 0.7.0 are listed in gftpwb's docs/migration/tgftp.md.
"""


def help_batchfile_text() -> str:
    return f"""A batchfile is a table with one test per line. Its first line is a header such as
#%tgftp%v{TGFTP_VERSION} (gftpwb reads 0.4.x to 0.7.x); lines starting with # are comments. Each other
line holds ten fields separated by ';' (a field cannot contain ';'):

source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;post-command;execs

source, target     guc URLs
gsiftp-params      guc parameters (empty: none)
connection-test    yes or no
timeout            seconds after which guc is killed (empty or 0: no timeout)
log-filename       log name; .log becomes _<EXEC>.log (default <BATCHFILE>_#<TEST>_<EXEC>.log)
log-comment        "#text" is a comment; anything else is a command whose output becomes the comment
pre-command        run before the test
post-command       run after a successful test
execs              how many times to run the test (default 1)

Put fields with spaces in double quotes. Example:

#%tgftp%v{TGFTP_VERSION}
#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;post-command;execs
gsiftp://site1/dev/zero;gsiftp://site2/dev/null;-vb -p 16 -tcp-bs 4M -len 4G;no;30;;"#Site 1 to site 2";;;

gftpwb import BATCHFILE turns a batchfile into a gftpwb scenario.
"""
