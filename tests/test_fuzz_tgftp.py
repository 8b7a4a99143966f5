"""Fuzz suites over the tgftp area's readers: the batchfile importer (``gftpwb import``,
``gftpwb run tests.csv``) and the tag-log reader (``import taglogs``, ``gftpwb log get``).

Promises held: no traceback on any input; a batchfile either imports to a scenario that loads and
plans, or fails with a file:line error; a bad batchfile line is a warning at its line (tgftp skipped
it and ran the rest); a tag log is a record, or a refusal naming the file (and its line when the
log's own record is damaged). Seeded per run, the seed printed (GFTPWB_FUZZ_SEED=N repeats a run),
bounded by the number of examples. ``bench/reliability.py`` runs the same cases by the thousand.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import random
import re
import shutil

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from rich.console import Console
from support.clihelp import gftpwb
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.cli.migrate import import_taglogs
from gftpwb.cli.report import print_directory
from gftpwb.converters.batchfile import decode_batchfile, import_batchfile
from gftpwb.converters.taglog import format_taglog
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.records import ResultRecord
from gftpwb.shell.results_index import read_directory
from gftpwb.tgftp.log import get

HEADER = b"#%tgftp%v0.7.0\n#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;" \
         b"pre-command;post-command;execs\n"
BATCH_SEEDS = [
    HEADER + b"ftp://h/dev/zero;ftp://h2/dev/null;-vb -p 4 -len 10M;no;30;;\"#a comment\";;;2\n",
    HEADER + b"#  a comment\nftp://h/a;ftp://h/b;-p 2 -tcp-bs 4M;yes;;log.log;;\"echo pre\";\"echo post\";\n"
             b"\nftp://h/$HOME/x;'ftp://h/y z';\"-fast -len 1G\";no;0;n;#c;;;3\n",
    HEADER + b"gsiftp://a:2811/x;gsiftp://b/y;-len 1M;no;2.5;l_000.log;;;;1\r\nftp://a/;ftp://b/;;no;;;;;;0\r\n",
    b"#%tgftp_autotuning_batchfile\n" + HEADER + b"ftp://a/x;ftp://b/y;-p 1;no;10;;;;;\n",
]
PIECES = [b";", b"\n", b"\r\n", b'"', b"'", b"$", b"${", b"$(", b"`", b"#", b"\\", b" ", b"\t", b"\x00", b"\x01",
          b"\x1b[0m", b"\x7f", b"\xc2\x85", b"\xe2\x80\xa8", b"\xff", b"\xc3", b"\xef\xbb\xbf", b"-len",
          b"-len 1e20", b"--", b"*", b"?", b"yes", b"no", b"-1", b"1e308", b"nan", b"../../x", b"#%tgftp%v0.9",
          b"ftp://u:pw@h/", b"{a,b}", b"~", b"!", b"&", b"|", b"<", b">", b"x" * 300,
          b"99999999999999999999", b"ftp//h/", b"htp://", b":99999"]  # a huge execs, URL typos


def mutate(data: bytes, edits: list[tuple[int, int, int]]) -> bytes:
    for where, what, cut in edits:
        at = where % (len(data) + 1)
        data = data[:at] + PIECES[what % len(PIECES)] + data[at + cut % 4:]
    return data


def import_case(data: bytes, name: str = "b.csv") -> str:
    """What ``gftpwb import`` does with the bytes, as one word; raises AssertionError on a broken promise."""
    text, decode_warnings = decode_batchfile(data, name)
    for warning in decode_warnings:
        assert warning.file == name and warning.line >= 1 and warning.column >= 1, str(warning)
    try:
        result = import_batchfile(text, name, {"HOME": "/home/u"})
    except ScenarioError as exc:
        assert exc.diagnostics
        for diagnostic in exc.diagnostics:
            assert diagnostic.file == name and diagnostic.line >= 1, str(diagnostic)
        return "error with file:line (exit 2)"
    for warning in result.warnings:
        assert warning.file == name and warning.line >= (0 if "scenario named" in warning.message else 1), \
            str(warning)
    scenario = load_scenario_text(result.text, f"{name} (as imported)")  # the importer's promise: it loads
    specs = plan(scenario)
    for spec in specs:
        assert all(isinstance(word, str) and "\x00" not in word for word in spec.argv), spec.argv
    return f"imported ({len(specs)} runs)"


BATCH_EDITS = st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 1_000), st.integers(0, 3)), max_size=8)


@seed(FUZZ_SEED)
@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(BATCH_SEEDS), edits=BATCH_EDITS)
def test_fuzzed_batchfiles_import_or_fail_with_a_position(base, edits):
    say_seed()
    import_case(mutate(base, edits))


def taglog_seeds() -> list[str]:
    """A gftpwb tag log (with its record) and tgftp's own forms (passed, failed, connection test)."""
    record = ResultRecord(scenario="tests.csv", test_id="test-001", run_id="test-001/0", case=1, repeat=0, kind="guc",
                          host="local", argv=["globus-url-copy", "-vb", "-len", "1M", "ftp://a/x", "ftp://b/y"],
                          status="passed", params={"length": 1048576}, started_at="2026-11-22T10:00:00+00:00",
                          ended_at="2026-11-22T10:00:02+00:00", seconds=2.0, bytes=1048576,
                          rate_incl_setup_mib_s=0.5, rate_guc_avg_mib_s=0.6, exit_code=0, error="",
                          output="  1048576 bytes  0.60 MB/sec avg  0.60 MB/sec inst\n", comment="#c",
                          taglog="tests.csv_#001_000.log", details={"mode": "extended"})
    tgftp_passed = ("<GSIFTP_TRANSFER_LOG_COMMENT>\n#c\n</GSIFTP_TRANSFER_LOG_COMMENT>\n<TGFTP_COMMAND>\ntgftp -s x\n"
                    "</TGFTP_COMMAND>\n<GSIFTP_TRANSFER_COMMAND>\nglobus-url-copy -len 1M ftp://a/x ftp://b/y\n"
                    "</GSIFTP_TRANSFER_COMMAND>\n<GSIFTP_TRANSFER_COMMAND_OUTPUT>\n\n</GSIFTP_TRANSFER_COMMAND_OUTPUT>\n"
                    "<GSIFTP_TRANSFER_START>\n2026-11-22_10:00:00\n</GSIFTP_TRANSFER_START>\n<GSIFTP_TRANSFER_END>\n"
                    "2026-11-22_10:00:02\n</GSIFTP_TRANSFER_END>\n"
                    "<GSIFTP_TRANSFER_SIZE>\n1 MB\n</GSIFTP_TRANSFER_SIZE>\n"
                    "<GSIFTP_TRANSFER_RATE>\n0 MB/s\n</GSIFTP_TRANSFER_RATE>\n")
    tgftp_failed = tgftp_passed.split("<GSIFTP_TRANSFER_SIZE>")[0] + (
        '<GSIFTP_TRANSFER_ERROR>\nERROR: "globus-url-copy" failed.\n</GSIFTP_TRANSFER_ERROR>\n')
    connection = tgftp_failed.replace("-len 1M", "-dbg -vb")
    return [format_taglog(record, "tgftp -f tests.csv"), tgftp_passed, tgftp_failed, connection]


