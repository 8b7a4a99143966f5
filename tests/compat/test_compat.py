"""tgftp 0.7.0 and gftpwb side by side: every batchfile and command line of the corpus, every path.

For the drop-ins (``tgftp``, ``gftpwb tgftp``) everything is compared: exit code, screen, the guc
argv of every call, the files left behind, and every attribute the real tgftp_log reads from each
log. For ``gftpwb run BATCHFILE`` and ``gftpwb import`` + ``run`` (which write into a results
directory) the guc argv and the logs are compared. Differences must be in the allow list.
"""

from __future__ import annotations

import pytest
from compat.allowlist import ALLOW
from compat.corpus import BATCH, SINGLE
from compat.harness import Difference, compare

DROPIN_ASPECTS = ("exit", "stdout", "stderr", "argv", "files", "logs")
RUN_ASPECTS = ("argv", "logs")
SEEN: list[Difference] = []


def unexplained(diffs: list[Difference]) -> list[Difference]:
    SEEN.extend(diffs)
    return [d for d in diffs if not any(a.excuses(d) for a in ALLOW)]


def aspects_for(path: str) -> tuple[str, ...]:
    return DROPIN_ASPECTS if path in ("dropin", "gftpwb-tgftp") else RUN_ASPECTS


@pytest.mark.parametrize("case", BATCH, ids=lambda c: c.name)
def test_batchfile(case, batch_runs):
    runs = batch_runs[case.name]
    diffs = []
    for path in case.paths:
        diffs += compare(f"batch/{case.name}", path, runs["tgftp"], runs[path], aspects_for(path))
    left = unexplained(diffs)
    assert not left, "\n".join(str(d) for d in left)


@pytest.mark.parametrize("case", SINGLE, ids=lambda c: c.name)
def test_single_command_line(case, single_runs):
    runs = single_runs[case.name]
    diffs = []
    for path in case.paths:
        diffs += compare(f"single/{case.name}", path, runs["tgftp"], runs[path], (*aspects_for(path), "rates"))
    left = unexplained(diffs)
    assert not left, "\n".join(str(d) for d in left)
