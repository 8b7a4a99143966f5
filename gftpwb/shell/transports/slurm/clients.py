"""Running Slurm's client commands (squeue, scontrol, scancel, salloc) from the controller: argv
lists, the scenario's SLURM_CONF, a time limit; never a shell."""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gftpwb.core.errors import EnvironmentProblem

CLIENT_TIMEOUT_S = 30.0
PACKAGES = "slurm-client (Debian), slurm (RHEL)"


@dataclass(frozen=True)
class Answer:
    code: int
    stdout: str
    stderr: str

    @property
    def why(self) -> str:
        text = (self.stderr.strip() or self.stdout.strip() or f"exit status {self.code}").splitlines()
        return text[-1] if text else f"exit status {self.code}"


def client_env(conf: str = "", base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of Slurm commands: this process's, with the scenario's SLURM_CONF."""
    env = dict(os.environ if base is None else base)
    if conf:
        env["SLURM_CONF"] = conf
    return env


def missing(exc: FileNotFoundError, argv: Sequence[str]) -> EnvironmentProblem:
    return EnvironmentProblem(f"{argv[0]} not found in PATH: Slurm's client commands are needed to run on Slurm; "
                              f"install {PACKAGES}")


async def run_client(argv: Sequence[str], conf: str = "", timeout_s: float = CLIENT_TIMEOUT_S) -> Answer:
    try:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                    env=client_env(conf), start_new_session=True)
    except FileNotFoundError as exc:
        raise missing(exc, argv) from None
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout_s)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return Answer(124, "", f"{argv[0]} did not answer within {timeout_s:g}s")
    except asyncio.CancelledError:
        proc.kill()
        await asyncio.shield(proc.wait())
        raise
    return Answer(proc.returncode or 0, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))


def run_client_sync(argv: Sequence[str], conf: str = "", timeout_s: float = CLIENT_TIMEOUT_S) -> Answer:
    """The same, blocking (the preflight, before any event loop runs)."""
    try:
        done = subprocess.run(list(argv), capture_output=True, text=True, timeout=timeout_s, env=client_env(conf),
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise missing(exc, argv) from None
    except subprocess.TimeoutExpired:
        return Answer(124, "", f"{argv[0]} did not answer within {timeout_s:g}s")
    return Answer(done.returncode, done.stdout, done.stderr)
