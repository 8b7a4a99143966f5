"""The results directory of one scenario run: what goes in it, and how --resume finds and checks it.

Layout::

    results/<UTC timestamp>-<scenario>/
        scenario.yaml      the scenario text as given
        plan.json          the resolved plan: every run with its argv, timeout and parameters
        meta.json          gftpwb version, command line, host, plan fingerprint
        results.jsonl      one record per finished run (appended, fsync'd)
        <scenario>_#<case>_<repeat>.log   one tgftp tag log per run
"""

from __future__ import annotations

import json
import os
import re
import socket
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from gftpwb import __version__
from gftpwb.core.errors import ResumeError, UsageError
from gftpwb.core.plan import plan_fingerprint, spec_json
from gftpwb.core.records import FINAL_STATUSES, ResultRecord, latest_by_run
from gftpwb.core.specs import RunSpec
from gftpwb.shell.files import atomic_write
from gftpwb.shell.sinks.journal import JOURNAL_NAME, read_journal

DEFAULT_BASE = "results"


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
    _write(os.path.join(directory, "scenario.yaml"), scenario_text)
    _write(os.path.join(directory, "plan.json"), json.dumps([spec_json(s) for s in specs], indent=1) + "\n")
    meta = {
        "gftpwb_version": __version__,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": command,
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
    """The newest results directory of ``scenario`` under ``base`` (names sort by time)."""
    try:
        # "<stamp>-<scenario>" or "<stamp>-<scenario>.<n>"; scenario names may hold dots (tests.csv)
        names = sorted(n for n in os.listdir(base) if re.sub(r"\.\d+$", "", n.split("-", 1)[-1]) == scenario)
    except FileNotFoundError:
        return None
    return os.path.join(base, names[-1]) if names else None


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
        raise ResumeError(f"cannot resume {directory}: the scenario's plan changed since that run (other tests, "
                          "options, matrix or --only); start a new run instead")
    records, problems = read_journal(os.path.join(directory, JOURNAL_NAME))
    final = [r for r in latest_by_run(records).values() if r.status in FINAL_STATUSES]
    return final, frozenset(r.run_id for r in final), problems
