"""tgftp batchfiles -> scenarios: fields, comments, tgftp's bugs as warnings, skipped lines, round trips, fuzz.

What tgftp 0.7.0 itself does with each of these lines is checked against the real script by tests/compat;
these tests pin the importer's own output (the scenario and its warnings)."""

import string
import subprocess
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.clihelp import gftpwb

from gftpwb.converters.batchfile import export_batchfile, import_batchfile, scenario_name_for, split_fields
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.units import GIB, MIB
from gftpwb.kinds.guc.options import OPTIONS_BY_FLAG

HEADER = "#%tgftp%v0.7.0\n#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;" \
         "pre-command;post-command;execs\n"


ENV = {"HOME": "/home/u", "PATH": "/usr/bin:/bin"}


def imported(body: str, header: str = HEADER, name: str = "tests.csv"):
    result = import_batchfile(header + textwrap.dedent(body), name, ENV)
    scenario = load_scenario_text(result.text, f"{name}.yaml")
    return result, scenario


def warnings_of(result) -> list[str]:
    return [str(w) for w in result.warnings]


def errors_of(text: str, name: str = "b.csv") -> list[str]:
    with pytest.raises(ScenarioError) as info:
        import_batchfile(text, name, ENV)
    return [str(d) for d in info.value.diagnostics]


def test_the_example_from_tgftps_help():
    def line(n: int) -> str:
        return (f"gsiftp://gridftp.domain1/dev/zero;gsiftp://gridftp.domain{n}/dev/null;-vb -p 16 -tcp-bs 4M -len 4G;"
                f'no;30;;"#Domain1 to Domain{n}";;;\n')
    result, s = imported("#  GridFTP tests on GridFTP example sites\n#  GridFTP from Domain1 to Domain2\n" + line(2) +
                         "\n#  GridFTP from Domain1 to Domain3\n" + line(3))
    assert result.warnings == [] and result.version == "0.7.0" and s.name == "tests.csv"
    one, two = s.tests
    assert (one.id, one.kind, one.source, one.target) == ("test-000", "guc", "gsiftp://gridftp.domain1/dev/zero",
                                                          "gsiftp://gridftp.domain2/dev/null")
    # guc's parameters exactly as tgftp passed them: nothing reordered, nothing added
    assert one.args == ("-vb", "-p", "16", "-tcp-bs", "4M", "-len", "4G") and one.tgftp_style is True
    assert one.add_vb is False and one.options.parallel is None and one.extra_args == ()
    assert one.timeout_s == 30 and one.repeat == 1 and one.comment == "#Domain1 to Domain2"
    assert two.comment == "#Domain1 to Domain3"
    # tgftp's log names: <batchfile>_#<test>_<exec>.log
    assert [spec.taglog_name for spec in plan(s)] == ["tests.csv_#000_000.log", "tests.csv_#001_000.log"]
    first = plan(s)[0]
    assert first.argv == ("globus-url-copy", "-vb", "-p", "16", "-tcp-bs", "4M", "-len", "4G",
                          "gsiftp://gridftp.domain1/dev/zero", "gsiftp://gridftp.domain2/dev/null")
    assert first.params == {"parallel": 16, "tcp_buffer": 4 * MIB, "length": 4 * GIB}  # for reports
    assert first.length_bytes == 4 * GIB and first.tgftp_style
    # -vb between two servers: extended mode, as under tgftp (the user's own -vb, not added)
    assert first.details == {"mode": "extended", "live_progress": True, "vb_added": False, "tgftp_style": True}
    # '#' lines are YAML comments right before the test they precede
    lines = result.text.splitlines()
    assert lines.index("  # GridFTP from Domain1 to Domain2") == lines.index("  - id: test-000") - 1
    assert lines.index("  # GridFTP from Domain1 to Domain3") == lines.index("  - id: test-001") - 1
    assert "  # GridFTP tests on GridFTP example sites" in lines


