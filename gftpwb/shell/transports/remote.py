"""How a process is started on a remote host: the wrapper command line and the marker it prints.

OpenSSH ignores channel signals in many versions, and closing a channel without a terminal leaves
the remote command running. So every remote command runs under a small POSIX sh wrapper that

* exports the environment and changes to the working directory, reporting failures as a marker;
* checks the program exists (a missing one is a start error, as locally), and behind ``stdbuf``
  the program it runs, so a host without guc says so rather than blaming stdbuf;
* starts the command with ``setsid`` in a process group of its own and prints
  ``@gftpwb-pgid <pgid>`` on stderr before anything else, so the controller can kill the whole
  group over a second channel (:func:`kill_command`);
* runs a watchdog that kills the group when the sshd session it was started from goes away
  (connection dropped, sshd killed, controller gone): nothing started by gftpwb outlives its
  connection by more than about a second.

The wrapper's exit status is the command's. Everything is passed as arguments of one ``sh -c``,
built with :func:`shlex.join`; no scenario value is ever pasted into shell text.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence

PGID_MARKER = b"@gftpwb-pgid "
ERROR_MARKER = b"@gftpwb-error "
WRAPPER_NAME = "gftpwb-wrap"  # $0 of the wrapper shell: lets tests (and people) find our processes

# $1 working directory ("" = none), $2 "1" = give the command our stdin, $3 number of VAR=value
# arguments that follow, then the command's argv.
WRAPPER = r"""
dir=$1 keep=$2 n=$3
shift 3
while [ "$n" -gt 0 ]; do
  export "$1" 2>/dev/null || { echo "@gftpwb-error cannot set environment variable ${1%%=*}" >&2; exit 125; }
  shift; n=$((n - 1))
done
if [ -n "$dir" ]; then
  cd "$dir" 2>/dev/null || { echo "@gftpwb-error cannot change to directory $dir" >&2; exit 125; }
fi
check() {
  case $1 in
    */*) if [ -d "$1" ] || [ ! -x "$1" ]; then echo "@gftpwb-error $1: not an executable file" >&2; exit 126; fi ;;
    *) command -v "$1" >/dev/null 2>&1 || { echo "@gftpwb-error $1: command not found" >&2; exit 127; } ;;
  esac
}
check "$1"
if [ "${1##*/}" = stdbuf ]; then
  launcher=1
  for word in "$@"; do
    if [ "$launcher" = 1 ]; then launcher=0; continue; fi
    case $word in -*) ;; *) check "$word"; break ;; esac
  done
fi
if [ "$keep" = 1 ]; then exec 3<&0; else exec 3</dev/null; fi
setsid sh -c 'echo "@gftpwb-pgid $$" >&2; exec "$@"' gftpwb-run "$@" <&3 3<&- &
child=$!
exec 3<&-
parent=$PPID
(
  nap=
  trap 'kill $nap 2>/dev/null; exit 0' TERM
  while kill -0 "$child" 2>/dev/null; do
    if ! kill -0 "$parent" 2>/dev/null; then
      kill -TERM -"$child" 2>/dev/null; sleep 2; kill -KILL -"$child" 2>/dev/null; exit 0
    fi
    sleep 1 & nap=$!
    wait $nap
  done
) </dev/null >/dev/null 2>&1 &
watchdog=$!
wait "$child"
status=$?
kill "$watchdog" 2>/dev/null
exit $status
"""


def wrapped_command(argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None,
                    stdin: bool = False) -> str:
    """The command line sent to sshd for ``argv``: ``exec /bin/sh -c WRAPPER ...`` with every part
    quoted by :func:`shlex.join` (``exec`` replaces the login shell, so the wrapper's parent is the
    sshd session the watchdog watches)."""
    if not argv:
        raise ValueError("empty argv")
    assignments = [f"{key}={value}" for key, value in (env or {}).items()]
    parts = ["/bin/sh", "-c", WRAPPER, WRAPPER_NAME, cwd or "", "1" if stdin else "0", str(len(assignments)),
             *assignments, *argv]
    return "exec " + shlex.join(parts)


def kill_command(pgid: int, grace_s: float) -> str:
    """SIGTERM the process group, give it ``grace_s`` seconds, then SIGKILL whatever is left."""
    if pgid <= 1:
        raise ValueError(f"refusing to signal process group {pgid}")
    steps = max(1, round(grace_s / 0.1))
    script = ('g=$1 steps=$2; kill -TERM -"$g" 2>/dev/null || exit 0; i=0; '
              'while kill -0 -"$g" 2>/dev/null && [ "$i" -lt "$steps" ]; do sleep 0.1; i=$((i + 1)); done; '
              'kill -KILL -"$g" 2>/dev/null; exit 0')
    return shlex.join(["/bin/sh", "-c", script, "gftpwb-kill", str(pgid), str(steps)])


def parse_marker(line: bytes) -> tuple[str, str] | None:
    """``("pgid", "1234")`` or ``("error", message)`` for a wrapper marker line, else None."""
    line = line.rstrip(b"\r\n")
    if line.startswith(PGID_MARKER):
        value = line[len(PGID_MARKER):].decode("ascii", "replace").strip()
        return ("pgid", value) if value.isdigit() else None
    if line.startswith(ERROR_MARKER):
        return ("error", line[len(ERROR_MARKER):].decode("utf-8", "replace").strip())
    return None
