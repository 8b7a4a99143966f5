"""The pure parts of running on Slurm: the slurm: block and on: slurm, the command lines, the task
wrapper's protocol and the readers of what srun and salloc say."""

import textwrap

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.slurm.commands import salloc_argv, srun_argv, step_name
from gftpwb.core.slurm.messages import (
    StepMessages,
    parse_job_state,
    parse_partitions,
    parse_salloc_line,
    partition_problem,
    task_numbers,
)
from gftpwb.core.slurm.model import SlurmSetup, slot_index, slot_names
from gftpwb.core.slurm.wire import launch_words, parse_control, parse_hello

SCENARIO = """\
version: 1
name: s
slurm:
  nodes: 3
  on_failure: continue
  partition: debug
  time: 90s
  account: proj
  options: [--exclusive]
  step_options: [--cpu-bind=none]
  job: 1234
  conf: lab/slurm.conf
tests:
  - id: copy
    kind: guc
    on: slurm
    source: ftp://127.0.0.1:2811/dev/zero
    target: file:///dev/null
    options: {length: 1M}
  - id: small
    kind: gfapi
    on: [node1, node3]
    directory: /tmp/x
"""


def load(text: str):
    return load_scenario_text(textwrap.dedent(text), "/s/s.yaml")


def errors(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(text)
    return [str(d) for d in info.value.diagnostics]


def test_the_block_is_typed_and_on_slurm_is_every_slot():
    scenario = load(SCENARIO)
    assert scenario.slurm == SlurmSetup(nodes=3, tasks_per_node=1, partition="debug", time="90s", time_limit_min=2,
                                        account="proj", options=("--exclusive",), step_options=("--cpu-bind=none",),
                                        job="1234", on_failure="continue", conf="/s/lab/slurm.conf")
    assert scenario.tests[0].on == ("node1", "node2", "node3")
    assert scenario.tests[1].on == ("node1", "node3")
    assert scenario.is_slot("node2") and not scenario.is_slot("node4")
    specs = plan(scenario)
    assert [s.run_id for s in specs][:3] == ["copy/0@node1", "copy/0@node2", "copy/0@node3"]
    assert {s.group for s in specs[:3]} == {"copy/0"}
    assert "on: slurm" in scenario.text  # the stored scenario keeps what was written


def test_slots_beyond_the_nodes_and_on_slurm_without_a_block_are_errors_where_written():
    text = SCENARIO.replace("on: [node1, node3]", "on: [node1, node4]")
    assert errors(text) == ["/s/s.yaml:22:17: unknown host 'node4' (not in hosts, and not 'local'); did you mean "
                            "'node3'?"]
    without = SCENARIO.split("slurm:\n")[0] + "tests:" + SCENARIO.split("tests:")[1]
    assert errors(without) == ["/s/s.yaml:6:9: on: slurm runs on the nodes of a Slurm allocation; add a slurm: block "
                               "(nodes: N, on_failure: cancel or continue)"]


def test_the_policy_is_required_and_options_must_be_options():
    text = SCENARIO.replace("  on_failure: continue\n", "")
    assert any("'on_failure' is a required property" in e or "on_failure" in e for e in errors(text))
    text = SCENARIO.replace("options: [--exclusive]", "options: [exclusive]")
    assert errors(text) == ["/s/s.yaml:9:13: slurm.options[0]: 'exclusive' does not match '^-'"]


def test_inventory_hosts_may_not_take_slot_names():
    text = SCENARIO.replace("tests:", "hosts:\n  node2: {address: 10.0.0.2}\ntests:", 1)
    assert errors(text) == ["/s/s.yaml:14:3: host name 'node2' is taken by the slurm: block's nodes (node1..node3, "
                            "and 'slurm' for all of them); give the host another name"]


def test_slots():
    assert slot_names(3) == ("node1", "node2", "node3")
    assert [slot_index(n) for n in ("node1", "node12", "node0", "node01", "nodes", "h1")] == [0, 11, None, None,
                                                                                             None, None]


def test_command_lines():
    setup = SlurmSetup(nodes=2, tasks_per_node=4, partition="p", time_limit_min=5, account="a", options=("-C", "ib"))
    assert salloc_argv(setup) == ["salloc", "--no-shell", "--job-name=gftpwb", "--no-kill", "--nodes=2",
                                  "--ntasks-per-node=4", "--partition=p", "--time=5", "--account=a", "-C", "ib"]
    argv = srun_argv(setup, "12", ["n1", "n1", "n2"], ["prog", "x"], name=step_name("copy/0"))
    assert argv == ["srun", "--jobid=12", "--job-name=gftpwb:copy/0", "--overlap", "--overcommit", "--nodes=2",
                    "--ntasks=3",
                    "--nodelist=n1,n1,n2", "--distribution=arbitrary", "--kill-on-bad-exit=1", "--input=none",
                    "--label", "--quiet", "prog", "x"]
    go_on = SlurmSetup(nodes=1, on_failure="continue", step_options=("--cpu-bind=none",))
    assert srun_argv(go_on, "1", ["n1"], ["p"], name="x")[9:12] == ["--kill-on-bad-exit=0", "--no-kill",
                                                                    "--input=none"]
    assert step_name("a b;c") == "gftpwb:a_b_c"


def test_launch_words_carry_any_value_without_a_shell():
    words = launch_words(["printf", "%s\n", "a b", "$(rm -rf /)", ""], env={"X": "1 2"}, cwd="/tmp/x y", stdin=True,
                         grace_s=3)
    parts = words.split(b"\0")
    assert parts[-1] == b""
    assert parts[:-1] == [b"10", b"/tmp/x y", b"1", b"3", b"1", b"X=1 2", b"printf", b"%s\n", b"a b", b"$(rm -rf /)",
                          b""]
    with pytest.raises(ValueError):
        launch_words(["a\0b"])


def test_hello_and_control_lines():
    hello = parse_hello(b"gftpwb-task s3cr3t s4 2 out n3 12.5\n")
    assert hello is not None and (hello.step, hello.task, hello.channel, hello.node, hello.jobstep) == \
        ("s4", 2, "out", "n3", "12.5")
    for bad in (b"", b"gftpwb-task a b c out n1 1.1", b"gftpwb-task a b 1 in n1 1.1", b"\xff\xfe", b"hello"):
        assert parse_hello(bad) is None
    assert parse_control(b"started 4242\n").value == "4242"
    assert parse_control(b"exit 143\n").what == "exit"
    assert parse_control(b"error prog: command not found\n").value == "prog: command not found"
    assert parse_control(b"exit x\n") is None and parse_control(b"junk\n") is None


def test_srun_messages_name_the_node_and_the_task():
    said = StepMessages()
    for line in ["srun: error: n3: task 2: Exited with exit code 3",
                 "srun: launch/slurm: _step_signal: Terminating StepId=12.3",
                 "0: slurmstepd-n1: error: *** STEP 12.3 ON n1 CANCELLED AT 2026-11-27T20:46:48 ***",
                 "srun: error: n1: tasks 0-1,4: Terminated",
                 "srun: error: Node failure on n2",
                 " 7: @gftpwb-error task 7 on n4 cannot connect to the controller at 10.0.0.1:4000"]:
        said.feed(line + "\n")
    assert said.first_failure().node == "n3" and said.first_failure().exit_code == 3
    assert said.end_of(4).what == "Terminated" and said.end_of(4).exit_code is None
    assert said.end_of(9) is None
    assert said.failed_nodes == ["n2"]
    assert said.wrapper_errors == {7: "task 7 on n4 cannot connect to the controller at 10.0.0.1:4000"}
    assert task_numbers("0-2,5,[7-8]") == [0, 1, 2, 5, 7, 8]


def test_salloc_partition_and_job_readers():
    assert parse_salloc_line("salloc: Granted job allocation 12").granted == "12"
    assert parse_salloc_line("salloc: Pending job allocation 13").pending == "13"
    assert parse_salloc_line("salloc: Partition in DOWN state").hopeless
    assert parse_salloc_line("salloc: Requested partition configuration not available now").hopeless
    assert parse_salloc_line("salloc: error: Job submit/allocate failed: Invalid account").error == \
        "Job submit/allocate failed: Invalid account"
    parts = parse_partitions("PartitionName=lab Default=YES MaxNodes=UNLIMITED State=UP TotalNodes=4\n"
                             "PartitionName=big Default=NO MaxNodes=2 State=DOWN TotalNodes=64\n")
    assert partition_problem(parts, "", 4) == ""
    assert partition_problem(parts, "", 5) == "the scenario needs 5 nodes, and partition lab has 4"
    assert partition_problem(parts, "big", 1) == "partition big is DOWN: it starts no jobs"
    assert partition_problem(parts, "nope", 1) == "Slurm has no partition nope (partitions: lab, big)"
    assert parse_job_state("RUNNING|3|n[1-3]\n").node_count == 3
    assert parse_job_state("") is None


def test_an_iperf3_server_on_a_node_slot_needs_its_address():
    text = SCENARIO.split("tests:")[0] + """tests:
  - id: net
    kind: iperf3
    client: node1
    server: node2
"""
    assert errors(text) == ["/s/s.yaml:17:13: test 'net': the server runs on the Slurm node of slot 'node2', whose "
                            "address is known only when the allocation is; set server_address: (for the lab's "
                            "Slurm: 127.0.0.1)"]
    load(text.replace("server: node2", "server: node2\n    server_address: 10.1.1.2"))
