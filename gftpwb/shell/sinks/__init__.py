"""Sinks: subscribers of the event bus that write results somewhere (journal, tag logs, console)."""
