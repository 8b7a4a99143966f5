"""tgftp 0.7.0 and gftpwb side by side: every batchfile and command line of the corpus, every path.

For the drop-ins (``tgftp``, ``gftpwb tgftp``) everything is compared: exit code, screen, the guc
argv of every call, the files left behind, and every attribute the real tgftp_log reads from each
log. For ``gftpwb run BATCHFILE`` and ``gftpwb import`` + ``run`` (which write into a results
directory) the guc argv and the logs are compared. A difference must be excused by an entry of
compat/allowlist.py, and every entry must excuse something.
"""

from __future__ import annotations

import pytest
from compat.allowlist import ALLOW
from compat.corpus import BATCH, SINGLE
from compat.harness import Difference, compare

DROPIN_ASPECTS = ("exit", "stdout", "stderr", "argv", "files", "logs")
RUN_ASPECTS = ("argv", "logs")


def aspects_for(kind: str, path: str) -> tuple[str, ...]:
    aspects = DROPIN_ASPECTS if path in ("dropin", "gftpwb-tgftp") else RUN_ASPECTS
    return (*aspects, "rates") if kind == "single" else aspects


@pytest.fixture(scope="session")
def differences(batch_runs, single_runs) -> dict[str, list[Difference]]:
    """Every difference of every case on every path, by case ("batch/NAME", "single/NAME")."""
    out: dict[str, list[Difference]] = {}
    for kind, cases, runs in (("batch", BATCH, batch_runs), ("single", SINGLE, single_runs)):
        for case in cases:
            name = f"{kind}/{case.name}"
            out[name] = [diff for path in case.paths
                         for diff in compare(name, path, runs[case.name]["tgftp"], runs[case.name][path],
                                             aspects_for(kind, path))]
    return out


def unexcused(diffs: list[Difference]) -> list[Difference]:
    return [d for d in diffs if not any(a.excuses(d) for a in ALLOW)]


@pytest.mark.parametrize("case", BATCH, ids=lambda c: c.name)
def test_batchfile(case, differences):
    left = unexcused(differences[f"batch/{case.name}"])
    assert not left, "\n".join(str(d)[:2000] for d in left)


@pytest.mark.parametrize("case", SINGLE, ids=lambda c: c.name)
def test_single_command_line(case, differences):
    left = unexcused(differences[f"single/{case.name}"])
    assert not left, "\n".join(str(d)[:2000] for d in left)


def test_every_allow_list_entry_is_used(differences):
    everything = [d for diffs in differences.values() for d in diffs]
    unused = [a for a in ALLOW if not a.race and not any(a.excuses(d) for d in everything)]
    assert not unused, "allow-list entries that excuse nothing (remove them):\n" + "\n".join(
        f"{a.case} [{a.path}] {a.aspect}: {a.reason}" for a in unused)


def test_the_corpus_is_big_enough():
    assert len(BATCH) >= 40 and len(SINGLE) >= 40
