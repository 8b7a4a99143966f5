"""tgftp tag logs on disk: the one writer (:func:`write_taglog`), and the sink that writes one per
finished run into the results directory."""

from __future__ import annotations

import os

from gftpwb.core.events import Event, RunFinished
from gftpwb.core.masking import mask, mask_text
from gftpwb.core.records import ResultRecord
from gftpwb.shell.files import atomic_write
from gftpwb.tgftp.taglog import format_taglog


def write_taglog(directory: str, record: ResultRecord, tgftp_command: str = "", name: str | None = None) -> str:
    """Write ``record``'s tag log as ``directory/name`` (default: the record's own log name), atomically;
    returns the path. Passwords in URLs are masked (:mod:`gftpwb.core.masking`). Raises OSError."""
    path = os.path.join(directory, name or record.taglog)
    atomic_write(path, format_taglog(mask(record), mask_text(tgftp_command)))
    return path


class TagLogSink:
    def __init__(self, directory: str, tgftp_command: str = ""):
        self.directory = directory
        self.tgftp_command = tgftp_command

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished) and event.record.taglog:
            write_taglog(self.directory, event.record, self.tgftp_command)
