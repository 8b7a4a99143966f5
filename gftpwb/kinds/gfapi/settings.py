"""The settings of a ``kind: gfapi`` test, their defaults, and the worker flag each one becomes.

One table serves the schema builder (types, descriptions, which ones a matrix may sweep), the
typed model (defaults) and the worker's argv (``gftpwb/kinds/gfapi/job.py``), like
``guc_options.py`` does for guc. Defaults follow parallel-libgfapi's worker where it had one
(100 files per thread, 1 MiB files, 64 KiB records, 1000 files per directory).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

SettingType = Literal["count", "count0", "size", "flag", "workload", "percent", "level", "fanout"]

WORKLOADS = ("seq-wr", "seq-rd", "rnd-wr", "rnd-rd", "unlink", "rw-mix")
RANDOM_WORKLOADS = ("rnd-wr", "rnd-rd")
WRITE_WORKLOADS = ("seq-wr", "rnd-wr", "rw-mix")
TRANSPORTS = ("tcp", "rdma", "unix")
DEFAULT_PORT = 24007
DEFAULT_VOLUME_DIRECTORY = "/gftpwb"
DIRECT_ALIGNMENT = 4096


@dataclass(frozen=True)
class GfapiSetting:
    name: str  # the key in a gfapi test and in its matrix
    type: SettingType
    default: Any
    flag: str | None  # the worker's flag; None when the controller uses it itself
    description: str
    sweepable: bool = True  # may appear in matrix:


GFAPI_SETTINGS: tuple[GfapiSetting, ...] = (
    GfapiSetting("workload", "workload", "seq-wr", "--workload",
                 "What every thread does to each of its files: seq-wr (create and write; leftovers of an "
                 "earlier run with the same layout are removed before the start), seq-rd (read), rnd-wr / "
                 "rnd-rd (io_requests writes or reads at random record offsets of existing files), unlink "
                 "(delete), rw-mix (read or write each record of existing files, read_pct % reads)."),
    GfapiSetting("threads", "count", 4, "--threads",
                 "Worker threads per process; in libgfapi mode the threads of a process share one "
                 "connection (glfs_t)."),
    GfapiSetting("processes", "count", 1, None,
                 "Worker processes per host, each with its own libgfapi connection and `threads` threads."),
    GfapiSetting("files", "count", 100, "--files", "Files per thread."),
    GfapiSetting("file_size", "size", 1024 * 1024, "--file-size", "Size of each file, e.g. 64K or 1M."),
    GfapiSetting("record_size", "size", 64 * 1024, "--record-size",
                 "Bytes per read or write call (the I/O request size); larger than file_size means "
                 "file_size (with a warning)."),
    GfapiSetting("files_per_dir", "count", 1000, "--files-per-dir",
                 "At most this many files in one directory; more files per thread spread over "
                 "subdirectories, with as many levels as the file count needs."),
    GfapiSetting("dirs_per_dir", "fanout", 1000, "--dirs-per-dir",
                 "At most this many subdirectories in one directory of the tree (at least 2)."),
    GfapiSetting("io_requests", "count0", 0, "--io-requests",
                 "Random workloads: reads or writes per file, at distinct random record offsets; 0 (the "
                 "default) means every record of the file once."),
    GfapiSetting("read_pct", "percent", 50, "--read-pct", "rw-mix: percentage of records read (0 to 100)."),
    GfapiSetting("direct", "flag", False, "--direct",
                 "Open files with O_DIRECT (page-aligned buffers; file_size and record_size must be "
                 "multiples of 4096)."),
    GfapiSetting("fsync", "flag", False, "--fsync", "fsync each written file before closing it (timed as fsync)."),
    GfapiSetting("trace_level", "level", 4, "--trace-level",
                 "libgfapi log level, written to the worker's stderr and kept in the record: 0 none, "
                 "4 errors (default), 5 warnings, 7 info, 8 debug, 9 trace.", sweepable=False),
    GfapiSetting("seed", "count0", 1, "--seed",
                 "Seed of the random offsets and read/write choices (the same seed repeats the same "
                 "pattern).", sweepable=False),
)
SETTINGS_BY_NAME = {s.name: s for s in GFAPI_SETTINGS}
SWEEPABLE = tuple(s.name for s in GFAPI_SETTINGS if s.sweepable)
