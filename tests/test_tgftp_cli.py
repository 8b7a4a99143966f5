"""The drop-in command lines: tgftp 0.7.0's and tgftp_log 0.2.0's parsing, texts and exit codes, and
gftpwb log / import taglogs / export taglogs / export batchfile. Runs against the fake guc here; the
real guc and server are in test_real_migration.py."""

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.clihelp import gftpwb

from gftpwb.converters.taglog import STANDARD_TAGS, format_taglog, get_attribute
from gftpwb.core.records import ResultRecord
from gftpwb.tgftp.args import TgftpUsage, parse_tgftp_args
from gftpwb.tgftp.log import Usage, parse_args

BIN = Path(sys.executable).parent


def test_tgftp_options_and_precedence():
    args = parse_tgftp_args(["-s", "ftp://a/x", "--target", "ftp://b/y", "-k", "30", "--log-filename", "l.log",
                             "--log-comment", "#c", "--pre-command", "p", "--post-command", "q",
                             "--force-log-overwrite", "--", "-p", "4", "--", "-len", "1G"])
    assert (args.source, args.target, args.value("--timeout|-k"), args.mode) == ("ftp://a/x", "ftp://b/y", "30",
                                                                                  "single")
    assert args.guc_params == ["-p", "4", "--", "-len", "1G"] and "--force-log-overwrite" in args.flags
    assert parse_tgftp_args(["-s", "a", "-t", "b", "-c"]).mode == "connection-test"
    assert parse_tgftp_args(["-s", "a", "-t", "b", "-c", "-a"]).mode == "auto-tune"
    assert parse_tgftp_args(["-s", "a", "-t", "b", "-a", "-f", "x"]).mode == "batch"
    assert parse_tgftp_args(["--", "-f", "pairs.txt", "-len", "1M"]).url_list_file() == "pairs.txt"
    assert parse_tgftp_args(["--", "-fast", "-f", "pairs.txt"]).url_list_file() == "pairs.txt"
    assert parse_tgftp_args(["-s", "a", "-t", "b", "-k", "soon"]).value("--timeout|-k") == "soon"  # tgftp took it
    assert parse_tgftp_args(["-s", "x", "--help", "--bogus"]).action == "help"
    assert parse_tgftp_args(["-V"]).action == "version"


@pytest.mark.parametrize(("argv", "message"), [
    (["--bogus"], ""),
    (["--autotune"], ""),  # tgftp's --help spells it so, but only --auto-tune works
    (["-s", "a"], ""),  # no target and no guc -f list
    ([], ""),
    (["-s", "a", "-t", "b", "--source", "c"], 'tgftp: the parameter "--source|-s" cannot be used multiple times!'),
    (["-c", "-s", "a", "-t", "b", "-c"], 'tgftp: the parameter "--connection-test|-c" cannot be used multiple times!'),
])
def test_tgftp_usage_errors(argv, message):
    with pytest.raises(TgftpUsage) as info:
        parse_tgftp_args(argv)
    assert info.value.message == message


def test_an_empty_argument_ends_tgftps_walk_like_its_while_loop():
    args = parse_tgftp_args(["-s", "a", "-t", "b", "", "--bogus"])
    assert args.source == "a" and args.mode == "single"


def test_tgftp_texts_and_exit_codes_through_gftpwb_tgftp(tmp_path):
    out = gftpwb("tgftp", "--version")
    assert (out.returncode, out.stdout) == (0, "tgftp - The GridFTP benchmark, test and transfer script v0.7.0\n")
    out = gftpwb("tgftp", "--help")
    assert out.returncode == 0 and "--connection-test|-c" in out.stdout and "--auto-tune|-a" in out.stdout
    out = gftpwb("tgftp", "--help-batchfile")
    assert out.returncode == 0 and "source;target;gsiftp-params;connection-test;timeout" in out.stdout
    out = gftpwb("tgftp", "--nonsense")
    assert out.returncode == 64 and out.stdout.startswith("\nusage: tgftp [--help] ||")
    out = gftpwb("tgftp", "-s", "a", "-t", "b", "-s", "c")
    assert out.returncode == 64 and 'the parameter "--source|-s" cannot be used multiple times!' in out.stderr
    out = gftpwb("tgftp", "-s", "ftp://a/x", "-a", cwd=tmp_path)  # -a needs both ends (the tuner: test_autotune_run)
    assert out.returncode == 64 and out.stdout.startswith("\nusage: tgftp [--help] ||")
    assert os.listdir(tmp_path) == []
    out = gftpwb("tgftp", "-f", str(tmp_path / "missing.csv"))
    assert out.returncode == 64 and "not existing!" in out.stderr


