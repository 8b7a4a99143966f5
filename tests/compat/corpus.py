"""The differential corpus: tgftp batchfiles and single-test command lines, run by both tools.

Placeholders: ``@URL@`` the lab's GridFTP server (``ftp://127.0.0.1:PORT``), ``@DEAD@`` a port with
nothing listening, ``@DATA@`` a world-readable directory holding ``small.bin`` (64 KiB) and
``one.bin`` (1 MiB) that the server can read. Transfers are kept small so the suite stays fast.
"""

from __future__ import annotations

from dataclasses import dataclass

HEADER = "#%tgftp%v0.7.0\n"
FIELDS = ("#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;"
          "post-command;execs\n")

# Every path a batchfile can take through gftpwb: the drop-in `tgftp -f`, `gftpwb tgftp -f`,
# `gftpwb run BATCHFILE` and `gftpwb import` + `gftpwb run`.
ALL_BATCH_PATHS = ("dropin", "gftpwb-tgftp", "run", "import")
BATCH_PATHS = ("dropin", "run", "import")
SINGLE_PATHS = ("dropin",)
ALL_SINGLE_PATHS = ("dropin", "gftpwb-tgftp")


@dataclass(frozen=True)
class BatchCase:
    name: str
    text: str  # the batchfile (placeholders filled in at run time)
    paths: tuple[str, ...] = BATCH_PATHS
    filename: str = "tests.csv"


@dataclass(frozen=True)
class SingleCase:
    name: str
    args: str  # tgftp's arguments as a user would type them (split with shlex)
    paths: tuple[str, ...] = SINGLE_PATHS
    files: tuple[tuple[str, str], ...] = ()  # extra input files in the working directory


def batch(name: str, *lines: str, header: str = HEADER + FIELDS, paths: tuple[str, ...] = BATCH_PATHS,
          end: str = "\n", filename: str = "tests.csv") -> BatchCase:
    return BatchCase(name, header + "\n".join(lines) + end, paths, filename)


Z, N = "@URL@/dev/zero", "@URL@/dev/null"

BATCH: list[BatchCase] = [
    # The batchfile of issue 10: quoted params, a quoted text comment, two executions.
    batch("issue-10", f'{Z};{N};"-vb -p 4 -tcp-bs 4M -len 1G";no;30;;"# loopback p4";;;2', paths=ALL_BATCH_PATHS),
    batch("help-example", f'{Z};{N};-vb -p 2 -tcp-bs 4M -len 64M;no;30;;"#Domain1 to Domain2";;;'),
    batch("refused", f'@DEAD@/dev/zero;{N};-len 1M;no;10;;"#nobody home";;;'),
    batch("comment-command-pre-post",
          f'{Z};{N};-len 16M;no;30;;"cat pre.txt";"echo pre-ran > pre.txt";"touch post-ran";'),
    batch("short-line", f"{Z};{N};-len 1M;no;30", f"{Z};{N};-len 2M;no;30;;;;;"),
]

SINGLE: list[SingleCase] = [
    # gtransfer: tgftp -s SRC -t DST -- "$gsiftpParams" "$addGsiftpParams"
    SingleCase("gtransfer", f'-s {Z} -t {N} --log-filename g.log -- "-vb -p 4 -len 64M"', ALL_SINGLE_PATHS),
    SingleCase("gtransfer-two-params", f'-s {Z} -t {N} --log-filename g.log -- "-vb -p 4 -len 64M" ""',
               ALL_SINGLE_PATHS),
    SingleCase("plain-len", f"-s {Z} -t {N} --log-filename p.log -- -len 32M"),
    SingleCase("refused", f"-s @DEAD@/dev/zero -t {N} --log-filename r.log -- -len 1M"),
    SingleCase("default-log-name", f"-s {Z} -t {N} -- -len 8M"),
]
