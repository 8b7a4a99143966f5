"""A test's source and target are checked when the scenario is validated (gftpwb.kinds.guc.urls): a URL
typo is an error at its line and column, not a failed run; what guc reads stays allowed, local paths
included. The real guc is held to the same rules: it reads every form the check allows, and fails on
(or misreads) every form the check refuses."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from support.clihelp import gftpwb
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.kinds.guc.urls import url_problem

ALLOWED = ["ftp://127.0.0.1:2811/dev/zero", "gsiftp://dtn.example.org/data/x", "sshftp://h/x", "http://h:8080/x",
           "https://h/x", "ftp://user:secret@h:2811/x", "ftp://[::1]:2811/x", "ftp://h:2811//abs/x",
           "ftp://h/a b", "file:///dev/null", "file://localhost/tmp/x", "file:/tmp/x", "/dev/zero", "data/in.bin",
           "c:/x", "data//x"]
REFUSED = {
    "ftp//127.0.0.1:2811/dev/zero": "is not a URL, so guc would take it for a local file of that name; did you "
                                    "mean 'ftp://127.0.0.1:2811/dev/zero'?",
    "htp://127.0.0.1:2811/dev/zero": "unknown URL scheme 'htp' (guc reads ftp, gsiftp, sshftp, http, https or file); "
                                     "did you mean 'http://127.0.0.1:2811/dev/zero'?",
    "gsifpt://h/x": "did you mean 'gsiftp://h/x'?",
    "a://x": "unknown URL scheme 'a'",
    "FTP://h/x": "guc reads the scheme only in lower case: 'ftp://h/x'",
    "ftp:/127.0.0.1:2811/x": "did you mean 'ftp://127.0.0.1:2811/x'?",
    "ftp:127.0.0.1/x": "did you mean 'ftp://127.0.0.1/x'?",
    "htp//h/x": "did you mean 'http://h/x'?",
    "ftp:///x": "has no host",
    "ftp://:2811/x": "has no host",
    "ftp://127.0.0.1:2811": "has no path after the host",
    "ftp://h:99999/x": "port '99999' is not a port number (1 to 65535)",
    "ftp://h:28x1/x": "port '28x1' is not a port number",
    "ftp://h:/x": "port '' is not a port number",
    "ftp://host_x/x": "'host_x' is not a host name guc reads",
    "file://tmp/x": "names the host 'tmp', which guc ignores (it opens /x); a local file is file:///path",
    "file:x": "is not a file URL",
    "~/x": "guc does not expand ~",
}


@pytest.mark.parametrize("value", ALLOWED)
def test_what_guc_reads_is_allowed(value):
    assert url_problem(value) is None


@pytest.mark.parametrize("value", REFUSED)
def test_typos_are_named(value):
    problem = url_problem(value)
    assert problem is not None and REFUSED[value] in problem


SEVERAL = {
    "FTP://127.0.0.1:28x1/dev/zero": ["lower case", "port '28x1' is not a port number"],
    "htp://h:99999/x": ["unknown URL scheme 'htp'", "did you mean http?", "port '99999' is not a port number"],
    "ftp//h:0/x": ["is not a URL", "port '0' is not a port number"],
    "FTP://h": ["lower case", "has no path after the host"],
    "FILE://tmp/x": ["lower case", "names the host 'tmp'"],
    "Gsiftp://host_x/x": ["lower case", "'host_x' is not a host name"],
}


@pytest.mark.parametrize("value", SEVERAL)
def test_every_problem_of_a_url_is_named_and_no_url_that_is_still_wrong_is_suggested(value):
    problem = url_problem(value)
    assert problem is not None and all(part in problem for part in SEVERAL[value]), problem
    assert suggestion(problem) is None, problem


def suggestion(problem: str) -> str | None:
    """The URL a message offers in place of the one written, if it offers one."""
    found = re.search(r"(?:did you mean|lower case:) '([^']*)'", problem)
    return found[1] if found else None


@seed(FUZZ_SEED)
@settings(max_examples=400, deadline=None)
@given(scheme=st.sampled_from(["ftp", "FTP", "Ftp", "htp", "gsifpt", "fil", "FILE", "sshfpt", "https", "zz"]),
       sep=st.sampled_from(["://", "//", ":/", ":", ":///"]),
       host=st.sampled_from(["h", "127.0.0.1", "", "host_x", "[::1]", "user@h", "tmp", "localhost"]),
       port=st.sampled_from(["", ":2811", ":28x1", ":0", ":99999", ":"]),
       path=st.sampled_from(["", "/x", "/dev/zero", "//abs"]))
def test_a_url_a_message_suggests_passes_the_check_itself(scheme, sep, host, port, path):
    say_seed()
    problem = url_problem(f"{scheme}{sep}{host}{port}{path}")
    offered = suggestion(problem) if problem else None
    assert offered is None or url_problem(offered) is None, (problem, url_problem(offered))


SCENARIO = """\
version: 1
name: urls
defaults:
  source: htp://127.0.0.1:2811/dev/zero
  options: {length: 1M}
