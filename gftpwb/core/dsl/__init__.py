"""Scenario DSL: YAML with positions, JSON-Schema validation, and the typed model."""

from .loader import load_scenario, load_scenario_text
from .model import GucOptions, Scenario, Test

__all__ = ["GucOptions", "Scenario", "Test", "load_scenario", "load_scenario_text"]
