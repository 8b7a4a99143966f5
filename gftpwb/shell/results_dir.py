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
from dataclasses import dataclass
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


@dataclass(frozen=True)
class RunDirectory:
    """A results directory a ``gftpwb run`` of a scenario made, as ``--resume`` weighs it."""

    path: str
    started_at: datetime  # meta.json's created_at: when that run began (a copied directory keeps it)
    fingerprint: str
    planned: int  # runs of its plan (plan.json)
    left: int  # of them, how many have no final record in its journal (an interrupted one counts as left)

    @property
    def finished(self) -> bool:
        return self.left == 0


def run_directories(base: str, scenario: str) -> list[RunDirectory]:
    """The directories under ``base`` that runs of ``scenario`` made, newest first by the start time
    their meta.json records (not by the disk's times: a copied or touched directory is not newer).
    Whatever their names (``--results base/mine`` too); imported tag logs and directories without a
    readable meta.json and plan are no runs to resume."""
    try:
        entries = sorted(os.scandir(base), key=lambda entry: entry.name)
    except (FileNotFoundError, NotADirectoryError):
        return []
    found = []
    for entry in entries:
        if entry.is_dir():
            directory = _run_directory(entry.path, scenario)
            if directory is not None:
                found.append(directory)
    return sorted(found, key=lambda d: d.started_at, reverse=True)  # stable: same second, by name


def _run_directory(path: str, scenario: str) -> RunDirectory | None:
    meta = _read_json(os.path.join(path, "meta.json"))
    if not isinstance(meta, dict) or meta.get("scenario") != scenario or meta.get("imported"):
        return None
    fingerprint, started_at = meta.get("plan_fingerprint"), _timestamp(meta.get("created_at"))
    plan_list = _read_json(os.path.join(path, "plan.json"))
    if not isinstance(fingerprint, str) or started_at is None or not isinstance(plan_list, list):
        return None
    planned = {item.get("run_id") for item in plan_list if isinstance(item, dict)}
    try:
        records, _ = read_journal(os.path.join(path, JOURNAL_NAME))
    except OSError:
        return None  # a journal it cannot read: resume_state could not continue it either
    done = {r.run_id for r in latest_by_run(records).values() if r.status in FINAL_STATUSES}
    return RunDirectory(path, started_at, fingerprint, len(planned), len(planned - done))


def _read_json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def _timestamp(value: object) -> datetime | None:
    try:
        stamp = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)


def to_resume(base: str, scenario: str, specs: Sequence[RunSpec] | None = None) -> str:
    """The directory a bare ``--resume`` continues: the newest one of ``scenario`` under ``base`` with
    runs left and no gftpwb writing to it, of this plan if one is (``specs``), else of any plan (then
    :func:`resume_state` refuses it, naming the command that made it). A finished directory is never
    taken: when every one is, UsageError says which is the newest and that nothing is left to run."""
    directories = run_directories(base, scenario)
    if not directories:
        raise UsageError(f"nothing to resume: no results of {scenario} under {base}/; run it without --resume")
    unfinished = [d for d in directories if not d.finished]
    free = [d for d in unfinished if holder(d.path) is None]
    if not free:
        newest = directories[0]
        if unfinished:
            raise BusyError(f"nothing to resume: the results of {scenario} with runs left under {base}/ are in "
                            f"use by another gftpwb ({', '.join(d.path for d in unfinished)}); wait for it to end")
        raise UsageError(f"nothing to resume: every run of {scenario} under {base}/ is finished; the newest, "
                         f"{newest.path} (started {newest.started_at.isoformat()}), holds all its {newest.planned} "
                         "run(s), and nothing is left to run; run the scenario without --resume for a new run")
    if specs is not None:
        fingerprint = plan_fingerprint(specs)
        for directory in free:
            if directory.fingerprint == fingerprint:
                return directory.path
    return free[0].path


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
