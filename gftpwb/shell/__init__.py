"""The imperative shell: the executor and run context, transports (local, SSH, scripted), the
session and front-end service, sinks (journal file, tag logs, console), the lab, and the CLI."""
