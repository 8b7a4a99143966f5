"""Render ``gftpwb report DIR`` as an SVG screenshot (the README's picture of the TeraGrid study).

Usage: .venv/bin/python bench/report_svg.py RESULTS_DIR OUT.svg [--width 200]

The same function as ``gftpwb report`` prints into a recording Rich console, which writes SVG.
"""

from __future__ import annotations

import argparse
import io

from rich.console import Console

from gftpwb.cli.report import print_directory
from gftpwb.shell.results_index import read_directory


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results")
    parser.add_argument("out")
    parser.add_argument("--width", type=int, default=200)
    parser.add_argument("--title", default="gftpwb report")
    args = parser.parse_args()
    console = Console(record=True, width=args.width, force_terminal=True, color_system="truecolor",
                      file=io.StringIO())
    print_directory(console, read_directory(args.results))
    console.save_svg(args.out, title=args.title)


if __name__ == "__main__":
    main()
