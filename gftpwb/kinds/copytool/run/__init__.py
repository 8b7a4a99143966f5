"""The shell side shared by the copy-tool kinds: one tool run per run (through a terminal)."""
