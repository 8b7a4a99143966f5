"""The ``xrootd`` kind: XRootD copies with xrdcp (registered as entry point ``gftpwb.kinds: xrootd``)."""

from __future__ import annotations

from functools import partial

from gftpwb.kinds.copytool import tuning
from gftpwb.kinds.copytool.kind import RATE, copy_tool_kind, own_figure

from .tool import XRDCP, XRDCP_TOOL

# What an auto-tune of xrdcp copies runs and shows (the tuning facet names them).
transfer = partial(tuning.transfer, XRDCP_TOOL)
label = partial(tuning.label, XRDCP_TOOL)

KIND = copy_tool_kind(XRDCP_TOOL, order=55, runner="gftpwb.kinds.xrootd.run.runner:run",
                      figures=(RATE, own_figure(XRDCP)), tpc_option="tpc", tpc_values=("only", "first"),
                      tuning=tuning.tuning(XRDCP_TOOL, __name__))
