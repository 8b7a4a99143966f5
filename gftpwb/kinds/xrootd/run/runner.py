"""The xrootd kind's runner: xrdcp through the copy tools' runner."""

from gftpwb.kinds.copytool.run.runner import copy_runner
from gftpwb.kinds.xrootd.tool import XRDCP_TOOL

run = copy_runner(XRDCP_TOOL)
