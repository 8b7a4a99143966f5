"""Files the import and export commands write for the user: never over an existing one unless asked,
always whole (written aside, then renamed), and a failure said plainly."""

from __future__ import annotations

import os

from gftpwb.core.errors import UsageError
from gftpwb.shell.files import atomic_write


def refuse_overwrite(path: str, force: bool) -> None:
    if os.path.exists(path) and not force:
        raise UsageError(f"{path} already exists; use --force to overwrite it")


def write_output(path: str, text: str) -> None:
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
