"""How a task of a job step talks to the controller: the task wrapper and its protocol. Pure.

srun's own I/O forwarding is line-based and lossy for our purposes (``--label`` breaks lines longer
than 1024 bytes and adds a newline to output that ends without one; without it the tasks' streams
are mixed), and its standard input goes to one task or to all. So every task of a step gftpwb starts
runs the bash wrapper :data:`TASK_WRAPPER`, which connects back to the controller over TCP (bash's
``/dev/tcp``; the address srun gives its tasks, ``SLURM_SRUN_COMM_HOST``, which nodes already reach
since srun's own I/O needs it) with three connections, each opened by a hello line
(:func:`hello_line`):

* ``ctl``: the controller sends the task's launch (:func:`launch_words`: working directory, whether
  it gets stdin, the stop grace, environment, argv; NUL-separated words, count first, so no value is
  ever shell text); the task answers ``started <pgid>`` or ``error <text>``, and at its end
  ``exit <status>``. The controller may send ``stop``: the wrapper SIGTERMs the program's process
  group, and SIGKILLs it after the grace. When the connection closes (the controller went away, or
  gave up on the task) the wrapper does the same: nothing outlives its controller.
* ``out``: the program's stdout, byte for byte, and (when asked) its stdin: what the controller
  writes there, per task.
* ``err``: the program's stderr, byte for byte.

The program's stdout and stderr are pipes (a ``cat`` each copies them to the connections), as over
SSH: a program that opens ``/dev/stderr`` (libgfapi's log) cannot open a socket that way.

The program runs under ``setsid`` in a process group of its own (slurmstepd still tracks it:
``proctrack/linuxproc`` follows parents, not sessions). The wrapper exits with the program's status,
so srun's ``--kill-on-bad-exit`` sees a failed program, except when gftpwb stopped it (then 0: a
stop is not a failure that should cancel the step). A secret per controller, sent in every
hello, keeps other local users from attaching to a task's streams.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

HELLO = "gftpwb-task"
CHANNELS = ("ctl", "out", "err")
WRAPPER_NAME = "gftpwb-task"  # $0 of every task's bash: ps and pgrep find gftpwb's tasks by it
CONNECT_FAILED = 90  # the wrapper's exit status when it cannot reach the controller
LAUNCH_FAILED = 91  # ... when the launch words did not arrive
MAX_HELLO = 512

# $1 address ("" = $SLURM_SRUN_COMM_HOST), $2 port, $3 secret, $4 step.
TASK_WRAPPER = r"""
addr=${1:-${SLURM_SRUN_COMM_HOST:-$SLURM_LAUNCH_NODE_IPADDR}} port=$2 secret=$3 step=$4
task=${SLURM_PROCID:-0} node=${SLURMD_NODENAME:-$(hostname -s)} jobstep=${SLURM_JOB_ID:-0}.${SLURM_STEP_ID:-0}
trap '' PIPE
hello() { printf 'gftpwb-task %s %s %s %s %s %s\n' "$secret" "$step" "$task" "$1" "$node" "$jobstep"; }
{ exec 5<>"/dev/tcp/$addr/$port"; } 2>/dev/null || {
  echo "@gftpwb-error task $task on $node cannot connect to the controller at $addr:$port"; exit 90; }
hello ctl >&5
IFS= read -r -d '' count <&5 || exit 91
words=()
while [ "${#words[@]}" -lt "$count" ]; do IFS= read -r -d '' w <&5 || exit 91; words+=("$w"); done
dir=${words[0]} keep=${words[1]} grace=${words[2]} nenv=${words[3]}
envs=("${words[@]:4:$nenv}") argv=("${words[@]:$((4 + nenv))}")
fail() { printf 'error %s\n' "$2" >&5; exit "$1"; }
for e in "${envs[@]}"; do export "$e" 2>/dev/null || fail 125 "cannot set environment variable ${e%%=*}"; done
if [ -n "$dir" ]; then cd "$dir" 2>/dev/null || fail 125 "cannot change to directory $dir"; fi
check() {
  case $1 in
    */*) if [ -d "$1" ] || [ ! -x "$1" ]; then fail 126 "$1: not an executable file"; fi ;;
    *) command -v "$1" >/dev/null 2>&1 || fail 127 "$1: command not found" ;;
  esac
}
check "${argv[0]}"
if [ "${argv[0]##*/}" = stdbuf ]; then
  for w in "${argv[@]:1}"; do case $w in -*) ;; *) check "$w"; break ;; esac; done