TAGLOG_SEEDS = taglog_seeds()
TEXT_PIECES = ["<", ">", "\n", "\r\n", "<GFTPWB_RECORD>", "</GFTPWB_RECORD>", "<GSIFTP_TRANSFER_COMMAND>", "{",
               "}", "[", "]", '"', ",", ":", "null", "1e308", "-1", "true", "\"x\"", "[]", "{}", "\x00", "\x01",
               "\udcff", "\ufffd", "../../x", "\"scenario\":\"../../x\"", "\"case\":\"1\"", "\"bytes\":[1]",
               "\"details\":[]", "\"params\":\"x\"", "\"rate_incl_setup_mib_s\":\"1\"", "2026-13-45_99:99:99",
               "MB/s", "GB", "x" * 200]


def mutate_text(text: str, edits: list[tuple[int, int, int]]) -> str:
    for where, what, cut in edits:
        at = where % (len(text) + 1)
        text = text[:at] + TEXT_PIECES[what % len(TEXT_PIECES)] + text[at + cut % 4:]
    return text


def taglog_case(text: str, name: str, tmp_dir: str) -> str:
    """What ``gftpwb log get`` and ``gftpwb import taglogs`` do with a tag log, and the results directory
    the import writes read back by the report; raises AssertionError on a broken promise."""
    path = os.path.join(tmp_dir, name)
    with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as handle:
        handle.write(text)
    for attribute in ("GSIFTP_TRANSFER_RATE", "GSIFTP_TRANSFER_COMMAND", "GSIFTP_TRANSFER_ERROR"):
        code, _out, err = get(attribute, path, prog="gftpwb")
        assert code in (0, 1) and isinstance(err, str)
    results = os.path.join(tmp_dir, "results")
    shutil.rmtree(results, ignore_errors=True)
    out, err = io.StringIO(), io.StringIO()
    args = argparse.Namespace(scenario="imported", results=results, results_base=tmp_dir)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = import_taglogs([path], args)
    messages = err.getvalue().splitlines()
    if code == 2:
        assert messages and messages[-1] == "gftpwb: no tag log could be imported", messages
        assert messages[0].startswith(f"{path}:") and "Traceback" not in err.getvalue(), messages
        if "GFTPWB_RECORD" in messages[0]:  # gftpwb's own record damaged: the error is at its line
            assert re.match(re.escape(path) + r":\d+: ", messages[0]), messages[0]
        return "refused with file[:line] (exit 2)"
    # a log's own notes name it; the import's closing note on logs tgftp wrote names the command
    assert code == 0 and all(m.startswith((f"{path}: note: ", "gftpwb: note: ")) for m in messages), messages
    summary = read_directory(results)
    assert len(summary.records) == 1 and not summary.problems, summary.problems
    print_directory(Console(file=io.StringIO(), width=120), summary)
    format_taglog(summary.records[0])
    return f"imported ({summary.records[0].details.get('written_by', 'gftpwb')}'s log)"


