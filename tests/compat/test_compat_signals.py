"""Signals on tgftp 0.7.0 and on the drop-in, side by side: the same end, no orphans.

Each case starts the real tgftp and the drop-in in sessions of their own, waits until guc runs, then
sends the signal to the whole process group, as a terminal does for Ctrl-C and a hang-up, and as
``kill -TERM -PGID`` does. Measured on tgftp 0.7.0: a single test stopped by Ctrl-C writes its log
and exits 130; SIGTERM and SIGHUP kill it (no log, guc left running); a batch and ``-a`` die of every
one of the three (guc, and for ``-a`` a child tgftp, left running). The drop-in must end the same way
(exit status, or killed by the same signal), leave no process behind, print no traceback, and its
records must name the signal. The real tgftp's orphans are killed by the test, by process id.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from compat.conftest import tgftp_program
from compat.harness import VENV_BIN, Lab, tool_env
from support.polling import eventually

from gftpwb.converters.taglog import get_attribute

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
BATCH = ("#%tgftp%v0.7.0\n{url}/dev/zero;{url}/dev/null;-vb;no;60;;;;;2\n"
         "{url}/dev/zero;{url}/dev/null;-len 1M;no;60;;;;;\n")


@dataclass
class Ended:
    returncode: int
    stdout: str
    stderr: str
    left: list[str]  # processes still running in the tool's directory after it ended ("PID ARGS")


def processes_in(directory: Path) -> dict[int, str]:
    """Every process whose working directory is in ``directory`` (guc and tgftp's children run there):
    its name (``/proc/PID/comm``) and arguments."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
            args = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            name = Path(f"/proc/{entry}/comm").read_text().strip()
        except OSError:
            continue
        if cwd == str(directory) or cwd.startswith(f"{directory}/"):
            found[int(entry)] = f"{name}: {args.strip()}"
    return found


def guc_running(directory: Path) -> bool:
    """guc runs, has its own SIGINT handler on (globus's: before that a Ctrl-C kills it outright) and
    its two control connections open (to the source and the target server): the instant at which the
    real tgftp's reaction to a signal was measured."""
    for pid, text in processes_in(directory).items():
        if text.startswith("globus-url-copy: "):
            try:
                sockets = [fd for fd in os.listdir(f"/proc/{pid}/fd")
                           if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")]
                caught = int(next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                                  if line.startswith("SigCgt:")).split()[1], 16)
            except (OSError, StopIteration):
                continue
            if len(sockets) >= 2 and caught & (1 << (signal.SIGINT - 1)):
                return True
    return False


# The real tgftp may wait for guc's own end after a signal (its batch runs guc under `timeout 60`, in a
# process group of its own): the harness waits for the reference's end, however long that takes.
END_DEADLINE_S = 300


def kill_all_in(directory: Path) -> bool:
    """Kill every process running in ``directory`` (the real tgftp's orphans: guc, its child tgftp,
    which may start the next guc); True once none is left."""
    for pid in processes_in(directory):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return not processes_in(directory)


def signalled(argv: list[str], workdir: Path, lab: Lab, sig: signal.Signals, *, reference: bool) -> Ended:
    """Run ``argv`` in ``workdir`` and send ``sig`` to its process group once guc runs. What the
    drop-in (not the ``reference``) leaves running is what is still there once everything it stopped
    has had the time to go; the reference's orphans are killed."""
    env = tool_env(lab, workdir)
    # without the suite's guc wrapper: one more bash between tgftp and guc changes how guc takes Ctrl-C
    # (the real tgftp then ran on to its timeout); the argv are not compared here
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if p != str(lab.wrapper_dir))
    proc = subprocess.Popen(argv, cwd=workdir, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    eventually(lambda: guc_running(workdir) or proc.poll() is not None, f"{argv[0]} to start guc")
    assert proc.poll() is None, f"{argv[0]} ended before guc ran: {proc.communicate()}"
    os.killpg(proc.pid, sig)
    out, err = proc.communicate(timeout=END_DEADLINE_S)
    left: dict[int, str] = {}
    if reference:
        eventually(lambda: kill_all_in(workdir), "the real tgftp's orphans killed",
                   detail=lambda: processes_in(workdir))
    else:
        with contextlib.suppress(AssertionError):
            eventually(lambda: not processes_in(workdir), "what the drop-in stopped gone", timeout=10)
        left = processes_in(workdir)
        kill_all_in(workdir)
    return Ended(proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"),
                 [f"{pid} {args}" for pid, args in left.items()])


def both(mode: str, sig: signal.Signals, lab: Lab, tmp_path: Path) -> tuple[Ended, Ended, Path]:
    """The real tgftp and the drop-in, at the same time, each in a directory of its own."""
    if mode == "single":
        # no --timeout: tgftp then ran guc under coreutils timeout, in a process group of its own, which
        # a Ctrl-C at the terminal does not reach (tgftp waited for guc's end)
        args = ["-s", f"{lab.url}/dev/zero", "-t", f"{lab.url}/dev/null", "--log-filename", "s.log", "--", "-vb"]
    elif mode == "batch":
        args = ["-f", "b.csv"]
    else:
        args = ["-s", f"{lab.url}/dev/zero", "-t", f"{lab.url}/dev/null", "-a"]
    ends: dict[str, Ended] = {}
    dirs = {"tgftp": tmp_path / "tgftp", "dropin": tmp_path / "dropin"}
    programs = {"tgftp": tgftp_program(), "dropin": str(VENV_BIN / "tgftp")}
    for directory in dirs.values():
        directory.mkdir()
        (directory / "b.csv").write_text(BATCH.format(url=lab.url))

    def go(tool: str) -> None:
        ends[tool] = signalled([programs[tool], *args], dirs[tool], lab, sig, reference=tool == "tgftp")

    threads = [threading.Thread(target=go, args=(tool,)) for tool in dirs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return ends["tgftp"], ends["dropin"], dirs["dropin"]


def logged_causes(directory: Path, mode: str) -> list[str]:
    """What the drop-in recorded about the interruption: the tag log's error detail, or for ``-a``
    the journal's ``interrupted_by`` of each interrupted record."""
    if mode == "auto-tune":
        (journal,) = directory.glob("results/*/results.jsonl")
        records = [json.loads(line) for line in journal.read_text().splitlines()]
        return [r["details"].get("interrupted_by", "") for r in records if r["status"] == "interrupted"]
    name = "s.log" if mode == "single" else "b.csv_#000_000.log"
    return get_attribute((directory / name).read_text(), "GFTPWB_ERROR_DETAIL")


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
@pytest.mark.parametrize("mode", ["single", "batch", "auto-tune"])
def test_a_signal_ends_the_drop_in_as_it_ended_tgftp(mode, sig, lab, tmp_path):
    theirs, ours, directory = both(mode, sig, lab, tmp_path)
    assert ours.returncode == theirs.returncode, (theirs, ours)
    assert ours.left == [], f"the drop-in left processes running: {ours.left}"
    assert "Traceback" not in ours.stderr, ours.stderr
    last = 'tgftp: please see "s.log" for details.'  # tgftp went on to its last line after a Ctrl-C
    assert ours.stdout.rstrip("\n").endswith(last) == theirs.stdout.rstrip("\n").endswith(last), (theirs, ours)
    causes = logged_causes(directory, mode)
    assert causes, f"nothing in the drop-in's records says it was interrupted ({mode})"
    if mode == "auto-tune":
        assert set(causes) == {sig.name}, causes
    else:
        expected = "interrupted by the user (Ctrl-C)" if sig == signal.SIGINT else f"interrupted by {sig.name}"
        assert causes[0].startswith(expected), causes
