"""``kind: connection-test``: tgftp's connection test, guc's -dbg conversation read step by step."""
