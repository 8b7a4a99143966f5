"""The shell side of the kind: its runner."""