def test_all_ten_fields():
    result, s = imported(";".join([
        "ftp://a:2811/dev/zero", "file:///dev/null", "-p 4 -bs 1M -len 1024M -fast -nodcau -rst-retries 3", "no",
        "90", "my.log", '"cat PRE.txt"', '"sysctl -n net.ipv4.tcp_congestion_control > PRE.txt"',
        '"/usr/local/bin/collect --all"', "3"]) + "\n")
    (t,) = s.tests
    assert t.args == ("-p", "4", "-bs", "1M", "-len", "1024M", "-fast", "-nodcau", "-rst-retries", "3")
    assert t.timeout_s == 90 and t.repeat == 3 and t.log_filename == "my.log"
    assert t.comment == "" and t.comment_command.argv == ("cat", "PRE.txt")
    # tgftp ignored a failing pre command: so does the imported test
    assert t.pre.shell == "bash" and t.pre.script == "sysctl -n net.ipv4.tcp_congestion_control > PRE.txt"
    assert t.pre.on_failure == "continue" and t.post.on_failure == "fail"
    assert t.post.argv == ("/usr/local/bin/collect", "--all")
    assert [spec.taglog_name for spec in plan(s)] == ["my_000.log", "my_001.log", "my_002.log"]
    assert warnings_of(result) == []


def test_unquoted_words_in_a_command_field_failed_the_test_in_tgftp_and_are_skipped():
    result, s = imported("""\
        ftp://a/dev/zero;ftp://b/dev/null;-len 1M;no;30;;;;/usr/local/bin/collect --all;
        ftp://a/dev/zero;ftp://b/dev/null;-len 2M;no;30;;;;;
    """)
    assert [t.id for t in s.tests] == ["test-001"]  # tgftp's numbers are kept
    assert [spec.taglog_name for spec in plan(s)] == ["tests.csv_#001_000.log"]
    (warning,) = warnings_of(result)
    assert warning.startswith("tests.csv:3:1: warning: tgftp failed this test with a usage error") and \
        "--post-command /usr/local/bin/collect --all" in warning
    assert "# gftpwb: skipped line 3: ftp://a/dev/zero" in result.text


def test_execs_may_be_left_out_and_extra_fields_are_ignored():
    result, s = imported("/srv/x1;/srv/y2;;no;0;;;;;\n/srv/x1;/srv/y2;;no;0;;;;;2;extra\n")
    assert [t.repeat for t in s.tests] == [1, 2] and [t.timeout_s for t in s.tests] == [None, None]
    assert warnings_of(result) == ["tests.csv:4:29: warning: fields after the tenth (execs) are ignored, as tgftp did"]


def test_fields_are_split_like_bash_read_a():
    assert split_fields("a;;b;") == (["a", "", "b"], [1, 3, 4])
    assert split_fields("a;b;;") == (["a", "b", ""], [1, 3, 5])
    assert split_fields(" a ; b") == ([" a ", " b"], [1, 5])


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ;\\\t#\"")), max_size=16))
def test_field_split_matches_bash_read_a(line):
    script = 'IFS=";" read -r -a X <<< "$1"; for x in "${X[@]}"; do printf "%s\\0" "$x"; done'
    out = subprocess.run(["bash", "--norc", "-c", script, "_", line], capture_output=True, check=True)
    assert split_fields(line)[0] == out.stdout.decode().split("\0")[:-1]


def test_short_lines_empty_targets_and_blank_lines_are_skipped_with_line_numbers():
    result, s = imported("""\

        ;starts with an empty first field
        /srv/x1;/srv/y2;;no;0
        /srv/x1;;;no;0;;;;;
        /srv/x1;/srv/y2;;no;0;;;;;
    """)
    assert [t.id for t in s.tests] == ["test-000"]  # numbering counts only the lines tgftp ran
    assert warnings_of(result) == [
        "tests.csv:5:1: warning: 5 field(s), fewer than the 9 tgftp needs; skipped, as tgftp did",
        "tests.csv:6:9: warning: the target field is empty; skipped, as tgftp did",
    ]
    assert "# gftpwb: skipped line 5: /srv/x1;/srv/y2;;no;0" in result.text


