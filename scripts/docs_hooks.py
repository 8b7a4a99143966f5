"""MkDocs hooks (mkdocs.yml ``hooks:``): what the docs site takes from the program itself.

* ``<!-- cli-reference -->`` in a page becomes the reference of every command, generated from the
  argument parser (scripts/cli_reference.py), so the site cannot list an option the program lacks.
* ``<!-- docs-test: ... -->`` markers (read by tests/test_docs_commands.py) are for the suite, not the
  reader: they are left out of the site.
"""

from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))

from cli_reference import markdown as cli_markdown

MARKER = "<!-- cli-reference -->"
DOCS_TEST = re.compile(r"^<!--\s*docs-test:.*-->[ \t]*\n", re.MULTILINE)


def on_page_markdown(markdown: str, page, config, files) -> str:
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, cli_markdown())
    return DOCS_TEST.sub("", markdown)
