"""The shell side of the kind: its runner (server on one host, client on another)."""
