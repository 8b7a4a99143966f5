"""tgftp's 37 auto-tune configurations, user grids, the printed parameter line, and the
memory-to-memory end points, against the research notes (../shared/research/tgftp.md §4)."""

import pytest

from gftpwb.core.units import MIB
from gftpwb.kinds.autotune.candidates import (
    grid,
    make_candidates,
    memory_endpoints,
    memory_url,
    params_line,
    repeated,
    tgftp_37,
)
from gftpwb.kinds.guc.model import GucOptions
from gftpwb.kinds.guc.tuning import GUC_TUNING

# Transcribed from the research notes' table (tgftp's gsiftpParamConfigs, v0.4.1 to 0.7.1-dev):
# 1: -vb; 2-7: -vb -p P for P = 1..32; 8-37: -vb -p P -tcp-bs B, P outer, B = 1M..16M inner.
TGFTP_37_AS_DOCUMENTED = [
    "-vb",
    "-vb -p 1", "-vb -p 2", "-vb -p 4", "-vb -p 8", "-vb -p 16", "-vb -p 32",
    "-vb -p 1 -tcp-bs 1M", "-vb -p 1 -tcp-bs 2M", "-vb -p 1 -tcp-bs 4M", "-vb -p 1 -tcp-bs 8M",
    "-vb -p 1 -tcp-bs 16M",
    "-vb -p 2 -tcp-bs 1M", "-vb -p 2 -tcp-bs 2M", "-vb -p 2 -tcp-bs 4M", "-vb -p 2 -tcp-bs 8M",
    "-vb -p 2 -tcp-bs 16M",
    "-vb -p 4 -tcp-bs 1M", "-vb -p 4 -tcp-bs 2M", "-vb -p 4 -tcp-bs 4M", "-vb -p 4 -tcp-bs 8M",
    "-vb -p 4 -tcp-bs 16M",
    "-vb -p 8 -tcp-bs 1M", "-vb -p 8 -tcp-bs 2M", "-vb -p 8 -tcp-bs 4M", "-vb -p 8 -tcp-bs 8M",
    "-vb -p 8 -tcp-bs 16M",
    "-vb -p 16 -tcp-bs 1M", "-vb -p 16 -tcp-bs 2M", "-vb -p 16 -tcp-bs 4M", "-vb -p 16 -tcp-bs 8M",
    "-vb -p 16 -tcp-bs 16M",
    "-vb -p 32 -tcp-bs 1M", "-vb -p 32 -tcp-bs 2M", "-vb -p 32 -tcp-bs 4M", "-vb -p 32 -tcp-bs 8M",
    "-vb -p 32 -tcp-bs 16M",
]


def test_tgftp_37_is_tgftps_list_in_tgftps_order():
    candidates = make_candidates(tgftp_37())
    assert [c.label for c in candidates] == TGFTP_37_AS_DOCUMENTED
    assert len(candidates) == 37 and [c.number for c in candidates] == list(range(1, 38))
    assert repeated(tgftp_37()) == []
    # Only -p and -tcp-bs vary; no -bs, -cc, -pp, -fast, -stripe.
    assert {k for o in tgftp_37() for k in o} == {"parallel", "tcp_buffer"}


def test_params_line_is_what_tgftp_prints():
    # tgftp strips " -len 4G" and prints the rest: -vb first, then the options in guc-table order.
    assert params_line(GucOptions(parallel=16, tcp_buffer=8 * MIB, length=4 << 30)) == "-vb -p 16 -tcp-bs 8M"
    assert params_line(GucOptions()) == "-vb"
    full = GucOptions(parallel=4, tcp_buffer=2 * MIB, block_size=MIB, concurrency=2, pipeline=True, fast=True)
    assert params_line(full) == "-vb -p 4 -tcp-bs 2M -bs 1M -cc 2 -pp -fast"
    # what runs: extra arguments after the options, and no second -vb where they hold one
    assert params_line(GucOptions(parallel=2), ["-nodcau", "-vb"]) == "-p 2 -nodcau -vb"


def test_grid_is_a_cross_product_first_key_outermost_with_null_meaning_unset():
    options = grid(GUC_TUNING, {"parallel": [None, 2], "tcp_buffer": [None, "1M"], "fast": [False, True]})
    labels = [params_line(o) for o in options]
    assert labels == ["-vb", "-vb -fast", "-vb -tcp-bs 1M", "-vb -tcp-bs 1M -fast",
                      "-vb -p 2", "-vb -p 2 -fast", "-vb -p 2 -tcp-bs 1M", "-vb -p 2 -tcp-bs 1M -fast"]


def test_repeated_candidates_are_found():
    assert repeated([{"parallel": 2}, {}, {"parallel": 2}]) == [(3, 1)]


@pytest.mark.parametrize(("url", "path", "expected"), [
    ("gsiftp://src.example.org/data/big.file", "/dev/zero", "gsiftp://src.example.org:2811/dev/zero"),
    ("gsiftp://src.example.org:2812/data/", "/dev/zero", "gsiftp://src.example.org:2812/dev/zero"),
    ("ftp://127.0.0.1:2811/x/y", "/dev/null", "ftp://127.0.0.1:2811/dev/null"),
    ("ftp://host", "/dev/null", "ftp://host:21/dev/null"),
    ("https://host/p", "/dev/null", "https://host:443/dev/null"),
    ("http://host/p", "/dev/null", "http://host:80/dev/null"),
    ("/local/path/file", "/dev/zero", "file:///dev/zero"),
    ("file:///tmp/x", "/dev/null", "file:///dev/null"),
    ("gsiftp://[::1]/p", "/dev/zero", "gsiftp://[::1]:2811/dev/zero"),
])
def test_memory_urls_follow_tgftps_getURLWithoutPath(url, path, expected):
    assert memory_url(url, path) == expected


def test_memory_endpoints():
    assert memory_endpoints("ftp://a:1/x", "ftp://b:2/y") == ("ftp://a:1/dev/zero", "ftp://b:2/dev/null")
