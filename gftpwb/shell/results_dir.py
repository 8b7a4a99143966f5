"""The results directory of one scenario run: what goes in it, and how --resume finds and checks it.

Layout::

    results/<UTC timestamp>-<scenario>/
        scenario.yaml      the scenario text as given
        plan.json          the resolved plan: every run with its argv, timeout and parameters
        meta.json          gftpwb version, command line, host, plan fingerprint
        results.jsonl      one record per finished run (appended, fsync'd)
        <scenario>_#<case>_<repeat>.log   one tgftp tag log per run
        .gftpwb.lock       flock'd by the gftpwb writing here (pid and command inside), so two
                           runs (a second --resume, say) never write one directory at once
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shlex
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from gftpwb import __version__
from gftpwb.core.errors import BusyError, ResumeError, StorageError, UsageError
from gftpwb.core.masking import mask, mask_text
from gftpwb.core.plan import plan_fingerprint, spec_json
from gftpwb.core.records import FINAL_STATUSES, ResultRecord, latest_by_run
from gftpwb.core.specs import RunSpec
from gftpwb.shell.files import atomic_write
from gftpwb.shell.sinks.journal import JOURNAL_NAME, read_journal
from gftpwb.shell.sinks.taglogs import write_taglog

DEFAULT_BASE = "results"
LOCK_NAME = ".gftpwb.lock"


class DirectoryLock:
    """An exclusive flock on a results directory's lock file, held while a run writes there; the
    kernel drops it when the holder dies, so a crashed run never leaves the directory locked."""

    def __init__(self, fd: int):
        self._fd = fd

    def release(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = -1


def lock(directory: str, command: list[str], *, create: bool) -> DirectoryLock | None:
    """Lock ``directory`` for this process, or raise BusyError naming who holds it. ``create``: make
    the directory first (a new run); else a missing directory is not locked (resume reports it)."""
    if create:
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create results directory {directory}: {exc.strerror or exc}") from None
    elif not os.path.isdir(directory):
        return None
    path = os.path.join(directory, LOCK_NAME)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as exc:
        raise StorageError(f"cannot lock results directory {directory}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = ""
        with contextlib.suppress(OSError):
            holder = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
        os.close(fd)
        who = f" ({holder})" if holder else ""
        raise BusyError(f"results directory {directory} is in use by another gftpwb{who}; wait for it to end, "
                        "or choose another directory") from None
    with contextlib.suppress(OSError):  # who holds it, for the message above (best effort: disk may be full)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {shlex.join(command)}\n".encode(), 0)
    return DirectoryLock(fd)


def holder(directory: str) -> str | None:
    """Who holds ``directory``'s lock now: the pid and command its lock file names (or ``"a gftpwb"``
    when it names none); None when nobody does. Read from /proc/locks, never by taking the lock: a
    report must not make a run that starts at that moment find its directory in use."""
    try:
        st = os.stat(os.path.join(directory, LOCK_NAME))
        with open("/proc/locks", encoding="ascii", errors="replace") as handle:
            locks = handle.read()
    except OSError:
        return None
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    if not any(line.split()[1:2] == ["FLOCK"] and device in line.split() for line in locks.splitlines()):
        return None
    text = ""
    with contextlib.suppress(OSError), open(os.path.join(directory, LOCK_NAME), encoding="utf-8",
                                             errors="replace") as handle:
        text = handle.read(4096).strip()
    return text or "a gftpwb"


def new_results_dir(base: str, scenario: str, now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
    path = os.path.join(base, f"{stamp}-{scenario}")
    candidate, n = path, 1
    while os.path.exists(candidate):
        candidate = f"{path}.{n}"
        n += 1
    return candidate


def prepare(directory: str, scenario_text: str, specs: Sequence[RunSpec], command: list[str],
            meta_extra: dict[str, Any] | None = None) -> None:
    """Create a fresh results directory; refuse one that already holds results."""
    if os.path.exists(os.path.join(directory, JOURNAL_NAME)):
        raise UsageError(f"{directory} already holds results; use --resume to continue it or choose another "
                         "directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create results directory {directory}: {exc.strerror or exc}") from None
    try:
        _prepare_files(directory, scenario_text, specs, command, meta_extra)
    except OSError as exc:
        raise StorageError(f"cannot write {exc.filename or directory}: {exc.strerror or exc}; nothing was "
                           "run") from None


def _prepare_files(directory: str, scenario_text: str, specs: Sequence[RunSpec], command: list[str],
                   meta_extra: dict[str, Any] | None) -> None:
    # Passwords in URLs are masked in everything kept here (gftpwb.core.masking).
    _write(os.path.join(directory, "scenario.yaml"), mask_text(scenario_text))
    _write(os.path.join(directory, "plan.json"), json.dumps(mask([spec_json(s) for s in specs]), indent=1) + "\n")
    meta = {
        "gftpwb_version": __version__,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": mask(command),
        "controller": socket.gethostname(),
        "scenario": specs[0].scenario if specs else "",
        "plan_fingerprint": plan_fingerprint(specs),
        "runs": len(specs),
        **(meta_extra or {}),
    }
    _write(os.path.join(directory, "meta.json"), json.dumps(meta, indent=1) + "\n")


def record_environment(directory: str, env: dict[str, Any], *, resumed: bool) -> None:
    """Put the environment of this attempt in meta.json: ``environment`` for the first attempt; a
    resumed attempt appends ``{"at", "environment"}`` to ``resumed``, so the original stays as it was."""
    env = mask(env)  # servers are named by their URLs, which may hold a password
    meta_path = os.path.join(directory, "meta.json")
    try:
        with open(meta_path, encoding="utf-8") as handle:
            meta = json.load(handle)
    except (OSError, ValueError):
        return  # no meta.json to add to (a directory gftpwb did not make): nothing to record in
    if resumed and "environment" in meta:
        meta.setdefault("resumed", []).append({"at": env.get("collected_at", ""), "environment": env})
    else:
        meta["environment"] = env
    _write(meta_path, json.dumps(meta, indent=1) + "\n")


def _write(path: str, text: str) -> None:
    atomic_write(path, text)


def latest_for(base: str, scenario: str) -> str | None:
    """The newest results directory of ``scenario`` under ``base`` (names sort by time).

    Names are ``<stamp>-<scenario>`` or ``<stamp>-<scenario>.<n>`` (a second run within the same
    second), and scenario names may hold dots themselves (``bench.2``, ``tests.csv``): a name that
    fits both ways is settled by the scenario meta.json recorded."""
    try:
        entries = os.listdir(base)
    except (FileNotFoundError, NotADirectoryError):
        return None
    names: list[tuple[str, int, str]] = []  # (stamp, n, name): the newest is the largest
    for name in entries:
        rest = name.split("-", 1)[-1]
        suffix = rest[len(scenario) + 1:]
        if rest != scenario and not (rest.startswith(f"{scenario}.") and suffix.isdigit()):
            continue
        recorded = _recorded_scenario(os.path.join(base, name))
        if recorded is None or recorded == scenario:
            names.append((name.split("-", 1)[0], int(suffix) if rest != scenario else 0, name))
    return os.path.join(base, max(names)[2]) if names else None


def _recorded_scenario(directory: str) -> str | None:
    try:
        with open(os.path.join(directory, "meta.json"), encoding="utf-8") as handle:
            value = json.load(handle).get("scenario")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, str) and value else None


def resume_state(directory: str, specs: Sequence[RunSpec]) -> tuple[list[ResultRecord], frozenset[str], list[str]]:
    """Check that ``directory`` was made by this plan; return (final records, their run ids, notes)."""
    meta_path = os.path.join(directory, "meta.json")
    try:
        with open(meta_path, encoding="utf-8") as handle:
            meta = json.load(handle)
    except FileNotFoundError:
        raise ResumeError(f"cannot resume {directory}: no meta.json (not a gftpwb results directory)") from None
    except (OSError, ValueError) as exc:
        raise ResumeError(f"cannot resume {directory}: unreadable meta.json ({exc})") from None
    if meta.get("plan_fingerprint") != plan_fingerprint(specs):
        # the scenario may be the same and the selection not: the command that made it says which
        command = recorded_command(directory)
        made_by = f"; it was made by: {shlex.join(command)}" if command else ""
        raise ResumeError(f"cannot resume {directory}: the scenario's plan changed since that run (other tests, "
                          f"options, matrix, variables, --only or --where){made_by}; resume with what it ran, or "
                          "start a new run instead")
    records, problems = read_journal(os.path.join(directory, JOURNAL_NAME))
    final = [r for r in latest_by_run(records).values() if r.status in FINAL_STATUSES]
    return final, frozenset(r.run_id for r in final), problems


def recorded_command(directory: str) -> list[str]:
    """The command line meta.json recorded for the run that made ``directory`` ([] if unreadable)."""
    try:
        with open(os.path.join(directory, "meta.json"), encoding="utf-8") as handle:
            command = json.load(handle).get("command", [])
    except (OSError, ValueError, AttributeError):
        return []
    return [str(part) for part in command] if isinstance(command, list) else []


def repair_taglogs(directory: str, records: list[ResultRecord]) -> list[str]:
    """Write the tag log of every record that should have one and has none (gftpwb was killed between
    the journal append and the tag-log write); returns a note per log written or refused."""
    notes = []
    command = shlex.join(recorded_command(directory))
    for record in records:
        name = record.taglog
        if not name or os.path.exists(os.path.join(directory, name)):
            continue
        if os.path.basename(name) != name or name in (".", ".."):
            notes.append(f"{record.run_id}: tag log name {name!r} is not a plain file name; not written")
            continue
        try:
            write_taglog(directory, record, command)
        except OSError as exc:
            notes.append(f"{record.run_id}: could not write its missing tag log {name}: {exc.strerror or exc}")
        else:
            notes.append(f"{record.run_id}: wrote its missing tag log {name} (the run that made it was stopped "
                         "before writing it)")
    return notes
