"""Shell completion (bash, zsh, fish) and the man page, generated from the argument parser, so they
offer exactly the commands and options the program takes.

``gftpwb completion SHELL`` prints a completion script; ``scripts/shell_extras.py`` writes the same
scripts and the man page into ``share/``, which the wheel installs under its prefix
(``share/bash-completion/completions``, ``share/zsh/site-functions``,
``share/fish/vendor_completions.d``, ``share/man/man1``).
"""

from __future__ import annotations

import argparse

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


EXIT_STATUS = """.TP
0
every run passed
.TP
1
some run failed or timed out; hosts check: a host failed; compare \\-\\-fail\\-on\\-regression: a case got slower
.TP
2
invalid input: a scenario (each problem at file:line:col) or the command line
.TP
3
the environment is not ready: a required tool is missing, or a host fails the preflight
.TP
4
the lab could not be started
.TP
5
\\-\\-resume refused: the plan changed
.TP
6
the results directory is in use by another gftpwb
.TP
7
results could not be written
.TP
8
every run passed, but a threshold (expect:) was violated
.TP
129, 130, 143
stopped by SIGHUP, SIGINT or SIGTERM, after the run in flight was recorded as interrupted"""


def manual_page(version: str) -> str:
    """``gftpwb(1)`` in roff, from the parser (argparse-manpage: a development tool, in the docs extra)."""
    from argparse_manpage.manpage import Manpage

    page = Manpage(annotated_parser(), _data={
        "project_name": "gftpwb", "version": version, "date": f"gftpwb {version}",
        "manual_title": "gftpwb manual", "manual_section": 1,
        "description": "the GridFTP / GlusterFS performance workbench",
    })
    page.add_section("exit status", "=", EXIT_STATUS)
    page.add_section("see also", "=", "tgftp(1), globus-url-copy(1); the manual in the docs/ directory of gftpwb's "
                     "sources, and gftpwb COMMAND \\-\\-help.")
    return str(page)


def cmd_completion(args: argparse.Namespace) -> int:
    print(completion_script(args.shell), end="")
    return 0