@seed(FUZZ_SEED)
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(base=st.sampled_from(TAGLOG_SEEDS), name=st.sampled_from(["tests.csv_#001_000.log", "x.log", "a b_#9_1.log"]),
       edits=BATCH_EDITS)
def test_fuzzed_tag_logs_are_records_or_refused_with_a_message(tmp_path, base, name, edits):
    say_seed()
    taglog_case(mutate_text(base, edits), name, str(tmp_path))  # one file, rewritten by each example


def test_the_fuzz_helpers_hit_both_outcomes(tmp_path):
    """The fuzzers can fail: their seeds import and read, and garbage is refused."""
    assert import_case(BATCH_SEEDS[0]).startswith("imported")
    assert import_case(b"garbage\n").startswith("error")
    assert taglog_case(TAGLOG_SEEDS[0], "tests.csv_#001_000.log", str(tmp_path)) == "imported (gftpwb's log)"
    assert taglog_case(TAGLOG_SEEDS[1], "tests.csv_#001_000.log", str(tmp_path)) == "imported (tgftp's log)"
    assert taglog_case("nothing\n", "x.log", str(tmp_path)) == "refused with file[:line] (exit 2)"
    rng = random.Random(FUZZ_SEED)
    assert mutate(b"abc", [(rng.randrange(4), 0, 0)]) != b"abc"


# --- what the fuzzers found, and the tgftp area's hardening items, each kept as a test --------------------


def batch(body: bytes) -> bytes:
    return HEADER + body


def test_a_control_character_in_a_batchfile_field_is_a_warning_at_its_line_and_column():
    text, _ = decode_batchfile(batch(b"ftp://a/x\x01y;ftp://b/\xc2\x85z;-p 2;no;30;;;;;\n"), "b.csv")
    result = import_batchfile(text, "b.csv", {})
    assert [str(w) for w in result.warnings] == [
        "b.csv:3:10: warning: control character U+0001 ('\\x01') (and 1 more on this line) in the source field: "
        "tgftp passed it on as it was, and so does gftpwb (the scenario writes it escaped)"]
    # tgftp passed both on to guc; so does the scenario (U+0085 is a line break to YAML: written escaped)
    spec, = plan(load_scenario_text(result.text, "b.csv (as imported)"))
    assert spec.argv[-2:] == ("ftp://a/x\x01y", "ftp://b/\x85z")


def test_a_nul_byte_is_dropped_as_bashs_read_dropped_it_and_comments_keep_escaped_controls():
    text, _ = decode_batchfile(batch(b"#  a \x1b[0m comment\xe2\x80\xa8two\nftp://a/x;ftp://b/\x00y;;no;30;;;;;\n"),
                               "b.csv")
    result = import_batchfile(text, "b.csv", {})
    assert [(w.line, w.column) for w in result.warnings] == [(3, 6), (4, 19)]
    assert "NUL byte in the target field: bash's read dropped it" in result.warnings[1].message
    assert "  # a \\x1b[0m comment\\u2028two" in result.text.splitlines()
    spec, = plan(load_scenario_text(result.text, "b.csv (as imported)"))
    assert spec.argv[-1] == "ftp://b/y"


def test_a_command_field_is_split_on_bashs_blanks_only():
    # Python's split() also splits on \x1c and U+0085; bash ran "echo\x1cpre" as one (unknown) command
    text, _ = decode_batchfile(batch(b'ftp://a/x;ftp://b/y;;no;30;;"\xc2\x85";"echo\x1cpre";;\n'), "b.csv")
    spec, = plan(load_scenario_text(import_batchfile(text, "b.csv", {}).text, "b.csv (as imported)"))
    assert spec.pre.text() == "echo\x1cpre" and spec.comment_command.text() == "\x85"


