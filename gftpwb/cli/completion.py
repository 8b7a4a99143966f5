"""Shell completion (bash, zsh, fish) and the man page, generated from the argument parser, so they
offer exactly the commands and options the program takes.

``gftpwb completion SHELL`` prints a completion script; ``scripts/shell_extras.py`` writes the same
scripts and the man page into ``share/``, which the wheel installs under its prefix
(``share/bash-completion/completions``, ``share/zsh/site-functions``,
``share/fish/vendor_completions.d``, ``share/man/man1``).
"""

from __future__ import annotations

import argparse
import re

SHELLS = ("bash", "zsh", "fish")

# What a value is, by its metavar: shtab offers files or directories for it (argparse knows no types
# of paths). Anything else gets no completion but its choices.
FILE_METAVARS = {"FILE", "SCENARIO", "BATCHFILE | taglogs LOG", "RESULTS_DIR|SCENARIO", "PATH"}
DIRECTORY_METAVARS = {"DIR", "A", "B"}


def annotated_parser() -> argparse.ArgumentParser:
    """gftpwb's parser with shtab's path hints on the arguments that name files or directories."""
    import shtab

    from .parser import build_parser

    parser = build_parser()

    def annotate(p: argparse.ArgumentParser) -> None:
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    annotate(sub)
            elif action.metavar in FILE_METAVARS:
                action.complete = shtab.FILE  # type: ignore[attr-defined]
            elif action.metavar in DIRECTORY_METAVARS:
                action.complete = shtab.DIRECTORY  # type: ignore[attr-defined]

    annotate(parser)
    return parser


def completion_script(shell: str) -> str:
    """The completion script of ``gftpwb`` for ``shell`` (bash, zsh or fish)."""
    import shtab

    return shtab.complete(annotated_parser(), shell=shell)


EXIT_TABLE_HEADING = "## Exit codes"


def exit_codes_of(markdown: str) -> list[tuple[str, str]]:
    """(code, meaning) of each row of the exit-code table under ``## Exit codes`` of docs/cli.md: the one
    table the man page's EXIT STATUS is made from, so the two never disagree."""
    section = markdown.split(EXIT_TABLE_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|") or cells[0] == "code" or set(cells[0]) <= {"-", ":"}:
            continue  # prose, the heading row, the separator row
        if len(cells) != 2 or not cells[0][:1].isdigit():
            raise ValueError(f"exit-code table: a row is not '| CODE | MEANING |': {line}")
        rows.append((cells[0], cells[1]))
    if not rows:
        raise ValueError(f"no exit-code table under {EXIT_TABLE_HEADING!r}")
    return rows


def roff_text(markdown: str) -> str:
    """A table cell's Markdown as roff running text: links as their text, code as plain words."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown).replace("`", "")
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return f"\\&{text}" if text[:1] in (".", "'") else text


def manual_page(version: str, exit_codes: list[tuple[str, str]]) -> str:
    """``gftpwb(1)`` in roff, from the parser (argparse-manpage: a development tool, in the docs extra);
    ``exit_codes`` from docs/cli.md (:func:`exit_codes_of`)."""
    from argparse_manpage.manpage import Manpage

    page = Manpage(annotated_parser(), _data={
        "project_name": "gftpwb", "version": version, "date": f"gftpwb {version}",
        "manual_title": "gftpwb manual", "manual_section": 1,
        "description": "the GridFTP / GlusterFS performance workbench",
    })
    status = "\n".join(f".TP\n{code}\n{roff_text(meaning)}" for code, meaning in exit_codes)
    page.add_section("exit status", "=", status)
    page.add_section("see also", "=", roff_text(
        "globus-url-copy(1); tgftp --help and tgftp_log --help, the drop-ins for tgftp 0.7.0 and tgftp_log 0.2.0 "
        "this package installs; the manual in the docs/ directory of gftpwb's sources, and gftpwb COMMAND --help."))
    return str(page)


def cmd_completion(args: argparse.Namespace) -> int:
    print(completion_script(args.shell), end="")
    return 0
