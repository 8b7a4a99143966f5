"""The simulated engine: a seeded link model that computes guc transfers instead of running them."""
