"""Where tgftp 0.7.0's bugs changed what a batchfile ran, line by line: the departures gftpwb makes
(it runs the line as written) and says with file:line:col on every path that reads a batchfile
(``gftpwb import``, ``run`` and ``validate``, and the ``tgftp`` drop-in). Pure: one list of messages,
so every path says the same words.

* B1: after a ``yes`` line tgftp ran every later line as a connection test, and after a line with a
  log-comment a line without one got a bare ``--log-comment`` that swallowed the next word;
* B2: an empty timeout before any line had set one left a stray ``0`` on the command line;
* tgftp 0.5.0 to 0.7.0 left ``-len 1`` out of connection tests (see :data:`CONNECTION_TEST_LENGTH_NOTE`).
"""

from __future__ import annotations

from .model import Batch, BatchLine

CONNECTION_TEST, TIMEOUT, LOG_COMMENT = 3, 4, 6  # field indices


def connection_test_length_note(version: str) -> str:
    return (f"tgftp {version} left out -len 1 in connection tests, so one from /dev/zero ran until its 30 s "
            "timeout and was logged as failed; gftpwb moves one byte")


def column_of(entry: BatchLine, index: int) -> int:
    return entry.columns[index] if index < len(entry.columns) else entry.columns[-1]


def sticky_flag_notes(batch: Batch) -> dict[int, list[tuple[int, str]]]:
    """Line -> (column, message) for each line tgftp's sticky flags (B1) or its empty first timeout
    (B2) changed; only lines tgftp ran (``entry.test`` set)."""
    out: dict[int, list[tuple[int, str]]] = {}
    connection_test: int | None = None  # the line that set --connection-test
    timeout_set = False
    comment: int | None = None  # the line that set --log-comment
    for entry in batch.lines:
        if entry.test is None:
            continue
        fields = entry.fields + [""] * (10 - len(entry.fields))
        notes = out.setdefault(entry.line, [])
        if not entry.connection_test and connection_test is not None:
            notes.append((column_of(entry, CONNECTION_TEST), f"tgftp ran this line as a connection test too (bug B1: "
                                                             f"the connection-test flag of line {connection_test} "
                                                             "stuck); gftpwb runs the transfer"))
        if fields[TIMEOUT] == "" and not timeout_set:
            notes.append((column_of(entry, TIMEOUT), "tgftp failed this test with a usage error (bug B2: an empty "
                                                     "timeout before any line had set one left a stray '0' on its "
                                                     "command line); gftpwb runs it without a time limit"))
        timeout_set = timeout_set or fields[TIMEOUT] != ""
        if fields[LOG_COMMENT] == "" and comment is not None:
            swallowed = ("--pre-command" if fields[7] else "--post-command" if fields[8]
                         else "--" if fields[2].strip() else "")
            if swallowed:
                notes.append((column_of(entry, LOG_COMMENT), f"tgftp failed this test with a usage error (bug B1: the "
                                                             f"--log-comment flag of line {comment} stuck, took "
                                                             f"{swallowed!r} as the comment and left the next word "
                                                             "as an unknown option); gftpwb runs it"))
        if fields[LOG_COMMENT]:
            comment = comment or entry.line
        if entry.connection_test:
            connection_test = connection_test or entry.line
    return out
