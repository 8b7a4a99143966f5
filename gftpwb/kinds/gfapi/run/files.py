"""Writes each gfapi run's CSV files (result.csv, threads.csv, hosts.csv) into the results directory.

They go in a directory per run named like the tag logs, ``<scenario>_#<case>_<repeat>/``, so a
parallel-libgfapi user finds a ``result.csv`` per run. The content comes from the record alone
(:mod:`gftpwb.kinds.gfapi.csvfiles`), so the files can always be made again from results.jsonl.
"""

from __future__ import annotations

import os

from gftpwb.core.events import Event, RunFinished
from gftpwb.kinds.gfapi.csvfiles import run_files
from gftpwb.shell.files import atomic_write


def run_directory_name(scenario: str, case: int, repeat: int) -> str:
    return f"{scenario}_#{case:03d}_{repeat:03d}"


class GfapiFilesSink:
    def __init__(self, directory: str):
        self.directory = directory

    def __call__(self, event: Event) -> None:
        if not isinstance(event, RunFinished) or event.record.kind != "gfapi":
            return
        details = event.record.details.get("gfapi")
        if not details:
            return
        r = event.record
        target = os.path.join(self.directory, run_directory_name(r.scenario, r.case, r.repeat))
        os.makedirs(target, exist_ok=True)
        for name, text in run_files(details).items():
            atomic_write(os.path.join(target, name), text)
