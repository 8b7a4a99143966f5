"""gftpwb.tui: the Textual workbench (installed from the repository's ``tui/`` folder).

It consumes the same events as the headless console (:mod:`gftpwb.core.events`) and owns no domain
logic. The package exists from the start so packaging and the import-hygiene rules cover it.
"""