def test_existing_log_is_refused_before_anything_runs(tmp_path, fake_guc):
    (tmp_path / "x.log").write_text("old")
    out = gftpwb("tgftp", "-s", "ftp://a/dev/zero", "-t", "ftp://b/dev/null", "--log-filename", "x.log", "--",
                 "-len", "1M", cwd=tmp_path)
    assert out.returncode == 64
    assert out.stderr.strip() == 'tgftp: the logfile named "x.log" already exists! Refusing to overwrite!'
    assert (tmp_path / "x.log").read_text() == "old" and not (tmp_path / "argv.log").exists()
    out = gftpwb("tgftp", "-s", "ftp://a/dev/zero", "-t", "ftp://b/dev/null", "--log-filename", "x.log",
                 "--force-log-overwrite", "--", "-len", "3M", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "<GSIFTP_TRANSFER_RATE>" in (tmp_path / "x.log").read_text()


def test_single_test_with_the_fake_guc_prints_what_tgftp_prints(tmp_path, fake_guc):
    out = gftpwb("tgftp", "-s", "ftp://a/dev/zero", "-t", "ftp://b/dev/null", "--", "-p", "2", "-len", "3M",
                 cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    (log,) = [n for n in os.listdir(tmp_path) if n.endswith("_testgftp.sh.log")]
    assert lines[0] == "Source: ftp://fake/dev/" and lines[-1] == f'tgftp: please see "{log}" for details.'
    assert lines[-3].endswith(" MB/s") and lines[-3].split()[0].isdigit() and lines[-4] == ""
    assert "3145728 bytes" in out.stdout  # guc's output is shown as it comes, as tgftp's tee did
    calls = [ast.literal_eval(line) for line in (tmp_path / "argv.log").read_text().splitlines()]
    # exactly tgftp's argv (no -vb added), then tgftp's listing of the transfer
    assert calls[0] == ["-p", "2", "-len", "3M", "ftp://a/dev/zero", "ftp://b/dev/null"]
    assert calls[1][0] == "-do" and calls[1][1].endswith("_transferList") and calls[1][2:] == calls[0][-2:]
    assert not any(n.endswith("_transferList") for n in os.listdir(tmp_path))


def test_failure_is_exit_1_with_tgftps_message(tmp_path, fake_guc):
    out = gftpwb("tgftp", "-s", "ftp://a/x", "-t", "ftp://b/y", "--log-filename", "f.log",
                 cwd=tmp_path, env={"FAKE_GUC_MODE": "fail"})
    assert out.returncode == 1
    assert 'tgftp: "globus-url-copy" failed. Please see "f.log" for details.' in out.stderr
    assert "Unable to connect to 127.0.0.1:1" in out.stdout  # guc's error is shown as tgftp showed it


def test_the_console_scripts_are_installed():
    assert (BIN / "tgftp").exists() and (BIN / "tgftp_log").exists()


# --- tgftp_log and gftpwb log -------------------------------------------------------------------------


def write_log(tmp_path, name="a.log", **kw) -> Path:
    base = dict(scenario="s", test_id="a", run_id="a/0", case=0, repeat=0, kind="guc", host="local",
                argv=["globus-url-copy", "-len", "1G", "ftp://h/dev/zero", "ftp://h/dev/null"], status="passed",
                started_at="2026-11-21T23:59:26.000000+00:00", ended_at="2026-11-21T23:59:28.500000+00:00",
                bytes=1 << 30, rate_incl_setup_mib_s=409.6, seconds=2.5, comment="#lab", output="out\n")
    # the rate tag is tgftp's: 1024 MiB over the two whole seconds 23:59:26 -> 23:59:28, 512 MB/s
    base.update(kw)
    path = tmp_path / name
    path.write_text(format_taglog(ResultRecord(**base), "gftpwb run s.yaml"))
    return path


def run_tool(name: str, *args, cwd=None):
    import subprocess

    return subprocess.run([str(BIN / name), *args], capture_output=True, text=True, cwd=cwd, timeout=60)


def test_tgftp_log_drop_in(tmp_path):
    log = write_log(tmp_path)
    out = run_tool("tgftp_log", "-a", "GSIFTP_TRANSFER_RATE", "-f", str(log))
    assert (out.returncode, out.stdout, out.stderr) == (0, "512 MB/s\n", "")
    out = run_tool("tgftp_log", "--file", str(log), "--get-attribute", "GSIFTP_TRANSFER_ERROR")
    assert (out.returncode, out.stdout) == (0, "")
    assert out.stderr == f'tgftp_log: attribute "GSIFTP_TRANSFER_ERROR" not found in "{log}" or empty.\n'
    # as the real tgftp_log: a part of a name passes its check (a grep) and then is not found
    out = run_tool("tgftp_log", "-a", "RATE", "-f", str(log))
    assert (out.returncode, out.stdout) == (0, "")
    assert out.stderr == f'tgftp_log: attribute "RATE" not found in "{log}" or empty.\n'
    out = run_tool("tgftp_log", "-a", "transfer_rate", "-f", str(log))
    assert (out.returncode, out.stderr) == (1, 'tgftp_log: the attribute "transfer_rate" is not supported!\n')
    out = run_tool("tgftp_log", "-a", "GSIFTP_TRANSFER_RATE", "-f", str(tmp_path / "nope.log"))
    assert out.returncode == 1 and out.stderr == f'tgftp_log: the logfile "{tmp_path / "nope.log"}" does not exist!\n'
    out = run_tool("tgftp_log", "-a", "GSIFTP_TRANSFER_COMMAND_OUTPUT", "-f", str(log))
    assert out.stdout == "out\n"  # $(...) in tgftp_log drops the empty line tgftp leaves after the output
    assert run_tool("tgftp_log", "-a", "X").returncode == 1  # 2 arguments: usage
    assert run_tool("tgftp_log", "--version").stdout == "tgftp_log - v0.2.0\n"
    out = run_tool("tgftp_log", "--help")
    assert out.returncode == 0 and all(tag in out.stdout for tag in STANDARD_TAGS)
    with pytest.raises(Usage) as info:
        parse_args(["-a", "X", "-f", "y", "-a", "Z"])
    assert info.value.message == 'tgftp_log: the parameter "--get-attribute|-a" can not be used multiple times.'


def test_gftpwb_log_get_several_files_and_json(tmp_path):
    one = write_log(tmp_path, "one.log")
    two = write_log(tmp_path, "two.log", status="timeout", rate_incl_setup_mib_s=None)
    out = gftpwb("log", "get", "GSIFTP_TRANSFER_RATE", str(one), str(two))
    assert out.returncode == 0
    assert out.stdout == f"{one}:512 MB/s\n"
    assert out.stderr == f'gftpwb: attribute "GSIFTP_TRANSFER_RATE" not found in "{two}" or empty.\n'
    out = gftpwb("log", "get", "GSIFTP_TRANSFER_ERROR", str(one), str(two), "--json")
    data = json.loads(out.stdout)
    assert data == {"attribute": "GSIFTP_TRANSFER_ERROR", "files": [
        {"file": str(one), "found": False, "value": None, "error": None},
        {"file": str(two), "found": True, "value": 'ERROR: "globus-url-copy" failed.', "error": None}]}
    out = gftpwb("log", "get", "GSIFTP_TRANSFER_COMMAND_OUTPUT", str(one))
    assert out.stdout == "out\n"  # as tgftp_log prints it: trailing empty lines removed
    out = gftpwb("log", "get", "transfer_rate", str(one))
    assert out.returncode == 1 and "is not supported" in out.stderr and "Traceback" not in out.stderr
    out = gftpwb("log", "get", "GSIFTP_TRANSFER_RATE", str(one), str(tmp_path / "gone.log"))
    assert out.returncode == 1 and out.stdout == f"{one}:512 MB/s\n" and "does not exist" in out.stderr
    # gftpwb's own tags
    out = gftpwb("log", "get", "GFTPWB_STATUS", str(one), str(two))
    assert (out.returncode, out.stdout) == (0, f"{one}:passed\n{two}:timeout\n")
    out = gftpwb("log", "get", "GFTPWB_RATE_INCL_SETUP_MIB_S", str(one))
    assert out.stdout == "409.600\n"
    out = gftpwb("log", "get", "GFTPWB_NOPE", str(one))
    assert out.returncode == 1 and "GFTPWB_STATUS" in out.stderr


def test_gftpwb_log_list_attributes():
    out = gftpwb("log", "list-attributes")
    assert out.stdout.split()[:10] == list(STANDARD_TAGS) and "GFTPWB_RECORD" in out.stdout.split()[10:]
    assert json.loads(gftpwb("log", "list-attributes", "--json").stdout)[:10] == list(STANDARD_TAGS)


# --- records <-> tag logs through the CLI ------------------------------------------------------------


def test_import_taglogs_writes_a_results_directory_of_its_own(tmp_path):
    ours = write_log(tmp_path, "mine_#002_001.log", scenario="mine", run_id="x[1]/1", test_id="x")
    theirs = tmp_path / "site.csv_#004_000.log"
    theirs.write_text("<GSIFTP_TRANSFER_LOG_COMMENT>\n#old\n</GSIFTP_TRANSFER_LOG_COMMENT>\n"
                      "<GSIFTP_TRANSFER_COMMAND>\nglobus-url-copy -len 2G ftp://a/dev/zero ftp://b/dev/null\n"
                      "</GSIFTP_TRANSFER_COMMAND>\n<GSIFTP_TRANSFER_START>\n2012-01-01_10:00:00\n"
                      "</GSIFTP_TRANSFER_START>\n<GSIFTP_TRANSFER_END>\n2012-01-01_10:00:04\n</GSIFTP_TRANSFER_END>\n"
                      "<GSIFTP_TRANSFER_RATE>\n512 MB/s\n</GSIFTP_TRANSFER_RATE>\n")
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n")
    out = gftpwb("import", "taglogs", str(ours), str(theirs), str(junk), str(tmp_path / "missing.log"),
                 "--results-base", str(tmp_path / "results"))
    assert out.returncode == 2  # two files could not be read; the other two were imported
    assert f"{junk}: not a tgftp tag log" in out.stderr and "missing.log: cannot read" in out.stderr
    (directory,) = list((tmp_path / "results").iterdir())
    assert directory.name.endswith("-imported-imported")  # two scenarios -> the --scenario label
    records = [json.loads(line) for line in (directory / "results.jsonl").read_text().splitlines()]
    assert [(r["scenario"], r["run_id"], r["status"]) for r in records] == [("mine", "x[1]/1", "passed"),
                                                                            ("site.csv", "test-004/0", "passed")]
    assert records[1]["rate_incl_setup_mib_s"] == 512 and records[1]["bytes"] == 2 << 30
    meta = json.loads((directory / "meta.json").read_text())
    assert meta["imported"] is True and meta["runs"] == 2 and "plan_fingerprint" not in meta
    assert "2 record(s) imported" in out.stdout and "Results (rates in MiB/s)" in out.stdout


def test_export_taglogs_recreates_the_logs_from_the_journal(tmp_path, fake_guc):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("version: 1\nname: s\ndefaults: {source: ftp://a/dev/zero, target: ftp://b/dev/null, "
                        "options: {length: 3M}}\ntests:\n  - {id: a, kind: guc, repeat: 2, comment: '#c'}\n")
    results = tmp_path / "r"
    assert gftpwb("run", str(scenario), "--results", str(results)).returncode == 0
    originals = {p.name: p.read_text() for p in results.glob("*.log")}
    for path in results.glob("*.log"):
        path.unlink()
    out = gftpwb("export", "taglogs", str(results))
    assert out.returncode == 0 and out.stdout.strip() == f"2 tag log(s) written to {results}"
    assert {p.name: p.read_text() for p in results.glob("*.log")} == originals
    other = tmp_path / "elsewhere"
    assert gftpwb("export", "taglogs", str(results), "-o", str(other)).returncode == 0
    assert sorted(p.name for p in other.iterdir()) == sorted(originals)
    out = gftpwb("export", "taglogs", str(tmp_path))
    assert out.returncode == 2 and "is not a results directory" in out.stderr


def test_export_batchfile_round_trips_through_import(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("version: 1\nname: s\ntests:\n  - {id: a, kind: guc, source: ftp://a/dev/zero, target: "
                        "ftp://b/dev/null, options: {length: 1G}, matrix: {parallel: [1, 4]}, timeout: 30s, "
                        "comment: plain text, pre: {run: 'echo x > y', shell: true}}\n"
                        "  - {id: c, kind: connection-test, source: ftp://a/dev/zero, target: ftp://b/dev/null}\n")
    out = gftpwb("export", "batchfile", str(scenario), "-o", str(tmp_path / "s.csv"))
    assert out.returncode == 0, out.stderr
    assert "comment got a leading '#'" in out.stderr
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0] == "#%tgftp%v0.7.0"
    assert lines[-3:] == [
        'ftp://a/dev/zero;ftp://b/dev/null;-vb -p 1 -len 1G;no;30;;"#plain text";"echo x > y";;',
        'ftp://a/dev/zero;ftp://b/dev/null;-vb -p 4 -len 1G;no;30;;"#plain text";"echo x > y";;',
        "ftp://a/dev/zero;ftp://b/dev/null;;yes;;;true;;;"]  # a comment after one (tgftp's bug B1); what the
    # scenario does not say (repeat, the connection test's timeout) is an empty field: tgftp's default, as ours
    dry = gftpwb("run", str(tmp_path / "s.csv"), "--dry-run")
    assert dry.returncode == 0 and dry.stdout.splitlines()[1].startswith("test-001/0: globus-url-copy -vb -p 4")


def test_the_tgftp_log_drop_in_loads_nothing_but_itself(tmp_path):
    """Scripts call tgftp_log thousands of times: reading a log must not import the rest of gftpwb (the
    executor, asyncssh, Textual, Rich, YAML, the schema). Its speed is measured in bench/startup.py."""
    import subprocess

    log = write_log(tmp_path)
    script = ("import sys; before = set(sys.modules); from gftpwb.tgftp.log import main; "
              f"code = main(['-a', 'GSIFTP_TRANSFER_RATE', '-f', {str(log)!r}]); "
              "print(sorted(set(sys.modules) - before), file=sys.stderr); sys.exit(code)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert (out.returncode, out.stdout) == (0, "512 MB/s\n")
    # the package gftpwb.tgftp imports nothing itself (``__future__``: the annotations directive's module,
    # already loaded when an editable install's import hook did it first)
    loaded = set(ast.literal_eval(out.stderr.strip().splitlines()[-1])) - {"__future__"}
    assert sorted(loaded) == ["gftpwb", "gftpwb.tgftp", "gftpwb.tgftp.log"]


def test_a_timeout_coreutils_refuses_fails_the_test_without_running_guc(tmp_path, fake_guc):
    """tgftp handed the value to coreutils timeout, which refused it (exit 125) before guc ran."""
    out = gftpwb("tgftp", "-s", "ftp://a/dev/zero", "-t", "ftp://b/dev/null", "-k", "3S", "--log-filename", "k.log",
                 "--", "-len", "1M", cwd=tmp_path)
    assert out.returncode == 1 and 'tgftp: "globus-url-copy" failed. Please see "k.log" for details.' in out.stderr
    assert not (tmp_path / "argv.log").exists()  # the fake guc never ran
    log = (tmp_path / "k.log").read_text()
    assert get_attribute(log, "GSIFTP_TRANSFER_ERROR") == ['ERROR: "globus-url-copy" failed.']
    assert "refused the timeout value" in log


def test_shell_code_in_guc_parameters_is_refused_with_exit_69(tmp_path, fake_guc):
    out = gftpwb("tgftp", "-s", "ftp://a/dev/zero", "-t", "ftp://b/dev/null", "--", "-len $(echo 1M)", cwd=tmp_path)
    assert out.returncode == 69 and "command substitution" in out.stderr and not (tmp_path / "argv.log").exists()


def test_import_taglogs_masks_passwords_and_export_writes_them_masked(tmp_path):
    """A tgftp log holds the password verbatim; gftpwb stores and writes back ``user:***@``."""
    log = tmp_path / "pw.csv_#000_000.log"
    log.write_text("<GSIFTP_TRANSFER_LOG_COMMENT>\n\n</GSIFTP_TRANSFER_LOG_COMMENT>\n<TGFTP_COMMAND>\n"
                   "tgftp -s ftp://u:s3cr3t@a/dev/zero -t ftp://b/dev/null\n</TGFTP_COMMAND>\n"
                   "<GSIFTP_TRANSFER_COMMAND>\nglobus-url-copy -len 2G ftp://u:s3cr3t@a/dev/zero ftp://b/dev/null\n"
                   "</GSIFTP_TRANSFER_COMMAND>\n<GSIFTP_TRANSFER_START>\n2012-01-01_10:00:00\n"
                   "</GSIFTP_TRANSFER_START>\n<GSIFTP_TRANSFER_END>\n2012-01-01_10:00:04\n</GSIFTP_TRANSFER_END>\n"
                   "<GSIFTP_TRANSFER_RATE>\n512 MB/s\n</GSIFTP_TRANSFER_RATE>\n")
    out = gftpwb("import", "taglogs", str(log), "--results", str(tmp_path / "r"))
    assert out.returncode == 0, out.stderr
    stored = "".join(p.read_text() for p in (tmp_path / "r").iterdir() if p.is_file())
    assert "s3cr3t" not in stored and "ftp://u:***@a/dev/zero" in stored
    assert gftpwb("export", "taglogs", str(tmp_path / "r"), "-o", str(tmp_path / "e")).returncode == 0
    text = (tmp_path / "e" / log.name).read_text()
    assert "s3cr3t" not in text
    assert get_attribute(text, "GSIFTP_TRANSFER_COMMAND") == ["globus-url-copy -len 2G ftp://u:***@a/dev/zero "
                                                              "ftp://b/dev/null"]


def test_the_one_tag_log_writer_masks_unless_told_and_writes_undecodable_output_back(tmp_path):
    from gftpwb.shell.sinks.taglogs import write_taglog

    record = ResultRecord(scenario="s", test_id="t", run_id="t/0", case=0, repeat=0, kind="guc", host="local",
                          argv=["globus-url-copy", "ftp://u:pw@a/x", "ftp://b/y"], status="passed",
                          output="Source: ftp://u:pw@a/\n\udcff\n", taglog="t.log")
    masked = write_taglog(str(tmp_path), record)
    assert masked == str(tmp_path / "t.log")
    data = (tmp_path / "t.log").read_bytes()
    assert b"u:pw@" not in data and b"ftp://u:***@a/x" in data and b"\n\xff\n" in data
    faithful = write_taglog("", record, path=str(tmp_path / "sub.log"), masked=False)
    assert faithful == str(tmp_path / "sub.log") and b"Source: ftp://u:pw@a/" in (tmp_path / "sub.log").read_bytes()
    with pytest.raises(OSError):
        write_taglog("", record, path=str(tmp_path / "missing" / "x.log"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub.log", "t.log"]  # no temporary file left


@pytest.mark.parametrize(("value", "faithful", "warned"), [
    (None, False, False), ("1", True, False), ("yes", True, False), ("0", False, False), ("", False, False),
    ("please", False, True)])
def test_faithful_logs_are_asked_for_by_an_environment_variable(value, faithful, warned, capsys):
    from gftpwb.tgftp.run.dropin import FAITHFUL_LOGS_VAR, Screen, faithful_logs

    environ = {} if value is None else {FAITHFUL_LOGS_VAR: value}
    assert faithful_logs(environ, Screen()) is faithful
    assert ("is neither 1 nor 0" in capsys.readouterr().err) is warned


def test_end_like_tgftp_returns_codes_that_are_not_signals_and_130_of_a_single_test():
    from gftpwb.tgftp.run.dropin import end_like_tgftp

    for code in (0, 1, 64, 69, 79):
        assert end_like_tgftp(code, "batch") == code
    assert end_like_tgftp(130, "single") == 130 and end_like_tgftp(130, "connection-test") == 130
    # the other cases kill the process: tests/compat/test_compat_signals.py and test_real_migration.py


def test_auto_tune_without_guc_is_refused_at_once_by_the_front_end_preflight(tmp_path):
    """tgftp -a would run 370 transfers that all fail; the drop-in asks frontend.preflight first (exit 3)."""
    environ = {**os.environ, "PATH": str(tmp_path)}  # no globus-url-copy anywhere
    out = subprocess.run([str(BIN / "tgftp"), "-s", "ftp://a/dev/zero", "-t", "ftp://b/dev/null", "-a"],
                         capture_output=True, text=True, cwd=tmp_path, env=environ, timeout=60)
    assert out.returncode == 3, out.stderr
    assert "globus-url-copy not found in PATH" in out.stderr and "Traceback" not in out.stderr
    assert not (tmp_path / "results").exists()  # refused before a results directory was made


def test_the_masking_tee_masks_a_url_split_over_two_reads_and_keeps_other_bytes():
    from gftpwb.tgftp.run.screen import MaskingTee

    shown: list[tuple[str, str, bytes]] = []
    tee = MaskingTee(lambda role, stream, data: shown.append((role, stream, data)))
    tee("transfer", "stdout", b"Source: ftp://bob:s3c")
    assert shown == []  # no end of line yet: held, so the password is never shown in two halves
    tee("transfer", "stdout", b"r3t@host:2811/dev/\nDest:   file:///tmp/\xff\n  zero")
    tee("transfer", "stdout", b"  ->  null\r")
    tee("post", "stderr", b"ftp://u:pw@h/ no newline")
    tee.flush()
    text = b"".join(data for role, _, data in shown if role == "transfer")
    assert text == b"Source: ftp://bob:***@host:2811/dev/\nDest:   file:///tmp/\xff\n  zero  ->  null\r"
    assert ("post", "stderr", b"ftp://u:***@h/ no newline") in shown


def test_a_batchfile_run_by_the_drop_in_is_warned_about_as_validate_and_import_warn(tmp_path, fake_guc):
    """Where tgftp 0.7.0's bugs would have run a line otherwise (B2's empty first timeout, B1's sticky
    connection test, its connection test without -len 1), every path says so at file:line:col."""
    batch = tmp_path / "b.csv"
    batch.write_text("#%tgftp%v0.7.0\n"
                     "ftp://a/dev/zero;ftp://b/dev/null;-len 1M;no;;;;;;1\n"
                     "ftp://a/dev/zero;ftp://b/dev/null;;yes;30;;;;;\n"
                     "ftp://a/dev/zero;ftp://b/dev/null;-len 1M;no;30;;;;;1\n")
    validated = gftpwb("validate", str(batch), cwd=tmp_path)
    assert validated.returncode == 0, validated.stderr
    expected = validated.stderr.splitlines()
    assert [line.split(": warning: ")[0] for line in expected] == [f"{batch}:2:46", f"{batch}:3:36", f"{batch}:4:43"]
    dropin = gftpwb("tgftp", "-f", str(batch), cwd=tmp_path)
    assert dropin.returncode == 0, dropin.stderr
    assert [line for line in dropin.stderr.splitlines() if ": warning: " in line] == expected
    assert "warning" not in dropin.stdout
