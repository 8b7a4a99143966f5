"""Polled monitors, pure: what a scenario's ``monitors:`` ask for (:mod:`.model`), the
sampler that runs once per host and streams raw readings (:mod:`.sampler`: its POSIX sh script and
the parser of its output), the parsers of those readings (:mod:`.procfs`, :mod:`.ss`,
:mod:`.numbers`), the figures made from successive readings (:mod:`.readers`), host clocks mapped
onto the controller's (:mod:`.timeline`) and the summary of the samples during a run
(:mod:`.summary`). The shell side (:mod:`gftpwb.shell.monitors`) starts the samplers and writes
``monitors.jsonl``."""
