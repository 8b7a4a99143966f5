"""The http kind's runner."""
