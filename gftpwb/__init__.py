"""gftpwb: the GridFTP / GlusterFS performance workbench.

``gftpwb.core`` is the sans-I/O core (DSL, planning, events, records, the kind registry, the live
state); ``gftpwb.kinds`` holds one folder per test kind (its own modules are core, its ``run/`` is
shell); ``gftpwb.shell`` does I/O (executor, transports, sinks, session, front-end service, lab,
CLI); ``gftpwb.tui`` is the Textual workbench. ``tests/test_architecture.py`` enforces the layers
and docs/architecture.md draws them.
"""

__version__ = "0.1.0"
