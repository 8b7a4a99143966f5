"""tgftp batchfiles -> scenarios: fields, comments, tgftp's bugs as warnings, errors, round trips, fuzz."""

import string
import subprocess
import textwrap

import pytest
from clihelp import gftpwb
from gftpwb.converters.batchfile import export_batchfile, import_batchfile, scenario_name_for, split_fields
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.units import GIB, MIB
from gftpwb.kinds.guc.options import OPTIONS_BY_FLAG

HEADER = "#%tgftp%v0.7.0\n#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;" \
         "pre-command;post-command;execs\n"


def imported(body: str, header: str = HEADER, name: str = "tests.csv"):
    result = import_batchfile(header + textwrap.dedent(body), name)
    scenario = load_scenario_text(result.text, f"{name}.yaml")
    return result, scenario


def warnings_of(result) -> list[str]:
    return [str(w) for w in result.warnings]


def errors_of(text: str, name: str = "b.csv") -> list[str]:
    with pytest.raises(ScenarioError) as info:
        import_batchfile(text, name)
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
    assert one.options.parallel == 16 and one.options.tcp_buffer == 4 * MIB and one.options.length == 4 * GIB
    assert one.extra_args == () and one.timeout_s == 30 and one.repeat == 1 and one.comment == "#Domain1 to Domain2"
    assert two.comment == "#Domain1 to Domain3"
    # tgftp's log names: <batchfile>_#<test>_<exec>.log
    assert [spec.taglog_name for spec in plan(s)] == ["tests.csv_#000_000.log", "tests.csv_#001_000.log"]
    assert plan(s)[0].argv == ("globus-url-copy", "-vb", "-p", "16", "-tcp-bs", "4M", "-len", "4G",
                               "gsiftp://gridftp.domain1/dev/zero", "gsiftp://gridftp.domain2/dev/null")
    # '#' lines are YAML comments right before the test they precede
    lines = result.text.splitlines()
    assert lines.index("  # GridFTP from Domain1 to Domain2") == lines.index("  - id: test-000") - 1
    assert lines.index("  # GridFTP from Domain1 to Domain3") == lines.index("  - id: test-001") - 1
    assert "  # GridFTP tests on GridFTP example sites" in lines


def test_all_ten_fields():
    result, s = imported(";".join([
        "ftp://a:2811/dev/zero", "file:///dev/null", "-p 4 -bs 1M -len 1G -fast -nodcau -rst-retries 3", "no", "90",
        "my.log", '"cat PRE.txt"', '"sysctl -n net.ipv4.tcp_congestion_control > PRE.txt"',
        "/usr/local/bin/collect --all", "3"]) + "\n")
    (t,) = s.tests
    assert t.options.parallel == 4 and t.options.block_size == MIB and t.options.fast is True
    assert t.extra_args == ("-nodcau", "-rst-retries", "3")
    assert t.timeout_s == 90 and t.repeat == 3 and t.log_filename == "my.log"
    assert t.comment == "" and t.comment_command.argv == ("cat", "PRE.txt")
    assert t.pre.shell == "bash" and t.pre.script == "sysctl -n net.ipv4.tcp_congestion_control > PRE.txt"
    assert t.post.argv == ("/usr/local/bin/collect", "--all")
    assert [spec.taglog_name for spec in plan(s)] == ["my_000.log", "my_001.log", "my_002.log"]
    assert any("post-command '/usr/local/bin/collect --all' is not in double quotes" in w for w in warnings_of(result))


def test_execs_may_be_left_out_and_extra_fields_are_ignored():
    result, s = imported("a://x/1;b://y/2;;no;0;;;;;\na://x/1;b://y/2;;no;0;;;;;2;extra\n")
    assert [t.repeat for t in s.tests] == [1, 2] and [t.timeout_s for t in s.tests] == [None, None]
    assert warnings_of(result) == ["tests.csv:4:29: warning: fields after the tenth (execs) are ignored, as tgftp did"]


def test_fields_are_split_like_bash_read_a():
    assert split_fields("a;;b;") == (["a", "", "b"], [1, 3, 4])
    assert split_fields("a;b;;") == (["a", "b", ""], [1, 3, 5])
    assert split_fields(" a ; b") == ([" a ", " b"], [1, 5])


