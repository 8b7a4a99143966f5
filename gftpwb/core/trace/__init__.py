"""Performance tracing in the NetLogger tradition: trace levels, spans and samples of runs
(``trace.jsonl``), per-I/O events of the workers in a compact binary form, and exports to NetLogger
BP text and Chrome/Perfetto trace JSON. Pure: the shell's trace sink and the CLI do the I/O."""
