"""What the XRootD (``xrdcp``) and HTTP (``gfal-copy``) kinds share: a copy tool's options as DSL keys,
the model, planning, the run session and runner, the report. Each kind (``gftpwb/kinds/xrootd``,
``gftpwb/kinds/http``) is a :class:`~.tool.Tool` plus its entry point."""
