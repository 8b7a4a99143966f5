"""An argument a command does not take is refused by that command, with its own usage line, so the user
sees the options it does take (argparse's own refusal came from ``gftpwb`` itself: ``usage: gftpwb [-h]
[--version] COMMAND ...``, which names no option of any command)."""

from __future__ import annotations

import pytest
from support.clihelp import gftpwb


@pytest.mark.parametrize(("args", "command"), [
    (["report", "results/x", "--only", "par[2]"], "report"),
    (["hosts", "check", "scenario.yaml", "--bogus"], "hosts check"),
    (["lab", "up", "--no-such-option"], "lab up"),
    (["compare", "a", "b", "c"], "compare"),
    (["results", "query", "--where", "x", "SELECT 1"], "results query"),
])
def test_an_argument_a_command_does_not_take_is_refused_with_that_command_s_usage(args, command):
    out = gftpwb(*args)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"usage: gftpwb {command} [-h]"), out.stderr
    assert f"gftpwb {command}: error: unrecognized arguments: " in out.stderr
    assert out.stdout == ""


def test_a_missing_command_is_still_gftpwb_s_own_error():
    out = gftpwb("--frob")
    assert out.returncode == 2 and out.stderr.startswith("usage: gftpwb [-h] [--version] COMMAND ...")