def test_sticky_connection_test_flag_b1_is_not_reproduced_but_reported():
    result, s = imported("""\
        ftp://a/dev/zero;ftp://b/dev/null;-vb;yes;30;;;;;
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G;no;30;;;;;
    """)
    assert [t.kind for t in s.tests] == ["connection-test", "guc"]
    assert "tests.csv:4:43: warning: tgftp ran this line as a connection test too (bug B1: the connection-test " \
           "flag of line 3 stuck); gftpwb runs the transfer" in warnings_of(result)
    # the connection test itself: guc params ignored (as tgftp), one byte, 30 s
    assert "tests.csv:3:35: warning: tgftp ignores gsiftp-params in a connection test (it runs guc -dbg -vb); " \
           "not imported" in warnings_of(result)
    assert plan(s)[0].argv[:5] == ("globus-url-copy", "-dbg", "-vb", "-len", "1") and plan(s)[0].timeout_s == 30


def test_missing_len_1_in_connection_tests_is_reported_for_0_5_to_0_7_0_only():
    line = "ftp://a/dev/zero;ftp://b/dev/null;;yes;30;;;;;\n"
    for version, warned in (("0.4.5", False), ("0.5.0", True), ("0.6.1", True), ("0.7.0", True), ("0.7.1", False)):
        result = import_batchfile(f"#%tgftp%v{version}\n{line}", "c.csv", ENV)
        assert any("left out -len 1" in str(w) for w in result.warnings) is warned, version


def test_sticky_log_comment_b1_swallows_the_next_token():
    result, s = imported("""\
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G;no;30;;"#first";;;
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G;no;30;;;;;
        ftp://a/dev/zero;ftp://b/dev/null;;no;30;;;;/bin/true;
        ftp://a/dev/zero;ftp://b/dev/null;;no;30;;;;;
    """)
    warnings = warnings_of(result)
    assert "tests.csv:4:50: warning: tgftp failed this test with a usage error (bug B1: the --log-comment flag of " \
           "line 3 stuck, took '--' as the comment and left the next word as an unknown option); gftpwb runs it" \
           in warnings
    assert any(w.startswith("tests.csv:5:43: warning: tgftp failed this test with a usage error (bug B1") and
               "took '--post-command'" in w for w in warnings)
    assert not any(w.startswith("tests.csv:6:") for w in warnings)  # nothing followed: tgftp ran it fine
    assert [t.comment for t in s.tests] == ["#first", "", "", ""]
    assert [t.args for t in s.tests] == [("-len", "1G"), ("-len", "1G"), (), ()]


def test_empty_timeout_b2_fails_in_tgftp_until_some_line_set_one():
    result, s = imported("""\
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G;no;;;;;;
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G;no;5m;;;;;
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G;no;;;;;;
    """)
    assert warnings_of(result) == [
        "tests.csv:3:46: warning: tgftp failed this test with a usage error (bug B2: an empty timeout before any "
        "line had set one left a stray '0' on its command line); gftpwb runs it without a time limit"]
    assert [t.timeout_s for t in s.tests] == [None, 300, None]


def test_an_unquoted_hash_starts_a_shell_comment_as_it_did_for_tgftp():
    result, s = imported("""\
        ftp://a/dev/zero;ftp://b/dev/null;-p 2 -len 1G;no;30;;#Domain1 to Domain2;/bin/prep;;
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G # -p 8 was slower;no;30;;;;;
    """)
    first, second = s.tests
    # the unquoted comment hid the rest of tgftp's generated command line: no comment, no pre, no params
    assert first.comment == "" and first.pre is None and first.args == ()
    assert any(w.startswith("tests.csv:3:") and "'#Domain1 to Domain2 --pre-command /bin/prep  -- -p 2 -len 1G'" in w
               and "shell comment" in w for w in warnings_of(result))
    assert second.args == ("-len", "1G")  # '# -p 8 ...' is a shell comment in tgftp's eval


