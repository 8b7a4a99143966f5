"""What the views read of the workbench, and the message they send it: views never import the app.

The app (:class:`gftpwb.tui.app.WorkbenchApp`) has these attributes; a view reads them through
``self.app`` typed as :class:`WorkbenchState`, and asks for what changes files by posting a message
(:class:`SaveText`), which the app handles.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from textual.message import Message

from gftpwb.core.errors import Diagnostic
from gftpwb.core.live.state import LiveState
from gftpwb.core.scenario.model import Scenario


class WorkbenchState(Protocol):
    live: LiveState  # the run in flight (or the last one), read a few times a second
    scenario: Scenario | None
    scenario_path: str | None
    diagnostics: Sequence[Diagnostic]  # why the scenario file is not valid
    filter_text: str
    stopping: bool
    results_base: str
    clock: Callable[[], float]


class SaveText(Message):
    """Save ``text`` as ``filename`` where the session's exports go (the results directory of its run)."""

    def __init__(self, filename: str, text: str, what: str):
        super().__init__()
        self.filename = filename
        self.text = text
        self.what = what
