"""The gftpwb command line: the parser (no heavy imports) and the handlers of its commands."""
