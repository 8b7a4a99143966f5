"""``kind: gfapi``: parallel small-file workers (settings, job, line protocol, tracker, statistics)."""
