"""Debian's headless Chromium, as the tests run it on a report page: offline (every host name resolves to
nothing, no proxy: a page that fetched anything would fail) and with the page's console on stderr."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BROWSER = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=http://127.0.0.1:9",
           "--enable-logging=stderr", "--v=0"]


def browser(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    assert CHROMIUM, "chromium is missing: scripts/install-deps.sh test installs it"
    return subprocess.run([CHROMIUM, *BROWSER, *args], capture_output=True, text=True, timeout=timeout)


def console_messages(run: subprocess.CompletedProcess) -> list[str]:
    """What the page logged to its console (a script error, a blocked load), as Chromium reports it."""
    return [line for line in run.stderr.splitlines() if ":CONSOLE" in line]


class PageTables(HTMLParser):
    """The tables of a page as a reader sees them: each titled by the heading above it, with its header
    (the cells of ``th``) and rows (of ``td``) as texts; feed it what ``--dump-dom`` gives."""

    def __init__(self, page: str) -> None:
        super().__init__()
        self.tables: list[tuple[str, list[str], list[list[str]]]] = []
        self._heading = ""
        self._in: str | None = None  # "heading", "th" or "td" while in one
        self._text = ""
        self._row: list[str] | None = None
        self._header = False
        self.feed(page)

    def titled(self, title: str) -> tuple[list[str], list[list[str]]]:
        found = [(header, rows) for heading, header, rows in self.tables if heading.startswith(title)]
        assert found, f"no table under a heading {title!r}: {[t[0] for t in self.tables]}"
        return found[0]

    def handle_starttag(self, tag, attrs):
        if tag in ("h2", "h3", "h4"):
            self._in, self._text = "heading", ""
        elif tag == "table":
            self.tables.append((self._heading, [], []))
        elif tag == "tr" and self.tables:
            self._row, self._header = [], False
        elif tag in ("th", "td") and self._row is not None:
            self._in, self._text = tag, ""
            self._header = self._header or tag == "th"

    def handle_endtag(self, tag):
        if tag in ("h2", "h3", "h4") and self._in == "heading":
            self._heading, self._in = " ".join(self._text.split()), None
        elif tag in ("th", "td") and self._in == tag and self._row is not None:
            self._row.append(" ".join(self._text.split()))
            self._in = None
        elif tag == "tr" and self._row is not None:
            _, header, rows = self.tables[-1]
            if self._header:
                header.extend(self._row)
            else:
                rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._in is not None:
            self._text += data
