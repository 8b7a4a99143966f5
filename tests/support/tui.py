"""What the TUI tests share: the terminal size, a table's cells, the notifications an app made, and
the snapshot tests' stable app fed with recorded events."""

from __future__ import annotations

import textwrap
from pathlib import Path

from gftpwb.core.bus import EventBus
from gftpwb.shell.executor import Executor
from gftpwb.tui.app import WorkbenchApp

SIZE = (80, 24)
NOW = 1012.3  # the snapshot apps' clock: a fixed moment of the recorded events


def cells(app: WorkbenchApp, table_id: str) -> dict[str, list[str]]:
    """A table's rows by key, each as the text of its cells."""
    table = app.query_one(f"#{table_id}")
    return {key: [str(cell) for cell in table.row_cells(key)] for key in table.keys}


class Notes:
    """What the app notified (message, severity), to check errors arrive as notifications."""

    def __init__(self, app: WorkbenchApp):
        self.seen: list[tuple[str, str]] = []
        notify = app.notify

        def recording(message, *args, **kw):
            self.seen.append((str(message), kw.get("severity", "information")))
            return notify(message, *args, **kw)

        app.notify = recording  # type: ignore[method-assign]


def app_for(path: str | None, events: list, **kw) -> WorkbenchApp:
    """A snapshot's app: a fixed clock, relative paths, ``events`` fed by :func:`feeding`."""
    app = WorkbenchApp(path, results_base="results", clock=lambda: NOW, stable=True, refresh_s=0.1, **kw)
    app._snapshot_events = events  # type: ignore[attr-defined]
    return app


def feeding(*keys: str):
    """A snapshot's ``run_before``: feed the app its events, press ``keys``, and let it draw."""

    async def run_before(pilot) -> None:
        app = pilot.app
        for event in app._snapshot_events:
            app.live(event)
        await pilot.press(*keys)
        app.draw(force=True)
        await pilot.pause()
        app.draw(force=True)  # again, at the sizes the layout gave (the progress bar rounds to its width)
        await pilot.pause()

    return run_before


def write_scenario(directory: Path, body: str, name: str = "tuitest") -> str:
    """A scenario named ``name`` in ``directory`` whose tests are ``body`` (YAML list items)."""
    path = directory / f"{name}.yaml"
    path.write_text(f"version: 1\nname: {name}\ntests:\n" + textwrap.dedent(body))
    return str(path)


def standin_factory(runner):
    """The app's executor with ``runner`` (a stand-in, support.tui_standins) for guc tests."""
    return lambda: Executor(EventBus(), runners={"guc": runner})
