"""``tgftp -a`` for the drop-in CLI: tgftp's exhaustive auto-tune of a source/target pair, returning
the line tgftp prints (the winning guc parameters, e.g. ``-vb -p 16 -tcp-bs 8M``, or an empty line
when no candidate reached the margin).

It builds a one-test scenario (``kind: autotune``) and runs it through the same session as
``gftpwb run``, so the transfers are journaled, tag-logged and resumable like any other run; where
tgftp left 370 hidden logs in the current directory, this leaves one results directory.
"""

from __future__ import annotations

import asyncio
import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML

from gftpwb.core.bus import Handler
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.plan import plan
from gftpwb.core.records import ResultRecord, Summary
from gftpwb.core.scenario.model import Scenario
from gftpwb.core.units import format_size_arg
from gftpwb.kinds.autotune.plan import AUTOTUNE
from gftpwb.kinds.guc.model import GucOptions
from gftpwb.shell import frontend
from gftpwb.shell.session import RunRequest, execute, prepare_run

SCENARIO_NAME = "tgftp-autotune"


@dataclass
class TgftpAutotuneResult:
    line: str  # what tgftp prints on stdout: the winner's guc parameters, "" without a winner
    results_dir: str
    summary: Summary
    record: ResultRecord | None = None  # the tune's record (ranking in .details), None if interrupted early
    transfers: list[ResultRecord] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return self.summary.interrupted


def _candidate_mapping(options: GucOptions) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in options.set_options().items():
        out[name] = format_size_arg(value) if name in ("tcp_buffer", "block_size") else value
    return out


def autotune_scenario_text(source: str, target: str, *, candidates: Sequence[GucOptions] | None = None,
                           length: str | int = "4G", repetitions: int = 10, timeout: str | float = "30s",
                           margin: str | float = "20MB/s", strategy: str = "exhaustive", engine: str = "real",
                           link: dict[str, Any] | None = None, memory_to_memory: bool = True) -> str:
    """The scenario this auto-tune runs, as YAML (written to the results directory, and validated)."""
    test: dict[str, Any] = {
        "id": "autotune", "kind": "autotune", "source": source, "target": target,
        "memory_to_memory": memory_to_memory, "strategy": strategy, "length": length, "timeout": timeout,
        "margin": margin, "engine": engine,
        "candidates": "tgftp-37" if candidates is None else [_candidate_mapping(c) for c in candidates],
    }
    if strategy == "exhaustive":
        test["repetitions"] = repetitions
    if link is not None:
        test["link"] = link
    data = {"version": 1, "name": SCENARIO_NAME,
            "description": "tgftp -a: find the best guc parameters for this source and target", "tests": [test]}
    buffer = io.StringIO()
    YAML().dump(data, buffer)
    return buffer.getvalue()


def autotune_scenario(source: str, target: str, **scenario: Any) -> Scenario:
    """The auto-tune's one-test scenario, loaded and checked (:func:`autotune_scenario_text`)."""
    return load_scenario_text(autotune_scenario_text(source, target, **scenario), f"<{SCENARIO_NAME}>")


def run_tgftp_autotune(source: str, target: str, *, results_dir: str | None = None, resume: bool = False,
                       subscribers: Sequence[Handler] = (), command: Sequence[str] | None = None,
                       install_signal_handlers: bool = True, **scenario: Any) -> TgftpAutotuneResult:
    """Run tgftp's auto-tune (exhaustive, tgftp-37, 10 x 4 GiB, 30 s timeout, 20 MB/s margin unless
    told otherwise in ``scenario``: see :func:`autotune_scenario_text`) and return tgftp's line.

    ``results_dir`` defaults to ``results/<UTC timestamp>-tgftp-autotune``; ``resume=True`` continues
    the interrupted auto-tune in ``results_dir``. ``subscribers`` receive every event (pass a
    ConsoleSink for progress; tgftp itself ran its auto-tune silently). Raises the usual
    :class:`~gftpwb.core.errors.GftpwbError` subclasses for bad arguments (exit code in ``.exit_code``).
    """
    return asyncio.run(tgftp_autotune(source, target, results_dir=results_dir, resume=resume,
                                      subscribers=subscribers, command=command,
                                      install_signal_handlers=install_signal_handlers, **scenario))


async def tgftp_autotune(source: str, target: str, *, results_dir: str | None = None, resume: bool = False,
                         subscribers: Sequence[Handler] = (), command: Sequence[str] | None = None,
                         install_signal_handlers: bool = True, **scenario: Any) -> TgftpAutotuneResult:
    """The async form of :func:`run_tgftp_autotune`."""
    model = autotune_scenario(source, target, **scenario)
    specs = plan(model)
    if results_dir is None:
        if resume:
            raise ValueError("resume needs the results directory of the interrupted auto-tune")
        results_dir = frontend.results_dir(model)
    request = RunRequest(scenario=model, specs=specs, results_dir=results_dir,
                         command=list(command) if command is not None else ["gftpwb", *sys.argv[1:]],
                         resume=resume, subscribers=list(subscribers))
    outcome = await execute(prepare_run(request), install_signal_handlers=install_signal_handlers)
    records = outcome.journal.records
    tune = outcome.journal.last(kind=AUTOTUNE)
    line = tune.details.get("tgftp_line", "") if tune is not None and tune.status == "passed" else ""
    return TgftpAutotuneResult(line=line, results_dir=results_dir, summary=outcome.summary, record=tune,
                               transfers=[r for r in records if r.kind != AUTOTUNE])