tests:
  - id: a
    kind: guc
    source: ftp//127.0.0.1:2811/dev/zero
    target: ftp://127.0.0.1:2811/dev/null
  - id: b
    kind: guc
    target: ftp://127.0.0.1:99999/dev/null
  - id: c
    kind: connection-test
    target: file:///dev/null
  - id: local
    kind: guc
    source: /dev/zero
    target: file:/dev/null
"""


def test_validate_names_each_bad_url_at_its_line_and_column_and_a_defaults_once(tmp_path):
    path = tmp_path / "urls.yaml"
    path.write_text(SCENARIO)
    out = gftpwb("validate", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.splitlines() == [
        f"{path}:4:11: defaults.source: 'htp://127.0.0.1:2811/dev/zero': unknown URL scheme 'htp' (guc reads ftp, "
        "gsiftp, sshftp, http, https or file); did you mean 'http://127.0.0.1:2811/dev/zero'?",
        f"{path}:9:13: test 'a' source: 'ftp//127.0.0.1:2811/dev/zero' is not a URL, so guc would take it for a local "
        "file of that name; did you mean 'ftp://127.0.0.1:2811/dev/zero'?",
        f"{path}:13:13: test 'b' target: 'ftp://127.0.0.1:99999/dev/null': port '99999' is not a port number (1 to "
        "65535)"]
    assert gftpwb("run", str(path), "--results", str(tmp_path / "r")).returncode == 2
    assert not (tmp_path / "r").exists()  # nothing ran


WITH_SCHEMA_ERRORS = """\
version: 1
name: typos
defaults:
  target: ftp//127.0.0.1:2811/dev/null
  options: {length: 512M}
  expect: {cv: "< 50 percent"}
tests:
  - id: sweep
    kind: guc
    source: FTP://127.0.0.1:2811/dev/zero
    matrix: {parallel: [1, 4], blocksize: [1M, 4M]}
"""


def test_a_bad_url_is_reported_in_the_same_pass_as_the_schemas_errors(tmp_path):
    """Every problem of the file before anything runs: not the schema's first, the URL's on the next try."""
    path = tmp_path / "typos.yaml"
    path.write_text(WITH_SCHEMA_ERRORS)
    out = gftpwb("validate", str(path))
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.splitlines() == [
        f"{path}:4:11: defaults.target: 'ftp//127.0.0.1:2811/dev/null' is not a URL, so guc would take it for a "
        "local file of that name; did you mean 'ftp://127.0.0.1:2811/dev/null'?",
        f"{path}:6:16: defaults.expect.cv: bad threshold '< 50 percent': write <op> <value>, op one of <, <=, >, "
        ">=, ==, e.g. '< 5%' (a percentage)",
        f"{path}:10:13: test 'sweep' source: 'FTP://127.0.0.1:2811/dev/zero': guc reads the scheme only in lower "
        "case: 'ftp://127.0.0.1:2811/dev/zero'",
        f"{path}:11:32: unknown key 'blocksize' in tests[0].matrix; did you mean 'block_size'?"]


@pytest.mark.parametrize("broken", [
    "defaults: [a]\ntests:\n  - {id: a, kind: guc, source: htp://h/x, target: 5}\n",
    "tests:\n  - {kind: guc, source: htp://h/x, target: [1]}\n  - [x]\n  - 7\n  - {id: b, kind: [guc]}\n",
    "tests: {a: 1}\n",
    "tests:\n  - {id: t, kind: autotune, source: htp://h/x, target: /dev/null, strategy: [1]}\n",
    "tests:\n  - {id: x, kind: xrootd, source: gsiftp://h/x, target: /dev/null, repeat: 0}\n",
])
def test_the_checks_of_single_values_take_any_invalid_rest_without_a_traceback(broken):
    """A schema error and a URL the check can read: both reported; a value of the wrong type is the schema's."""
    with pytest.raises(ScenarioError) as raised:
        load_scenario_text(f"version: 1\nname: broken\n{broken}", "b.yaml")
    messages = [d.message for d in raised.value.diagnostics]
    url_errors = [m for m in messages if "htp://h/x" in m or "gsiftp://h/x is no URL" in m]
    assert len(url_errors) == (0 if "tests: {" in broken else 1), messages
    assert len(messages) > len(url_errors)  # the schema's errors are there too


