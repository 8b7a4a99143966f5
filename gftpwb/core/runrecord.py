"""The one place a run's record is made from its spec: what the record repeats about the run (ids,
kind, host, argv, parameters, comment, engine, tag log name) always comes from the spec the same
way, whichever runner ran it; the runner adds what happened."""

from __future__ import annotations

from typing import Any

from .records import ResultRecord
from .registry import registry
from .specs import RunSpec
from .undecodable import set_aside_undecodable


def record_for(spec: RunSpec, status: str, **happened: Any) -> ResultRecord:
    """A record of ``spec`` with ``status`` and what happened (``started_at``, ``seconds``, ``bytes``,
    rates, ``exit_code``, ``error``, ``output``, ``details``...). Its ``taglog`` is the spec's tag log
    name when the kind writes tag logs (:attr:`gftpwb.core.registry.Run.writes_taglog`). Its ``details``
    start with the spec's (warm-up, transfer mode), then what the runner adds; a spec of the harness
    features adds its loop, copy, delay and seed, and one that started together with others (a test on
    several hosts, a run's copies) its ``group``. Bytes that are not UTF-8 (guc's output, a batchfile's
    comment) are set aside (:mod:`gftpwb.core.undecodable`)."""
    taglog = spec.taglog_name if registry().kind(spec.kind).run.writes_taglog else ""
    harness = spec.harness.details() if spec.harness is not None else {}
    if spec.group:  # runs that started together (a test on several hosts, a run's copies): reports add them up
        harness = {**harness, "group": spec.group}
    if spec.details or harness:
        happened["details"] = {**spec.details, **(happened.get("details") or {}), **harness}
    record = ResultRecord(
        scenario=spec.scenario, test_id=spec.test_id, run_id=spec.run_id, case=spec.case, repeat=spec.repeat,
        kind=spec.kind, host=spec.host, argv=list(spec.argv), status=status, params=dict(spec.params),
        comment=spec.comment, engine=spec.engine, taglog=taglog, **happened,
    )
    return set_aside_undecodable(record)  # valid text for every reader; the bytes for the tag logs
