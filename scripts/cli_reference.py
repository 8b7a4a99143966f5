"""The command-line reference of the docs site (docs/cli.md), generated from gftpwb's argument parser,
so the page lists exactly the commands and options the program takes.

``scripts/docs_hooks.py`` puts it into docs/cli.md while MkDocs builds the site; run this file to see it:

    .venv/bin/python scripts/cli_reference.py
"""

from __future__ import annotations

import argparse
import os


def build_parser() -> argparse.ArgumentParser:
    from gftpwb.cli.parser import build_parser

    return build_parser()


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """(name, help, parser) of each subcommand, in the order the parser lists them."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((name, helps.get(name, ""), sub))
    return found


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _option_rows(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._SubParsersAction, argparse._HelpAction)) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            names = ", ".join(action.option_strings)
            if action.nargs != 0:
                metavar = action.metavar or (("{" + ",".join(action.choices) + "}") if action.choices
                                             else action.dest.upper())
                names += f" {metavar}"
        else:
            names = action.metavar or action.dest
        text = action.help or ""
        if "%(default)" in text:
            text = text % {"default": action.default}
        rows.append((f"`{names}`", _cell(text)))
    return rows


def _section(path: list[str], help_text: str, parser: argparse.ArgumentParser, out: list[str]) -> None:
    depth = min(len(path), 4)
    out.append(f"{'#' * depth} `{' '.join(path)}`\n")
    if help_text:
        out.append(_cell(help_text[0].upper() + help_text[1:]) + ".\n")
    usage = parser.format_usage().removeprefix("usage: ").strip()
    out.append(f"```text\n{usage}\n```\n")
    rows = _option_rows(parser)
    if rows:
        out.append("| argument | meaning |\n|---|---|")
        out.extend(f"| {name} | {text} |" for name, text in rows)
        out.append("")
    if parser.epilog:
        out.append(f"```text\n{parser.epilog.strip()}\n```\n")
    for name, text, sub in _subcommands(parser):
        _section([*path, name], text, sub, out)


def markdown() -> str:
    """Every command of ``gftpwb`` as Markdown: usage, arguments and options, examples."""
    os.environ["COLUMNS"] = "100"  # argparse wraps usage lines to the terminal: the page must not depend on it
    parser = build_parser()
    out: list[str] = []
    for name, text, sub in _subcommands(parser):
        _section(["gftpwb", name], text, sub, out)
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
