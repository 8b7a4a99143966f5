"""``kind: autotune``: candidates, strategies, statistics, ranking and the tie rule; runner in run/."""
