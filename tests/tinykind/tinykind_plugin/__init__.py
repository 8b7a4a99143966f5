"""A tiny third-party kind: ``kind: nap``."""
