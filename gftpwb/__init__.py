"""gftpwb: the GridFTP / GlusterFS performance workbench.

The package is split into a sans-I/O core (``dsl``, ``plan``, ``drivers``, ``events``, ``records``,
``units``, ``rates``, ``converters``) and a shell (``exec``, ``sinks``, ``cli``, ``tui``). The core
never imports asyncio, subprocess, asyncssh or textual; ``tests/test_architecture.py`` enforces it.
"""

__version__ = "0.1.0"
