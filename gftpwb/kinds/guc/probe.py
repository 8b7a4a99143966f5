"""``files: {probe: true}``: which end's disk limits a disk-to-disk transfer. Pure.

The TeraGrid study ran bonnie on both ends alongside its transfers and found the source disks'
reads limiting. Here the probe is the gfapi kind's POSIX worker (no new program): before the first
run of each disk-to-disk case, ``N`` threads (the case's streams, ``parallel``) each write and then read
back their share of the files' bytes with ``O_DIRECT`` (so the page cache serves nothing) in the
source directory's host, and write them in the target directory's host; the files are then
unlinked and the guc run's clean-up removes the probe directory (``<directory>.gftpwb-probe``, beside
the source or target directory, so that ``guc -r`` never sees it). Five gfapi runs per case, all
ordinary records of kind gfapi under the guc test and case (``<case>/probe/<step>``):

==============  ==========  =======================================================
step            host        what it measures
==============  ==========  =======================================================
source-write    source      (prepares the files to read)
source-read     source      the source disk's read rate: what guc's source reads
source-clean    source      unlink
target-write    target      the target disk's write rate: what guc's target writes
target-clean    target      unlink
==============  ==========  =======================================================

The report compares the source read and target write rates with the transfer's own rate (and its
memory-to-memory twin when the scenario has one): the slowest of them is what limits.
"""

from __future__ import annotations

from typing import Any

from gftpwb.core.specs import RunSpec

from .files import FileSet

PROBE_SUFFIX = ".gftpwb-probe"  # beside the directory, not in it: guc -r must not move the probe's files
STEPS = (("source-write", "source", "seq-wr"), ("source-read", "source", "seq-rd"),
         ("source-clean", "source", "unlink"), ("target-write", "target", "seq-wr"),
         ("target-clean", "target", "unlink"))
MEASURED = {"source-read": "source read", "target-write": "target write"}
ALIGN = 4096  # O_DIRECT wants page-aligned sizes
RECORD = 1 << 20


def probe_directory(files: FileSet, side: str) -> str:
    return f"{(files.source_dir if side == 'source' else files.target_dir).rstrip('/')}{PROBE_SUFFIX}"


def probe_specs(scenario: str, test_id: str, files: FileSet, *, case: int, label: str, streams: int,
                timeout_s: float | None) -> list[RunSpec]:
    """The probe's gfapi runs for one case (run ids ``<label>/probe/<step>``)."""
    from gftpwb.kinds.gfapi.job import GfapiJob, display_argv  # the gfapi kind's own description of a run
    from gftpwb.kinds.gfapi.model import GfapiTest

    threads = max(1, streams)
    per_thread = max(1, files.count // threads)
    direct = files.size % ALIGN == 0
    record = min(RECORD, files.size)  # a multiple of 4096 whenever the size is (direct)
    specs = []
    for step, side, workload in STEPS:
        host = files.source_host if side == "source" else files.target_host
        test = GfapiTest(id=test_id, kind="gfapi", directory=probe_directory(files, side), workload=workload,
                         threads=threads, files=per_thread, file_size=files.size, record_size=record,
                         direct=direct and workload != "unlink", on=(host,))
        job = GfapiJob.from_test(test, {}, (host,))
        details: dict[str, Any] = {"probe": step, "probe_side": side}
        specs.append(RunSpec(run_id=f"{label}/probe/{step}", scenario=scenario, test_id=test_id, case=case, repeat=0,
                             kind="gfapi", host=host, argv=display_argv(job), params=job.to_params(),
                             timeout_s=timeout_s, length_bytes=job.total_bytes or None, target=job.target,
                             details=details))
    return specs
