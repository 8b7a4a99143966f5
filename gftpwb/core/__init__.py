"""The sans-I/O core: scenario DSL, planning, events, records, the kind registry, the journal and the
live state. No module here does I/O or imports the shell; none imports a kind (kinds are reached
through :mod:`gftpwb.core.registry`)."""
