"""The nap kind's shell side."""
