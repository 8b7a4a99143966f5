"""``kind: guc``: globus-url-copy transfers (options, argv, output parser, planner, report; runner in run/)."""