def test_quotes_and_variables_are_read_as_tgftps_three_shells_read_them():
    result, s = imported("""\
        ftp://a/x;ftp://b/y;-len 1G -ss "/O=Grid/CN=host one";no;30;;;;;
        ftp://a/x;ftp://b/y;-len 1G -ss "'\\"/O=Grid/CN=host one\\"'";no;30;;;;;
        ftp://a$HOME/x;ftp://b/y;-len 1G;no;30;;;;;
        ftp://a/x;ftp://b/y;-len 1G;no;30;;;$(date);;
    """)
    first, second, third = s.tests
    assert first.args == ("-len", "1G", "-ss", "/O=Grid/CN=host", "one")  # quotes lost after the first shell
    assert second.args == ("-len", "1G", "-ss", "/O=Grid/CN=host one")
    assert third.source == "ftp://a/home/u/x"
    warnings = warnings_of(result)
    assert "tests.csv:5:1: warning: $HOME expanded to '/home/u', as tgftp's shell did; the scenario holds the " \
           "value" in warnings
    assert any(w.startswith("tests.csv:6:1: warning: '$(date)': command substitution") and "line skipped" in w
               for w in warnings)


def test_log_filename_rules():
    result, s = imported("""\
        ftp://a/x;ftp://b/y;-len 1M;no;30;logs/run.log;;;;2
        ftp://a/x;ftp://b/y;-len 1M;no;30;run.log;;;;
        ftp://a/x;ftp://b/y;-len 1M;no;30;plain;;;;2
    """)
    assert [t.log_filename for t in s.tests] == ["run.log", "", "plain"]
    assert [spec.taglog_name for spec in plan(s)] == ["run_000.log", "run_001.log", "tests.csv_#001_000.log",
                                                      "plain_000", "plain_001"]
    warnings = warnings_of(result)
    assert any("log-filename 'logs/run.log' is a path" in w for w in warnings)
    assert any(w.startswith("tests.csv:4:") and "also used by line 3" in w for w in warnings)
    assert any(w.startswith("tests.csv:5:") and "for every execution" in w for w in warnings)


def test_last_line_without_newline_is_imported_but_reported():
    result = import_batchfile(HEADER + "/srv/x1;/srv/y2;-len 1M;no;30;;;;;", "t.csv", ENV)
    assert result.tests == 1
    assert "never ran it" in str(result.warnings[-1]) and str(result.warnings[-1]).startswith("t.csv:3:")


def test_crlf_batchfiles_are_read():
    result = import_batchfile(HEADER.replace("\n", "\r\n") + "/srv/x1;/srv/y2;-len 1M;no;30;;;;;2\r\n", "t.csv", ENV)
    scenario = load_scenario_text(result.text, "t.yaml")
    assert scenario.tests[0].repeat == 2 and scenario.tests[0].args == ("-len", "1M")
    assert "CRLF line endings" in str(result.warnings[0])


def test_header_anywhere_and_autotune_batchfiles_are_noted():
    result = import_batchfile("# notes\n#%tgftp%v0.6.1\n#%tgftp_autotuning_batchfile\n/srv/x1;/srv/y2;-vb -len 4G;"
                              "no;30;;;;;10\n", "a.csv", ENV)
    assert [str(w).split(": warning: ")[1][:40] for w in result.warnings] == [
        "the #%tgftp header should be the first l", "this is tgftp's generated auto-tuning ba"]


@pytest.mark.parametrize(("text", "message"), [
    ("#%tgftp%v0.3.0\n", "b.csv:1:10: unsupported tgftp batchfile version 'v0.3.0' (gftpwb reads batchfiles of "
                         "tgftp 0.4.x to 0.7.x)"),
    ("#%tgftp%v1.0.0\n", "b.csv:1:10: unsupported tgftp batchfile version 'v1.0.0'"),
    ("#%tgftp%v0.7.0\n# only comments\n", "b.csv:1:1: no test lines to import"),
])
def test_bad_input_is_a_positioned_error(text, message):
    errors = errors_of(text)
    assert any(e.startswith(message) for e in errors), errors


def test_a_batchfile_without_the_header_imports_as_tgftp_ran_it_with_a_warning_at_line_1():
    result = import_batchfile("ftp://h/dev/zero;ftp://h/dev/null;-len 1M;no;30;;;;;\n", "b.csv")
    assert result.tests == 1 and result.version == "0.7.0"
    assert str(result.warnings[0]).startswith("b.csv:1:1: warning: no '#%tgftp%v<version>' header line: tgftp "
                                              "0.7.0 ran such a file as a batchfile of its own version")