fi
{ exec 3<>"/dev/tcp/$addr/$port"; } 2>/dev/null || fail 90 "cannot open the output connection"
hello out >&3
{ exec 4<>"/dev/tcp/$addr/$port"; } 2>/dev/null || fail 90 "cannot open the error connection"
hello err >&4
if [ "$keep" = 1 ]; then in=3; else exec 6</dev/null; in=6; fi
# "started" comes from inside the new session, so the process group a stop kills exists by then
setsid /bin/sh -c 'printf "started %s\n" "$$" >&5; exec 5>&-; exec "$@"' gftpwb-run "${argv[@]}" \
  <&"$in" > >(exec cat >&3 4>&- 5<&-) 2> >(exec cat >&4 3>&- 5<&-) 3>&- 4>&- 6<&- &
child=$!
exec 3>&- 4>&-
(
  while IFS= read -r line <&5; do [ "$line" = stop ] && break; done
  trap '' TERM
  kill -TERM -- -"$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || exit 7
  i=0 steps=$(( ${grace%.*} * 10 + 1 ))
  while kill -0 -- -"$child" 2>/dev/null && [ "$i" -lt "$steps" ]; do sleep 0.1; i=$((i + 1)); done
  kill -KILL -- -"$child" 2>/dev/null
  exit 7
) </dev/null >/dev/null 2>&1 &
watcher=$!
wait "$child"
status=$?
kill "$watcher" 2>/dev/null
wait "$watcher"
stopped=$?  # 7: the watcher stopped the program (asked to, or the controller went away)
printf 'exit %s\n' "$status" >&5
if [ "$stopped" = 7 ]; then exit 0; fi  # a stop is not a failure for srun's --kill-on-bad-exit
exit "$status"
"""


def wrapper_argv(address: str, port: int, secret: str, step: str) -> list[str]:
    """The program every task of a step runs (its words after srun's options)."""
    return ["bash", "--noprofile", "--norc", "-c", TASK_WRAPPER, WRAPPER_NAME, address, str(port), secret, step]


def launch_words(argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None,
                 stdin: bool = False, grace_s: float = 2.0) -> bytes:
    """What the controller sends on a task's ``ctl`` connection: NUL-terminated words, their count first."""
    if not argv:
        raise ValueError("empty argv")
    assignments = [f"{key}={value}" for key, value in (env or {}).items()]
    words = [cwd or "", "1" if stdin else "0", str(max(0, int(grace_s))), str(len(assignments)), *assignments,
             *argv]
    for word in words:
        if "\0" in word:
            raise ValueError("a NUL byte cannot be passed in an argument")
    return b"".join(w.encode() + b"\0" for w in [str(len(words)), *words])


@dataclass(frozen=True)
class Hello:
    secret: str
    step: str  # gftpwb's name of the step
    task: int  # SLURM_PROCID
    channel: str
    node: str  # SLURMD_NODENAME
    jobstep: str  # SLURM_JOB_ID.SLURM_STEP_ID (what scancel takes)


def hello_line(secret: str, step: str, task: int, channel: str, node: str, jobstep: str) -> bytes:
    return f"{HELLO} {secret} {step} {task} {channel} {node} {jobstep}\n".encode()


def parse_hello(line: bytes) -> Hello | None:
    """The hello a task's connection opens with; None for anything else."""
    try:
        words = line.decode("ascii").split()
    except UnicodeDecodeError:
        return None
    if len(words) != 7 or words[0] != HELLO or words[4] not in CHANNELS or not words[3].isdigit():
        return None
    return Hello(secret=words[1], step=words[2], task=int(words[3]), channel=words[4], node=words[5],
                 jobstep=words[6])


@dataclass(frozen=True)
class ControlMessage:
    """``started`` (value: the pgid), ``error`` (value: why it could not start) or ``exit`` (the status)."""

    what: str
    value: str


def parse_control(line: bytes) -> ControlMessage | None:
    text = line.decode("utf-8", "replace").rstrip("\r\n")
    what, _, value = text.partition(" ")
    if what in ("started", "exit") and value.strip().lstrip("-").isdigit():
        return ControlMessage(what, value.strip())
    if what == "error":
        return ControlMessage(what, value.strip() or "the task could not start")
    return None


STOP = b"stop\n"
