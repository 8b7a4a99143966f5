"""pre / post / comment_command: the DSL, the argv-or-shell rule, and the order around a run.

The runs here use the fake guc (fast); the commands themselves are real programs started through the
executor's transport. test_real_migration.py runs the same paths with the real guc and server.
"""

import asyncio
import os
import textwrap

import pytest
from support.polling import eventually_async

from gftpwb.core.bus import EventBus
from gftpwb.core.commands import Command, from_dsl, from_shell_text, is_plain, to_dsl
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.events import Notice, RunFinished, RunStarted
from gftpwb.core.plan import plan
from gftpwb.shell.executor import Executor


def scenario(tests: str, defaults: str = ""):
    text = textwrap.dedent("""\
        version: 1
        name: hooks
        defaults:
          source: ftp://fake/dev/zero
          target: ftp://fake/dev/null
          options: {length: 3M}
        """) + defaults + "tests:\n" + textwrap.dedent(tests)
    return load_scenario_text(text, "h.yaml")


def errors_of(tests: str, defaults: str = "") -> list[str]:
    with pytest.raises(ScenarioError) as info:
        scenario(tests, defaults)
    return [str(d) for d in info.value.diagnostics]


def test_commands_are_argv_lists_unless_a_shell_is_named():
    s = scenario("""\
        - id: a
          kind: guc
          pre: [sysctl, -n, net.ipv4.tcp_congestion_control]
          post: {run: "echo done > post.txt", shell: true, timeout: 5s}
          comment_command: {run: "uname -r | tr -d .", shell: bash}
    """)
    (test,) = s.tests
    assert test.pre == Command(argv=("sysctl", "-n", "net.ipv4.tcp_congestion_control"))
    assert test.pre.program_argv() == ("sysctl", "-n", "net.ipv4.tcp_congestion_control")
    assert test.post.program_argv() == ("/bin/sh", "-c", "echo done > post.txt") and test.post.timeout_s == 5
    assert test.comment_command.program_argv() == ("bash", "-c", "uname -r | tr -d .")
    (spec,) = plan(s)
    assert (spec.pre, spec.post, spec.comment_command) == (test.pre, test.post, test.comment_command)


def test_a_string_without_shell_and_a_list_with_shell_are_refused_where_written():
    errs = errors_of("""\
        - id: a
          kind: guc
          pre: {run: "echo hi > f"}
          post: {run: [echo, hi], shell: true}
    """)
    assert errs == [
        "h.yaml:10:14: tests[0].pre: run is one string, which only a shell can read; write it as a list of "
        "arguments, or add shell: true to run it as shell code",
        "h.yaml:11:15: tests[0].post: with shell, run must be one string of shell code, not a list",
    ]


def test_commands_in_defaults_are_checked_and_inherited():
    assert errors_of("- {id: a, kind: guc}\n", "  pre: {run: x}\n")[0].startswith("h.yaml:7:14: defaults.pre: run is")
    s = scenario("- {id: a, kind: guc}\n- {id: b, kind: guc, pre: ['true']}\n", "  pre: [hostname]\n")
    assert [t.pre.argv for t in s.tests] == [("hostname",), ("true",)]


def test_empty_commands_and_bad_shell_names_are_schema_errors():
    errs = errors_of("- {id: a, kind: guc, pre: [], post: {run: x, shell: 'sh; rm'}}\n")
    assert any("tests[0].pre: must not be empty" in e for e in errs)
    assert any("tests[0].post.shell" in e for e in errs)


def test_plain_words_become_argv_and_shell_syntax_stays_shell_code():
    assert from_shell_text("/usr/local/bin/prepare.sh --fast") == Command(argv=("/usr/local/bin/prepare.sh", "--fast"))
    for text in ("sysctl -n x > out.txt", "a | b", "echo $HOME", "FOO=1 run", "rm *.tmp", "echo 'a b'", "x; y",
                 "~/bin/x", "echo `date`"):
        assert not is_plain(text), text
        assert from_shell_text(text) == Command(script=text, shell="bash")
    assert to_dsl(from_dsl({"run": "a > b", "shell": True})) == {"run": "a > b", "shell": True}
    assert to_dsl(from_dsl(["a", "b c"])) == ["a", "b c"]


# --- around a run (fake guc, real commands) --------------------------------------------------------


def run(s, tmp_path):
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        asyncio.run(Executor(bus).run(plan(s), results_dir=str(tmp_path), scenario=s.name))
    finally:
        os.chdir(cwd)
    return events, [e.record for e in events if isinstance(e, RunFinished)]


