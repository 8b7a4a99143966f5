"""tgftp tag logs on disk: the one writer (:func:`write_taglog`), and the sink that writes one per
finished run into the results directory."""

from __future__ import annotations

import os

from gftpwb.converters.taglog import format_taglog
from gftpwb.core.events import Event, RunFinished
from gftpwb.core.masking import mask, mask_text
from gftpwb.core.records import ResultRecord
from gftpwb.shell.files import atomic_write_bytes


def write_taglog(directory: str, record: ResultRecord, tgftp_command: str = "", name: str | None = None, *,
                 path: str | None = None, masked: bool = True) -> str:
    """Write ``record``'s tag log atomically and return its path: ``path`` when given (the tgftp drop-in
    writes where tgftp wrote, relative to the current directory), else ``directory/name`` (default: the
    record's own log name). Passwords in URLs are masked (:mod:`gftpwb.core.masking`) unless
    ``masked=False`` (the drop-in's tgftp-faithful logs, asked for explicitly). Text that came from
    undecodable bytes (guc's output) is written back as those bytes. Raises OSError."""
    path = path or os.path.join(directory, name or record.taglog)
    if masked:
        record, tgftp_command = mask(record), mask_text(tgftp_command)
    atomic_write_bytes(path, format_taglog(record, tgftp_command).encode("utf-8", "surrogateescape"))
    return path


class TagLogSink:
    def __init__(self, directory: str, tgftp_command: str = ""):
        self.directory = directory
        self.tgftp_command = tgftp_command

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished) and event.record.taglog:
            write_taglog(self.directory, event.record, self.tgftp_command)
