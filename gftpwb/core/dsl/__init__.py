"""Scenario DSL: YAML with positions (yamlpos), the schema (keys, schema) and its messages
(diagnostics), the loader's checks and the typed model (loader, model)."""
