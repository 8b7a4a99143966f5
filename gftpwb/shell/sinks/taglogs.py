"""Writes one tgftp-compatible tag log per finished run into the results directory."""

from __future__ import annotations

import os

from gftpwb.converters.taglog import format_taglog
from gftpwb.core.events import Event, RunFinished


class TagLogSink:
    def __init__(self, directory: str, tgftp_command: str = ""):
        self.directory = directory
        self.tgftp_command = tgftp_command

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished) and event.record.taglog:
            path = os.path.join(self.directory, event.record.taglog)
            tmp = f"{path}.tmp"
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(format_taglog(event.record, self.tgftp_command))
            os.replace(tmp, path)
