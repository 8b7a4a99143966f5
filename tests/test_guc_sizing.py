"""Where a guc run's size comes from (gftpwb.kinds.guc.sizing): the listing that learns a plain copy's size
over the control channel (globus-url-copy -do LIST -sync -sync-level 0), what its list says, and when no
listing can say what moved. The listing's output here is guc's own, as globus-url-copy 10 wrote it for a
file and a directory on globus-gridftp-server 13; tests/journeys/test_plain_copy_user.py runs it for real."""

from __future__ import annotations

import pytest

from gftpwb.kinds.guc.sizing import NOWHERE, listed_bytes, listing_argv

SRC, DST = "ftp://127.0.0.1:2811/data/big.bin", "ftp://127.0.0.1:2811/out/big.bin"
FILE_LIST = ('"ftp://127.0.0.1:2811/data/big.bin" "file:///dev/null/gftpwb-size" 0,-1 '
             'size=67108864;modify=1796228243;mode=0644;\n')
DIRECTORY_LIST = (
    '"ftp://h:2811/d/a" "file:///dev/null/gftpwb-size/a" 0,-1 size=1000;modify=1796228280;mode=0644;\n'
    '#"ftp://h:2811/d/sub/" "file:///dev/null/gftpwb-size/sub/" 0,-1 modify=1796228280;mode=0755;\n'
    '"ftp://h:2811/d/sub/b" "file:///dev/null/gftpwb-size/sub/b" 0,-1 size=2000;modify=1796228280;mode=0644;\n')


def test_a_plain_copy_is_listed_with_its_own_options_but_output_ones_to_nowhere():
    argv = ("globus-url-copy", "-vb", "-dbg", "-p", "4", "-ss", "/CN=host", "-cd", SRC, DST)
    assert listing_argv(argv, "/tmp/l") == ("globus-url-copy", "-p", "4", "-ss", "/CN=host", "-do", "/tmp/l",
                                            "-sync", "-sync-level", "0", SRC, NOWHERE)
    recursive = ("globus-url-copy", "-r", "ftp://h:2811/d/", "ftp://h:2811/e/")
    assert listing_argv(recursive, "/tmp/l")[-1] == NOWHERE + "/"


@pytest.mark.parametrize("args", [("-sync",), ("-t", "10"), ("-c",), ("-df", "x")])
def test_no_listing_says_what_a_transfer_that_may_skip_or_stop_moved(args):
    assert listing_argv(("globus-url-copy", *args, SRC, DST), "/tmp/l") is None


def test_an_endless_source_or_a_url_list_has_no_size_to_list():
    assert listing_argv(("globus-url-copy", "ftp://h/dev/zero", DST), "/tmp/l") is None
    assert listing_argv(("globus-url-copy", "-f", "/tmp/list"), "/tmp/l") is None


def test_the_list_gives_the_bytes_of_every_file_and_an_offset_is_taken_off():
    assert listed_bytes(FILE_LIST, ("globus-url-copy", SRC, DST)) == 64 << 20
    assert listed_bytes(DIRECTORY_LIST, ("globus-url-copy", "-r", "ftp://h:2811/d/", "ftp://h:2811/e/")) == 3000
    assert listed_bytes(FILE_LIST, ("globus-url-copy", "-off", "1M", SRC, DST)) == 63 << 20
    assert listed_bytes(DIRECTORY_LIST, ("globus-url-copy", "-off", "10", "-r", "ftp://h/d/", "ftp://h/e/")) is None
    assert listed_bytes("", ("globus-url-copy", SRC, DST)) is None


def test_a_copy_whose_listing_gives_no_size_keeps_gucs_last_count_as_a_lower_bound_out_of_the_statistics(
        tmp_path, fake_guc):
    """The fake guc lists nothing: the run keeps guc's last progress count, says it is a lower bound, and the
    report leaves its rate out of the case's statistics rather than show a rate too low."""
    from support.clihelp import gftpwb
    from support.results import records

    (tmp_path / "s.yaml").write_text(f"version: 1\nname: s\ntests:\n  - {{id: t, kind: guc, source: {SRC}, "
                                     f"target: {DST}}}\n")
    out = gftpwb("run", str(tmp_path / "s.yaml"), "--results", str(tmp_path / "r"), "--progress", "never")
    assert out.returncode == 0, out.stderr
    (record,) = records(tmp_path / "r")
    assert record["bytes"] == 3 << 20 and record["details"]["size_from"] == "progress"
    assert record["details"]["size_lower_bound"] is True and "no size" in record["details"]["size_note"]
    assert "rate incl. set-up: 1 size a lower bound" in " ".join(out.stdout.split())
