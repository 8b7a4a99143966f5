"""Where a copy test's ends are: which host each URL is on (for ``files:`` and ``baseline:``, which
guc's machinery works out from GridFTP URLs), and what kind of copy it is. Pure."""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import urlsplit

from gftpwb.kinds.guc.baseline import build_baseline
from gftpwb.kinds.guc.files import FileSet, build_files
from gftpwb.kinds.guc.model import Baseline

from .tool import Tool

TPC, UPLOAD, DOWNLOAD, LOCAL_COPY = "third-party", "upload", "download", "local"


def as_server_url(tool: Tool, end: str) -> str:
    """The same end written as a GridFTP URL (``ftp://host:port/path``) when it is one of the tool's
    server URLs, so guc's host and path inference reads it alike; a path stays a path. An XRootD
    URL's path starts after a double slash (``root://h:1094//dev/shm``): one is kept."""
    if not tool.is_url(end):
        return end.split("://", 1)[1] if end.startswith("file://") else end
    parts = urlsplit(end)
    path = "/" + parts.path.lstrip("/")
    return f"ftp://{parts.netloc}{path}"


def copy_mode(tool: Tool, source: str, target: str) -> str:
    """third-party (both ends servers), upload, download, or local (neither)."""
    src, dst = tool.is_url(source), tool.is_url(target)
    return TPC if src and dst else UPLOAD if dst else DOWNLOAD if src else LOCAL_COPY


def files_of(tool: Tool, value: dict[str, Any] | None, *, source: str, target: str, on: tuple[str, ...],
             inventory: dict[str, Any]) -> FileSet | None:
    """The test's file set (raises ValueError with the reason), its URLs the tool's own."""
    if value is None:
        return None
    files = build_files(value, source=as_server_url(tool, source), target=as_server_url(tool, target), on=on,
                        inventory=inventory)
    return dataclasses.replace(files, source_url=_directory(tool.end(source)), target_url=_directory(tool.end(target)))


def baseline_of(tool: Tool, value: Any, *, source: str, target: str, on: tuple[str, ...], inventory: dict[str, Any],
                tests: tuple[dict[str, Any], ...]) -> Baseline | None:
    if value is None:
        return None
    return build_baseline(value, source=as_server_url(tool, source), target=as_server_url(tool, target), on=on,
                          inventory=inventory, tests=tests)


def _directory(url: str) -> str:
    return url if url.endswith("/") else url + "/"
