"""Writes each gfapi run's CSV files (result.csv, threads.csv, hosts.csv) into the results directory.

They go in a directory per run named like the tag logs, ``<scenario>_#<case>_<repeat>/`` (and the
loop and copy of a looping or concurrent run: ``..._000.loop1#2/``), so a
parallel-libgfapi user finds a ``result.csv`` per run. The content comes from the record alone
(:mod:`gftpwb.kinds.gfapi.csvfiles`), so the files can always be made again from results.jsonl.
"""

from __future__ import annotations

import contextlib
import os

from gftpwb.core.events import Event, RunFinished
from gftpwb.core.specs import Harness
from gftpwb.kinds.gfapi.csvfiles import RUN_FILES, run_files
from gftpwb.shell.files import atomic_write


def run_directory_name(scenario: str, case: int, repeat: int, harness: Harness | None = None) -> str:
    """``<scenario>_#<case>_<repeat>``, with the loop and copy as tag log names have them
    (``.loop<k>``, ``#<copy>``) when the scenario loops or runs copies."""
    return f"{scenario}_#{case:03d}_{repeat:03d}{harness.name_suffix if harness is not None else ''}"


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
        name = run_directory_name(r.scenario, r.case, r.repeat, Harness.of_record(r.details))
        target = os.path.join(self.directory, name)
        os.makedirs(target, exist_ok=True)
        files = run_files(details)
        for name, text in files.items():
            atomic_write(os.path.join(target, name), text)
        for name in RUN_FILES:  # an earlier attempt's file that this record does not have (a resumed run)
            if name not in files:
                with contextlib.suppress(FileNotFoundError):
                    os.remove(os.path.join(target, name))