@pytest.mark.parametrize(("line", "warning"), [
    ("/in/x;/ou/y;;maybe;0;;;;;", "tests.csv:3:14: warning: connection-test must be yes or no, not 'maybe'; skipped"),
    ("/in/x;/ou/y;;;0;;;;;", "tests.csv:3:14: warning: connection-test must be yes or no, not ''; skipped"),
    ("/in/x;/ou/y;;no;0;;;;;two", "tests.csv:3:23: warning: execs: 'two' is 0 in bash arithmetic: tgftp ran it 0 "
                                  "time(s)"),
    ("/in/x;/ou/y;;no;0;;;;;0", "tests.csv:3:23: warning: execs '0': tgftp ran this line zero times; skipped"),
    ("/in/x;/ou/y;;no;0;;;;;2x", "tests.csv:3:23: warning: execs: bash: value too great for base"),
    ("/in/x;/ou/y;-len 1M;no;3S;;;;;", "tests.csv:3:24: warning: timeout: coreutils timeout refuses '3S' (exit "
                                       "125): guc never ran and the test failed; line skipped"),
])
def test_a_bad_line_is_skipped_with_a_warning_and_the_rest_runs(line, warning):
    result, s = imported(line + "\n/in/x;/ou/y;-len 1M;no;0;;;;;\n")
    assert any(w.startswith(warning) for w in warnings_of(result)), warnings_of(result)
    assert len(s.tests) == 1 and s.tests[0].args == ("-len", "1M")


def test_odd_timeouts_mean_what_they_meant_to_tgftp():
    result, s = imported("""\
        /in/x;/ou/y;-len 1M;no;abc;;;;;
        /in/x;/ou/y;-len 1M;no;5m;;;;;
        /in/x;/ou/y;-len 1M;no;2.5;;;;;
        /in/x;/ou/y;-len 1M;no;0x10;;;;;
    """)
    assert [t.timeout_s for t in s.tests] == [None, 300, 2.5, 16]
    assert any("'abc' counts as 0 in bash arithmetic: no time limit" in w for w in warnings_of(result))


def test_cli_import_writes_a_loadable_scenario_and_bad_input_exits_2(tmp_path):
    batch = tmp_path / "site.csv"
    batch.write_text(HEADER + "# first\nftp://a/dev/zero;ftp://b/dev/null;-p 4 -len 1G;no;;;;;;\n")
    out = gftpwb("import", str(batch), "-o", str(tmp_path / "site.yaml"))
    assert out.returncode == 0, out.stderr
    assert "bug B2" in out.stderr and f"{batch}:4:" in out.stderr
    assert "site.yaml" in out.stderr and load_scenario_text((tmp_path / "site.yaml").read_text()).tests[0].id == \
        "test-000"
    again = gftpwb("import", str(batch), "-o", str(tmp_path / "site.yaml"))
    assert again.returncode == 2 and "already exists; use --force" in again.stderr
    assert gftpwb("import", str(batch)).stdout.startswith("# Imported by gftpwb")
    bad = tmp_path / "bad.csv"
    bad.write_text("#%tgftp%v0.7.0\nftp://a/x;ftp://b/y;;perhaps;0;;;;;\n")
    for command in (("import", str(bad)), ("validate", str(bad)), ("run", str(bad), "--dry-run")):
        out = gftpwb(*command)
        assert out.returncode == 2 and out.stderr.startswith(f"{bad}:1:1: no test lines to import") and \
            "Traceback" not in out.stderr, command


def test_run_and_validate_read_batchfiles_directly(tmp_path):
    batch = tmp_path / "site.csv"
    batch.write_text(HEADER + "ftp://a/dev/zero;ftp://b/dev/null;-p 4;no;0;;;;;2\n")
    out = gftpwb("run", str(batch), "--dry-run")
    assert out.returncode == 0
    assert out.stdout.splitlines() == ["test-000/0: globus-url-copy -p 4 ftp://a/dev/zero ftp://b/dev/null",
                                       "test-000/1: globus-url-copy -p 4 ftp://a/dev/zero ftp://b/dev/null"]
    # the loader's own warning points at the batchfile line, not at the converted YAML
    assert f"{batch}:3: warning: test 'test-000' reads /dev/zero with no length and no timeout" in out.stderr
    assert gftpwb("validate", str(batch)).stdout.strip() == f"{batch}: ok (1 test(s), 2 run(s))"


