"""The ``http`` kind: HTTP/WebDAV copies with gfal-copy (registered as entry point ``gftpwb.kinds: http``)."""

from __future__ import annotations

from functools import partial

from gftpwb.kinds.copytool import tuning
from gftpwb.kinds.copytool.kind import RATE, copy_tool_kind

from .tool import GFAL_TOOL

# What an auto-tune of gfal-copy copies runs and shows (the tuning facet names them).
transfer = partial(tuning.transfer, GFAL_TOOL)
label = partial(tuning.label, GFAL_TOOL)

KIND = copy_tool_kind(GFAL_TOOL, order=56, runner="gftpwb.kinds.http.run.runner:run", figures=(RATE,),
                      tpc_option="copy_mode", tpc_values=("pull", "push"), tuning=tuning.tuning(GFAL_TOOL, __name__))