def test_bytes_that_are_not_utf8_are_a_warning_at_line_and_column(tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes(batch(b"#  caf\xe9\nftp://a/\xff\xfex;ftp://b/y;;no;30;;;;;\n"))
    out = gftpwb("import", str(path))
    assert out.returncode == 0, out.stderr
    assert f"{path}:3:7: warning: bytes b'\\xe9' are not UTF-8" in out.stderr
    assert f"{path}:4:9: warning: bytes b'\\xff\\xfe' are not UTF-8" in out.stderr
    assert "source: ftp://a/\ufffdx" in out.stdout and "Traceback" not in out.stderr


def test_odd_timeouts_and_hidden_log_names_found_by_the_fuzzer_import():
    # coreutils timeout reads 11e3080 as infinite (no limit); a '#' in the timeout field hid --log-filename
    for timeout in (b"11e3080", b"#", b"#%tgftp%v0.910"):
        assert import_case(batch(b"ftp://a/x;ftp://b/y;-p 1;no;" + timeout + b";;;;;\n")) == "imported (1 runs)"


def record_log(**changes) -> str:
    text = TAGLOG_SEEDS[0]
    line = next(line for line in text.split("\n") if line.startswith("{"))
    data = json.loads(line)
    data.update(changes)
    return text.replace(line, json.dumps(data))


def test_a_gftpwb_record_of_the_wrong_types_is_an_error_at_its_line_with_exit_2(tmp_path):
    for change in ({"case": "1"}, {"details": []}, {"params": "x"}, {"bytes": [1]}, {"rate_incl_setup_mib_s": "1"},
                   {"status": "done"}, {"ended_at": "yesterday"}):
        log = tmp_path / "tests.csv_#001_000.log"
        log.write_text(record_log(**change))
        out = gftpwb("import", "taglogs", str(log), "--results", str(tmp_path / "r"))
        assert out.returncode == 2, (change, out.stdout, out.stderr)
        first = out.stderr.splitlines()[0]
        assert first.startswith(f"{log}:17: <GFTPWB_RECORD> is damaged: "), (change, first)
        assert not (tmp_path / "r").exists() and "Traceback" not in out.stderr
    # not JSON at all: the same (it is not read as a tgftp log, which would give another record)
    log.write_text(TAGLOG_SEEDS[0].replace('{"scenario"', '{scenario'))
    out = gftpwb("import", "taglogs", str(log), "--results", str(tmp_path / "r"))
    assert out.returncode == 2 and out.stderr.startswith(f"{log}:17: <GFTPWB_RECORD> is not one line of JSON")


def test_a_scenario_name_from_a_tag_log_never_leaves_the_results_base(tmp_path):
    log = tmp_path / "x.log"
    log.write_text(record_log(scenario="../../../../escaped"))
    out = gftpwb("import", "taglogs", str(log), "--results-base", str(tmp_path / "results"))
    assert out.returncode == 2
    assert out.stderr.startswith(f"{log}:17: <GFTPWB_RECORD>: scenario name '../../../../escaped' is not a valid "
                                 "name")
    out = gftpwb("import", "taglogs", str(log), "--scenario", "../x")
    assert out.returncode == 2 and "--scenario '../x' is not a valid scenario name" in out.stderr
    # a tgftp log's name gives its scenario: characters a name cannot hold become '_', as for batchfiles
    tgftp_log = tmp_path / "..evil name_#001_000.log"
    tgftp_log.write_text(TAGLOG_SEEDS[1])
    out = gftpwb("import", "taglogs", str(tgftp_log), "--results-base", str(tmp_path / "results"))
    assert out.returncode == 0, out.stderr
    made, = (tmp_path / "results").iterdir()
    assert made.name.endswith("-imported-evil_name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["..evil name_#001_000.log", "results", "x.log"]


def test_an_imported_connection_test_without_times_reads_back(tmp_path):
    # an unclosed command tag swallows the rest: no START/END, so no seconds (the report used to fail on it)
    text = TAGLOG_SEEDS[3].replace("ftp://b/y\n</GSIFTP", "ftp://b<</GSIFTP")
    assert taglog_case(text, "tests.csv_#001_000.log", str(tmp_path)) == "imported (tgftp's log)"


def test_a_gftpwb_record_with_a_byte_it_never_writes_is_an_error_at_its_line(tmp_path):
    """gftpwb writes the record in ASCII; a byte that is not UTF-8 in one of its keys (found by
    bench/reliability.py, seed 20261128) passed as an unknown field and made writing the journal a
    traceback (surrogates not allowed)."""
    log = tmp_path / "tests.csv_#001_000.log"
    damaged = TAGLOG_SEEDS[0].replace('"rate_guc_avg_mib_s"', '"rat\udcffuc_avg_mib_s"', 1)
    assert damaged != TAGLOG_SEEDS[0]
    log.write_bytes(damaged.encode("utf-8", "surrogateescape"))
    out = gftpwb("import", "taglogs", str(log), "--results", str(tmp_path / "r"))
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
    assert out.stderr.startswith(f"{log}:17: <GFTPWB_RECORD> is damaged: a character gftpwb never writes"), out.stderr
    assert not (tmp_path / "r").exists()
