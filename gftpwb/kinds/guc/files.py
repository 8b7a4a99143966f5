"""``files:`` of a guc test: disk-to-disk transfers of test files gftpwb makes and removes. Pure.

The TeraGrid study compared memory-to-memory transfers (``/dev/zero`` to ``/dev/null``) with
disk-to-disk ones of the same parameters, and found the disks, not the network, limiting. A test
with ``files:`` names directories as its source and target (``ftp://h1:2811/data/src/``,
``file:///scratch/dst/``); for every run gftpwb

1. creates ``count`` files of ``size`` bytes in the source directory, on the host the source URL is on
   (``content: random``, from ``/dev/urandom``, which the disk must really read back; or ``sparse``,
   holes made by ``truncate``, which read as zeros without disk I/O: a file-system path test only),
   and empties the target directory, which it makes writable by every user, since the server may
   map a transfer to another user (the lab's anonymous ``nobody``);
2. optionally drops the page cache on both ends (``drop_caches: true``: ``sync`` and ``echo 3 >
   /proc/sys/vm/drop_caches``, root only; when it cannot, the record says so under
   ``details.files.drop_caches`` and the run goes on, reading from the cache);
3. transfers them: the whole directory (``transfer: directory``: ``guc -cd -r SRC/ DST/``) or one
   pair per file from a list (``transfer: list``: ``guc -f LIST``, the list written on guc's host);
4. checks every target file's size (``verify: checksum`` compares SHA-256 sums too), fails the run
   when one is missing or differs, and removes the files and the directories it made.

Hosts come from the URLs as for ``baseline:`` (a ``file://`` end is guc's host; a server end the
inventory host with that name or address, or this machine for ``localhost``). Both programs
(``sh``, ``head``, ``truncate``, ``stat``, ``sha256sum``) are POSIX/coreutils on every Debian host.
guc reports progress per file, so its own average is the last file's: the record's rate is all
bytes over the run's time, and guc's average is left out of the statistics (``per file``).
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from gftpwb.core.registry import HostCheck
from gftpwb.core.scenario.keys import SIZE
from gftpwb.core.units import parse_size

from .baseline import BaselineError, end_host

PREFIX = "gftpwb-file-"
RANDOM, SPARSE = "random", "sparse"
DIRECTORY, LIST = "directory", "list"
SIZE_CHECK, CHECKSUM = "size", "checksum"
DROP_CACHES = "sync && echo 3 > /proc/sys/vm/drop_caches"

FILES_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["size"],
    "properties": {
        "size": {**SIZE, "description": "Size of each file, e.g. 256M."},
        "count": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "How many files. Default 1."},
        "content": {"enum": [RANDOM, SPARSE],
                    "description": "random (default): from /dev/urandom, read back from disk; sparse: holes "
                                   "(truncate), read without disk I/O."},
        "transfer": {"enum": [DIRECTORY, LIST],
                     "description": "directory (default): guc -cd -r SRC/ DST/; list: guc -f with one source and "
                                    "target URL per file."},
        "verify": {"enum": [SIZE_CHECK, CHECKSUM],
                   "description": "size (default): every target file's size; checksum: SHA-256 sums of both ends "
                                  "too."},
        "drop_caches": {"type": "boolean",
                        "description": "Drop the page cache on both ends before each run (root only). Default "
                                       "false."},
        "probe": {"type": "boolean",
                  "description": "Before each case, measure the source disk's read and the target disk's write "
                                 "rate with the gfapi kind's POSIX worker (one thread per stream, O_DIRECT), so the "
                                 "report can say which end limits. Default false."},
    },
}
FILES_DESCRIPTION = (
    "Disk-to-disk runs: source and target are directories (URLs ending in /); before each run gftpwb creates "
    "count files of size in the source directory (random or sparse), empties the target directory, optionally "
    "drops the page cache on both ends, transfers them (guc -cd -r, or a list with -f), checks every target file's "
    "size (and SHA-256 sum with verify: checksum), then removes what it made.")


@dataclass(frozen=True)
class FileSet:
    """The test files of one run and where they are (paths on their hosts)."""

    size: int
    count: int
    content: str
    transfer: str
    verify: str
    drop_caches: bool
    source_host: str
    target_host: str
    source_dir: str  # a path on source_host, ending in /
    target_dir: str
    source_url: str  # the directory URLs, ending in /
    target_url: str
    probe: bool = False

    @property
    def names(self) -> list[str]:
        return [f"{PREFIX}{i:04d}" for i in range(self.count)]

    @property
    def total_bytes(self) -> int:
        return self.size * self.count

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> FileSet:
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    def describe(self) -> str:
        """``files: 4 x 64M random, h1:/src/ -> h2:/dst/ (directory), verify size, drop caches``."""
        from gftpwb.core.units import format_size_arg

        return (f"files: {self.count} x {format_size_arg(self.size)} {self.content}, {self.source_host}:"
                f"{self.source_dir} -> {self.target_host}:{self.target_dir} ({self.transfer}), verify {self.verify}"
                f"{', drop caches' if self.drop_caches else ''}{', disk probe per case' if self.probe else ''}; made "
                "before and removed after each run")

    # --- the shell code run on the hosts (POSIX sh) ---------------------------------------------

    def create_script(self) -> str:
        """Source: the directory and the files (made readable by all); each file written whole. First
        :func:`walk_up`: the directories it will make, or the one other users cannot pass."""
        src = shlex.quote(self.source_dir)
        make = (f"truncate -s {self.size} \"$f\"" if self.content == SPARSE else
                f"head -c {self.size} /dev/urandom > \"$f.tmp\" && mv \"$f.tmp\" \"$f\"")
        names = " ".join(self.names)
        return (f"{walk_up(self.source_dir)}set -e; mkdir -p {src}; cd {src}; for f in {names}; do rm -f \"$f\"; "
                f"{make}; chmod a+r \"$f\"; done")

    def target_script(self) -> str:
        """Target: an empty directory every user may write to (our files only are removed from it)."""
        dst = shlex.quote(self.target_dir)
        return f"{walk_up(self.target_dir)}set -e; mkdir -p {dst}; cd {dst}; rm -f {PREFIX}*; chmod a+rwx ."

    def verify_script(self, side: str) -> str:
        """``name size [sha256]`` per file of a side (missing ones print ``name -``)."""
        where = shlex.quote(self.source_dir if side == "source" else self.target_dir)
        checksum = "$(sha256sum < \"$f\" | cut -d' ' -f1)" if self.verify == CHECKSUM else ""
        return (f"cd {where} || exit 1; for f in {' '.join(self.names)}; do if [ -f \"$f\" ]; then "
                f"echo \"$f $(stat -c %s \"$f\") {checksum}\"; else echo \"$f -\"; fi; done")

    def cleanup_script(self, side: str, made: Sequence[str] | None = None) -> str:
        """Remove our files, then the directories the preparation made (``made``, deepest first, as
        :func:`made_directories` read them), each only while empty; without ``made`` (results of an
        older gftpwb) the leaf directory alone, when empty."""
        where = shlex.quote(self.source_dir if side == "source" else self.target_dir)
        probe = shlex.quote(f"{(self.source_dir if side == 'source' else self.target_dir).rstrip('/')}.gftpwb-probe")
        dirs = " ".join(shlex.quote(d) for d in made) if made is not None else where
        remove = f"for d in {dirs}; do rmdir \"$d\" 2>/dev/null || break; done; " if dirs else ""
        return f"rm -rf {probe}; cd {where} 2>/dev/null || exit 0; rm -f {PREFIX}*; cd /; {remove}exit 0"

    def list_text(self) -> str:
        """The ``-f`` list: one ``SOURCE TARGET`` line per file."""
        return "".join(f"{self.source_url}{n} {self.target_url}{n}\n" for n in self.names)


MADE = "gftpwb-made"
UNREACHABLE = "gftpwb-unreachable"
EXIT_UNREACHABLE = 3  # the preparation's exit status when a directory cannot be passed by other users


def walk_up(path: str) -> str:
    """sh run before a side's directory is made: walking from it up to /, print ``gftpwb-made DIR``
    for each directory that is missing (``mkdir -p`` makes them; deepest first), and stop with
    ``gftpwb-unreachable DIR MODE OWNER`` (exit 3) at the first existing one that other users cannot
    pass (no o+x). The GridFTP server may run a transfer as another user than the one that owns the
    directories (the lab's map it to nobody): through such a directory guc only says "Permission denied"."""
    start = shlex.quote(path.rstrip("/") or "/")
    return (f"p={start}; while :; do if [ -d \"$p\" ]; then m=$(stat -c '%a %U' \"$p\") || exit 1; "
            f"case \"${{m%% *}}\" in *[1357]) ;; *) echo \"{UNREACHABLE} $p $m\"; exit {EXIT_UNREACHABLE};; esac; "
            f"else echo \"{MADE} $p\"; fi; [ \"$p\" = / ] && break; p=$(dirname \"$p\"); done; ")


def made_directories(output: str) -> list[str]:
    """The directories a preparation made (:func:`walk_up`'s lines), deepest first."""
    return [line[len(MADE) + 1:] for line in output.splitlines() if line.startswith(MADE + " ")]


def unreachable_text(output: str, host: str) -> str | None:
    """The user's message for :func:`walk_up`'s ``gftpwb-unreachable`` line, None without one."""
    line = next((x for x in output.splitlines() if x.startswith(UNREACHABLE + " ")), None)
    if line is None:
        return None
    path, mode, owner = line[len(UNREACHABLE) + 1:].rsplit(" ", 2)
    return unreachable_message(path, mode, owner, host)


def unreachable_message(path: str, mode: str, owner: str, host: str) -> str:
    """What to say of a directory other users cannot pass: the in-run check and the preflight say the same."""
    return (f"{path} on {host} is mode {mode.zfill(4)} (owner {owner}): other users cannot pass through it, and the "
            "GridFTP server may run the transfer as another user (the lab's servers run it as nobody), which gets "
            f"\"Permission denied\"; run `chmod o+x {shlex.quote(path)}` on {host}, or put the test files under a "
            "directory every user can reach (such as /var/tmp/gftpwb); the transfer was not started")


def ancestors(path: str) -> list[str]:
    """``/a/b/`` -> ``["/a/b", "/a", "/"]``: a directory and every one above it, deepest first."""
    out = [posixpath.normpath(path) if path.strip("/") else "/"]
    while out[-1] != "/":
        out.append(posixpath.dirname(out[-1]))
    return out


STAT_FORMAT = "%a %U %n"


def reach_argv(path: str) -> tuple[str, ...]:
    """The preflight's look at a side's directories: ``stat`` of it and each one above (an argv, the
    paths arguments of their own; missing ones print nothing, ``mkdir -p`` makes them later)."""
    return ("stat", "-L", "-c", STAT_FORMAT, "--", *ancestors(path))


def unreachable_in_stat(output: str, path: str, host: str) -> str | None:
    """:func:`reach_argv`'s output read as :func:`walk_up` reads the tree: the deepest existing
    directory without ``o+x`` stops the run (None when every one can be passed)."""
    seen: dict[str, tuple[str, str]] = {}
    for line in output.splitlines():
        mode, owner, name = [*line.split(" ", 2), "", ""][:3]
        if mode.isdigit():
            seen[name] = (mode, owner)
    for directory in ancestors(path):
        if directory in seen:
            mode, owner = seen[directory]
            if not int(mode, 8) & 1:
                return unreachable_message(directory, mode, owner, host)
    return None


def reach_checks(files: FileSet, who: str) -> tuple[HostCheck, ...]:
    """The preflight's checks of a file set (:meth:`gftpwb.core.registry.Planner.host_checks`): both
    sides' directories, on their hosts, before any run makes or moves a file."""
    return tuple(HostCheck(host=host, argv=reach_argv(path), problem=partial(unreachable_in_stat, path=path, host=host),
                           who=f"{who}, {side}")
                 for side, host, path in (("source", files.source_host, files.source_dir),
                                          ("target", files.target_host, files.target_dir)))


def compare(files: FileSet, source: str, target: str) -> list[str]:
    """Problems between the verify outputs of both sides ([] when every target file is right)."""
    def table(text: str) -> dict[str, list[str]]:
        return {parts[0]: parts[1:] for parts in (line.split() for line in text.splitlines()) if parts}

    src, dst = table(source), table(target)
    problems = []
    for name in files.names:
        got = dst.get(name, ["-"])
        if got[:1] == ["-"]:
            problems.append(f"{name}: missing on the target")
        elif got[0] != str(files.size):
            problems.append(f"{name}: {got[0]} bytes on the target, {files.size} expected")
        elif files.verify == CHECKSUM and got[1:] != src.get(name, ["-"])[1:]:
            problems.append(f"{name}: SHA-256 differs ({(src.get(name) or ['-', '-'])[1:][:1]} -> {got[1:][:1]})")
    return problems


def directory_url(url: str) -> str:
    return url if url.endswith("/") else url + "/"


def path_of(url: str) -> str:
    """The path a (file or server) URL names on its host."""
    if "://" not in url:
        return url
    return urlsplit(url).path


def build_files(value: dict[str, Any], *, source: str, target: str, on: tuple[str, ...],
                inventory: dict[str, Any]) -> FileSet:
    """The file set of a test (raises ValueError with the reason)."""
    guc_host = on[0] if len(on) == 1 else "local"
    if len(on) > 1:
        raise ValueError("files: this test runs on several hosts (on:); each would make and remove the same files, "
                         "so give it one")
    for which, url in (("source", source), ("target", target)):
        if not url.endswith("/"):
            raise ValueError(f"files: the {which} must be a directory URL ending in / (got {url})")
        if not path_of(url).startswith("/") or path_of(url).rstrip("/") == "":
            raise ValueError(f"files: the {which} directory must be an absolute path below / (got {url})")
    try:
        source_host = end_host(source, guc_host, inventory, "source")
        target_host = end_host(target, guc_host, inventory, "target")
    except BaselineError as exc:
        raise ValueError(str(exc).replace("baseline: iperf3", "files:").split("; give")[0]) from None
    if source_host == target_host and path_of(source).rstrip("/") == path_of(target).rstrip("/"):
        raise ValueError("files: source and target are the same directory on the same host")
    return FileSet(size=parse_size(value["size"]), count=int(value.get("count", 1)),
                   content=value.get("content", RANDOM), transfer=value.get("transfer", DIRECTORY),
                   verify=value.get("verify", SIZE_CHECK),
                   drop_caches=bool(value.get("drop_caches", False)), source_host=source_host,
                   target_host=target_host, source_dir=directory_url(path_of(source)),
                   target_dir=directory_url(path_of(target)), source_url=directory_url(source),
                   target_url=directory_url(target), probe=bool(value.get("probe", False)))


def list_path(run_id: str) -> str:
    """Where a run's ``-f`` list goes on guc's host (one per run id, removed after the run)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in run_id)
    return f"/tmp/gftpwb-list-{safe}.txt"


def plan_line(details: dict[str, Any], run_id: str) -> str | None:
    """The line ``--dry-run`` shows under a run that moves a file set (what it moves, indented under the
    run's id), or None for a run without one: guc's and the copy tools' plans say it alike."""
    files = details.get("files")
    return f"{' ' * len(run_id)}  {FileSet.from_dict(files).describe()}" if files else None
