"""Slurm as a way to run tests (pure part): the scenario's ``slurm:`` block and its node slots, the
command lines of salloc, srun and scancel, the task wrapper and its wire protocol, and readers of
what Slurm's commands print. The shell side is :mod:`gftpwb.shell.transports.slurm`."""
