"""Slurm as a transport: a scenario's node slots run on the nodes of an allocation, every run as one
job step started with srun (see :mod:`.launcher`)."""
