"""Reading earlier campaigns for a warm start: DuckDB over the results base (the history views of
:mod:`gftpwb.shell.history`), in a worker thread so the run's event loop (console, TUI) keeps going.
The SQL and the grouping are pure (:mod:`gftpwb.kinds.autotune.warmhistory`)."""

from __future__ import annotations

import asyncio
import glob
import os
from collections.abc import Mapping, Sequence

from gftpwb.core.history import JOURNAL, glob_of
from gftpwb.kinds.autotune.warm import PastCampaign
from gftpwb.kinds.autotune.warmhistory import campaigns_from_rows, transfers_sql, tunes_sql
from gftpwb.shell.history import History, is_url


def history_base(results_dir: str | None, configured: str) -> str | None:
    """Where the history lies: the configured base, else the base of this run's results directory."""
    if configured:
        return configured
    if not results_dir:
        return None
    return os.path.dirname(os.path.abspath(results_dir.rstrip("/")))


def read_campaigns(base: str, own_directory: str, transfer_kind: str, drop: Sequence[str],
                   ports: Mapping[str, int]) -> list[PastCampaign]:
    """Every auto-tune and sweep of ``transfer_kind`` under ``base`` but those of ``own_directory``;
    a base without results directories has none. Raises GftpwbError when the history cannot be read."""
    if not is_url(base) and not glob.glob(glob_of(glob.escape(base), JOURNAL)):
        return []  # no results directory yet: a first campaign
    history = History(base)
    try:
        tunes = history.query(tunes_sql(own_directory)).rows
        transfers = history.query(transfers_sql(transfer_kind, own_directory)).rows
    finally:
        history.close()
    return campaigns_from_rows(tunes, transfers, transfer_kind=transfer_kind, drop=drop, ports=ports)


async def read_campaigns_async(base: str, own_directory: str, transfer_kind: str, drop: Sequence[str],
                               ports: Mapping[str, int]) -> list[PastCampaign]:
    return await asyncio.to_thread(read_campaigns, base, own_directory, transfer_kind, drop, ports)
