"""The ``xrootd`` kind: XRootD copies with xrdcp (registered as entry point ``gftpwb.kinds: xrootd``)."""

from __future__ import annotations

from gftpwb.kinds.copytool.kind import RATE, CopyToolKind, own_figure

from .tool import XRDCP, XRDCP_TOOL


class XrootdKind(CopyToolKind):
    name = "xrootd"
    description = XRDCP_TOOL.description
    order = 55
    tool = XRDCP_TOOL
    runner = "gftpwb.kinds.xrootd.run.runner:run"
    tpc_option = "tpc"
    tpc_values = ("only", "first")
    figures = (RATE, own_figure(XRDCP))


KIND = XrootdKind()
