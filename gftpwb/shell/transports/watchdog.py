"""Local children die with gftpwb: one watchdog process per gftpwb process.

Programs run locally in sessions of their own (so ``stop()`` can end a whole process group, and a
Ctrl-C on the terminal reaches gftpwb only), which also means nothing stops them when gftpwb dies
without stopping them itself (``kill -9``, an OOM kill, a crash): guc ignores SIGPIPE and a
transfer without ``-len`` would run on for ever. The remote side has the wrapper's watchdog
(:mod:`gftpwb.shell.transports.remote`); this is the local one.

The first local start launches this module as a small separate process (``python -I -S <this
file> TOKEN GRACE``, in a session of its own so Ctrl-C on the terminal does not reach it) with a
pipe on its standard input whose writing end only gftpwb holds. Every local child gets
``GFTPWB_OWNER=TOKEN`` in its environment, which its own children inherit. When gftpwb ends, in
whatever way, the kernel closes the pipe: the watchdog reads end-of-file, sends SIGTERM to every
process whose environment carries the token, waits up to GRACE seconds and sends SIGKILL to what
is left. No polling, no registration that a ``kill -9`` could interrupt half-way, and grandchildren
(a ``pre:`` shell command's ``sleep``) are found too, even in process groups of their own.

After a normal end there is nothing left to find, and the watchdog exits at once.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

ENV_NAME = "GFTPWB_OWNER"


def owned_pids(token: str, proc: str = "/proc") -> list[int]:
    """Processes whose environment carries ``GFTPWB_OWNER=token`` (other than this one)."""
    needle = f"{ENV_NAME}={token}".encode()
    found = []
    for name in os.listdir(proc):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"{proc}/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if needle in environ.split(b"\0"):
            found.append(int(name))
    return found


def reap(token: str, grace_s: float) -> None:
    """SIGTERM everything carrying ``token``, wait up to ``grace_s``, SIGKILL what is left."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = owned_pids(token)
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        if not pids or sig == signal.SIGKILL:
            return
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and owned_pids(token):
            time.sleep(0.1)


def main(argv: list[str]) -> int:
    token, grace_s = argv[0], float(argv[1])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        while os.read(0, 4096):  # gftpwb never writes: this returns b"" when gftpwb is gone
            pass
    except OSError:
        pass
    reap(token, grace_s)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