def test_order_pre_transfer_comment_post_and_what_is_recorded(fake_guc, tmp_path):
    trace = tmp_path / "trace"
    s = scenario(f"""\
        - id: a
          kind: guc
          pre: {{run: "echo pre >> {trace}; echo pre-err >&2", shell: true}}
          comment_command: {{run: "echo comment >> {trace}; echo cubic", shell: true}}
          post: {{run: "echo post >> {trace}", shell: true}}
          comment: "#static"
    """)
    events, (record,) = run(s, tmp_path)
    assert record.status == "passed"
    assert trace.read_text().split() == ["pre", "comment", "post"]
    assert record.comment == "#static\ncubic"
    commands = record.details["commands"]
    assert list(commands) == ["pre", "comment_command", "post"]
    assert commands["pre"]["exit_code"] == 0 and commands["pre"]["stderr"] == "pre-err\n"
    assert commands["comment_command"]["stdout"] == "cubic\n"
    # pre ran before timing started: the run's own start event comes after it, and only once
    assert sum(isinstance(e, RunStarted) for e in events) == 1


def test_failing_pre_fails_the_run_without_starting_the_transfer(fake_guc, tmp_path):
    s = scenario("""\
        - id: a
          kind: guc
          pre: {run: "echo 'no route to lab' >&2; exit 3", shell: true}
          post: [touch, post-ran]
    """)
    events, (record,) = run(s, tmp_path)
    assert record.status == "failed"
    assert record.error == "pre command failed (exit status 3: no route to lab); the transfer was not started"
    assert record.details["commands"]["pre"]["exit_code"] == 3
    assert "post" not in record.details["commands"] and not (tmp_path / "post-ran").exists()
    assert not (tmp_path / "argv.log").exists()  # the fake guc never ran
    assert [type(e).__name__ for e in events if isinstance(e, RunStarted | RunFinished)] == ["RunStarted",
                                                                                             "RunFinished"]


def test_missing_pre_program_and_pre_timeout_are_failures_too(fake_guc, tmp_path):
    s = scenario("""\
        - {id: a, kind: guc, pre: [/nonexistent/prepare]}
        - {id: b, kind: guc, pre: {run: [sleep, "30"], timeout: 200ms}}
    """)
    _, (missing, slow) = run(s, tmp_path)
    assert missing.status == "failed" and "could not start: /nonexistent/prepare: command not found" in missing.error
    assert slow.status == "failed" and "timed out after 0.2s" in slow.error


def test_post_runs_only_after_success_and_its_failure_is_a_warning(fake_guc, tmp_path, monkeypatch):
    s = scenario("""\
        - {id: ok, kind: guc, post: {run: "exit 4", shell: true}}
    """)
    events, (record,) = run(s, tmp_path)
    assert record.status == "passed" and record.details["commands"]["post"]["exit_code"] == 4
    assert any(isinstance(e, Notice) and "post command failed (exit status 4)" in e.text for e in events)

    monkeypatch.setenv("FAKE_GUC_MODE", "fail")
    s = scenario("""\
        - {id: bad, kind: guc, post: [touch, post-ran], comment_command: [echo, after failure]}
    """)
    _, (record,) = run(s, tmp_path)
    assert record.status == "failed" and not (tmp_path / "post-ran").exists()
    assert record.comment == "after failure"  # tgftp evaluated the comment after a failure too
    assert "post" not in record.details["commands"]


async def test_ctrl_c_during_pre_records_an_interrupted_run_and_stops_the_command(fake_guc, tmp_path):
    s = scenario(f"""\
        - {{id: a, kind: guc, pre: {{run: "echo $$ > {tmp_path}/pid; exec sleep 60", shell: true}}}}
    """)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, kill_grace_s=0.5)
    task = asyncio.create_task(executor.run(plan(s), results_dir=str(tmp_path), scenario="hooks"))
    pid_file = tmp_path / "pid"
    await eventually_async(lambda: pid_file.exists() and pid_file.read_text().strip(), "the pre command started")
    executor.stop()
    summary = await asyncio.wait_for(task, 10)
    assert summary.interrupted
    (record,) = [e.record for e in events if isinstance(e, RunFinished)]
    assert record.status == "interrupted" and "during the pre command" in record.error
    pid = int(pid_file.read_text())
    await eventually_async(lambda: not os.path.exists(f"/proc/{pid}"), "the pre command stopped and reaped")


def test_a_pre_command_that_may_fail_lets_the_transfer_run_with_a_warning(fake_guc, tmp_path):
    s = scenario("""\
        - id: a
          kind: guc
          pre: {run: "exit 5", shell: bash, on_failure: continue}
          post: [touch, post-ran]
    """)
    events, (record,) = run(s, tmp_path)
    assert record.status == "passed" and (tmp_path / "argv.log").exists() and (tmp_path / "post-ran").exists()
    assert record.details["commands"]["pre"]["exit_code"] == 5
    assert any(isinstance(e, Notice) and "pre command failed (exit status 5)" in e.text and "runs anyway" in e.text
               for e in events)


def test_on_failure_is_for_pre_only():
    assert errors_of("""\
        - {id: a, kind: guc, post: {run: [touch, x], on_failure: continue}}
    """)[0].endswith("tests[0].post: on_failure is for pre only (a post command never fails the run)")