@settings(max_examples=80, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ;\\\t#\"")), max_size=16))
def test_field_split_matches_bash_read_a(line):
    out = subprocess.run(["bash", "--norc", "-c", 'IFS=";" read -r -a X <<< "$1"; printf "%s\\0" "${X[@]}"', "_", line],
                         capture_output=True, check=True)
    fields = out.stdout.decode().split("\0")[:-1]
    assert split_fields(line)[0] == (fields or [""] if line else [""])


def test_short_lines_empty_targets_and_blank_lines_are_skipped_with_line_numbers():
    result, s = imported("""\

        ;starts with an empty first field
        a://x/1;b://y/2;;no;0
        a://x/1;;;no;0;;;;;
        a://x/1;b://y/2;;no;0;;;;;
    """)
    assert [t.id for t in s.tests] == ["test-000"]  # numbering counts only the lines tgftp ran
    assert warnings_of(result) == [
        "tests.csv:5:1: warning: line has 5 field(s), fewer than the 9 tgftp needs (source;target;gsiftp-params;"
        "connection-test;timeout;log-filename;log-comment;pre-command;post-command[;execs]); skipped, as tgftp did",
        "tests.csv:6:9: warning: the target field is empty; line skipped, as tgftp did",
    ]
    assert "# gftpwb: skipped line 5 (fewer than 9 fields): a://x/1;b://y/2;;no;0" in result.text


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
        result = import_batchfile(f"#%tgftp%v{version}\n{line}", "c.csv")
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


def test_unquoted_hash_in_the_comment_dropped_the_rest_of_tgftps_command_line():
    result, s = imported("""\
        ftp://a/dev/zero;ftp://b/dev/null;-p 2 -len 1G;no;30;;#Domain1 to Domain2;/bin/prep;;
        ftp://a/dev/zero;ftp://b/dev/null;-len 1G # -p 8 was slower;no;30;;;;;
    """)
    first, second = s.tests
    assert first.comment == "#Domain1 to Domain2" and first.options.parallel == 2 and first.pre.argv == ("/bin/prep",)
    assert "tests.csv:3:55: warning: the log-comment starts with an unquoted '#': tgftp's shell read it as a shell " \
           "comment, so that test ran with an empty comment and without its pre-command, gsiftp-params; gftpwb " \
           "keeps the comment (put it in double quotes for tgftp)" in warnings_of(result)
    assert second.options.length == GIB and second.options.parallel is None  # '# -p 8 ...' is a shell comment
    assert any(w.startswith("tests.csv:4:68: warning: tgftp failed this test with a usage error (bug B1") for w in
               warnings_of(result))  # line 3's comment, even unquoted, set tgftp's sticky --log-comment
    assert "# gftpwb: line 4: gsiftp-params: '# -p 8 was slower' is a shell comment, ignored (as by tgftp)" \
        in result.text


def test_lost_quoting_in_params_and_shell_syntax_are_reported():
    result, s = imported("""\
        ftp://a/x;ftp://b/y;-len 1G -ss "/O=Grid/CN=host one";no;30;;;;;
        ftp://a/$HOME;ftp://b/y;-len 1G;no;30;;;;;
    """)
    assert s.tests[0].extra_args == ("-ss", "/O=Grid/CN=host one")
    warnings = warnings_of(result)
    assert any("tgftp lost the quoting of '/O=Grid/CN=host one'" in w for w in warnings)
    assert "tests.csv:4:1: warning: source: tgftp's shell would have expanded $HOME; gftpwb passes the text as it is" \
        in warnings


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
    result = import_batchfile(HEADER + "a://x/1;b://y/2;-len 1M;no;30;;;;;", "t.csv")
    assert result.tests == 1
    assert "never ran it" in str(result.warnings[-1]) and str(result.warnings[-1]).startswith("t.csv:3:")


def test_header_anywhere_and_autotune_batchfiles_are_noted():
    result = import_batchfile("# notes\n#%tgftp%v0.6.1\n#%tgftp_autotuning_batchfile\na://x/1;b://y/2;-vb -len 4G;"
                              "no;30;;;;;10\n", "a.csv")
    assert [str(w).split(": warning: ")[1][:40] for w in result.warnings] == [
        "the #%tgftp header should be the first l", "this is tgftp's generated auto-tuning ba"]


@pytest.mark.parametrize(("text", "message"), [
    ("a;b;c;no;0;;;;;\n", "b.csv:1:1: not a tgftp batchfile: no '#%tgftp%v<version>' header line"),
    ("#%tgftp%v0.3.0\n", "b.csv:1:10: unsupported tgftp batchfile version 'v0.3.0' (gftpwb reads batchfiles of "
                         "tgftp 0.4.x to 0.7.x)"),
    ("#%tgftp%v1.0.0\n", "b.csv:1:10: unsupported tgftp batchfile version 'v1.0.0'"),
    ("#%tgftp%v0.7.0\na://x;b://y;;maybe;0;;;;;\n", "b.csv:2:14: connection-test must be 'yes' or 'no', got 'maybe'"),
    ("#%tgftp%v0.7.0\na://x;b://y;;;0;;;;;\n", "b.csv:2:14: connection-test must be 'yes' or 'no', got empty"),
    ("#%tgftp%v0.7.0\na://x;b://y;;no;soon;;;;;\n", "b.csv:2:17: timeout must be a number of seconds"),
    ("#%tgftp%v0.7.0\na://x;b://y;;no;0;;;;;two\n", "b.csv:2:23: execs must be a whole number of executions, got "
                                                   "'two'"),
    ("#%tgftp%v0.7.0\na://x;b://y;;no;0;;;;;0\n", "b.csv:2:23: execs 0 runs nothing"),
    ('#%tgftp%v0.7.0\na://x;b://y;;no;0;;"#open;;;\n', "b.csv:2:20: log-comment: unterminated \" quote"),
    ("#%tgftp%v0.7.0\n# only comments\n", "b.csv:1:1: no test lines to import"),
])
def test_bad_input_is_a_positioned_error(text, message):
    errors = errors_of(text)
    assert any(e.startswith(message) for e in errors), errors


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
        assert out.returncode == 2 and out.stderr.startswith(f"{bad}:2:22: connection-test must be") and \
            "Traceback" not in out.stderr, command


def test_run_and_validate_read_batchfiles_directly(tmp_path):
    batch = tmp_path / "site.csv"
    batch.write_text(HEADER + "ftp://a/dev/zero;ftp://b/dev/null;-p 4;no;0;;;;;2\n")
    out = gftpwb("run", str(batch), "--dry-run")
    assert out.returncode == 0
    assert out.stdout.splitlines() == ["test-000/0: globus-url-copy -vb -p 4 ftp://a/dev/zero ftp://b/dev/null"] * 1 + \
        ["test-000/1: globus-url-copy -vb -p 4 ftp://a/dev/zero ftp://b/dev/null"]
    # the loader's own warning points at the batchfile line, not at the converted YAML
    assert f"{batch}:3: warning: test 'test-000' reads /dev/zero with no length and no timeout" in out.stderr
    assert gftpwb("validate", str(batch)).stdout.strip() == f"{batch}: ok (1 test(s), 2 run(s))"


def test_scenario_names_follow_the_batchfile_name():
    assert scenario_name_for("/x/y/tests.csv") == "tests.csv"
    assert scenario_name_for("my tests (old).csv") == "my_tests__old_.csv"
    result = import_batchfile(HEADER + "a://x/1;b://y/2;;no;0;;;;;\n", "dir/my tests.csv")
    assert result.name == "my_tests.csv" and "is not a valid name" in str(result.warnings[0])


# --- round trip: scenario -> batchfile -> scenario ------------------------------------------------

SAFE = string.ascii_letters + string.digits + "-_./:=+@%"
URL = st.from_regex(r"ftp://[a-z]{1,8}(:[0-9]{2,4})?/[a-z0-9/]{0,10}", fullmatch=True)
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
    back = load_scenario_text(import_batchfile(batch, "rt").text, "rt.yaml")
    assert behaviour(back) == behaviour(original)


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
        result = import_batchfile(text, "fuzz.csv")
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
    out = gftpwb("run", str(batch), "--resume", cwd=tmp_path)  # finds it although the name holds a dot
    assert out.returncode == 0 and "2 already done, resuming" in out.stdout


def test_the_shipped_example_batchfile_imports():
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scenarios" / "tgftp-example.csv"
    result, s = imported(path.read_text(), header="", name=path.name)
    assert [t.kind for t in s.tests] == ["guc", "guc", "connection-test"]
    assert [str(w).split(": warning: ")[1][:22] for w in result.warnings] == ["tgftp 0.7.0 left out -"]
