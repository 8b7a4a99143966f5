"""The http kind's runner: gfal-copy through the copy tools' runner."""

from gftpwb.kinds.copytool.run.runner import copy_runner
from gftpwb.kinds.http.tool import GFAL_TOOL

run = copy_runner(GFAL_TOOL)
