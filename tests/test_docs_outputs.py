"""What the documentation's reporting commands write stays out of a checkout's way: a reader who runs
them in the checkout, as README.md and docs/getting-started.md have them do, finds the reports, exports
and traces they made under ``results/`` with the results they come from (or in a place named outside the
checkout), not as untracked files beside the sources.

A static look at every shell block (tests/test_docs_commands.py runs them, in a scratch directory,
where such files go unnoticed): the files named by the output options and ``>`` redirections of
``gftpwb report``, ``compare``, ``trace`` and ``results``.
"""

from __future__ import annotations

import itertools
import re
import shlex
import subprocess

import pytest
from support.docs_blocks import ROOT, blocks_of, documents

OUTPUT_OPTIONS = {"--html", "--junit", "--csv", "--openmetrics", "-o", "--output", ">", ">>"}
REPORTING = {"report", "compare", "trace", "results"}  # what gftpwb makes of results: it belongs with them
SEPARATORS = {"\n", ";", "|", "||", "&&", "&"}


def commands(text: str) -> list[list[str]]:
    """The simple commands of ``text`` (shell), each as its words; comments dropped."""
    text = "\n".join(re.sub(r"(^|\s)#(\s.*)?$", "", line) for line in text.replace("\\\n", " ").split("\n"))
    lexer = shlex.shlex(text, posix=True, punctuation_chars="();<>|&\n")
    lexer.whitespace, lexer.whitespace_split = " \t\r", True
    found: list[list[str]] = [[]]
    for token in lexer:
        if token in SEPARATORS:
            found.append([])
        else:
            found[-1].append(token)
    return [words for words in found if words]


def outputs(text: str) -> list[str]:
    """The files the reporting commands of ``text`` (gftpwb report, compare, trace, results) write."""
    found = []
    for words in commands(text):
        if words[:1] != ["gftpwb"] or words[1:2] == [] or words[1] not in REPORTING:
            continue
        for option, value in itertools.pairwise(words):
            if option in OUTPUT_OPTIONS and not (option == "--csv" and not value.endswith(".csv")):
                found.append(value)  # results query --csv is a format, report --csv FILE a file
    return found


def in_the_way(path: str) -> bool:
    """A relative path that is not under results/ and that git does not ignore."""
    if path.startswith(("/", "$", "~", "-", "results/")):
        return False
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q", "--no-index", path])
    return ignored.returncode != 0


def commands_of(path):
    for block in blocks_of(path):
        text = "\n".join(c.text for c in block.commands) if block.language == "console" else block.body
        yield block, text


@pytest.mark.parametrize("page", documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_docs_commands_write_their_files_under_results(page):
    stray = []
    for block, text in commands_of(page):
        if any(line.lstrip().startswith("cd ") for line in text.splitlines()):
            break  # the page's shell left the checkout: what follows is written elsewhere
        stray += [f"{block.where}: {path}" for path in outputs(text) if in_the_way(path)]
    assert not stray, "files a reader's checkout would get as untracked ones: " + ", ".join(stray)