def test_scenario_names_follow_the_batchfile_name():
    assert scenario_name_for("/x/y/tests.csv") == "tests.csv"
    assert scenario_name_for("my tests (old).csv") == "my_tests__old_.csv"
    result = import_batchfile(HEADER + "/srv/x1;/srv/y2;;no;0;;;;;\n", "dir/my tests.csv", ENV)
    assert result.name == "my_tests.csv" and "is not a valid name" in str(result.warnings[0])
    # tgftp's $(basename ${FILE}) read "tests.csv" as a suffix to remove: its logs were my_#000_000.log
    scenario = load_scenario_text(result.text, "my.yaml")
    assert [spec.taglog_name for spec in plan(scenario)] == ["my_#000_000.log"]


# --- round trip: scenario -> batchfile -> scenario ------------------------------------------------

SAFE = string.ascii_letters + string.digits + "-_./:=+@%"
URL = st.from_regex(r"ftp://[a-z]{1,8}(:[1-9][0-9]{1,3})?/[a-z0-9/]{0,10}", fullmatch=True)  # guc's ports: 1-65535
PLAIN_WORD = st.text(alphabet=SAFE, min_size=1, max_size=10).filter(lambda w: "=" not in w)
PRINTABLE = st.characters(blacklist_characters=";\n\r\x00", blacklist_categories=("Cs", "Cc", "Zl", "Zp"))
ANY_WORD = st.text(alphabet=PRINTABLE, min_size=1, max_size=10)
EXTRA = st.lists(st.one_of(st.sampled_from(["-nodcau", "-rst", "-cd", "-r", "-sbs", "-ipv6"]), ANY_WORD.filter(
    lambda w: w.strip() == w and w and not w.startswith("-") and w not in OPTIONS_BY_FLAG)), max_size=3)
COMMENT = st.text(alphabet=PRINTABLE, max_size=20).map(lambda t: "#" + t.strip())
SCRIPT = st.text(alphabet=SAFE + " |>$'\"", min_size=1, max_size=20).filter(lambda t: t.strip() == t and "|" in t)


def command_yaml(draw_value):
    kind, value = draw_value
    if kind == "argv":
        return "[" + ", ".join(f"'{w}'" for w in value) + "]"
    return "{run: " + repr_yaml(value) + ", shell: bash}"


def repr_yaml(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


COMMAND = st.one_of(st.tuples(st.just("argv"), st.lists(PLAIN_WORD, min_size=1, max_size=3)),
                    st.tuples(st.just("shell"), SCRIPT))


@st.composite
def scenarios(draw):
    lines = ["version: 1", "name: rt", "tests:"]
    for index in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["guc", "connection-test"]))
        lines += [f"  - id: t{index}", f"    kind: {kind}", f"    source: {draw(URL)}", f"    target: {draw(URL)}"]
        if kind == "guc":
            options = draw(st.dictionaries(st.sampled_from(["parallel", "tcp_buffer", "length", "block_size",
                                                            "concurrency", "fast", "stripe", "sync_level"]),
                                           st.integers(1, 3), max_size=4))
            rendered = {k: (bool(v % 2) if k in ("fast", "stripe") else
                            f"{v}{draw(st.sampled_from(['', 'K', 'M', 'G']))}" if k in ("tcp_buffer", "length",
                                                                                         "block_size") else v)
                        for k, v in options.items()}
            if rendered:
                lines.append("    options: {" + ", ".join(f"{k}: {str(v).lower()}" for k, v in rendered.items()) + "}")
            extra = draw(EXTRA)
            if extra:
                lines.append("    extra_args: [" + ", ".join(repr_yaml(w) for w in extra) + "]")
            if draw(st.booleans()):
                values = draw(st.lists(st.integers(1, 9), min_size=1, max_size=3))
                lines.append(f"    matrix: {{parallel: [{', '.join(map(str, values))}]}}")
            timeout = draw(st.one_of(st.just(0), st.integers(1, 600), st.sampled_from([2.5, 0.5])))
            lines.append(f"    timeout: {timeout}")
        lines.append(f"    repeat: {draw(st.integers(1, 3))}")
        if draw(st.booleans()):
            lines.append(f"    comment: {repr_yaml(draw(COMMENT))}")
        elif draw(st.booleans()):
            lines.append(f"    comment_command: {command_yaml(draw(COMMAND))}")
        for key in ("pre", "post"):
            if draw(st.booleans()):
                lines.append(f"    {key}: {command_yaml(draw(COMMAND))}")
        if draw(st.booleans()):
            lines.append(f"    log_filename: log{index}{draw(st.sampled_from(['.log', '']))}")
    return "\n".join(lines) + "\n"


