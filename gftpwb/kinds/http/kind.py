"""The ``http`` kind: HTTP/WebDAV copies with gfal-copy (registered as entry point ``gftpwb.kinds: http``)."""

from __future__ import annotations

from gftpwb.kinds.copytool.kind import RATE, CopyToolKind

from .tool import GFAL_TOOL


class HttpKind(CopyToolKind):
    name = "http"
    description = GFAL_TOOL.description
    order = 56
    tool = GFAL_TOOL
    runner = "gftpwb.kinds.http.run.runner:run"
    tpc_option = "copy_mode"
    tpc_values = ("pull", "push")
    figures = (RATE,)


KIND = HttpKind()