def test_a_batchfile_line_guc_cannot_read_is_skipped_with_a_warning_at_its_field(tmp_path):
    """A batchfile keeps tgftp's rules: a line tgftp ran but guc failed on is skipped with a warning."""
    batch = tmp_path / "b.csv"
    batch.write_text("#%tgftp%v0.7.0\nftp://127.0.0.1:2811/dev/zero;htp://127.0.0.1:2811/dev/null;-len 1M;no;30;;;;;\n"
                     "ftp://127.0.0.1:2811/dev/zero;ftp://127.0.0.1:2811/dev/null;-len 1M;no;30;;;;;\n")
    out = gftpwb("validate", str(batch))
    assert out.returncode == 0, out.stderr
    assert out.stderr.splitlines() == [
        f"{batch}:2:31: warning: target: 'htp://127.0.0.1:2811/dev/null': unknown URL scheme 'htp' (guc reads ftp, "
        "gsiftp, sshftp, http, https or file); did you mean 'http://127.0.0.1:2811/dev/null'?; line skipped"]
    assert "(1 test(s), 1 run(s))" in out.stdout


@pytest.fixture
def readable_file():
    """A small file the lab's GridFTP server (anonymous user nobody) can read: pytest's tmp_path is root's."""
    where = Path(tempfile.mkdtemp(prefix="gftpwb-urls-"))
    where.chmod(0o755)
    (where / "in.txt").write_text("gftpwb\n")
    (where / "in.txt").chmod(0o644)
    yield where
    shutil.rmtree(where, ignore_errors=True)


def guc(source: str, cwd: Path) -> int:
    """guc copies ``source`` to /dev/null (never a file on disk: a wrong source could be endless)."""
    return subprocess.run(["globus-url-copy", source, "file:///dev/null"], cwd=cwd, capture_output=True,
                          timeout=60).returncode


@pytest.mark.real
def test_the_real_guc_reads_what_the_check_allows_and_not_what_it_refuses(gridftp, readable_file):
    server = gridftp.url.rstrip("/")  # ftp://127.0.0.1:PORT
    port = server.rsplit(":", 1)[1]
    file = f"{readable_file}/in.txt"
    allowed = [f"{server}{file}", f"{server}/{file}", f"file://{file}", f"file://localhost{file}", f"file:{file}",
               file, "in.txt"]
    for value in allowed:
        assert url_problem(value) is None, value
        assert guc(value, readable_file) == 0, value
    refused = [f"ftp//127.0.0.1:{port}{file}", f"htp://127.0.0.1:{port}{file}", f"FTP://127.0.0.1:{port}{file}",
               f"ftp:/127.0.0.1:{port}{file}", f"ftp://{file}", f"ftp://127.0.0.1:{port}", f"file:/{file}",
               "file:in.txt", "~/in.txt"]
    for value in refused:
        assert url_problem(value) is not None, value
        assert guc(value, readable_file) != 0, value
    # a port guc misreads rather than refuses: it takes the number modulo 65536 (so this one reaches the lab)
    misread = f"ftp://127.0.0.1:{int(port) + 65536}{file}"
    assert url_problem(misread) is not None and guc(misread, readable_file) == 0