def behaviour(s):
    """What running the scenario would do, run by run."""
    def cmd(c):
        return None if c is None else c.text()
    return [(spec.kind, spec.argv, spec.timeout_s, spec.comment, cmd(spec.comment_command), cmd(spec.pre),
             cmd(spec.post), spec.taglog_name, spec.case, spec.repeat) for spec in plan(s)]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_scenario_to_batchfile_to_scenario_keeps_behaviour(text):
    original = load_scenario_text(text, "rt.yaml")
    batch, _notes = export_batchfile(original)
    back = load_scenario_text(import_batchfile(batch, "rt", ENV).text, "rt.yaml")
    if not any(s.kind == "connection-test" for s in plan(original)) and "comment" not in text:
        assert behaviour(back) == behaviour(original)
    # For tgftp 0.7.0 (bug B1) connection tests come last and a line after a commented one has the
    # comment command 'true' (no output: an empty comment); the runs are the same, the order and the
    # log numbers (tgftp's line numbers) follow the batchfile.
    assert as_tgftp_runs(back) == as_tgftp_runs(original)


def as_tgftp_runs(s):
    runs = [(kind, argv, timeout, comment, None if command == "true" else command, pre, post, repeat)
            for kind, argv, timeout, comment, command, pre, post, _log, _case, repeat in behaviour(s)]
    return [run for run in runs if run[0] != "connection-test"] + [run for run in runs if run[0] == "connection-test"]


# --- fuzz: never a traceback -----------------------------------------------------------------------

FIELD = st.text(alphabet=st.sampled_from(list("ab1 #\"'\\$;-.:/yesno0\t\x1b\x00\u2028\x85\ufeff\r{}&*|>`")),
                max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.lists(FIELD, min_size=0, max_size=12).map(";".join),
                          st.sampled_from(["", "# c", "#%tgftp%v0.5.1", "yes;no", "\r"])), max_size=8),
       st.sampled_from(["#%tgftp%v0.7.0\n", "#%tgftp%v0.4.1\n", "", "#%tgftp%vx\n"]))
def test_fuzzed_batchfiles_import_or_fail_cleanly(lines, header):
    text = header + "\n".join(lines)
    try:
        result = import_batchfile(text, "fuzz.csv", ENV)
    except ScenarioError as exc:
        assert exc.diagnostics and all(d.file == "fuzz.csv" and d.line >= 0 for d in exc.diagnostics)
        return
    load_scenario_text(result.text, "fuzz.yaml")  # whatever the importer writes is a valid scenario


def test_a_batchfile_run_can_be_resumed_by_name(tmp_path, fake_guc):
    batch = tmp_path / "site.csv"
    batch.write_text(HEADER + "ftp://a/dev/zero;ftp://b/dev/null;-len 3M;no;30;;;;;2\n")
    assert gftpwb("run", str(batch), cwd=tmp_path).returncode == 0
    (directory,) = (tmp_path / "results").iterdir()
    assert directory.name.endswith("-site.csv")
    assert sorted(p.name for p in directory.glob("*.log")) == ["site.csv_#000_000.log", "site.csv_#000_001.log"]
    assert (directory / "scenario.yaml").read_text().startswith("# Imported by gftpwb")
    journal = directory / "results.jsonl"
    journal.write_text(journal.read_text().splitlines(keepends=True)[0])  # killed after its first run
    out = gftpwb("run", str(batch), "--resume", cwd=tmp_path)  # finds it although the name holds a dot
    assert out.returncode == 0 and "1 already done, resuming" in out.stdout, out.stdout + out.stderr
    assert len(journal.read_text().splitlines()) == 2


