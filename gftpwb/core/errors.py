"""Errors a user can cause, and the exit code each one maps to.

Hierarchy::

    GftpwbError                      exit code given by the subclass
    ├── UsageError                   2   bad command line (unknown test id, bad option value)
    ├── ScenarioError                2   invalid scenario: carries positioned Diagnostics
    ├── EnvironmentProblem           3   a tool or service this machine lacks (guc not installed), or
    │                                    a host fails a kind's preflight check (files: unreachable dir)
    ├── LabError                     4   the local lab could not be started, stopped or inspected
    ├── ResumeError                  5   --resume refused (scenario changed, no journal)
    ├── BusyError                    6   the results directory is in use by another gftpwb
    ├── StorageError                 7   results could not be written (disk full, read-only, ...)
    └── AllocationError             10   the Slurm allocation a scenario needs cannot be had (partition
                                         down, too many nodes, job gone, pending past its wait)

A run stopped by a signal exits with 128 + the signal's number, as shells report it: 130 for
Ctrl-C (SIGINT), 143 for SIGTERM, 129 for SIGHUP (the terminal or SSH session went away).

Runs that fail are not errors: they are results (exit code 1 from ``gftpwb run``; 8 when every run
passed but a threshold of ``expect:`` was not met; 9 when every run passed, every threshold was met,
but the last push to the pushgateway (``--pushgateway``) failed: the results are on disk all the
same). The CLI turns
every ``GftpwbError`` into one message on stderr and its exit code, never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK = 0
EXIT_RUNS_FAILED = 1
EXIT_INVALID_INPUT = 2
EXIT_ENVIRONMENT = 3
EXIT_LAB = 4
EXIT_RESUME = 5
EXIT_BUSY = 6
EXIT_STORAGE = 7
EXIT_ALLOCATION = 10
EXIT_HANGUP = 129  # 128 + SIGHUP
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 143  # 128 + SIGTERM
EXIT_STOPPED_BY = {"SIGHUP": EXIT_HANGUP, "SIGINT": EXIT_INTERRUPTED, "SIGTERM": EXIT_TERMINATED}
EXIT_EXPECTATIONS = 8  # every run passed, but a threshold (expect:) was not met
EXIT_PUSH_FAILED = 9  # the run's own code was 0, but its figures could not be pushed (--pushgateway)


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One problem found in an input file, at a 1-based line and column (0 when unknown)."""

    file: str
    line: int
    column: int
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file
        if self.line:
            where += f":{self.line}"
            if self.column:
                where += f":{self.column}"
        prefix = "" if self.severity == "error" else f"{self.severity}: "
        return f"{where}: {prefix}{self.message}"


class GftpwbError(Exception):
    """Base of every error a user can cause; ``exit_code`` is what the CLI returns."""

    exit_code = EXIT_INVALID_INPUT


class UsageError(GftpwbError):
    exit_code = EXIT_INVALID_INPUT


class ScenarioError(GftpwbError):
    """A scenario (or other input file) is invalid; ``diagnostics`` say where and why."""

    exit_code = EXIT_INVALID_INPUT

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class EnvironmentProblem(GftpwbError):
    exit_code = EXIT_ENVIRONMENT


class LabError(GftpwbError):
    exit_code = EXIT_LAB


class ResumeError(GftpwbError):
    exit_code = EXIT_RESUME


class BusyError(GftpwbError):
    """Another gftpwb holds the results directory (a second ``--resume`` of it, say)."""

    exit_code = EXIT_BUSY


class StorageError(GftpwbError):
    """Results could not be written; the message says what is on disk and what is not."""

    exit_code = EXIT_STORAGE


class AllocationError(GftpwbError):
    """The Slurm allocation a scenario needs cannot be had; raised before any run starts."""

    exit_code = EXIT_ALLOCATION
