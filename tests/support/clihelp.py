"""Run the gftpwb CLI in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys


def gftpwb(*args: str, cwd=None, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run([sys.executable, "-m", "gftpwb", *args], capture_output=True, text=True, cwd=cwd,
                          env=full_env, timeout=timeout)


def popen(*args: str, cwd=None, env=None) -> subprocess.Popen:
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "gftpwb", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=cwd, env=full_env)