def test_the_shipped_example_batchfile_imports():
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scenarios" / "tgftp-example.csv"
    result, s = imported(path.read_text(), header="", name=path.name)
    assert [t.kind for t in s.tests] == ["guc", "guc", "connection-test"]
    assert [str(w).split(": warning: ")[1][:22] for w in result.warnings] == ["tgftp 0.7.0 left out -"]


def test_export_warns_at_their_lines_about_warm_ups_and_an_order_tgftp_cannot_keep():
    """tgftp counts every exec (a warm-up becomes a counted run) and runs a line's execs before the next
    line's (interleaved becomes sequential); what says nothing else than tgftp does is not warned about."""
    text = textwrap.dedent("""\
        version: 1
        name: m
        defaults:
          source: /dev/zero
          target: /dev/null
          options: {length: 1M}
          warmup: 1
        tests:
          - id: sweep
            kind: guc
            matrix: {parallel: [1, 4]}
            repeat: 3
            order: interleaved
          - id: plain
            kind: guc
            repeat: 2
            warmup: 0
            order: random
          - id: kept
            kind: guc
            matrix: {parallel: [1, 4]}
            repeat: 2
            order: sequential
        """)
    _batch, notes = export_batchfile(load_scenario_text(text, "m.yaml"))
    said = [f"{n.line}:{n.column}: {n.message}" for n in notes]
    assert said == [
        "7:3: defaults: warmup: is not in the batchfile (tgftp counts every exec: the warm-up runs become counted "
        "runs)",
        "13:5: test sweep: order: is not in the batchfile (tgftp runs a line's execs one after another, then the "
        "next line's: the order becomes sequential)",
    ]


def test_import_then_export_writes_back_what_each_field_said_and_an_empty_field_stays_empty():
    """A connection test's timeout 30 and an empty one, a transfer's 0 and (after a line set one, so
    tgftp's bug B2 does not bite) an empty one, execs 1 and an empty execs field."""
    body = ("ftp://h/dev/zero;ftp://h/dev/null;-len 1M;no;0;;;;;1\n"
            "ftp://h/dev/zero;ftp://h/dev/null;-len 2M;no;;;;;;\n"
            "ftp://h/dev/zero;ftp://h/dev/null;-len 3M;no;60;;;;;2\n"
            "ftp://h/x;ftp://h/dev/null;;yes;30;;;;;\n"
            "ftp://h/y;ftp://h/dev/null;;yes;;;;;;1\n")
    result, scenario = imported(body)
    assert not any("skipped" in warning for warning in warnings_of(result))
    batch, _notes = export_batchfile(scenario)
    assert [line for line in batch.splitlines() if not line.startswith("#")] == body.splitlines()


def test_an_exported_first_line_without_a_timeout_gets_tgftps_default_written_out():
    """tgftp's bug B2: an empty timeout before any line had set one was a usage error."""
    scenario = load_scenario_text(textwrap.dedent("""\
        version: 1
        name: b2
        tests:
          - {id: c, kind: connection-test, source: ftp://h/x, target: ftp://h/dev/null}
          - {id: t, kind: guc, source: ftp://h/x, target: ftp://h/dev/null}
          - {id: u, kind: guc, source: ftp://h/x, target: ftp://h/dev/null}
        """), "b2.yaml")
    batch, _notes = export_batchfile(scenario)
    assert [line.split(";")[4] for line in batch.splitlines() if not line.startswith("#")] == ["0", "", ""]
    only_probe = load_scenario_text("version: 1\nname: p\ntests:\n  - {id: c, kind: connection-test, source: "
                                    "ftp://h/x, target: ftp://h/dev/null}\n", "p.yaml")
    assert export_batchfile(only_probe)[0].splitlines()[-1].split(";")[4] == "30"
