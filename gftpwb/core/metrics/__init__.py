"""Figures for Prometheus, pure: what a run's events and records become as metric families (names,
units and labels by Prometheus' conventions). The shell serves, pushes and writes them with the
official client library (:mod:`gftpwb.shell.metrics`)."""
