"""Earlier campaigns from the results history, for a warm start: the SQL the shell runs over the
history's views (:mod:`gftpwb.core.history`), and the rows it returns made into
:class:`~gftpwb.kinds.autotune.warm.PastCampaign` s. Pure.

Two sources, both of the tune's transfer kind:

* auto-tunes: a tune's transfers are records of that kind whose test id is the tune's; the tune's own
  record says what path it measured (``details.path``, the features of
  :class:`~gftpwb.kinds.autotune.warm.PathFeatures`); tunes from before warm starts existed have no
  such details, and their path is taken from ``plan.json`` (no RTT, no buffer cap).
* sweeps: any other test of that kind (a matrix over its parameters, say), one campaign per test and
  path, its path from ``plan.json``.

Each candidate is recognised by its parameters (:func:`~gftpwb.kinds.autotune.warm.candidate_key`),
whatever the kind calls them; parameters the tune sets on all its transfers alike (the size) are
dropped before comparing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from gftpwb.core.history import quote

from .warm import CandidateStats, PastCampaign, PathFeatures, candidate_key, data_of, endpoint

TUNE_KIND = "autotune"
TUNE_COLUMNS = ("directory", "test_id", "started_at", "engine", "path", "source", "target", "length_bytes")
TRANSFER_COLUMNS = ("directory", "test_id", "run_id", "params", "status", "rate", "engine", "started_at", "source",
                    "target", "length_bytes", "bytes")
FAILED_STATUSES = ("failed", "timeout")


def tunes_sql(exclude_directory: str) -> str:
    """Every auto-tune of the history but those of ``exclude_directory`` (the run's own)."""
    return ("SELECT r.directory, r.test_id, CAST(r.started_at AS VARCHAR), r.engine, "
            "CAST(json_extract(r.details, '$.path') AS VARCHAR), p.source, p.target, p.length_bytes "
            "FROM runs r LEFT JOIN plans p ON p.directory = r.directory AND p.run_id = r.run_id "
            f"WHERE r.kind = {quote(TUNE_KIND)} AND r.directory <> {quote(exclude_directory)}")


def transfers_sql(transfer_kind: str, exclude_directory: str) -> str:
    """Every counted-or-failed run of ``transfer_kind`` (warm-ups left out), with its planned path."""
    statuses = ", ".join(quote(s) for s in ("passed", *FAILED_STATUSES))
    return ("SELECT r.directory, r.test_id, r.run_id, CAST(r.params AS VARCHAR), r.status, r.rate_incl_setup_mib_s, "
            "r.engine, CAST(r.started_at AS VARCHAR), p.source, p.target, p.length_bytes, r.bytes "
            "FROM runs r LEFT JOIN plans p ON p.directory = r.directory AND p.run_id = r.run_id "
            f"WHERE r.kind = {quote(transfer_kind)} AND NOT r.warmup AND r.status IN ({statuses}) "
            f"AND r.directory <> {quote(exclude_directory)}")


def _json(text: Any) -> dict[str, Any]:
    if isinstance(text, dict):
        return text
    try:
        value = json.loads(text) if text else {}
    except (TypeError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _features(transfer_kind: str, engine: str, source: str, target: str, length: int,
              ports: Mapping[str, int]) -> PathFeatures:
    return PathFeatures(transfer_kind, engine or "real", endpoint(source, ports), endpoint(target, ports), length,
                        data=data_of(source, target))


def campaigns_from_rows(tunes: Sequence[Sequence[Any]], transfers: Sequence[Sequence[Any]], *, transfer_kind: str,
                        drop: Sequence[str], ports: Mapping[str, int]) -> list[PastCampaign]:
    """The campaigns in the rows of :func:`tunes_sql` and :func:`transfers_sql`."""
    tune_rows = {(row[0], row[1]): dict(zip(TUNE_COLUMNS, row, strict=True)) for row in tunes}
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for raw in transfers:
        row = dict(zip(TRANSFER_COLUMNS, raw, strict=True))
        params = _json(row["params"])
        key = candidate_key(params, drop)
        tune = tune_rows.get((row["directory"], row["test_id"]))
        if tune is not None:
            group_key: tuple[Any, ...] = ("tune", row["directory"], row["test_id"])
            if group_key not in groups:
                path = _json(tune["path"])
                if path:
                    features = PathFeatures.from_dict(path)
                else:
                    features = _features(transfer_kind, tune["engine"], tune["source"] or "", tune["target"] or "",
                                         int(tune["length_bytes"] or 0), ports)
                groups[group_key] = {"ref": f"{row['directory']}:{row['test_id']}", "source": "auto-tune",
                                     "started": tune["started_at"] or "", "features": features, "cells": {}}
        elif row["source"] is not None and row["target"] is not None:
            length = int(row["length_bytes"] or row["bytes"] or 0)
            features = _features(transfer_kind, row["engine"], row["source"], row["target"], length, ports)
            group_key = ("sweep", row["directory"], row["test_id"], features)
            if group_key not in groups:
                groups[group_key] = {"ref": f"{row['directory']}:{row['test_id']}", "source": "sweep",
                                     "started": row["started_at"] or "", "features": features, "cells": {}}
            elif row["started_at"] and row["started_at"] < groups[group_key]["started"]:
                groups[group_key]["started"] = row["started_at"]
        else:
            continue  # a run plan.json does not list (a tune's transfer whose tune record is gone)
        rates, failures = groups[group_key]["cells"].setdefault(key, ([], [0]))
        if row["status"] == "passed" and row["rate"] is not None:
            rates.append(float(row["rate"]))
        elif row["status"] in FAILED_STATUSES:
            failures[0] += 1
    out, refs = [], set()
    for group in groups.values():
        stats = {key: CandidateStats.of(rates, failures[0]) for key, (rates, failures) in group["cells"].items()}
        ref, n = group["ref"], 1
        while ref in refs:  # a sweep over several paths: one campaign per path
            n += 1
            ref = f"{group['ref']}#{n}"
        refs.add(ref)
        out.append(PastCampaign(ref, group["started"], group["features"], stats, group["source"]))
    return out
