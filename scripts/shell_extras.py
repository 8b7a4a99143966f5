"""The shell completion scripts and the man page in share/, generated from the argument parser.

    .venv/bin/python scripts/shell_extras.py write            # after a change of the command line
    .venv/bin/python scripts/shell_extras.py check            # exit 1 if share/ is not what the parser gives
    .venv/bin/python scripts/shell_extras.py install [PREFIX] # copy them where the shells and man look

``pip install`` ships share/ as data files under its prefix (pyproject.toml); ``make demo`` runs
``install``, whose default prefix is /usr/local when it is writable (bash-completion, zsh, fish and man
all look under /usr/local/share) and ~/.local otherwise.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Where each file goes under a prefix, as the wheel's data files and `install` place it.
FILES = {
    "bash": "share/bash-completion/completions/gftpwb",
    "zsh": "share/zsh/site-functions/_gftpwb",
    "fish": "share/fish/vendor_completions.d/gftpwb.fish",
    "man": "share/man/man1/gftpwb.1",
}
CLI_DOC = "docs/cli.md"  # its exit-code table is the man page's EXIT STATUS


def generated() -> dict[str, str]:
    """What each file of share/ should hold, generated now from the parser."""
    os.environ["COLUMNS"] = "100"  # argparse wraps to the terminal: the files must not depend on it
    from gftpwb import __version__
    from gftpwb.cli.completion import SHELLS, completion_script, exit_codes_of, manual_page

    texts = {shell: completion_script(shell) for shell in SHELLS}
    texts["man"] = manual_page(__version__, exit_codes_of((ROOT / CLI_DOC).read_text(encoding="utf-8")))
    return {FILES[name]: text for name, text in texts.items()}


def write() -> int:
    for relative, text in generated().items():
        path = ROOT / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {relative}")
    return 0


def check() -> int:
    stale = [relative for relative, text in generated().items()
             if not (ROOT / relative).is_file() or (ROOT / relative).read_text() != text]
    for relative in stale:
        print(f"{relative} is not what the argument parser gives: run make shell-extras", file=sys.stderr)
    return 1 if stale else 0


def install(prefix: str | None) -> int:
    if prefix is None:
        prefix = "/usr/local" if os.access("/usr/local/share", os.W_OK) else os.path.expanduser("~/.local")
    for relative in FILES.values():
        target = Path(prefix) / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / relative, target)
        print(f"installed {target}")
    return 0


if __name__ == "__main__":
    action = sys.argv[1] if len(sys.argv) > 1 else "check"
    if action == "write":
        sys.exit(write())
    if action == "check":
        sys.exit(check())
    if action == "install":
        sys.exit(install(sys.argv[2] if len(sys.argv) > 2 else None))
    sys.exit(f"usage: {sys.argv[0]} write|check|install [PREFIX]")
