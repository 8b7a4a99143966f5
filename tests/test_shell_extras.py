"""Shell completion and the man page: generated from the argument parser (share/ holds what it gives),
shipped in the wheel under share/, and loaded by the real bash, zsh and fish and rendered by man."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import shell_extras  # noqa: E402 (scripts/ is not a package)

BASH = ROOT / shell_extras.FILES["bash"]
ZSH = ROOT / shell_extras.FILES["zsh"]
FISH = ROOT / shell_extras.FILES["fish"]
MAN = ROOT / shell_extras.FILES["man"]


def test_share_holds_what_the_parser_gives():
    stale = {relative for relative, text in shell_extras.generated().items()
             if (ROOT / relative).read_text() != text}
    assert not stale, f"{sorted(stale)}: regenerate them with make shell-extras"


def test_completion_command_prints_the_shipped_scripts():
    for shell in ("bash", "zsh", "fish"):
        out = subprocess.run([sys.executable, "-m", "gftpwb", "completion", shell], capture_output=True, text=True,
                             env={"COLUMNS": "100", "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        assert out.stdout == (ROOT / shell_extras.FILES[shell]).read_text()


def bash_complete(line: str) -> list[str]:
    """What bash offers for ``line`` (the cursor at its end), through the completion function itself."""
    words = line.split(" ")
    script = (f"source {BASH}; COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; "
              f"COMP_LINE={line!r}; COMP_POINT={len(line)}; "
              f"_shtab_gftpwb gftpwb {words[-1]!r} {words[-2]!r}; printf '%s\\n' \"${{COMPREPLY[@]}}\"")
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True)
    assert out.returncode == 0 and not out.stderr, out.stderr
    return out.stdout.split()


@pytest.mark.real
def test_bash_completes_commands_and_options():
    assert bash_complete("gftpwb ru") == ["run"]
    assert "--dry-run" in bash_complete("gftpwb run --dr")
    assert {"up", "down", "status"} <= set(bash_complete("gftpwb lab "))
    registered = subprocess.run(["bash", "--norc", "-c", f"source {BASH}; complete -p gftpwb"],
                                capture_output=True, text=True)
    assert "_shtab_gftpwb" in registered.stdout, registered.stderr


@pytest.mark.real
def test_fish_completes_commands_and_options():
    def complete(line: str) -> list[str]:
        out = subprocess.run(["fish", "--no-config", "-c", f"source {FISH}; complete -C'{line}'"],
                             capture_output=True, text=True)
        assert out.returncode == 0 and not out.stderr, out.stderr
        return [row.split("\t")[0] for row in out.stdout.splitlines()]

    assert "up" in complete("gftpwb lab u")
    assert "--dry-run" in complete("gftpwb run --dr")
    assert {"bash", "zsh", "fish"} <= set(complete("gftpwb completion "))


@pytest.mark.real
def test_zsh_registers_and_loads_the_completion_function():
    # compinit reads the #compdef line from $fpath; +X loads the function's definition without calling it.
    script = (f"fpath=({ZSH.parent} $fpath); autoload -Uz compinit; compinit -u -D; print -r -- ${{_comps[gftpwb]}}; "
              "autoload -Uz +X _gftpwb && print loaded")
    out = subprocess.run(["zsh", "-f", "-c", script], capture_output=True, text=True)
    assert out.stdout.split() == ["_gftpwb", "loaded"], out.stderr
    syntax = subprocess.run(["zsh", "-n", str(ZSH)], capture_output=True, text=True)
    assert syntax.returncode == 0, syntax.stderr


@pytest.mark.real
def test_man_renders_the_page_without_warnings():
    out = subprocess.run(["man", "--warnings", "-l", str(MAN)], capture_output=True, text=True,
                         env={"MANWIDTH": "100", "LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin", "MANPAGER": "cat"})
    assert out.returncode == 0 and not out.stderr.strip(), out.stderr
    for heading in ("NAME", "SYNOPSIS", "EXIT STATUS", "SEE ALSO"):
        assert heading in out.stdout
    assert "--dry-run" in out.stdout and "gftpwb completion" in out.stdout


@pytest.mark.slow
def test_the_wheel_installs_them_under_share(tmp_path):
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path), str(ROOT)],
                   check=True, capture_output=True)
    (wheel,) = tmp_path.glob("gftpwb-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        data = {name.split(".data/data/", 1)[1]: archive.read(name) for name in archive.namelist()
                if ".data/data/" in name}
    assert set(data) == set(shell_extras.FILES.values())
    for relative, content in data.items():
        assert content == (ROOT / relative).read_bytes()


def test_install_copies_them_under_a_prefix(tmp_path):
    assert shell_extras.install(str(tmp_path)) == 0
    for relative in shell_extras.FILES.values():
        assert (tmp_path / relative).read_bytes() == (ROOT / relative).read_bytes()


def test_no_option_is_hidden_from_help():
    """What the docs use, --help, the man page and completion show (--results-base was hidden from all three)."""
    from gftpwb.cli.parser import build_parser

    def hidden(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from hidden(sub, f"{path} {name}")
            elif action.help == argparse.SUPPRESS:
                yield f"{path} {'/'.join(action.option_strings) or action.dest}"

    assert list(hidden(build_parser(), "gftpwb")) == []
    out = subprocess.run([sys.executable, "-m", "gftpwb", "run", "--help"], capture_output=True, text=True)
    assert "--results-base DIR" in out.stdout
    assert "\\-\\-results\\-base" in MAN.read_text() and "--results-base" in BASH.read_text()


def test_the_man_page_exit_status_is_the_exit_table_of_the_docs():
    from gftpwb.cli.completion import exit_codes_of
    from gftpwb.core import errors

    documented = exit_codes_of((ROOT / "docs" / "cli.md").read_text())
    codes = {int(code) for row, _ in documented for code in row.split(",")}
    defined = {value for name, value in vars(errors).items() if name.startswith("EXIT_") and isinstance(value, int)}
    assert codes == defined
    page = MAN.read_text()
    status = page.split(".SH EXIT STATUS", 1)[1].split(".SH", 1)[0]
    assert [line for line in status.splitlines() if line[:1].isdigit()] == [row for row, _ in documented]
    assert "pushgateway" in status and "Slurm" in status


def test_see_also_names_only_what_is_installed():
    """No tgftp(1): no package installs a page of that name; the drop-ins this package installs answer --help."""
    import tomllib

    see_also = MAN.read_text().split(".SH SEE ALSO", 1)[1]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert "tgftp(1)" not in see_also
    assert {"tgftp", "tgftp_log"} <= set(scripts)
    assert "tgftp \\-\\-help" in see_also and "tgftp_log \\-\\-help" in see_also
