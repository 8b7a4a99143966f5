"""Drivers: per test kind, how to build argv and how to turn streamed output into results (pure)."""
