"""MkDocs hooks (mkdocs.yml ``hooks:``): what the docs site takes from the program itself.

* ``<!-- cli-reference -->`` in a page becomes the reference of every command, generated from the
  argument parser (scripts/cli_reference.py), so the site cannot list an option the program lacks.
* ``<!-- docs-test: ... -->`` markers (read by tests/test_docs_commands.py) stay HTML comments: the
  reader of the site does not see them.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from cli_reference import markdown as cli_markdown

MARKER = "<!-- cli-reference -->"


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, cli_markdown())
    return markdown
